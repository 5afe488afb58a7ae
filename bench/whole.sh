#!/usr/bin/env bash
# Times the whole binary (read + bake + write) as a user runs it:
#   1. a generated 50 MB .x3d (a 20 000-point mesh and a CoordinateInterpolator
#      morphing it), baked to .glb: best of N runs, MB/s of input, peak memory;
#      and a generated 40 MB .x3d of 500 squad and eased tracks, fitted;
#   2. the largest scenes of ../shared/corpus (when it is there), one by one;
#   3. every scene file of the corpus baked into a folder, with -j1 and -j2;
#   4. x3d-tidy (npm, in the X_ITE oracle folder $X3DBAKE_XITE) converting an
#      18 MB .x3d to .x3dv, against x3dbake baking the same file.
# Usage: bench/whole.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
mkdir -p target/bench
cargo build --release --quiet
bin=./target/release/x3dbake
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# best TIME_SECONDS PEAK_KB of a command run $runs times
best() {
  local best_t= peak=0
  for _ in $(seq "$runs"); do
    local t m start end
    # Elapsed to the millisecond (GNU time's %e has hundredths).
    start=$(date +%s%N)
    /usr/bin/time -o "$out/time" -f '%M' "$@" > /dev/null 2>&1 || true
    end=$(date +%s%N)
    t=$(echo "($end - $start) / 1000000000" | bc -l)
    m=$(tail -1 "$out/time")
    if [ -z "$best_t" ] || [ "$(echo "$t < $best_t" | bc -l)" = 1 ]; then best_t=$t; fi
    if [ "$m" -gt "$peak" ]; then peak=$m; fi
  done
  echo "$best_t $peak"
}

report() { # NAME BYTES "TIME PEAK"
  local name=$1 bytes=$2 t=${3% *} peak=${3#* }
  printf '%-52s %8.1f MB %7.3f s %7.0f MB/s %6.0f MB peak (%.2f x)\n' "$name" \
    "$(echo "$bytes / 1000000" | bc -l)" "$t" "$(echo "$bytes / 1000000 / ($t + 0.0005)" | bc -l)" \
    "$(echo "$peak / 1000" | bc -l)" "$(echo "$peak * 1024 / $bytes" | bc -l)"
}

big=target/bench/big-50mb.x3d
[ -f "$big" ] || python3 bench/gen_big.py "$big" 50
report "generated 50 MB .x3d -> .glb" "$(stat -c %s "$big")" \
  "$(best "$bin" "$big" -o "$out/big.glb" --quiet)"
report "generated 50 MB .x3d -> .glb --tolerance 0.001" "$(stat -c %s "$big")" \
  "$(best "$bin" "$big" -o "$out/big.glb" --quiet --tolerance 0.001)"
report "generated 50 MB .x3d: inspect (read, check, clips)" "$(stat -c %s "$big")" \
  "$(best "$bin" inspect --quiet "$big")"

# Tracks no keyframe format holds (squad, eased positions), fitted within the
# default bound, against --mode sample at 30 Hz (no bound): dense (500 tracks
# of 2 353 keys) and sparse (5 000 tracks of 47 keys).
tracks() { # FILE SIZE_MB TRANSFORMS LABEL
  [ -f "$1" ] || python3 bench/gen_tracks.py "$1" "$2" "$3"
  report "generated $4 -> .glb (bound)" "$(stat -c %s "$1")" \
    "$(best "$bin" "$1" -o "$out/tracks.glb" --quiet)"
  report "the same, --mode sample (30 Hz, no bound)" "$(stat -c %s "$1")" \
    "$(best "$bin" "$1" -o "$out/tracks.glb" --quiet --mode sample)"
}
tracks target/bench/tracks-40mb.x3d 40 250 "40 MB, 500 dense squad + eased tracks"
tracks target/bench/tracks-9mb.x3d 8 2500 "9 MB, 5 000 sparse squad + eased tracks"

corpus=../shared/corpus
if [ -d "$corpus" ]; then
  mapfile -t files < <(find "$corpus" -type f \( -name '*.x3d' -o -name '*.x3dv' -o -name '*.wrl' \
    -o -name '*.gz' -o -name '*.x3dj' \) | sort)
  for f in $(ls -S "${files[@]}" | head -3); do
    report "corpus: ${f#"$corpus"/}" "$(stat -c %s "$f")" \
      "$(best "$bin" "$f" -o "$out/one.glb" --quiet)"
  done
  # One file per base name (a folder holds one NAME.glb).
  mapfile -t batch < <(printf '%s\n' "${files[@]}" | awk -F/ '{n = $NF; sub(/\..*/, "", n)} !seen[n]++')
  total=$(cat "${batch[@]}" | wc -c)
  for j in 1 2; do
    report "corpus batch: ${#batch[@]} files -> folder, -j$j" "$total" \
      "$(best "$bin" "${batch[@]}" -o "$out/batch" --quiet -j "$j")"
  done
else
  echo "note: ../shared/corpus not found; corpus timings skipped"
fi

if [ -n "${X3DBAKE_XITE:-}" ] && [ -d "$X3DBAKE_XITE/node_modules/x3d-tidy" ]; then
  mid=target/bench/big-18mb.x3d
  [ -f "$mid" ] || python3 bench/gen_big.py "$mid" 18
  tidy=$(cd "$X3DBAKE_XITE" && runs=1 best node -r ./skia-stub.cjs node_modules/x3d-tidy/bin/x3d-tidy.js \
    -i "$OLDPWD/$mid" -o "$out/mid.x3dv")
  ours=$(best "$bin" "$mid" -o "$out/mid.glb" --quiet)
  report "x3d-tidy: 18 MB .x3d -> .x3dv" "$(stat -c %s "$mid")" "$tidy"
  report "x3dbake: 18 MB .x3d -> .glb" "$(stat -c %s "$mid")" "$ours"
  printf 'x3dbake is %.0f times faster than x3d-tidy on the same file\n' \
    "$(echo "${tidy% *} / ${ours% *}" | bc -l)"
else
  echo "note: X3DBAKE_XITE (with x3d-tidy) not set; the x3d-tidy comparison is skipped"
fi
