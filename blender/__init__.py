# SPDX-License-Identifier: GPL-3.0-or-later
"""X3D / VRML importer for Blender 4.2+: x3dbake bakes the scene and its
animation into a temporary .glb, which Blender's own glTF importer reads.

File > Import > X3D / VRML (x3dbake), or bpy.ops.import_scene.x3dbake(
filepath=...). The x3dbake Python package comes with the extension (its
wheel); its defaults are the ones that play right in Blender (LINEAR keys,
rotations close enough for Blender's per-component interpolation, nodes
shown and hidden by a STEP scale)."""

import os
import shutil
import tempfile

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    IntProperty,
    StringProperty,
)
from bpy_extras.io_utils import ImportHelper

# The extensions x3dbake reads (gzipped too); .json and .gz only in the file
# browser, not for drag and drop (too many other files have them).
EXTENSIONS = (".x3d", ".x3dv", ".wrl", ".x3dj", ".x3dz", ".x3dvz", ".wrz")
GLOB = ";".join("*" + e for e in EXTENSIONS + (".json", ".gz"))


def _numbers(text, what):
    """Seconds from a text field: None when empty."""
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{what}: a number of seconds, not {text!r}") from None


def bake_options(op):
    """The keyword arguments of x3dbake.bake() that the operator's
    properties give (those left at their defaults are left out)."""
    kw = {"format": "glb"}
    if op.time == 'WORLD':
        kw["timeline"] = True
        kw["start"] = _numbers(op.start, "Start")
        kw["end"] = _numbers(op.end, "End")
        kw["load_time"] = _numbers(op.load_time, "Load time")
        kw["events"] = [e.strip() for e in op.events.split(";") if e.strip()]
    else:
        kw["clips"] = [c.strip() for c in op.clips.split(",") if c.strip()]
        if op.cycles != 1:
            kw["cycles"] = op.cycles
    if op.sample:
        kw["mode"] = "sample"
    # (Blender keeps float properties in single precision: 0.01 is
    # 0.0099999998; six digits give back the number typed.)
    if op.sample or op.time == 'WORLD':
        kw["rate"] = _typed(op.rate)
    if op.tolerance > 0:
        kw["tolerance"] = _typed(op.tolerance)
    return kw


def _typed(value):
    return float(f"{value:.6g}")


class IMPORT_SCENE_OT_x3dbake(bpy.types.Operator, ImportHelper):
    """Import an X3D or VRML scene with its animation (baked by x3dbake into glTF)"""

    bl_idname = "import_scene.x3dbake"
    bl_label = "Import X3D / VRML"
    bl_options = {'REGISTER', 'UNDO', 'PRESET'}

    filename_ext = ".x3d"
    filter_glob: StringProperty(default=GLOB, options={'HIDDEN'})
    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={'HIDDEN', 'SKIP_SAVE'})
    directory: StringProperty(subtype='DIR_PATH', options={'HIDDEN', 'SKIP_SAVE'})

    time: EnumProperty(
        name="Time",
        items=(
            ('CLIPS', "Clips", "One action per clock (TimeSensor, Timer), each from its start"),
            ('WORLD', "World time", "The whole world as it plays from load: clocks start, stop and "
             "chain as their events say (Scripts, event utilities, followers, the events given)"),
        ),
        default='CLIPS',
    )
    clips: StringProperty(
        name="Clips",
        description="Only these clips (clock names, comma-separated); empty: every clip",
        default="",
    )
    cycles: IntProperty(name="Cycles", description="Cycles of each clock in a clip", default=1, min=1, max=1000)
    start: StringProperty(name="Start", description="World time: the first time, seconds (empty: load)", default="")
    end: StringProperty(
        name="End",
        description="World time: the last time, seconds (empty: the end of the last clock's first run)",
        default="",
    )
    load_time: StringProperty(
        name="Load time",
        description="World time: the absolute time the world loads, seconds (empty: 2000000000)",
        default="",
    )
    events: StringProperty(
        name="Events",
        description="World time: what a person does, TIME:NODE.FIELD=VALUE separated by ';' "
        "(2:Button.touchTime=2)",
        default="",
    )
    sample: BoolProperty(
        name="Sample",
        description="Every track sampled at the rate (no bound) instead of exact keys and bounded fits",
        default=False,
    )
    rate: FloatProperty(
        name="Rate",
        description="Samples a second (sampling, world time)",
        default=30.0,
        min=0.001,
        max=100000.0,
    )
    tolerance: FloatProperty(
        name="Tolerance",
        description="The bound for every track (scene units, radians for rotations); 0: x3dbake's "
        "default bound (1e-4 relative)",
        default=0.0,
        min=0.0,
        precision=6,
    )

    def invoke(self, context, event):
        # A path already set (a file dropped on the window): the options
        # alone; else the file browser.
        if hasattr(ImportHelper, "invoke_popup"):
            return self.invoke_popup(context)
        context.window_manager.fileselect_add(self)
        return {'RUNNING_MODAL'}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        layout.prop(self, "time")
        if self.time == 'WORLD':
            layout.prop(self, "start")
            layout.prop(self, "end")
            layout.prop(self, "load_time")
            layout.prop(self, "events")
        else:
            layout.prop(self, "clips")
            layout.prop(self, "cycles")
        layout.prop(self, "sample")
        row = layout.row()
        row.enabled = self.sample or self.time == 'WORLD'
        row.prop(self, "rate")
        layout.prop(self, "tolerance")

    def paths(self):
        if self.files and self.directory:
            return [os.path.join(self.directory, f.name) for f in self.files if f.name]
        return [self.filepath]

    def execute(self, context):
        import x3dbake

        try:
            kw = bake_options(self)
        except ValueError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        imported = 0
        for path in self.paths():
            if import_x3d(self, context, path, kw, x3dbake):
                imported += 1
        return {'FINISHED'} if imported else {'CANCELLED'}


