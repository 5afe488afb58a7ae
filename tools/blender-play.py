#!/usr/bin/env python3
# Plays baked glTF files in Blender 5 (bpy, Blender as a Python module): its
# bundled importer (io_import_scene_gltf2) with default options, and prints
# what each animation does to the scene at the given times, as one JSON
# document in the shape tools/three-play.mjs prints:
#
#   $X3DBAKE_BLENDER tools/blender-play.py BAKED.glb T1 T2 ...
#   $X3DBAKE_BLENDER tools/blender-play.py --files A.glb B.glb ... --at T1 T2 ... \
#     [--files C.glb ... --at T3 ...]...
#
# (X3DBAKE_BLENDER: the python of a venv with bpy==5.0.1, which .ci/run
# makes.) One file: {"imported", "error", "channels", "animations": [{"name",
# "samples": [{"t", "nodes": [...], "materials": [...], "meshes": [...]}]}]};
# several: {"files": [{"file", ...the same}]}, one factory-fresh scene each
# (starting Python and bpy costs seconds, a file tens of milliseconds).
#
# imported: whether the importer ran to its end (error: the exception's last
# line when not). channels: per glTF animation, per channel index, its target
# ("node N translation", "node N weights" or the KHR_animation_pointer) and
# whether Blender made F-curves for it (arrived, fcurves: how many).
# nodes by glTF node index (glTF name, position, quaternion [x, y, z, w],
# scale, visible; a camera's fov in degrees, a light's color and intensity),
# all in the glTF frame: the importer's Y-up to Z-up conversion, its camera
# and light corrections and its bone-axis corrections (joints become pose
# bones) undone, so that values compare 1:1 with the file's node TRS.
# visible: Blender has no KHR_node_visibility; true unless the object is
# hidden (hide_viewport or hide_render). materials by glTF material index
# (glTF name, and of what the importer animates: color, opacity, emissive,
# roughness). meshes: every mesh node with shape keys (node index, glTF name,
# weights in the glTF target order, null for a target Blender made no shape
# key for, and positions: the morphed vertices, glTF frame, mesh space).
#
# How the importer works, and how it is played here: docs/players.md.

import json
import math
import os
import re
import struct
import sys
import traceback

# Everything Blender and the importer print goes to stderr; stdout is the
# JSON's alone.
_json_out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr

import bpy  # noqa: E402


def usage():
    sys.stderr.write(
        "usage: blender-play.py BAKED.glb T1 T2 ...\n"
        "       blender-play.py --files A.glb B.glb ... --at T1 T2 ... [--files C.glb ... --at T3 ...]...\n"
    )
    sys.exit(2)


def number(text):
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def parse_args(argv):
    """[(file, times)] and whether several were asked for (--files)."""
    if not argv:
        usage()
    if argv[0] != "--files":
        return [(argv[0], [float(t) for t in argv[1:]])], False
    # Groups: --files A B ... --at T ... [--files C ... --at T ...] ...
    groups, files, times, in_at = [], [], [], False
    for a in argv:
        if a == "--files" or (in_at and not number(a)):
            if files:
                groups.append((files, times))
            files, times, in_at = ([] if a == "--files" else [a]), [], False
        elif a == "--at":
            in_at = True
        elif in_at:
            times.append(float(a))
        else:
            files.append(a)
    if files:
        groups.append((files, times))
    return [(f, times) for files, times in groups for f in files], True


# --- The glTF file itself (names, channels), read without the importer. ---


