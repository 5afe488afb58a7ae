#!/usr/bin/env bash
# Builds the page (web/): the library for wasm32-unknown-unknown through the
# x3dbake-web crate, its JavaScript binding (wasm-bindgen, the CLI of the
# crate's exact version), and the page's files, into one static folder.
#
#   tools/web-build.sh [OUT]        (default web/dist)
#
# Needs: rustup's wasm32-unknown-unknown target, clang (C and C++ for
# wasm32: QuickJS, meshoptimizer), wasm-bindgen-cli 0.2.130
# (cargo install wasm-bindgen-cli --version 0.2.130), and three.js for the
# preview: X3DBAKE_THREE names a folder with node_modules/three.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-web/dist}
three=${X3DBAKE_THREE:?X3DBAKE_THREE must name a folder with node_modules/three}
export CFLAGS_wasm32_unknown_unknown="-include $PWD/web/wasm-math.h"
# An 8 MiB stack, as a native main thread has (WebAssembly's default is
# 1 MiB, all of which QuickJS's 1 MiB limit for Scripts would take).
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C link-arg=-zstack-size=8388608"
cargo build --quiet --manifest-path web/Cargo.toml --release \
  --target wasm32-unknown-unknown --target-dir target/web
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out/pkg" \
  target/web/wasm32-unknown-unknown/release/x3dbake_web.wasm
cp web/index.html web/app.js web/style.css "$out/"
# three.js, the files the preview imports (see the import map in index.html).
src=$three/node_modules/three
for f in build/three.module.js build/three.core.js \
  examples/jsm/loaders/GLTFLoader.js examples/jsm/utils/BufferGeometryUtils.js \
  examples/jsm/utils/SkeletonUtils.js \
  examples/jsm/controls/OrbitControls.js examples/jsm/libs/meshopt_decoder.module.js; do
  mkdir -p "$out/three/$(dirname "$f")"
  cp "$src/$f" "$out/three/$f"
done
cp "$src/LICENSE" "$out/three/LICENSE"
echo "$out: $(du -b "$out/pkg/x3dbake_web_bg.wasm" | cut -f1) bytes of wasm"
