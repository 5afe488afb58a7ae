#!/usr/bin/env bash
# Prints the scene files (every encoding x3dbake reads, gzipped or not)
# below the folders given, one a line, sorted: the inputs of the tools that
# run x3dbake over the fixtures or the corpus.
# Usage: tools/scenes.sh DIR...
set -euo pipefail
find "$@" -type f \( -name '*.x3d' -o -name '*.x3dv' -o -name '*.wrl' -o -name '*.x3dj' \
  -o -name '*.json' -o -name '*.gz' -o -name '*.x3dz' -o -name '*.x3dvz' -o -name '*.wrz' \) | sort
