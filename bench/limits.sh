#!/usr/bin/env bash
# Speed and memory against a floor, at 10, 42 and 200 MB (issue 43's table):
# the floor (examples/floor.rs: read the file and parse every number with
# fast-float2, one thread), a default bake to .glb, CSV to /dev/null and
# `inspect`, each the median of RUNS runs, as times and as ratios to the
# floor; peak memory as a ratio to the input. Inputs from bench/gen_big.py.
# Usage: bench/limits.sh [RUNS] [SIZES_MB...]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 42 200)
cargo build --release --quiet --bin x3dbake --example floor
bin=./target/release/x3dbake
floor=./target/release/examples/floor
mkdir -p target/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median TIME and largest PEAK_KB of a command run $runs times
median() {
  local times=() peak=0
  for _ in $(seq "$runs"); do
    local start end m
    start=$(date +%s%N)
    /usr/bin/time -o "$tmp/time" -f '%M' "$@" > /dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=("$(echo "($end - $start) / 1000000000" | bc -l)")
    m=$(tail -1 "$tmp/time")
    [ "$m" -gt "$peak" ] && peak=$m
  done
  printf '%s\n' "${times[@]}" | sort -g | awk -v n="$runs" -v p="$peak" \
    '{ t[NR] = $1 } END { printf "%.3f %d\n", t[int((n + 1) / 2)], p }'
}

printf '%-8s %-28s %9s %9s %12s\n' size what time "x floor" "peak x input"
for mb in "${sizes[@]}"; do
  f=target/bench/big-${mb}mb.x3d
  [ -f "$f" ] || python3 bench/gen_big.py "$f" "$mb"
  bytes=$(stat -c %s "$f")
  read -r ft fp <<< "$(median "$floor" "$f")"
  row() { # WHAT TIME PEAK
    printf '%-8s %-28s %8.3fs %8.2fx %11.2fx\n' "${mb} MB" "$1" "$2" \
      "$(echo "$2 / $ft" | bc -l)" "$(echo "$3 * 1024 / $bytes" | bc -l)"
  }
  row "floor (fast-float2)" "$ft" "$fp"
  read -r t p <<< "$(median "$bin" "$f" -o "$tmp/out.glb" --quiet)"
  row "default bake -> .glb" "$t" "$p"
  read -r t p <<< "$(median "$bin" "$f" -o /dev/null --format csv --quiet)"
  row "--format csv -o /dev/null" "$t" "$p"
  read -r t p <<< "$(median "$bin" inspect --quiet "$f")"
  row "inspect" "$t" "$p"
done

# Small files: 2 000 copies of a 2 KB fixture baked into a folder, with -j1
# and -j2, with and without --sync; files a second, median of RUNS runs.
# Each run writes into a fresh folder, all removed at the end: removing a
# run's outputs before the next would measure the file system instead (ext4
# without a journal skips inodes freed in the last minute one by one when it
# makes new ones).
small=target/bench/small
if [ "$(find "$small" -name '*.x3d' 2>/dev/null | wc -l)" != 2000 ]; then
  rm -rf "$small" && mkdir -p "$small"
  for i in $(seq -w 0 1999); do cp fixtures/scenes/bouncing_box.x3d "$small/s$i.x3d"; done
fi
echo
printf '%-40s %12s\n' "2 000 small files -> folder" "files/s"
outs=$(mktemp -d -p target/bench)
for sync in "" --sync; do
  for j in 1 2; do
    rates=()
    for r in $(seq "$runs"); do
      start=$(date +%s%N)
      "$bin" "$small"/*.x3d -o "$outs/$j$sync$r" -j "$j" --quiet $sync
      end=$(date +%s%N)
      rates+=("$(echo "2000 * 1000000000 / ($end - $start)" | bc -l)")
    done
    printf '%s\n' "${rates[@]}" | sort -g | awk -v n="$runs" -v what="-j$j $sync" \
      '{ r[NR] = $1 } END { printf "%-40s %12.0f\n", what, r[int((n + 1) / 2)] }'
  done
done
rm -rf "$outs"
