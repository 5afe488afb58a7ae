#!/usr/bin/env bash
# Builds the x3dbake wheel: the command-line binary (cargo build --release
# of the root crate, target/release/x3dbake) copied into the package as
# x3dbake/bin/, and the extension module (this crate, abi3: one wheel for
# CPython 3.10+) by maturin, into OUT.
#
#   python/build.sh [OUT]        (default python/dist)
#
# Needs Rust and maturin (`pip install maturin`; MATURIN names another
# one). Builds for the machine it runs on: Linux, macOS or Windows (Git
# Bash); the extension compiles into python/target, the CLI into target/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$here/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
maturin=${MATURIN:-maturin}

exe=""
case "$(uname -s)" in MINGW* | MSYS* | CYGWIN*) exe=.exe ;; esac

(cd "$root" && cargo build --release --locked --quiet --bin x3dbake)
rm -rf "$here/x3dbake/bin"
mkdir -p "$here/x3dbake/bin"
cp "$root/target/release/x3dbake$exe" "$here/x3dbake/bin/x3dbake$exe"
# Its symbols are of no use to a user (a third of its size).
if [ -z "$exe" ] && command -v strip >/dev/null; then
  strip "$here/x3dbake/bin/x3dbake$exe"
fi

rm -f "$out"/x3dbake-*.whl
"$maturin" build --release --locked --quiet --manifest-path "$here/Cargo.toml" \
  --target-dir "$here/target" --out "$out"
for w in "$out"/x3dbake-*.whl; do
  echo "$w: $(du -k "$w" | cut -f1) KiB"
done