def read_gltf_json(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"glTF":
        length = struct.unpack_from("<I", data, 12)[0]
        return json.loads(data[20 : 20 + length])
    return json.loads(data)


def channel_target(channel):
    t = channel.get("target", {})
    pointer = t.get("extensions", {}).get("KHR_animation_pointer", {}).get("pointer")
    if t.get("path") == "pointer" and pointer is not None:
        return pointer
    return "node %s %s" % (t.get("node"), t.get("path"))


# --- Hooks into the importer: which channel made which F-curves. ---
#
# The importer is driven by its own operator with default options; these
# wrappers only watch: the glTF object (vnodes, for the axis corrections),
# and for each channel the (ID, data path, index) of each F-curve it made.


class Watch:
    def __init__(self):
        self.reset()

    def reset(self):
        self.gltf = None
        self.anim = None
        self.channel = None
        # (anim, channel) -> [(id, data_path, index)]
        self.fcurves = {}
        # (id, data_path, index) -> the property's value before any
        # animation played (what a node not in an animation keeps).
        self.rest = {}


WATCH = Watch()


def channel_index(gltf, anim_idx, channel):
    for i, c in enumerate(gltf.data.animations[anim_idx].channels):
        if c is channel:
            return i
    return None


def weight_channel(gltf, anim_idx, vnode_id):
    """The channel BlenderWeightAnim.anim takes for a vnode (its logic)."""
    vnode = gltf.vnodes[vnode_id]
    node_idx = vnode.mesh_node_idx
    if node_idx is None:
        return None
    node = gltf.data.nodes[node_idx]
    animation = gltf.data.animations[anim_idx]
    for channel_idx in getattr(node, "animations", {}).get(anim_idx, []):
        channel = animation.channels[channel_idx]
        if channel.target.path == "weights":
            return channel_idx
        if channel.target.path == "pointer":
            tab = channel.target.extensions["KHR_animation_pointer"]["pointer"].split("/")
            if len(tab) >= 4 and tab[1] in ("nodes", "meshes") and tab[3] == "weights":
                return channel_idx
    return None


def install_hooks():
    import importlib

    anim = importlib.import_module("io_scene_gltf2.blender.imp.animation")
    node = importlib.import_module("io_scene_gltf2.blender.imp.animation_node")
    weight = importlib.import_module("io_scene_gltf2.blender.imp.animation_weight")
    pointer = importlib.import_module("io_scene_gltf2.blender.imp.animation_pointer")
    if getattr(anim.BlenderAnimation.anim, "_x3dbake", False):
        return

    def wrap_static(cls, name, before):
        original = getattr(cls, name)

        def wrapper(*args, **kwargs):
            saved = WATCH.channel
            before(*args, **kwargs)
            try:
                return original(*args, **kwargs)
            finally:
                WATCH.channel = saved

        wrapper._x3dbake = True
        setattr(cls, name, staticmethod(wrapper))

    def on_anim(gltf, anim_idx):
        WATCH.gltf, WATCH.anim = gltf, anim_idx

    def on_node_channel(gltf, anim_idx, node_idx, channel):
        WATCH.channel = channel_index(gltf, anim_idx, channel)

    def on_weights(gltf, anim_idx, vnode_id):
        WATCH.channel = weight_channel(gltf, anim_idx, vnode_id)

    def on_pointer_channel(gltf, anim_idx, channel, *rest, **kw):
        WATCH.channel = channel_index(gltf, anim_idx, channel)

    wrap_static(anim.BlenderAnimation, "anim", on_anim)
    wrap_static(node.BlenderNodeAnim, "do_channel", on_node_channel)
    wrap_static(weight.BlenderWeightAnim, "anim", on_weights)
    wrap_static(pointer.BlenderPointerAnim, "do_channel", on_pointer_channel)

    for module in (node, weight, pointer):
        original = module.make_fcurve

        def make_fcurve(action, slot, co, data_path, index=0, *a, _original=original, **kw):
            fcurve = _original(action, slot, co, data_path, index, *a, **kw)
            gltf = WATCH.gltf
            if fcurve is not None and gltf is not None and WATCH.channel is not None:
                # The ID the slot is for: get_or_create_action_and_slot has
                # listed it to be stashed by now.
                owner = next(
                    (d for (d, ac, sl) in gltf.needs_stash if ac == action and sl == slot),
                    None,
                )
                key = (WATCH.anim, WATCH.channel)
                WATCH.fcurves.setdefault(key, []).append((owner, data_path, index))
                if owner is not None:
                    try:
                        value = owner.path_resolve(data_path)
                        value = value[index] if hasattr(value, "__getitem__") else value
                        WATCH.rest.setdefault((owner, data_path, index), float(value))
                    except (ValueError, TypeError, IndexError):
                        pass
            return fcurve

        module.make_fcurve = make_fcurve


# --- Quaternions as [w, x, y, z] lists of Python floats (doubles). ---


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return [
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ]


def qconj(q):
    return [q[0], -q[1], -q[2], -q[3]]


def qnorm(q):
    n = math.sqrt(sum(c * c for c in q))
    return [c / n for c in q] if n > 0 else [1.0, 0.0, 0.0, 0.0]


def qrot(q, v):
    p = qmul(qmul(q, [0.0, v[0], v[1], v[2]]), qconj(q))
    return p[1:]


def q4(m):
    """A mathutils Quaternion as a normalised [w, x, y, z] of doubles."""
    return qnorm([float(m[0]), float(m[1]), float(m[2]), float(m[3])])


def perm_inverse(rot):
    """The inverse of the importer's scale_rot_swap_matrix(rot) (an
    unsigned permutation: its transpose), as a function on scales."""
    from io_scene_gltf2.blender.com.gltf2_blender_math import scale_rot_swap_matrix

    m = scale_rot_swap_matrix(rot)
    rows = [[float(m[i][j]) for j in range(3)] for i in range(3)]
    return lambda s: [sum(rows[j][i] * s[j] for j in range(3)) for i in range(3)]


class NodeFrame:
    """Undoes, for one glTF node, what the importer did to its TRS:
    final = (ra t, ra r rb, M s) in Blender's Z-up frame (ra: rotation_after,
    rb: rotation_before), a bone's pose relative to its edit bone, and the
    offset of an object parented to a bone."""

    def __init__(self, gltf, vnode):
        from io_scene_gltf2.blender.imp.vnode import VNode

        self.ra_inv = qconj(q4(vnode.rotation_after))
        self.rb_inv = qconj(q4(vnode.rotation_before))
        self.scale_inv = perm_inverse(vnode.rotation_before)
        self.bone = vnode.type == VNode.Bone
        self.offset = [0.0, 0.0, 0.0]
        if self.bone:
            self.et = [float(c) for c in vnode.editbone_trans]
            self.er = q4(vnode.editbone_rot)
        elif vnode.parent is not None and gltf.vnodes[vnode.parent].type == VNode.Bone:
            self.offset = [0.0, -float(gltf.vnodes[vnode.parent].bone_length), 0.0]
        self.u = 1.0 / bpy.context.scene.unit_settings.scale_length

    def gltf_trs(self, loc, rot, scale):
        loc = [float(c) for c in loc]
        rot = q4(rot)
        scale = [float(c) for c in scale]
        if self.bone:
            # Final = EditBone * PoseBone.
            loc = [a + b for a, b in zip(qrot(self.er, loc), self.et)]
            rot = qmul(self.er, rot)
        loc = [a - b for a, b in zip(loc, self.offset)]
        t = qrot(self.ra_inv, loc)
        r = qnorm(qmul(qmul(self.ra_inv, rot), self.rb_inv))
        s = self.scale_inv(scale)
        # Blender (x, y, z) = glTF (x, -z, y) · u.
        position = [t[0] / self.u, t[2] / self.u, -t[1] / self.u]
        quaternion = [r[1], r[3], -r[2], r[0]]
        return position, quaternion, [s[0], s[2], s[1]]


# --- Playing one file. ---


def last_line(text):
    """The exception's own line out of a traceback (the operator wraps it
    in "Error: Python: Traceback ..." and a "Location: ..." line)."""
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    raised = [
        line
        for line in lines
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception)\b", line) and not line.startswith("Error: Python")
    ]
    if raised:
        return raised[-1]
    return lines[-1] if lines else str(text)