def glb_name(path):
    """`scene.glb` for scene.x3d, scene.x3d.gz, scene.x3dz."""
    stem = os.path.basename(path)
    if stem.lower().endswith(".gz"):
        stem = stem[:-3]
    root, ext = os.path.splitext(stem)
    if ext.lower() in EXTENSIONS + (".json",):
        stem = root
    return (stem or "scene") + ".glb"


def import_x3d(op, context, path, kw, x3dbake):
    """Bakes `path` into a temporary .glb and imports that; True when it
    was imported."""
    try:
        result = x3dbake.bake(path, **kw)
    except x3dbake.SceneError as e:
        op.report({'ERROR'}, f"x3dbake: {e}")
        return False
    except (x3dbake.X3DBakeError, OSError) as e:
        op.report({'ERROR'}, f"x3dbake: {path}: {e}")
        return False
    for d in result.diagnostics:
        op.report({'WARNING'}, f"x3dbake: {d}")
    if result.warnings > len(result.diagnostics):
        op.report({'WARNING'}, f"x3dbake: {result.warnings} warnings in all, {len(result.diagnostics)} shown")
    folder = tempfile.mkdtemp(prefix="x3dbake-")
    try:
        # Named after the scene, as `x3dbake SCENE` names its output.
        glb = os.path.join(folder, glb_name(path))
        result.write(glb)
        done = bpy.ops.import_scene.gltf(filepath=glb)
    except RuntimeError as e:
        op.report({'ERROR'}, f"glTF importer: {e}")
        return False
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if 'FINISHED' not in done:
        op.report({'ERROR'}, f"glTF importer: {path} not imported")
        return False
    op.report({'INFO'}, f"x3dbake: {os.path.basename(path)}: {len(result.clips)} clips, {result.warnings} warnings")
    return True


class IO_FH_x3dbake(bpy.types.FileHandler):
    bl_idname = "IO_FH_x3dbake"
    bl_label = "X3D / VRML (x3dbake)"
    bl_import_operator = "import_scene.x3dbake"
    bl_file_extensions = ";".join(EXTENSIONS)

    @classmethod
    def poll_drop(cls, context):
        return context.area is not None and context.area.type in {'VIEW_3D', 'OUTLINER'}


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_x3dbake.bl_idname, text="X3D / VRML (x3dbake)")


classes = (IMPORT_SCENE_OT_x3dbake, IO_FH_x3dbake)


def register():
    for c in classes:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for c in reversed(classes):
        bpy.utils.unregister_class(c)
