#!/usr/bin/env bash
# What of each corpus scene reaches the glTF: Shape nodes (examples/shapes)
# against glTF meshes and mesh nodes, tracks (`x3dbake inspect`) against
# animation channels, with the warnings that name what is left out.
# Usage: tools/corpus-table.sh [CORPUS]   (default ../shared/corpus); prints
# a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus}
[ -d "$corpus" ] || { echo "note: $corpus not found: no table"; exit 0; }
cargo build --release --quiet --example shapes
bin=target/release/x3dbake
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| scene | Shapes | meshes | mesh nodes | tracks | tracks to glTF | channels | not drawn | no glTF target | no glTF counterpart | exit |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
tools/scenes.sh "$corpus" |
  while IFS= read -r f; do
    shapes=$(target/release/examples/shapes "$f" 2>/dev/null | cut -f2)
    report=$("$bin" inspect -q "$f" 2>/dev/null || true)
    tracks=$(grep -c ' <- ' <<<"$report" || true)
    reach=$(grep ' <- ' <<<"$report" | grep -vc 'glTF: none' || true)
    code=0
    "$bin" "$f" -o "$out/o.glb" 2>"$out/err" >/dev/null || code=$?
    counts=$(python3 - "$out/o.glb" <<'PY'
import json, struct, sys
try:
    d = open(sys.argv[1], 'rb').read()
    n = struct.unpack('<I', d[12:16])[0]
    j = json.loads(d[20:20 + n])
except Exception:
    print("- - -"); sys.exit()
print(len(j.get('meshes', [])), sum(1 for x in j.get('nodes', []) if 'mesh' in x),
      sum(len(a['channels']) for a in j.get('animations', [])))
PY
)
    read -r meshes mesh_nodes channels <<<"$counts"
    drawn=$(grep -c 'geometry is not drawn' "$out/err" || true)
    target=$(grep -c 'has no glTF animation target' "$out/err" || true)
    counterpart=$(grep -c 'has no glTF counterpart' "$out/err" || true)
    echo "| ${f#"$corpus"/} | ${shapes:-?} | $meshes | $mesh_nodes | $tracks | $reach | $channels | $drawn | $target | $counterpart | $code |"
    rm -f "$out/o.glb"
  done
