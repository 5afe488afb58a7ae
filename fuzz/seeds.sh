#!/usr/bin/env bash
# Fills four seed folders for the fuzz targets from the fixtures, the
# regressions and, when it exists, ../shared/corpus (whose scenes may not be
# copied into this repository: keep the folders outside it):
#   OUT/xml (.x3d), OUT/vrml (.x3dv, .wrl), OUT/json (.x3dj, plus every
#   scene rewritten as JSON by X_ITE's x3d-tidy when X3DBAKE_XITE names an
#   install of ../shared/oracle/xite: the fixtures hold few JSON scenes, and
#   without these no JSON input holds a valid ProtoDeclare),
#   OUT/all (all of them, gzip included, for pipeline, read_gzip,
#   referenced, timeline and inspect, with the seeds in
#   fuzz/regressions/referenced and fuzz/regressions/timeline),
#   OUT/outputs (every scene of OUT/all behind two bytes of settings, taken
#   from its SHA-1, and fuzz/regressions/outputs),
#   OUT/script (the ECMAScript of every Script written in the scenes, and
#   fuzz/regressions/script).
# Files are named by their SHA-1, as libFuzzer names its own.
#   fuzz/seeds.sh /tmp/seeds
#   cargo fuzz run --sanitizer none read_json /tmp/seeds/json -- -dict=json.dict
set -euo pipefail
out=${1:?usage: fuzz/seeds.sh OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"/{xml,vrml,json,all,outputs,script}
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
for f in "$root"/fuzz/regressions/{referenced,timeline}/*; do put "$f" all; done
for f in "$root"/fuzz/regressions/outputs/*; do put "$f" outputs; done
for f in "$root"/fuzz/regressions/script/*; do put "$f" script; done

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
# The outputs target reads its first two bytes as settings: the first two
# bytes of the scene's SHA-1 (its name), so that the seeds spread over them.
for f in "$out"/all/*; do
  name=${f##*/}
  { printf "\\x${name:0:2}\\x${name:2:2}"; cat "$f"; } > "$out/outputs/$name"
done
# The script target's seeds: the program of every Script of the scenes
# (XML CDATA, or a ClassicVRML string with \" and \\ unescaped).
find "${sources[@]}" -type f \( -name '*.x3d' -o -name '*.x3dv' -o -name '*.wrl' \) -print0 | sort -z |
  xargs -0 perl -MDigest::SHA=sha1_hex -0777 -ne '
    while (/(?:ecma|java|vrml)script:(.*?)(?:\]\]>|(?<!\\)")/gs) {
      my $code = $1;
      $code =~ s/\\(["\\])/$1/g if $& =~ /"$/;
      open(my $fh, ">", "'"$out"'/script/" . sha1_hex($code)) or die;
      print $fh $code;
    }'
for d in xml vrml json all outputs script; do
  echo "$d: $(find "$out/$d" -type f | wc -l) files"
done
