#!/usr/bin/env bash
# Builds the Blender extension (Blender 4.2+): blender_manifest.toml and
# __init__.py with the x3dbake wheel(s) bundled (`wheels`, `platforms`
# from their tags), as one .zip in OUT, for Edit > Preferences > Get
# Extensions > Install from Disk, or `blender --command extension install-file`.
#
#   blender/build.sh OUT [WHEEL...]     (default: the x3dbake-*.whl in OUT,
#                                        made by python/build.sh OUT)
#
# Several wheels (Linux, macOS, Windows) make one extension for them all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: blender/build.sh OUT [WHEEL...]}
shift
mkdir -p "$out"
if [ $# -eq 0 ]; then
  set -- "$out"/x3dbake-*.whl
  [ -f "$1" ] || { echo "blender/build.sh: no x3dbake wheel in $out (python/build.sh $out makes it)" >&2; exit 2; }
fi
python=$(command -v python3 || command -v python)
"$python" - "$here" "$out" "$@" <<'PY'
import os, re, sys, zipfile

here, out, wheels = sys.argv[1], sys.argv[2], sys.argv[3:]
systems = {"manylinux": "linux", "musllinux": "linux", "linux": "linux", "macosx": "macos", "win": "windows"}
machines = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
platforms = []
for w in wheels:
    tag = os.path.basename(w)[:-4].split("-")[-1]
    for one in tag.split("."):
        system = next(v for k, v in systems.items() if one.startswith(k))
        machine = "universal2" if one.endswith("universal2") else next(
            v for k, v in machines.items() if one.endswith(k))
        for m in (["x64", "arm64"] if machine == "universal2" else [machine]):
            p = f"{system}-{m}"
            if p not in platforms:
                platforms.append(p)
manifest = open(os.path.join(here, "blender_manifest.toml"), encoding="utf-8").read()
marker = "# blender/build.sh adds `platforms` and `wheels` (the x3dbake wheel) here.\n"
assert marker in manifest, "the manifest's marker line is missing"
listed = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"
manifest = manifest.replace(marker, f"platforms = {listed(platforms)}\n"
                            f"wheels = {listed('./wheels/' + os.path.basename(w) for w in wheels)}\n")
version = re.search(r'^version = "([^"]+)"', manifest, re.M).group(1)
name = os.path.join(out, f"x3dbake-blender-{version}-{'_'.join(platforms)}.zip")
with zipfile.ZipFile(name + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("blender_manifest.toml", manifest)
    z.write(os.path.join(here, "__init__.py"), "__init__.py")
    for w in wheels:
        # (A wheel is compressed already.)
        z.write(w, "wheels/" + os.path.basename(w), compress_type=zipfile.ZIP_STORED)
os.replace(name + ".tmp", name)
print(f"{name}: {os.path.getsize(name) // 1024} KiB")
PY
