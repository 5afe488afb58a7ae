"""x3dbake.bake() gives the command line's bytes and messages, and the
diagnostics `x3dbake inspect --json` gives, on every bundled scene
(fixtures/scenes/*.x3d) and every corpus scene, for several flag sets."""

import json

import pytest
from conftest import CORPUS_DIR, corpus_scenes, fixture_scenes, missing, run_cli, scene_id

SCENES = fixture_scenes() + corpus_scenes()

# name: (bake()'s keyword arguments, the CLI's flags, the output's extension)
FLAG_SETS = {
    "default": ({}, [], ".glb"),
    "meshopt": ({"compress": "meshopt"}, ["--compress"], ".glb"),
    "sample12": ({"mode": "sample", "rate": 12}, ["--mode", "sample", "--rate", "12"], ".glb"),
    "csv": ({"format": "csv"}, [], ".csv"),
    "gltf": ({"format": "gltf"}, ["--embed"], ".gltf"),
}


def test_corpus_present():
    if not corpus_scenes():
        missing(f"the corpus ({CORPUS_DIR})")
    assert len(corpus_scenes()) >= 60


@pytest.mark.parametrize("flags", FLAG_SETS, ids=str)
@pytest.mark.parametrize("scene", SCENES, ids=scene_id)
def test_same_bytes_as_cli(x3dbake, cli, tmp_path, scene, flags):
    kw, args, ext = FLAG_SETS[flags]
    out = tmp_path / ("out" + ext)
    done = run_cli(cli, scene, "-o", out, *args)
    stderr = done.stderr.decode()
    if done.returncode == 0:
        result = x3dbake.bake(scene, **kw)
        assert result.data == out.read_bytes(), f"{scene} {flags}: bytes differ"
        assert result.messages == stderr
        assert result.format == (kw.get("format") or "glb")
    elif done.returncode == 1:
        with pytest.raises(x3dbake.SceneError) as e:
            x3dbake.bake(scene, **kw)
        assert e.value.messages == stderr
    else:
        with pytest.raises((x3dbake.UsageError, x3dbake.LimitError)):
            x3dbake.bake(scene, **kw)


@pytest.mark.parametrize("scene", SCENES, ids=scene_id)
def test_diagnostics_as_inspect_json(x3dbake, cli, scene):
    done = run_cli(cli, "inspect", "--json", scene)
    assert done.returncode in (0, 1), done.stderr
    doc = json.loads(done.stdout)
    try:
        result = x3dbake.bake(scene)
        diagnostics, counts = result.diagnostics, (result.errors, result.warnings)
        assert [(c.name, c.duration, c.loop, c.tracks) for c in result.clips] == [
            (c["name"], c["duration"], c["loop"], c["tracks"]) for c in doc["clips"]
        ]
        assert result.inspect == doc
    except x3dbake.SceneError as e:
        diagnostics, counts = e.diagnostics, (doc["errors"], doc["warnings"])
        assert done.returncode == 1
    # The JSON leaves out a place a diagnostic does not have.
    assert [{k: v for k, v in d._asdict().items() if v is not None} for d in diagnostics] == doc[
        "diagnostics"
    ]
    assert counts == (doc["errors"], doc["warnings"])
