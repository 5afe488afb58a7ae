#!/usr/bin/env bash
# Reading throughput: generates a float-heavy .x3d (50 MB by default) and
# times `x3dbake inspect` on it (best of N runs), printing MB/s.
# Usage: bench/run.sh [SIZE_MB] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-50}
runs=${2:-5}
mkdir -p target/bench
big=target/bench/big-${size}mb.x3d
[ -f "$big" ] || python3 bench/gen_big.py "$big" "$size"
cargo build --release --quiet
bytes=$(stat -c %s "$big")
best=
for _ in $(seq "$runs"); do
  start=$(date +%s.%N)
  ./target/release/x3dbake inspect --quiet "$big" > /dev/null
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc -l)
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
done
peak=$( { /usr/bin/time -f %M ./target/release/x3dbake inspect --quiet "$big" > /dev/null; } 2>&1 | tail -1)
printf 'input %s: %.1f MB\n' "$big" "$(echo "$bytes / 1000000" | bc -l)"
printf 'read + inspect, best of %d: %.3f s = %.0f MB/s\n' "$runs" "$best" "$(echo "$bytes / 1000000 / $best" | bc -l)"
printf 'peak memory: %.0f MB (%.2f x input)\n' "$(echo "$peak / 1000" | bc -l)" "$(echo "$peak * 1024 / $bytes" | bc -l)"
