#!/usr/bin/env bash
# Runs one fuzz target for SECONDS with AddressSanitizer (cargo-fuzz's
# default) on the stable toolchain (RUSTC_BOOTSTRAP=1 lets cargo-fuzz pass
# its nightly flags), at the lowest priority (nice 19), and keeps its corpus
# between runs:
#   fuzz/run.sh TARGET SECONDS [CORPUS_DIR]
#   fuzz/run.sh script 1800
# CORPUS_DIR defaults to $X3DBAKE_FUZZ_HOME/corpus/TARGET, where
# X3DBAKE_FUZZ_HOME defaults to ~/.cache/x3dbake/fuzz (outside git). An
# empty corpus is first filled from the target's seeds (fuzz/seeds.sh),
# minimised by libFuzzer's merge (what `cargo fuzz cmin` runs). Each input
# may take 10 s (-timeout) and 2 GiB (-rss_limit_mb) before it counts as a
# hang or an out-of-memory; inputs are at most 8 192 bytes; the target's
# dictionary comes from fuzz/dict.sh. The log goes to
# $X3DBAKE_FUZZ_HOME/logs/TARGET-TIME.log, findings to
# $X3DBAKE_FUZZ_HOME/artifacts/TARGET/ (a timeout whose input takes under
# 10 s of CPU time alone goes to its stalled/ and the run goes on: the
# machine stalled the process); at the end it prints the executions, the
# last cov: and ft:, the corpus size and the findings.
# Not part of CI (.ci/run): a long run is a campaign, not a test.
set -euo pipefail
usage="usage: fuzz/run.sh TARGET SECONDS [CORPUS_DIR]"
target=${1:?$usage}
seconds=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
home=${X3DBAKE_FUZZ_HOME:-$HOME/.cache/x3dbake/fuzz}
corpus=${3:-$home/corpus/$target}
[ -f "$here/fuzz_targets/$target.rs" ] || { echo "no fuzz target $target" >&2; exit 2; }
case $target in
  read_xml) enc=xml seeds=xml ;;
  read_vrml) enc=vrml seeds=vrml ;;
  read_json) enc=json seeds=json ;;
  script) enc=js seeds=script ;;
  outputs) enc=all seeds=outputs ;;
  *) enc=all seeds=all ;;
esac
stamp=$(date -u +%Y%m%dT%H%M%S)
log=$home/logs/$target-$stamp.log
artifacts=$home/artifacts/$target
mkdir -p "$corpus" "$home/logs" "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/dict.sh" "$enc" > "$work/dict"

export RUSTC_BOOTSTRAP=1
# meshopt's C++ (vendor/src/opacitymap.cpp) registers one global twice
# under AddressSanitizer, which aborts every run at start as an ODR
# violation: that check is off, every other stays on. Allocations keep two
# frames of their stack, not 30 (QuickJS allocates at every turn: the
# script target runs 30 % faster); run a finding again with more to see
# where its memory came from.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_odr_violation=0:malloc_context_size=2}
cd "$here"
nice -n 19 cargo fuzz build -O "$target" >> "$log" 2>&1
flags=(-dict="$work/dict" -max_len=8192 -timeout=10 -rss_limit_mb=2048
  -artifact_prefix="$artifacts/" -print_final_stats=1)
if [ -z "$(ls -A "$corpus")" ]; then
  "$here/seeds.sh" "$work/seeds" > /dev/null
  echo "== merging the seeds of $seeds into $corpus" >> "$log"
  nice -n 19 cargo fuzz run -O "$target" "$corpus" "$work/seeds/$seeds" -- \
    "${flags[@]}" -merge=1 >> "$log" 2>&1 || true
fi
# A timeout whose input takes under 10 s of CPU time when run again alone
# was the machine stalling the process (other work on the cores, or a
# SIGSTOP: libFuzzer's timeout is wall-clock time): it is moved to
# stalled/ and the run goes on for the time left. Any other finding ends
# the run. A slow unit (over 10 s, libFuzzer's -report_slow_units, which
# does not end the run) is judged the same way at the end.
bin=$here/target/x86_64-unknown-linux-gnu/release/$target
# Moves input $1 to stalled/ (true) if it takes under 10 s of CPU alone.
stalled_alone() {
  if /usr/bin/time -o "$work/cpu" -f '%U %S' nice -n 19 timeout 300 "$bin" "$1" >> "$log" 2>&1 &&
    awk '{ exit !($1 + $2 < 10) }' "$work/cpu"; then
    mkdir -p "$artifacts/stalled"
    mv "$1" "$artifacts/stalled/"
    echo "== $(basename "$1") took $(cat "$work/cpu") s of CPU alone: moved to stalled/" >> "$log"
  else
    false
  fi
}
start=$(date +%s)
while left=$((seconds - ($(date +%s) - start))) && [ "$left" -gt 0 ]; do
  echo "== fuzzing $target for $left s" >> "$log"
  before=$(find "$artifacts" -maxdepth 1 -type f -name 'timeout-*' | sort)
  nice -n 19 cargo fuzz run -O "$target" "$corpus" -- "${flags[@]}" \
    -max_total_time="$left" >> "$log" 2>&1 || true
  new=$(comm -13 <(echo "$before") <(find "$artifacts" -maxdepth 1 -type f -name 'timeout-*' | sort))
  [ -n "$new" ] || break
  again=0
  for t in $new; do
    stalled_alone "$t" && again=1
  done
  [ "$again" = 1 ] || break
done
took=$(($(date +%s) - start))
for t in $(find "$artifacts" -maxdepth 1 -type f -name 'slow-unit-*' -newer "$work/dict"); do
  stalled_alone "$t" || true
done

# The figures: the last status line (#N ... cov: C ft: F corp: U/S),
# the final statistics, and what was kept.
last=$(grep -aE '^#[0-9]+' "$log" | tail -n 1 || true)
# (The last status line of each run after a stall, summed: a run that
# ends on a finding prints no final statistics. The merge's, at the top,
# left out.)
execs=$(awk '/^== fuzzing/ { runs += last; last = 0; on = 1 }
  on && /^#[0-9]+/ { last = substr($1, 2) } END { print runs + last }' "$log")
cov=$(grep -oE 'cov: [0-9]+' <<< "$last" | grep -oE '[0-9]+' || true)
ft=$(grep -oE 'ft: [0-9]+' <<< "$last" | grep -oE '[0-9]+' || true)
corp=$(grep -oE 'corp: [0-9]+/[0-9A-Za-z]+' <<< "$last" | cut -c7- || true)
files=$(find "$corpus" -type f | wc -l)
found=$(find "$artifacts" -maxdepth 1 -type f -newer "$work/dict" | sort)
stalled=$(find "$artifacts/stalled" -type f -newer "$work/dict" 2> /dev/null | wc -l || true)
echo "$target: $took s, ${execs:-?} executions, cov: ${cov:-?} ft: ${ft:-?}," \
  "corpus ${corp:-?} (in memory), $files files in $corpus; $stalled stalled (timeouts" \
  "and slow units under 10 s of CPU alone); log $log"
if [ -n "$found" ]; then
  echo "findings:"
  echo "$found"
else
  echo "findings: none"
fi
