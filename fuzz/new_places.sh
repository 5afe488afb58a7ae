#!/usr/bin/env bash
# Names the places a fuzz run newly covered after loading its corpus, and
# says how many are in x3dbake's own code and how many in libraries.
#
# Run the target without address randomisation and with -print_pcs=1,
# keeping its output, e.g.
#   setarch -R fuzz/target/x86_64-unknown-linux-gnu/release/read_xml \
#     CORPUS -print_pcs=1 -max_total_time=1800 2> run.log
# then
#   fuzz/new_places.sh fuzz/target/x86_64-unknown-linux-gnu/release/read_xml run.log
# Each line printed: the libFuzzer execution count, the innermost function
# (after inlining) and the function it was compiled into.
set -euo pipefail
bin=$1
log=$2
# Where a position-independent executable is loaded under setarch -R.
base=$((0x555555554000))
own=0
libs=0
while read -r run pc; do
  frames=$(addr2line -f -i -C -e "$bin" "$(printf '0x%x' $((pc - base)))" | awk 'NR % 2 == 1')
  inner=$(head -1 <<< "$frames")
  outer=$(tail -1 <<< "$frames")
  echo "$run | $inner | $outer"
  if [[ $inner == x3dbake::* || $inner == '<x3dbake::'* ]]; then
    own=$((own + 1))
  else
    libs=$((libs + 1))
  fi
done < <(awk '/INITED/ {loaded = 1; next} /^#[0-9]/ {run = $1} loaded && /NEW_PC/ {print run, $2}' "$log")
echo "new places: $own in x3dbake, $libs in libraries"
