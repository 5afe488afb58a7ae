#!/usr/bin/env bash
# Keyframes a default bake writes against `--mode sample` at 30 Hz, on every
# scene file below the folders given (default ../shared/corpus): the totals of
# keys, CUBICSPLINE keys and morph targets, and each file whose default bake
# fits a track (has CUBICSPLINE keys or differs from the exact keys alone).
# Usage: tools/key-counts.sh [DIR...]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(../shared/corpus)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/default" "$out/sample"
i=0
while read -r f; do
  i=$((i + 1))
  echo "$i $f" >> "$out/names"
  ./target/release/x3dbake "$f" -o "$out/default/$i.glb" --quiet 2> /dev/null || true
  ./target/release/x3dbake "$f" -o "$out/sample/$i.glb" --quiet --mode sample 2> /dev/null || true
done < <(tools/scenes.sh "${dirs[@]}")
for form in default sample; do
  printf '%-8s keys, cubic keys, morph targets: %s\n' "$form" \
    "$(node tools/key-counts.mjs "$out/$form"/*.glb | tail -1 | cut -f2- | tr '\t' ' ')"
done
echo "files with CUBICSPLINE keys in the default bake (keys, cubic keys, targets):"
node tools/key-counts.mjs "$out/default"/*.glb | awk -F'\t' '$3 > 0 && $1 != "total"' |
  while IFS=$'\t' read -r file keys cubic targets; do
    n=$(basename "$file" .glb)
    printf '  %s: %s %s %s\n' "$(awk -v n="$n" '$1 == n { print $2 }' "$out/names")" "$keys" "$cubic" "$targets"
  done
