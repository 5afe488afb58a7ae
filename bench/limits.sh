#!/usr/bin/env bash
# Speed and memory against a floor, at 10, 42 and 200 MB, and on scenes of
# many animated nodes:
# the floor (examples/floor.rs: read the file and parse every number with
# fast-float2, one thread), a default bake to .glb, --compress, CSV to /dev/null and
# `inspect`, run in turn RUNS times, each the median of its runs, as times
# and as ratios to the floor (the median of each round's ratio: a round's
# commands run one after another, so each ratio is of a pair; and the best
# run's ratio to the best floor);
# peak memory as a ratio to the input. Inputs from bench/gen_big.py.
# Then CSV of 1, 10 and 40 million rows (peak memory), and 2 000 small files
# into a folder (files a second), with -j1 and -j2, with and without --sync.
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

# One run of a command: its wall time (s) and peak memory (kB).
once() {
  local start end
  start=$(date +%s%N)
  /usr/bin/time -o "$tmp/time" -f '%M' "$@" > /dev/null 2>&1 || true
  end=$(date +%s%N)
  echo "$(echo "($end - $start) / 1000000000" | bc -l) $(tail -1 "$tmp/time")"
}

# The median time, largest peak and best time of the runs in file $1
# ("time peak" lines).
summary() {
  sort -g "$1" | awk -v n="$runs" '{ t[NR] = $1; if ($2 > p) p = $2 }
    END { printf "%.3f %d %.3f\n", t[int((n + 1) / 2)], p, t[1] }'
}

# The median of the rounds' ratios of the times in file $1 to those in
# file $2 ("time peak" lines, a round a line).
paired() {
  paste -d' ' "$1" "$2" | awk '{ print $1 / $3 }' | sort -g |
    awk -v n="$runs" '{ r[NR] = $1 } END { printf "%.4f\n", r[int((n + 1) / 2)] }'
}

# median TIME and largest PEAK_KB of a command run $runs times
median() {
  : > "$tmp/runs"
  for _ in $(seq "$runs"); do once "$@" >> "$tmp/runs"; done
  summary "$tmp/runs"
}

# The commands run in turn, round after round, so that the floor and the
# others see the same moments of a shared machine: each as times and ratios
# to the floor (--compress also to the default bake). Each bake writes a
# new file (all removed after the table): replacing the last round's would
# time the file system too (on the machine of docs/performance.md, 2 to 8
# ms of a 10 MB bake: its ext4, without a journal and mounted with discard,
# waits at the rename for the disk to discard the old file's blocks, and
# the new file's writing to disk is started as it is made).
table() {
  local f=$1 label=$2 bytes
  bytes=$(stat -c %s "$f")
  whats=("floor (fast-float2)" "default bake -> .glb" "--compress -> .glb" "--format csv -o /dev/null" "inspect")
  for k in 0 1 2 3 4; do : > "$tmp/runs$k"; done
  for r in $(seq "$runs"); do
    once "$floor" "$f" >> "$tmp/runs0"
    once "$bin" "$f" -o "$tmp/out-$r.glb" --quiet >> "$tmp/runs1"
    once "$bin" "$f" -o "$tmp/small-$r.glb" --compress --quiet >> "$tmp/runs2"
    once "$bin" "$f" -o /dev/null --format csv --quiet >> "$tmp/runs3"
    once "$bin" inspect --quiet "$f" >> "$tmp/runs4"
  done
  rm -f "$tmp"/out-*.glb "$tmp"/small-*.glb
  read -r _ _ fb <<< "$(summary "$tmp/runs0")"
  for k in 0 1 2 3 4; do
    read -r t p b <<< "$(summary "$tmp/runs$k")"
    local more=""
    [ "$k" = 2 ] && more=$(printf ' (%.2fx the bake)' "$(paired "$tmp/runs2" "$tmp/runs1")")
    printf '%-13s %-28s %8.3fs %8.2fx %11.2fx %13.2fx%s\n' "$label" "${whats[$k]}" "$t" \
      "$(paired "$tmp/runs$k" "$tmp/runs0")" "$(echo "$p * 1024 / $bytes" | bc -l)" "$(echo "$b / $fb" | bc -l)" "$more"
  done
}

printf '%-13s %-28s %9s %9s %12s %14s\n' input what time "x floor" "peak x input" "best x floor"
for mb in "${sizes[@]}"; do
  f=target/bench/big-${mb}mb.x3d
  [ -f "$f" ] || python3 bench/gen_big.py "$f" "$mb"
  table "$f" "${mb} MB"
done

# Scenes of many animated nodes: ../shared/bench/bigscene.py's morphing mesh
# of 12 000 and 50 000 points (10 and 42 MB) and 500 boxes each moved and
# turned by interpolators of its own.
bigscene=../shared/bench/bigscene.py
if [ -f "$bigscene" ]; then
  for points in 12000 50000; do
    f=target/bench/bigscene-$points.x3d
    [ -f "$f" ] || python3 "$bigscene" "$f" "$points"
    table "$f" "bigscene $((points / 1000))k"
  done
else
  echo "bigscene: skipped ($bigscene not found)"
fi

# CSV in bounded memory: one animated field over 1 000 s at 1, 10 and 40
# kHz (1, 10 and 40 million rows; 50 million samples a track is the limit)
# to /dev/null; peak memory and MB/s of CSV text (counted through a pipe
# once).
long=target/bench/long.x3d
cat > "$long" <<'X3D'
<X3D><Scene><Transform DEF='T'/><TimeSensor DEF='C' cycleInterval='1000' loop='true'/>
<PositionInterpolator DEF='P' key='0 0.5 1' keyValue='0 0 0 1 2 3 0 0 0'/>
<ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>
<ROUTE fromNode='P' fromField='value_changed' toNode='T' toField='translation'/></Scene></X3D>
X3D
echo
printf '%-40s %9s %9s %10s\n' "CSV rows -> /dev/null" time "MB/s" "peak MB"
for khz in 1 10 40; do
  bytes=$("$bin" "$long" -o - --format csv --rate "${khz}000" --quiet | wc -c)
  read -r t p _ <<< "$(median "$bin" "$long" -o /dev/null --format csv --rate "${khz}000" --quiet)"
  printf '%-40s %8.3fs %9.0f %10.1f\n' "$((khz)) M rows ($((bytes / 1000000)) MB)" "$t" \
    "$(echo "$bytes / 1000000 / $t" | bc -l)" "$(echo "$p / 1024" | bc -l)"
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
      "$bin" "$small"/*.x3d -o "$outs/$j$sync$r" -j "$j" --quiet $sync 2> /dev/null
      end=$(date +%s%N)
      rates+=("$(echo "2000 * 1000000000 / ($end - $start)" | bc -l)")
    done
    printf '%s\n' "${rates[@]}" | sort -g | awk -v n="$runs" -v what="-j$j $sync" \
      '{ r[NR] = $1 } END { printf "%-40s %12.0f\n", what, r[int((n + 1) / 2)] }'
  done
done
rm -rf "$outs"
