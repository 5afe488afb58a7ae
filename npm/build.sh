#!/usr/bin/env bash
# Builds the npm package x3dbake into one folder, ready for `npm pack` or
# `npm publish`: the library for wasm32-unknown-unknown through the
# x3dbake-npm crate (npm/Cargo.toml: the calls Node.js makes, and the
# page's own, web/src/lib.rs), its binding (wasm-bindgen, the CLI of the
# crate's exact version), optimised by wasm-opt; the page
# (tools/web-build.sh) for `npx x3dbake serve`, with this one module in
# place of its own; the command and the JavaScript API (npm/bin, npm/lib).
#
#   npm/build.sh [OUT]        (default npm/dist)
#
# Needs what tools/web-build.sh needs (rustup's wasm32-unknown-unknown
# target, clang, wasm-bindgen-cli 0.2.130, X3DBAKE_THREE naming a folder
# with node_modules/three); and wasm-opt: X3DBAKE_WASM_OPT names it, else
# the one on PATH (npm's binaryen: `npm install binaryen@132.0.0`), else
# the wasm is left as wasm-bindgen wrote it (a note says so).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-npm/dist}
: "${X3DBAKE_THREE:?X3DBAKE_THREE must name a folder with node_modules/three (for the page preview)}"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
[ "$(wasm-bindgen --version 2>/dev/null)" = "wasm-bindgen 0.2.130" ] || {
  echo "npm/build.sh: needs wasm-bindgen 0.2.130 (cargo install wasm-bindgen-cli --version 0.2.130)" >&2
  exit 2
}
wasm_opt=${X3DBAKE_WASM_OPT:-$(command -v wasm-opt || true)}
# An older wasm-opt (Debian 12's is 108) breaks wasm-bindgen's table of
# JavaScript objects: only 116 and later.
if [ -n "$wasm_opt" ] && [ "$("$wasm_opt" --version | grep -o '[0-9]\+' | head -1)" -lt 116 ]; then
  echo "note: $wasm_opt is older than binaryen 116: not used (npm install binaryen@132.0.0)" >&2
  wasm_opt=
fi

# The library, as the page builds it (tools/web-build.sh): C through
# clang with web/wasm-math.h, an 8 MiB stack.
export CFLAGS_wasm32_unknown_unknown="-include $PWD/web/wasm-math.h"
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C link-arg=-zstack-size=8388608"
cargo build --quiet --manifest-path npm/Cargo.toml --release \
  --target wasm32-unknown-unknown --target-dir target/npm

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The page, built into the package by its own build command; then its
# module replaced by this crate's, which holds the page's exports too
# (web/src/lib.rs): one module for the page and Node.js.
tools/web-build.sh "$out/page" >/dev/null
rm -rf "$out/page/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$out/page/pkg" --out-name x3dbake_web \
  target/npm/wasm32-unknown-unknown/release/x3dbake_npm.wasm

# Smaller and faster wasm: the features Rust's wasm32 target enables.
if [ -n "$wasm_opt" ]; then
  f=$out/page/pkg/x3dbake_web_bg.wasm
  "$wasm_opt" -O3 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-multivalue --enable-reference-types \
    --strip-debug --strip-producers "$f" -o "$f.opt"
  mv "$f.opt" "$f"
else
  echo "note: no wasm-opt (X3DBAKE_WASM_OPT or PATH): the wasm is not optimised" >&2
fi

cp -r npm/bin npm/lib "$out/"
cp npm/README.md "$out/README.md"
cp fonts/LICENSE "$out/LICENSE-fonts"
# package.json with the crate's version.
sed "s/\"version\": \"[^\"]*\"/\"version\": \"$version\"/" npm/package.json >"$out/package.json"
chmod +x "$out/bin/x3dbake.mjs"
# It runs.
[ "$(node "$out/bin/x3dbake.mjs" --version)" = "x3dbake $version" ]
echo "$out: x3dbake $version, $(du -b "$out/page/pkg/x3dbake_web_bg.wasm" | cut -f1) bytes of wasm"
