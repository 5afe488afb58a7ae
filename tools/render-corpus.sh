#!/usr/bin/env bash
# Renders baked scenes with three.js and their X3D with X_ITE, side by side
# (two PNGs each), in headless Chromium. Installs what it needs: Debian's
# chromium, npm three and playwright-core, the X_ITE oracle.
# Usage: tools/render-corpus.sh [OUT_DIR]   (default target/render)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/render}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/x3dbake
if ! command -v chromium >/dev/null; then
  apt-get update -qq && apt-get install -y -qq chromium
fi
if [ ! -d "$cache/render/node_modules/three" ]; then
  mkdir -p "$cache/render"
  (cd "$cache/render" && echo '{"private": true}' > package.json &&
    npm install three@0.170 playwright-core --no-audit --no-fund)
fi
if [ ! -d "$cache/xite/node_modules/x_ite" ]; then
  rm -rf "$cache/xite" && cp -r ../shared/oracle/xite "$cache/xite" && chmod -R u+w "$cache/xite"
  (cd "$cache/xite" && npm install --ignore-scripts --no-audit --no-fund)
fi
cargo build --release --quiet
mkdir -p "$out"
scenes=(
  ../shared/corpus/nist-v2x3d/test/RollersToX3D.x3d
  ../shared/corpus/h3dapi/examples/All/OrientationInterpolator.x3d
  ../shared/corpus/h3dapi/examples/x3dmodels/fish/Kumanomi.wrl
  fixtures/scenes/geometry.x3d
  fixtures/scenes/textures.x3d
  fixtures/scenes/bouncing_box.x3d
)
for scene in "${scenes[@]}"; do
  [ -f "$scene" ] || { echo "skipped (not found): $scene"; continue; }
  name=$(basename "${scene%.*}")
  ./target/release/x3dbake --quiet "$scene" -o "$out/$name.glb"
  X3DBAKE_RENDER="$cache/render" X3DBAKE_XITE="$cache/xite" node tools/render.mjs "$scene" "$out/$name.glb" "$out/$name" 0.7 2>/dev/null
done
