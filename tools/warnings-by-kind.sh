#!/usr/bin/env bash
# Counts the warnings x3dbake gives on every scene of ../shared/corpus, by
# kind (the message with the names in backquotes and the numbers taken out),
# baking each to a .glb in a temporary folder.
# Usage: tools/warnings-by-kind.sh [BINARY]   (default: target/release/x3dbake)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/x3dbake}
corpus=../shared/corpus
[ -d "$corpus" ] || { echo "note: $corpus not found: nothing to count"; exit 0; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
tools/scenes.sh "$corpus" |
  while IFS= read -r f; do
    "$bin" "$f" -o "$out/out.glb" 2>&1 >/dev/null || true
  done |
  grep -o 'warning: .*' |
  sed -E 's/`[^`]*`/`…`/g; s/\b[0-9]+(\.[0-9]+)?\b/N/g' |
  sort | uniq -c | sort -rn
