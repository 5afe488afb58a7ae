#!/usr/bin/env bash
# Names the places a fuzz run newly covered after loading its corpus, and
# says how many are in x3dbake's own code, how many are library code inlined
# into it (a string comparison of a field name is an edge inside
# core::slice::cmp, compiled into the reader), and how many in libraries.
#
# Run the target without address randomisation and with -print_pcs=1,
# keeping its output, e.g.
#   setarch -R fuzz/target/x86_64-unknown-linux-gnu/release/read_xml \
#     CORPUS -print_pcs=1 -max_total_time=1800 2> run.log
# then
#   fuzz/new_places.sh fuzz/target/x86_64-unknown-linux-gnu/release/read_xml run.log
# Each line printed: the seconds since the start (when fuzz/plateau.sh wrote
# the log), the libFuzzer execution count, the innermost source line (after
# inlining) and the line of x3dbake it was compiled into, if any; at the end,
# how many of each kind, when the last of each kind came, and the longest
# time without a new place in x3dbake's own code (the plateau criterion:
# 900 s), from the load to the end of the log.
set -euo pipefail
bin=$1
log=$2
# Where a position-independent executable is loaded under setarch -R.
base=$((0x555555554000))
crate=$(cd "$(dirname "$0")/.." && pwd)/src/
own=0
inlined=0
libs=0
last_own="" last_inlined="" last_libs=""
# The load and the end, in seconds since the start.
load=$(awk '/^[0-9]+ .*INITED/ {print $1; exit}' "$log")
end=$(awk '/^[0-9]+ / {t = $1} END {print t + 0}' "$log")
quiet=0 quiet_from=${load:-0} prev=${load:-0}
# Ends a time without an own place at second $1: the longest one is kept.
quiet_until() {
  if (($1 - prev > quiet)); then
    quiet=$(($1 - prev)) quiet_from=$prev
  fi
  prev=$1
}
while read -r secs run pc; do
  # Source lines from the innermost inlined frame outwards.
  lines=$(addr2line -i -e "$bin" "$(printf '0x%x' $((pc - base)))" | sed 's/ (discriminator [0-9]*)//')
  inner=$(head -1 <<< "$lines")
  ours=$(grep -F "$crate" <<< "$lines" | head -1 || true)
  short=$(sed -E 's#^/rustc/[0-9a-f]+/library/##; s#^/rust/deps/##' <<< "${inner#"$crate"}")
  echo "$secs $run | $short | ${ours#"$crate"}"
  if [[ $inner == "$crate"* ]]; then
    own=$((own + 1)) last_own=$secs
    if [[ ${secs%s} =~ ^[0-9]+$ ]]; then
      quiet_until "${secs%s}"
    fi
  elif [[ -n $ours ]]; then
    inlined=$((inlined + 1)) last_inlined=$secs
  else
    libs=$((libs + 1)) last_libs=$secs
  fi
done < <(awk '
  # fuzz/plateau.sh stamps each line with the seconds since the start.
  { secs = "?" } /^[0-9]+ / { secs = $1 "s"; sub(/^[0-9]+ /, "") }
  /INITED/ {loaded = 1; next} /^#[0-9]/ {run = $1}
  loaded && /NEW_PC/ {print secs, run, $2}' "$log")
echo "new places: $own in x3dbake, $inlined in library code inlined into it, $libs in libraries"
echo "the last of each: ${last_own:-none}, ${last_inlined:-none}, ${last_libs:-none}"
if [[ -n $load ]]; then # a log written by fuzz/plateau.sh, with times
  quiet_until "$end"
  echo "the longest time without a place in x3dbake's own code: $quiet s (from $quiet_from s)"
fi