def fcurve_summary(doc):
    """Per animation, per channel: its target and the F-curves it made."""
    out = []
    for a, anim in enumerate(doc.get("animations", [])):
        chans = []
        for c, channel in enumerate(anim.get("channels", [])):
            made = WATCH.fcurves.get((a, c), [])
            chans.append(
                {
                    "channel": c,
                    "target": channel_target(channel),
                    "interpolation": anim["samplers"][channel["sampler"]].get(
                        "interpolation", "LINEAR"
                    ),
                    "arrived": bool(made),
                    "fcurves": len(made),
                }
            )
        out.append({"name": anim.get("name", ""), "channels": chans})
    return out


def resolve(owner, data_path, index, depsgraph):
    """The evaluated value of one animated property."""
    try:
        evaluated = owner.evaluated_get(depsgraph)
    except (AttributeError, RuntimeError, TypeError):
        evaluated = owner
    try:
        value = evaluated.path_resolve(data_path)
    except ValueError:
        value = owner.path_resolve(data_path)
    try:
        return float(value[index])
    except TypeError:
        return float(value)


def pointer_values(doc, anim_idx, depsgraph):
    """glTF pointer -> its value as Blender has it now, back in glTF units."""
    from io_scene_gltf2.blender.com.conversion import PBR_WATTS_TO_LUMENS

    out = {}
    for c, channel in enumerate(doc["animations"][anim_idx].get("channels", [])):
        made = WATCH.fcurves.get((anim_idx, c))
        pointer = channel_target(channel)
        if not made or not pointer.startswith("/"):
            continue
        try:
            values = [resolve(o, p, i, depsgraph) for (o, p, i) in made]
        except (ValueError, TypeError, AttributeError, ReferenceError):
            continue
        tab = pointer.split("/")
        if tab[1] == "extensions" and tab[2] == "KHR_lights_punctual" and tab[-1] == "intensity":
            light = doc["extensions"]["KHR_lights_punctual"]["lights"][int(tab[4])]
            if light.get("type") in ("spot", "point"):
                values = [values[0] * PBR_WATTS_TO_LUMENS / (4 * math.pi)]
            else:
                values = [values[0] * PBR_WATTS_TO_LUMENS]
        elif tab[1] == "cameras" and tab[-1] == "yfov":
            cam = next(o for (o, _p, _i) in made)
            sensor = cam.evaluated_get(depsgraph).sensor_height
            values = [2.0 * math.atan(sensor / 2.0 / values[0])]
        out[pointer] = values
    return out


