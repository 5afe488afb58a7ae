"""The x3dbake package's API: sources, files held in memory, results,
writing, and the exceptions."""

import os
import pathlib

import pytest
from conftest import ROOT, run_cli

SCENES = ROOT / "fixtures" / "scenes"
BOX = SCENES / "bouncing_box.x3d"
BAD = ROOT / "fixtures" / "errors" / "bad_attributes.x3d"


def test_version(x3dbake, cli):
    assert run_cli(cli, "--version").stdout.decode() == f"x3dbake {x3dbake.__version__}\n"


def test_bad_scene_raises_scene_error(x3dbake):
    with pytest.raises(x3dbake.SceneError) as e:
        x3dbake.bake(str(BAD))
    assert "bad_attributes.x3d:3:44: error: " in str(e.value)
    first = e.value.diagnostics[0]
    assert (first.severity, first.line, first.column) == ("error", 3, 44)
    assert first.file.endswith("bad_attributes.x3d")
    assert isinstance(e.value, x3dbake.X3DBakeError)
    assert e.value.messages.startswith(str(e.value))


def test_usage_errors(x3dbake):
    # Checked by the library, as the command line checks its flags.
    with pytest.raises(x3dbake.UsageError, match="--tolerance is for glTF output"):
        x3dbake.bake(BOX, format="csv", tolerance=0.1)
    with pytest.raises(x3dbake.UsageError, match="--start is for --timeline"):
        x3dbake.bake(BOX, start=1.0)
    with pytest.raises(x3dbake.UsageError, match="^mode: unknown variant `fast`"):
        x3dbake.bake(BOX, mode="fast")
    with pytest.raises(x3dbake.UsageError, match="--rate must be above 0"):
        x3dbake.bake(BOX, rate=0)
    with pytest.raises(x3dbake.UsageError, match="--clip"):
        x3dbake.bake(BOX, clips=["NoSuchClip"])
    with pytest.raises(x3dbake.UsageError, match="--event"):
        x3dbake.bake(BOX, timeline=True, events=["nonsense"])
    with pytest.raises(x3dbake.UsageError, match="is a .csv file"):
        x3dbake.bake(BOX, format="glb", output="x.csv")
    with pytest.raises(x3dbake.UsageError):
        x3dbake.bake(BOX.read_bytes(), root=SCENES)
    # A UsageError is a ValueError too.
    with pytest.raises(ValueError):
        x3dbake.bake(BOX, interpolation="step")


def test_limit_error(x3dbake):
    with pytest.raises(x3dbake.LimitError):
        x3dbake.bake(BOX, mode="sample", rate=1000, max_samples=10)


