#!/usr/bin/env bash
# Sizes and channels of each corpus scene's .glb: the default, --compress,
# and `gltfpack -cc` of the default (when X3DBAKE_GLTFPACK names a folder
# with node_modules/.bin/gltfpack: npm install gltfpack), channels by kind
# (node paths, morph weights, KHR_animation_pointer).
# Usage: tools/compress-table.sh [CORPUS]   (default ../shared/corpus);
# prints a Markdown table and its totals.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus}
[ -d "$corpus" ] || { echo "note: $corpus not found: no table"; exit 0; }
cargo build --release --quiet
bin=target/release/x3dbake
pack=${X3DBAKE_GLTFPACK:+$X3DBAKE_GLTFPACK/node_modules/.bin/gltfpack}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# (Each scene's files kept until the table is made: it reads them as the
# loop goes on.)
tools/scenes.sh "$corpus" |
  while IFS= read -r f; do
    i=$((${i:-0} + 1))
    "$bin" "$f" -o "$out/$i-a.glb" -q 2>/dev/null || continue
    "$bin" "$f" -o "$out/$i-b.glb" -q --compress 2>/dev/null || continue
    if [ -n "$pack" ]; then "$pack" -i "$out/$i-a.glb" -o "$out/$i-c.glb" -cc >/dev/null 2>&1 || true; fi
    printf '%s' "$(basename "$f")"
    for g in a b c; do printf '\t%s' "$out/$i-$g.glb"; done
    printf '\n'
  done | python3 -c '
import json, os, struct, sys
def kinds(p):
    if not os.path.exists(p): return None
    d = open(p, "rb").read(); n = struct.unpack("<I", d[12:16])[0]; j = json.loads(d[20:20 + n])
    k = [0, 0, 0]
    for a in j.get("animations", []):
        for c in a["channels"]:
            path = c["target"]["path"]
            k[2 if path == "pointer" else 1 if path == "weights" else 0] += 1
    return os.path.getsize(p), k
def cell(r):
    if r is None: return "–"
    size, k = r
    return f"{size:,} B ({k[0]}/{k[1]}/{k[2]})"
print("| scene | default | --compress | gltfpack -cc |")
print("| --- | --- | --- | --- |")
total = [[0, 0] for _ in range(3)]
for line in sys.stdin:
    name, *files = line.rstrip("\n").split("\t")
    rows = [kinds(f) for f in files]
    print(f"| {name} | " + " | ".join(cell(r) for r in rows) + " |")
    for t, r in zip(total, rows):
        if r: t[0] += r[0]; t[1] += sum(r[1])
print(f"| **all** | " + " | ".join(f"**{t[0]:,} B**, {t[1]} channels" for t in total) + " |")
print()
print("Channels in brackets: node (translation, rotation, scale) / morph weights / KHR_animation_pointer.")
'