def reset_to_rest():
    """Every animated property back to its value in the file, so that what
    an animation leaves alone is as the file has it (Blender keeps the last
    evaluated value of a property no action drives any more)."""
    for (owner, data_path, index), value in WATCH.rest.items():
        base, _, attr = data_path.rpartition(".")
        holder = owner.path_resolve(base) if base else owner
        current = getattr(holder, attr)
        if hasattr(current, "__setitem__"):
            current[index] = value
        else:
            setattr(holder, attr, value)


def play_file(path, times):
    WATCH.reset()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    install_hooks()
    result = {"file": path, "imported": False, "error": None, "channels": [], "animations": []}
    try:
        doc = read_gltf_json(path)
    except (OSError, ValueError) as e:
        result["error"] = "unreadable: %s" % e
        return result
    try:
        outcome = bpy.ops.import_scene.gltf(filepath=os.path.abspath(path))
        result["imported"] = "FINISHED" in outcome
        if not result["imported"]:
            result["error"] = "import returned %s" % sorted(outcome)
    except Exception as e:  # the operator turns every failure into RuntimeError
        result["error"] = last_line(e)
    result["channels"] = fcurve_summary(doc)
    gltf = WATCH.gltf
    if not result["imported"] or gltf is None:
        return result

    from io_scene_gltf2.blender.imp.animation import BlenderAnimation
    from io_scene_gltf2.blender.imp.vnode import VNode

    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    nodes_json = doc.get("nodes", [])
    frames = {}
    for i in range(len(nodes_json)):
        vnode = gltf.vnodes.get(i)
        if vnode is not None and vnode.type in (VNode.Object, VNode.Bone):
            frames[i] = NodeFrame(gltf, vnode)
    # Mesh nodes with shape keys: (node index, object, shape key names).
    morphs = []
    for i, n in enumerate(nodes_json):
        if "mesh" not in n:
            continue
        vnode = next(
            (v for v in gltf.vnodes.values() if v.mesh_node_idx == i and v.blender_object),
            None,
        )
        if vnode is None:
            continue
        obj = vnode.blender_object
        if obj.type == "MESH" and obj.data.shape_keys is not None:
            morphs.append((i, obj, gltf.data.meshes[n["mesh"]].shapekey_names))

    def state(t, anim_idx):
        depsgraph = bpy.context.evaluated_depsgraph_get()
        pointers = pointer_values(doc, anim_idx, depsgraph)
        nodes = []
        for i, n in enumerate(nodes_json):
            vnode = gltf.vnodes.get(i)
            frame = frames.get(i)
            if frame is None:
                nodes.append({"index": i, "name": n.get("name", "")})
                continue
            if vnode.type == VNode.Bone:
                arma = gltf.vnodes[vnode.bone_arma].blender_object.evaluated_get(depsgraph)
                pb = arma.pose.bones[vnode.blender_bone_name]
                trs = frame.gltf_trs(pb.location, pb.rotation_quaternion, pb.scale)
                visible = True
            else:
                ob = vnode.blender_object.evaluated_get(depsgraph)
                trs = frame.gltf_trs(ob.location, ob.rotation_quaternion, ob.scale)
                visible = not (ob.hide_viewport or ob.hide_render)
            out = {
                "index": i,
                "name": n.get("name", ""),
                "position": trs[0],
                "quaternion": trs[1],
                "scale": trs[2],
                "visible": visible,
            }
            if "camera" in n:
                cam = doc["cameras"][n["camera"]]
                fov = pointers.get("/cameras/%d/perspective/yfov" % n["camera"])
                if fov is None:
                    fov = [cam.get("perspective", {}).get("yfov", 0.0)]
                out["fov"] = math.degrees(fov[0])
            light_ix = n.get("extensions", {}).get("KHR_lights_punctual", {}).get("light")
            if light_ix is not None:
                light = doc["extensions"]["KHR_lights_punctual"]["lights"][light_ix]
                base = "/extensions/KHR_lights_punctual/lights/%d/" % light_ix
                out["color"] = pointers.get(base + "color", light.get("color", [1.0, 1.0, 1.0]))
                out["intensity"] = pointers.get(base + "intensity", [light.get("intensity", 1.0)])[0]
            nodes.append(out)
        materials = []
        for m, mat in enumerate(doc.get("materials", [])):
            out = {"index": m, "name": mat.get("name", "")}
            base = "/materials/%d/" % m
            color = pointers.get(base + "pbrMetallicRoughness/baseColorFactor")
            if color is not None:
                out["color"] = color[:3]
                if len(color) > 3:
                    out["opacity"] = color[3]
            emissive = pointers.get(base + "emissiveFactor")
            if emissive is not None:
                out["emissive"] = emissive
            rough = pointers.get(base + "pbrMetallicRoughness/roughnessFactor")
            if rough is not None:
                out["roughness"] = rough[0]
            materials.append(out)
        meshes = []
        for i, obj, names in morphs:
            ob = obj.evaluated_get(depsgraph)
            key = obj.data.shape_keys.evaluated_get(depsgraph)
            weights = [
                float(key.key_blocks[k].value) if k is not None and k in key.key_blocks else None
                for k in names
            ]
            mesh = ob.to_mesh()
            positions = [[v.co.x, v.co.z, -v.co.y] for v in mesh.vertices]
            ob.to_mesh_clear()
            meshes.append(
                {
                    "node": i,
                    "name": nodes_json[i].get("name", ""),
                    "weights": weights,
                    "positions": positions,
                }
            )
        return {
            "t": t,
            "nodes": nodes,
            "materials": materials,
            "meshes": meshes,
            "pointers": pointers,
        }

    for a, anim in enumerate(gltf.data.animations or []):
        reset_to_rest()
        BlenderAnimation.restore_animation(gltf, anim.track_name)
        samples = []
        for t in times:
            frame = t * fps
            whole = math.floor(frame)
            scene.frame_set(int(whole), subframe=frame - whole)
            samples.append(state(t, a))
        result["animations"].append(
            {"name": doc["animations"][a].get("name", ""), "samples": samples}
        )
    return result


def main():
    plan, several = parse_args(sys.argv[1:])
    played = []
    for f, times in plan:
        try:
            played.append(play_file(f, times))
        except Exception:
            sys.stderr.write(traceback.format_exc())
            played.append({"file": f, "imported": False, "error": "blender-play: " + last_line(traceback.format_exc()),
                           "channels": [], "animations": []})
    doc = {"files": played} if several else played[0]
    _json_out.write(json.dumps(doc))
    _json_out.write("\n")
    _json_out.flush()


main()
