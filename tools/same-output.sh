#!/usr/bin/env bash
# Behaviour check for refactors: bakes every fixture (and every scene of
# ../shared/corpus, when it is there) with the binary of a base revision
# and with the working tree's, in every output form, and compares the
# outputs, the messages and the exit codes byte for byte.
#
# Usage: tools/same-output.sh [BASE]   (BASE: a git revision, default HEAD)
# Exit 0 when everything is the same, 1 with the first differences listed.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD}
work=target/same-output
rev=$(git rev-parse --short "$base")

# The base revision's binary, built once per revision in its own worktree.
base_bin=$work/bin-$rev
if [ ! -x "$base_bin" ]; then
  rm -rf "$work/tree"
  git worktree prune
  git worktree add --detach --force "$work/tree" "$rev" >/dev/null
  (cd "$work/tree" && CARGO_TARGET_DIR=../target cargo build --release --quiet)
  cp "$work/target/release/x3dbake" "$base_bin"
  git worktree remove --force "$work/tree"
fi
cargo build --release --quiet
new_bin=target/release/x3dbake

mapfile -t inputs < <(tools/scenes.sh fixtures)
if [ -d ../shared/corpus ]; then
  mapfile -t -O "${#inputs[@]}" inputs < <(tools/scenes.sh ../shared/corpus)
else
  echo "note: ../shared/corpus not found: fixtures only"
fi

# Each form: a name, the output's extension, and the flags.
forms=(
  "glb|glb|"
  "gltf|gltf|--embed"
  "sample|glb|--mode sample --rate 10 --interpolation cubic"
  "tolerance|glb|--tolerance 0.001"
  "csv|csv|--rate 5"
  "timeline|csv|--rate 5 --wide --timeline --end 4"
  "timeline-glb|glb|--timeline --end 4"
  "compress|glb|--compress"
  "quantize|glb|--compress=quantize"
  "interactive|glb|--interactive"
)

out=$work/out
rm -rf "$out"
mkdir -p "$out"
differ=0
runs=0
for input in "${inputs[@]}"; do
  for form in "${forms[@]}"; do
    IFS='|' read -r name ext flags <<<"$form"
    for side in base new; do
      bin=$base_bin
      [ "$side" = new ] && bin=$new_bin
      dir=$out/$side
      mkdir -p "$dir"
      # shellcheck disable=SC2086
      (timeout 60 "$bin" "$input" -o "$dir/out.$ext" $flags >"$dir/stdout" 2>"$dir/stderr"; echo "exit $?" >"$dir/code") || true
    done
    runs=$((runs + 1))
    if ! diff -r -q "$out/base" "$out/new" >/dev/null; then
      differ=$((differ + 1))
      if [ "$differ" -le 10 ]; then
        echo "differs: $input ($name)"
        diff -r "$out/base" "$out/new" | head -5 || true
      fi
    fi
    rm -rf "$out/base" "$out/new"
  done
  for side in base new; do
    bin=$base_bin
    [ "$side" = new ] && bin=$new_bin
    (timeout 60 "$bin" inspect "$input" >"$out/inspect-$side" 2>&1; echo "exit $?" >>"$out/inspect-$side") || true
  done
  runs=$((runs + 1))
  if ! cmp -s "$out/inspect-base" "$out/inspect-new"; then
    differ=$((differ + 1))
    [ "$differ" -le 10 ] && { echo "differs: $input (inspect)"; diff "$out/inspect-base" "$out/inspect-new" | head -5 || true; }
  fi
done
echo "${#inputs[@]} inputs, $runs runs against $rev: $differ differ"
[ "$differ" = 0 ]
