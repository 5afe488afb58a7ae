"""Shared helpers of the Python package's tests (tests/python).

Run by .ci/run's Python section in a fresh venv holding the wheel built by
python/build.sh and pytest:

    X3DBAKE_DIST=DIR  (the wheel and the Blender extension's .zip)
    X3DBAKE_BLENDER=PYTHON  (a venv's python with bpy==5.0.1)
    python -m pytest tests/python

What is missing (the package, the CLI, the corpus, Blender) makes its
tests say skipped, and fail when CI=true.
"""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CI = os.environ.get("CI") == "true"
CLI = ROOT / "target" / "release" / ("x3dbake.exe" if os.name == "nt" else "x3dbake")
CORPUS_DIR = ROOT.parent / "shared" / "corpus"


def missing(what):
    """Skips the test for lack of `what`; fails it on CI."""
    if CI:
        pytest.fail(f"{what} is missing (CI=true: a missing tool fails)", pytrace=False)
    pytest.skip(f"skipped: {what} is missing")


def fixture_scenes():
    return sorted((ROOT / "fixtures" / "scenes").glob("*.x3d"))


def corpus_scenes():
    """The corpus's scene files, as tools/scenes.sh lists them."""
    if not CORPUS_DIR.is_dir():
        return []
    out = subprocess.run(
        ["bash", str(ROOT / "tools" / "scenes.sh"), str(CORPUS_DIR)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [Path(line) for line in out.splitlines() if line]


def scene_id(path):
    path = Path(path)
    try:
        return str(path.relative_to(CORPUS_DIR))
    except ValueError:
        return str(path.relative_to(ROOT))


@pytest.fixture(scope="session")
def x3dbake():
    try:
        import x3dbake
    except ImportError as e:
        missing(f"the x3dbake package ({e})")
    return x3dbake


@pytest.fixture(scope="session")
def cli():
    """The command-line binary of this tree (cargo build --release)."""
    if not CLI.is_file():
        try:
            subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "x3dbake"], cwd=ROOT, check=True)
        except (OSError, subprocess.CalledProcessError):
            pass
    if not CLI.is_file():
        missing(f"{CLI} (cargo build --release)")
    return CLI


@pytest.fixture(scope="session")
def corpus():
    scenes = corpus_scenes()
    if not scenes:
        missing(f"the corpus ({CORPUS_DIR})")
    return scenes


def run_cli(cli, *args, cwd=None):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([str(cli), *map(str, args)], capture_output=True, env=env, cwd=cwd)
