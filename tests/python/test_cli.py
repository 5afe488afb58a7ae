"""The wheel's `x3dbake` command: the real command-line binary, as
`cargo install` gives it."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, fixture_scenes, missing, run_cli


@pytest.fixture(scope="session")
def command(x3dbake):
    """The console script the wheel installed beside this Python."""
    bindir = Path(sys.executable).parent
    found = shutil.which("x3dbake", path=str(bindir))
    if found is None:
        missing(f"the wheel's x3dbake command in {bindir}")
    return found


def test_version(command, cli):
    assert run_cli(command, "--version").stdout == run_cli(cli, "--version").stdout


def test_help_names_the_command(command, cli):
    assert run_cli(command, "--help").stdout == run_cli(cli, "--help").stdout


def test_the_binary_is_in_the_package(x3dbake):
    from x3dbake import _cli

    assert os.path.isfile(_cli.binary()) and os.access(_cli.binary(), os.X_OK)


@pytest.mark.parametrize("scene", fixture_scenes()[:6], ids=lambda p: p.name)
def test_converts_as_the_cli(command, cli, tmp_path, scene):
    a, b = tmp_path / "a.glb", tmp_path / "b.glb"
    done = run_cli(command, scene, "-o", a, "--compress")
    want = run_cli(cli, scene, "-o", b, "--compress")
    assert (done.returncode, done.stderr) == (want.returncode, want.stderr)
    assert a.read_bytes() == b.read_bytes()


def test_batch_and_exit_codes(command, tmp_path):
    # A folder into a folder; a bad scene exits 1; a usage error 2.
    done = run_cli(command, ROOT / "fixtures" / "scenes", "-o", f"{tmp_path}/out/", "-q")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "bouncing_box.x3d.glb").is_file() or (tmp_path / "out" / "routing.glb").is_file()
    assert run_cli(command, ROOT / "fixtures" / "errors" / "bad_attributes.x3d", "-o", tmp_path / "x.glb").returncode == 1
    assert run_cli(command, "--no-such-flag").returncode == 2


def test_python_m(x3dbake, cli):
    done = subprocess.run([sys.executable, "-m", "x3dbake", "--version"], capture_output=True)
    assert done.stdout == run_cli(cli, "--version").stdout
