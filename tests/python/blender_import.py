"""Run inside Blender 5 (bpy, a venv's python) by test_blender.py:

    PYTHON blender_import.py JOB.json RESULT.json

JOB: {"zip": the extension, "cases": [{"id", "scene", "glb", "options"}]}.
Installs the extension zip (Blender's own extension installer, into the
user resources BLENDER_USER_RESOURCES names), then for each case imports
the scene through the add-on's operator (bpy.ops.import_scene.x3dbake with
"options") and, into a fresh empty scene, the command line's .glb through
Blender's glTF importer, and writes what each import made: objects,
actions with their F-curve keys, NLA tracks, meshes, materials, and the
operator's reports as Blender printed them."""

import ctypes
import json
import os
import sys
import tempfile
import traceback

import bpy

libc = ctypes.CDLL(None)


def snapshot():
    objects = {}
    for o in bpy.data.objects:
        ad = o.animation_data
        objects[o.name] = {
            "type": o.type,
            "parent": o.parent.name if o.parent else None,
            "parent_bone": o.parent_bone,
            "data": o.data.name if o.data else None,
            "matrix": [list(r) for r in o.matrix_basis],
            "hide": [o.hide_viewport, o.hide_render],
            "action": ad.action.name if ad and ad.action else None,
            "slot": ad.action_slot.identifier if ad and ad.action_slot else None,
            "nla": [
                [t.name, [[s.name, s.action.name if s.action else None, s.frame_start, s.frame_end] for s in t.strips]]
                for t in ad.nla_tracks
            ]
            if ad
            else [],
        }
    actions = {}
    for a in bpy.data.actions:
        channels = []
        for layer in a.layers:
            for strip in layer.strips:
                for bag in strip.channelbags:
                    for f in bag.fcurves:
                        channels.append(
                            [
                                bag.slot.identifier,
                                f.data_path,
                                f.array_index,
                                [[k.co[0], k.co[1], k.interpolation] for k in f.keyframe_points],
                            ]
                        )
        actions[a.name] = {"range": list(a.frame_range), "channels": channels}
    meshes = {
        m.name: {
            "vertices": len(m.vertices),
            "polygons": len(m.polygons),
            "shape_keys": [k.name for k in m.shape_keys.key_blocks] if m.shape_keys else [],
        }
        for m in bpy.data.meshes
    }
    scene = bpy.context.scene
    return {
        "objects": objects,
        "actions": actions,
        "meshes": meshes,
        "materials": sorted(m.name for m in bpy.data.materials),
        "frames": [scene.frame_start, scene.frame_end, scene.render.fps],
    }


def captured(call):
    """Runs call() with Blender's standard output (where the reports of an
    operator run in the background go) into a file; its result and that
    text."""
    sys.stdout.flush()
    libc.fflush(None)
    saved = os.dup(1)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 1)
        try:
            try:
                result = sorted(call())
            except Exception:
                result = ["exception: " + traceback.format_exc().strip().splitlines()[-1]]
        finally:
            sys.stdout.flush()
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        text = f.read().decode("utf-8", "replace")
    sys.stderr.write(text)
    return result, text


def main():
    job = json.load(open(sys.argv[1]))
    out = {"installed": None, "cases": {}}
    r = bpy.ops.extensions.package_install_files(filepath=job["zip"], repo="user_default", enable_on_install=True)
    out["installed"] = sorted(r) + [hasattr(bpy.ops.import_scene, "x3dbake")]
    for case in job["cases"]:
        bpy.ops.wm.read_homefile(use_empty=True)
        status, text = captured(lambda: bpy.ops.import_scene.x3dbake(filepath=case["scene"], **case["options"]))
        mine = snapshot()
        bpy.ops.wm.read_homefile(use_empty=True)
        glb_status, _ = captured(lambda: bpy.ops.import_scene.gltf(filepath=case["glb"]))
        theirs = snapshot()
        out["cases"][case["id"]] = {
            "operator": status,
            "gltf": glb_status,
            "reports": [line for line in text.splitlines() if line.startswith(("Warning: ", "Error: ", "Info: "))],
            "x3dbake": mine,
            "cli": theirs,
        }
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)


main()
