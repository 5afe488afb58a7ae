#!/usr/bin/env bash
# Writes npm/lib/help.mjs: the command line's --help and -h texts (and
# inspect's), as the native binary prints them, for `npx x3dbake --help`
# (tests/it/npm.rs checks that they are current).
#
#   tools/npm-help.sh [X3DBAKE]      (default target/release/x3dbake)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/x3dbake}
node - "$bin" >npm/lib/help.mjs <<'JS'
const { execFileSync } = require("node:child_process");
const bin = process.argv[2];
const run = (...args) => execFileSync(bin, args, { encoding: "utf8", env: { ...process.env, COLUMNS: "100" } });
const texts = {
  long: run("--help"),
  short: run("-h"),
  inspectLong: run("inspect", "--help"),
  inspectShort: run("inspect", "-h"),
};
let out = "// The command line's help, as `x3dbake --help` prints it (written by\n";
out += "// tools/npm-help.sh from the native binary; tests/it/npm.rs checks it).\n\n";
for (const [k, v] of Object.entries(texts)) out += `export const ${k} = ${JSON.stringify(v)};\n`;
process.stdout.write(out);
JS
