#!/usr/bin/env bash
# Runs one fuzz target until it stops finding new paths: until PLATEAU
# seconds (default 900) have passed after the corpus was loaded without a
# newly covered edge, or MAX seconds (default 3600) in all. The run is the
# one fuzz/new_places.sh reads: no address randomisation, -print_pcs=1,
# inputs up to 8 192 bytes, the target's dictionary from fuzz/dict.sh, and
# every log line prefixed with the seconds since the start. An input that
# takes over 20 s is a timeout; one over 2 s is kept as a slow unit (8 KB
# read in 2 s means work growing faster than the input: a LineSet whose
# counts were walked point by point took 0.8 s a count and never reached
# the timeout).
#   cargo fuzz build --sanitizer none   (the stable toolchain does: no sanitizer)
#   fuzz/seeds.sh /tmp/seeds && cp -r /tmp/seeds/json /tmp/c_json
#   fuzz/plateau.sh read_json /tmp/c_json 3600 900 > read_json.log
#   fuzz/new_places.sh fuzz/target/x86_64-unknown-linux-gnu/release/read_json read_json.log
# The corpus folder gains what the run finds; findings go to ./art_TARGET/.
# BIN names another folder of target binaries (a copy, so that a rebuild
# does not change a running campaign). Prints a summary on stderr at the end.
set -euo pipefail
target=${1:?usage: fuzz/plateau.sh TARGET CORPUS [MAX] [PLATEAU]}
corpus=${2:?usage: fuzz/plateau.sh TARGET CORPUS [MAX] [PLATEAU]}
max=${3:-3600}
plateau=${4:-900}
here=$(cd "$(dirname "$0")" && pwd)
bin=${BIN:-$here/target/x86_64-unknown-linux-gnu/release}/$target
case $target in
  read_xml) enc=xml ;;
  read_vrml) enc=vrml ;;
  read_json) enc=json ;;
  *) enc=all ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/dict.sh" "$enc" > "$work/dict"
touch "$work/new"
mkdir -p "art_$target"
mkfifo "$work/out"
start=$(date +%s)
setarch -R "$bin" "$corpus" -dict="$work/dict" -max_len=8192 -print_pcs=1 \
  -timeout=20 -report_slow_units=2 -rss_limit_mb=4096 -max_total_time="$max" \
  -artifact_prefix="art_$target/" > "$work/out" 2>&1 &
fuzzer=$!
trap 'kill -INT $fuzzer 2> /dev/null || true' INT TERM

# The watcher: stops the fuzzer once no edge has been new for $plateau s
# (checked at every line and every 10 s, since a quiet fuzzer prints little).
inited="" last=0 loaded="" stats=""
while :; do
  if IFS= read -r -t 10 line; then
    now=$(($(date +%s) - start))
    echo "$now $line"
    case $line in
      *INITED*) inited=$now last=$now loaded=${line#*INITED } ;;
      *NEW_PC*) last=$now && echo "$now" >> "$work/new" ;;
      '#'[0-9]*) stats=$line ;;
    esac
  elif [ $? -le 128 ]; then
    break # the fuzzer has ended
  fi
  now=$(($(date +%s) - start))
  if [ -n "$inited" ] && [ $((now - last)) -ge "$plateau" ]; then
    kill -INT $fuzzer 2> /dev/null || true
  fi
done < "$work/out"
wait $fuzzer || true
end=$(($(date +%s) - start))
# Findings by kind (crash-, timeout-, oom-, slow-unit-...; a slow unit can
# be the machine or the process having been paused: run it again alone).
findings=$(find "art_$target" -type f -printf '%f\n' | sed 's/-[0-9a-f]*$//' | sort | uniq -c |
  awk '{printf "%s%s %s", sep, $1, $2; sep = ", "}')
# How fast it still finds: edges new in the second half of the run.
late=$(awk -v h=$((end / 2)) '$1 > h' "$work/new" | wc -l)
execs=${stats%%[[:space:]]*}
loaded=${loaded#*cov: } stats=${stats#*cov: }
echo "$target: $end s, ${execs#\#} executions; last new edge at $last s, $late new after" \
  "$((end / 2)) s; at load cov: ${loaded%% corp:*}; at the end cov: ${stats%% corp:*};" \
  "findings: ${findings:-none}" >&2
