#!/usr/bin/env bash
# X3D JSON read time against nesting: the same 4 MB field one node deep and
# 499 nodes deep, `x3dbake inspect` on each (the median of RUNS runs), and
# their ratio (about 1: the reader's work grows with the bytes, not with
# bytes × depth as the serde_json reader it replaced did).
# Usage: bench/deep_json.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build --release --quiet --bin x3dbake
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys
numbers = ", ".join(["0.125, -1, 2.5"] * 300_000)
for depth in (1, 499):
    inner = '{"PositionInterpolator":{"@key":[0,1],"@keyValue":[%s]}}' % numbers
    for _ in range(depth - 1):
        inner = '{"Group":{"-children":[%s]}}' % inner
    open(f"{sys.argv[1]}/d{depth}.x3dj", "w").write('{"X3D":{"Scene":{"-children":[%s]}}}' % inner)
PY
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_of() {
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    ./target/release/x3dbake inspect -q "$1" > /dev/null
    end=$(date +%s%N)
    echo "($end - $start) / 1000000000" | bc -l
  done | median
}
one=$(time_of "$tmp/d1.x3dj")
deep=$(time_of "$tmp/d499.x3dj")
printf '1 deep %.3f s, 499 deep %.3f s, ratio %.2f\n' "$one" "$deep" "$(echo "$deep / $one" | bc -l)"
