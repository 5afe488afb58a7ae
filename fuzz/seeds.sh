#!/usr/bin/env bash
# Fills four seed folders for the fuzz targets from the fixtures, the
# regressions and, when it exists, ../shared/corpus (whose scenes may not be
# copied into this repository: keep the folders outside it):
#   OUT/xml (.x3d), OUT/vrml (.x3dv, .wrl), OUT/json (.x3dj, plus every
#   scene rewritten as JSON by X_ITE's x3d-tidy when X3DBAKE_XITE names an
#   install of ../shared/oracle/xite: the fixtures hold few JSON scenes, and
#   without these no JSON input holds a valid ProtoDeclare),
#   OUT/all (all of them, gzip included, for pipeline and read_gzip).
# Files are named by their SHA-1, as libFuzzer names its own.
#   fuzz/seeds.sh /tmp/seeds
#   cargo fuzz run --sanitizer none read_json /tmp/seeds/json -- -dict=json.dict
set -euo pipefail
out=${1:?usage: fuzz/seeds.sh OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"/{xml,vrml,json,all}
sources=("$root/fixtures" "$root/fuzz/regressions")
[ -d "$root/../shared/corpus" ] && sources+=("$root/../shared/corpus")

put() { # put FILE FOLDER...
  local name
  name=$(sha1sum < "$1" | cut -c1-40)
  for d in "${@:2}"; do cp "$1" "$out/$d/$name"; done
}
while IFS= read -r -d '' f; do
  case $f in
    *.x3d) put "$f" xml all ;;
    *.x3dv | *.wrl) put "$f" vrml all ;;
    *.x3dj | *.json) put "$f" json all ;;
    *.gz) put "$f" all ;;
  esac
done < <(find "${sources[@]}" -type f -print0 | sort -z)

if [ -n "${X3DBAKE_XITE:-}" ]; then
  tidied=$(mktemp -d)
  trap 'rm -rf "$tidied"' EXIT
  while IFS= read -r -d '' f; do
    # Scenes x3d-tidy cannot read (some bad-input fixtures) are left out.
    if (cd "$X3DBAKE_XITE" && timeout 60 node -r ./skia-stub.cjs \
      node_modules/x3d-tidy/bin/x3d-tidy.js -i "$f" -o "$tidied/t.x3dj") > /dev/null 2>&1; then
      put "$tidied/t.x3dj" json all
    fi
  done < <(find "${sources[@]}" -type f \( -name '*.x3d' -o -name '*.x3dv' -o -name '*.wrl' \) -size -400k -print0 | sort -z)
fi
for d in xml vrml json all; do
  echo "$d: $(find "$out/$d" -type f | wc -l) files"
done
