#!/usr/bin/env bash
# Prints a libFuzzer dictionary for one encoding (xml, vrml, json, or all),
# or for the ECMAScript of the script target (js):
# the node types and field names of the node catalogue (src/scene/x3d4-nodes.tsv
# and src/scene/catalogue.txt), the field and
# access types, and the keywords each reader looks for, spelt as that
# encoding writes them. libFuzzer's mutations then insert whole names
# (`-dict=FILE`) instead of having to find them a byte at a time; without
# one, the readers' name lookups are string comparisons it cannot see into.
#   fuzz/dict.sh json > json.dict
#   cargo fuzz run --sanitizer none read_json -- -dict=json.dict
set -euo pipefail
enc=${1:?usage: fuzz/dict.sh xml|vrml|json|all|js}
catalogue="$(dirname "$0")/../src/scene/catalogue.txt"
table="$(dirname "$0")/../src/scene/x3d4-nodes.tsv"
statements="ProtoDeclare ProtoInterface ProtoBody ProtoInstance ExternProtoDeclare
  field fieldValue IS connect ROUTE IMPORT EXPORT component unit meta head Scene X3D"

# Node types (not the abstract @ ones, not the statements), field names and
# field types.
nodes=$( (awk '/^[A-Z]/ {print $1}' "$catalogue"; awk -F'\t' 'NR > 1 {print $1}' "$table") |
  grep -vxF -f <(printf '%s\n' $statements) | sort -u)
fields=$( (awk '/^  [A-Z]/ {print $3}' "$catalogue"; awk -F'\t' 'NR > 1 {print $5}' "$table") | sort -u)
types=$( (awk '/^  [A-Z]/ {print $1}' "$catalogue"; awk -F'\t' 'NR > 1 {print $6}' "$table") | sort -u)
access="initializeOnly inputOnly outputOnly inputOutput"
vrml97_access="field exposedField eventIn eventOut"
attributes="DEF USE name type accessType value url containerField nodeField protoField
  fromNode fromField toNode toField inlineDEF importedDEF exportedDEF localDEF AS
  profile version category conversionFactor content class id style"
values="true false TRUE FALSE NULL 0 1 -1 0.5 1e9 nan inf"

# One dictionary line: the word quoted, with \ and " escaped.
entry() {
  local w=${1//\\/\\\\}
  printf '"%s"\n' "${w//\"/\\\"}"
}

xml() {
  for n in $nodes $statements; do entry "<$n "; entry "</$n>"; done
  for a in $fields $attributes; do entry " $a='"; done
  for w in $types $access $values; do entry "$w"; done
  entry "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
  entry "<!DOCTYPE X3D PUBLIC \"ISO//Web3D//DTD X3D 3.3//EN\">"
  entry "<![CDATA["
  entry "]]>"
  entry "/>"
  entry "&amp;"
  entry "&#x"
}

vrml() {
  for w in $nodes $fields $types $access $vrml97_access $values \
    DEF USE ROUTE TO PROTO EXTERNPROTO IS IMPORT EXPORT AS PROFILE COMPONENT META UNIT; do
    entry "$w"
  done
  entry "#VRML V2.0 utf8"
  entry "#X3D V3.3 utf8"
  for w in "{" "}" "[" "]" "." "\"" "#"; do entry "$w"; done
}

json() {
  for n in $nodes $statements; do entry "\"$n\":{"; done
  for a in $fields $attributes; do entry "\"@$a\":"; done
  for k in -children -field -value "#sourceCode" "#comment"; do entry "\"$k\":["; done
  for w in $types $access $values; do entry "\"$w\""; done
  entry "{\"X3D\":{\"Scene\":{\"-children\":["
  for w in "{" "}" "[" "]" ":" "," "\\u"; do entry "$w"; done
}

# ECMAScript for the script target (fuzz/src/lib.rs, `script_scene`): the
# field classes (`new SFVec3f(`), the binding's methods and functions
# (src/script/binding/), the Script's field names (an access letter and a
# type: `aSFVec3f`, `oMFNode`), Browser's and the nodes' functions, and
# the syntax and values that reach odd paths.
js() {
  binding="$(dirname "$0")/../src/script/binding"
  for t in $types; do entry "new $t("; entry "$t"; for a in a o i c; do entry "$a$t"; done; done
  grep -hoE '^ +(static |get )?[a-zA-Z][a-zA-Z0-9_]*(\(|: \()|[a-z][a-zA-Z]+ = \(' "$binding"/*.js |
    sed -E 's/^ +(static |get )?//; s/(: | = )\(/(/' | grep -vxE '(if|for|while|switch|catch|function|return)\(' |
    sort -u | while read -r m; do entry ".$m"; done
  grep -hoE '(Browser|currentScene|X3DConstants)\.[a-zA-Z0-9]+|"[A-Z][A-Za-z]+(_[A-Z]+)+"' "$binding"/*.js |
    tr -d '"' | sort -u | while read -r w; do entry "$w"; done
  for w in "function initialize() {" "function eventsProcessed() {" "function iSFFloat(v, t) {" \
    "function iSFTime(v, t) {" "function iSFVec3f(v, t) {" "function aSFTime(v, t) {" \
    "node." "nodes[0]." "Browser." "Browser.currentScene.createNode(\"" \
    "Browser.createX3DFromString(\"" "Browser.createVrmlFromString(\"" "new SFNode(\"" \
    ".getField(\"" ".getFieldDefinitions()" ".getNodeTypeName()" "X3DConstants." "print(" \
    "var " "let " "const " "new " "for (" "while (" "if (" "try {" "} catch (e) {" "throw " \
    "return " "=>" "async " "await " ".then(" "Promise.resolve(" "Symbol.iterator" \
    "Object.defineProperty(" "Object.freeze(" "new Proxy(" ".prototype" ".length" ".call(" \
    ".apply(" "JSON.stringify(" "JSON.parse(" "Math.random()" "Date.now()" "new Date(" \
    "NaN" "Infinity" "-Infinity" "undefined" "null" "-0" "1e308" "2147483648" "4294967296" \
    "0.5" "true" "false" "TRUE" "FALSE" "\"\"" "[]" "{}" "..." "}" "{" "(" ")" "[" "]" \
    ";" "," "=" "==" "===" "+=" "++" "//" "/*" "*/" "\\u"; do
    entry "$w"
  done
}

# Each entry once (a field name such as `url` is also a statement's attribute).
case $enc in
  xml | vrml | json | js) $enc ;;
  all) xml; vrml; json ;;
  *) echo "usage: fuzz/dict.sh xml|vrml|json|all|js" >&2; exit 2 ;;
esac | sort -u