def test_missing_file(x3dbake, tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        x3dbake.bake(tmp_path / "none.x3d")
    assert e.value.filename == str(tmp_path / "none.x3d")
    with pytest.raises(TypeError):
        x3dbake.bake(12)


def test_result(x3dbake):
    r = x3dbake.bake(pathlib.Path(SCENES / "routing.x3d"), report=True)
    assert r.data[:4] == b"glTF" and r.format == "glb"
    assert [c.name for c in r.clips] == ["Slow", "Fast"]
    assert [c.duration for c in r.clips] == [8.0, 2.0]
    assert r.clips[0].tracks[0]["target"] == "Mover"
    assert r.warnings == len(r.diagnostics) > 0 and r.errors == 0
    d = r.diagnostics[0]
    assert d.severity == "warning" and d.line and d.column
    assert str(d).startswith(f"{d.file}:{d.line}:{d.column}: warning: ")
    assert r.messages.count("warning:") == r.warnings
    assert r.report.startswith("<!DOCTYPE html>") or r.report.lstrip().startswith("<")
    assert r.read == []
    assert "glb" in repr(r)
    assert x3dbake.bake(BOX).report is None


def test_compress_true_is_meshopt(x3dbake):
    assert x3dbake.bake(BOX, compress=True).data == x3dbake.bake(BOX, compress="meshopt").data
    assert x3dbake.bake(BOX, compress=False).data == x3dbake.bake(BOX).data


def test_timeline_and_events(x3dbake, cli, tmp_path):
    scene = SCENES / "routing.x3d"
    args = dict(timeline=True, end=4.0, load_time=100.0, events=("1:Touch.touchTime=101",))
    r = x3dbake.bake(scene, **args)
    out = tmp_path / "t.glb"
    done = run_cli(
        cli, scene, "-o", out, "--timeline", "--end", "4", "--load-time", "100",
        "--event", "1:Touch.touchTime=101",
    )
    assert done.returncode == 0, done.stderr
    assert r.data == out.read_bytes()


def test_files_in_memory(x3dbake, cli):
    """A scene with an Inline and an EXTERNPROTO, all held in memory, gives
    the bytes the command line gives for the same files on disk."""
    fixtures = ROOT / "fixtures"
    names = ["scenes/linked.x3dv", "include/part.x3d", "include/spinner.x3dv"]
    files = {n: (fixtures / n).read_bytes() for n in names}
    done = run_cli(cli, "scenes/linked.x3dv", "-o", "-", "--format", "glb", cwd=fixtures)
    assert done.returncode == 0, done.stderr
    by_name = x3dbake.bake("scenes/linked.x3dv", files=files)
    assert by_name.data == done.stdout
    assert sorted(by_name.read) == ["include/part.x3d", "include/spinner.x3dv"]
    assert by_name.warnings == done.stderr.decode().count("warning:")
    # The scene's bytes: named by the entry they equal.
    by_bytes = x3dbake.bake(files["scenes/linked.x3dv"], files=files)
    assert by_bytes.data == done.stdout
    # Without the Inline's file: warned, not fatal.
    partial = x3dbake.bake(files["scenes/linked.x3dv"], files={"scenes/linked.x3dv": files["scenes/linked.x3dv"]})
    assert any("part.x3d" in d.message for d in partial.diagnostics)
    with pytest.raises(FileNotFoundError):
        x3dbake.bake("scenes/none.x3dv", files=files)


def test_bytes_without_files(x3dbake):
    r = x3dbake.bake(BOX.read_bytes())
    assert r.data == x3dbake.bake(BOX).data
    assert r.inspect["file"] == "scene.x3d"
    r = x3dbake.bake(bytearray(b'<X3D><Scene><Transform DEF="T"/></Scene></X3D>'))
    assert r.clips == []


def test_root(x3dbake, tmp_path):
    scene = ROOT / "fixtures" / "scenes" / "linked.x3dv"
    inside = x3dbake.bake(scene, root=ROOT / "fixtures")
    assert len(inside.read) == 2
    # The Inline and the EXTERNPROTO lie outside: not read, warned.
    outside = x3dbake.bake(scene, root=ROOT / "fixtures" / "scenes")
    assert outside.read == []
    assert any("outside" in d.message for d in outside.diagnostics)
    with pytest.raises(OSError):
        x3dbake.bake(scene, root=tmp_path / "none")


def test_write_and_output(x3dbake, cli, tmp_path):
    out = tmp_path / "box.glb"
    r = x3dbake.bake(BOX, output=out)
    assert out.read_bytes() == r.data
    assert sorted(os.listdir(tmp_path)) == ["box.glb"]  # no temporary file left
    # Written over as a whole; the format from the output's extension.
    csv = x3dbake.bake(BOX, output=tmp_path / "box.csv")
    assert csv.format == "csv" and (tmp_path / "box.csv").read_bytes() == csv.data
    done = run_cli(cli, BOX, "-o", tmp_path / "cli.csv")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cli.csv").read_bytes() == csv.data
    gltf = x3dbake.bake(BOX, output=str(tmp_path / "box.gltf"))
    assert gltf.format == "gltf" and gltf.data.startswith(b"{")
    assert r.write(out) == str(out)
    assert out.read_bytes() == r.data


def test_write_refuses_the_input(x3dbake, tmp_path):
    scene = tmp_path / "s.x3d"
    scene.write_bytes(BOX.read_bytes())
    link = tmp_path / "link.x3d"
    os.link(scene, link)
    r = x3dbake.bake(scene)
    for target in (scene, link):
        with pytest.raises(x3dbake.UsageError, match="not written over"):
            r.write(target)
    assert scene.read_bytes() == BOX.read_bytes()
    with pytest.raises(x3dbake.UsageError):
        x3dbake.bake(scene, output=scene)
    # Nor a file the scene read.
    linked = x3dbake.bake(ROOT / "fixtures" / "scenes" / "linked.x3dv")
    with pytest.raises(x3dbake.UsageError):
        linked.write(ROOT / "fixtures" / "include" / "part.x3d")


def test_write_into_a_device(x3dbake):
    if not os.path.exists(os.devnull) or os.name == "nt":
        pytest.skip("skipped: no /dev/null")
    x3dbake.bake(BOX).write(os.devnull)
    assert os.path.exists(os.devnull)


def test_threads(x3dbake):
    """bake() releases the GIL: bakes in threads give the same bytes."""
    from concurrent.futures import ThreadPoolExecutor

    scenes = sorted(SCENES.glob("*.x3d"))[:8]
    alone = [x3dbake.bake(s).data for s in scenes]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda s: x3dbake.bake(s).data, scenes)) == alone
