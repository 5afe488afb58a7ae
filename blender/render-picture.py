"""Renders a scene imported through the extension, headless (Blender as a
Python module, Cycles on the CPU): the picture in docs/blender.md.

    PYTHON blender/render-picture.py EXTENSION.zip SCENE OUT.png [SECONDS [CLIP]]

PYTHON: a python with bpy (the venv .ci/run makes: pip install bpy==5.0.1).
The extension is installed from its .zip (blender/build.sh) into a
temporary user folder, SCENE imported by bpy.ops.import_scene.x3dbake, a
camera aimed at what was imported (from the side and above), a sun and a
grey floor added, and the frame at SECONDS (1.0) of CLIP (the action the
glTF importer made active) rendered at 640 × 360."""

import math
import os
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="x3dbake-blender-"))

import bpy  # noqa: E402
from mathutils import Vector  # noqa: E402

zip_path, scene_path, out = sys.argv[1:4]
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
action = sys.argv[5] if len(sys.argv) > 5 else None

bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True)
bpy.ops.wm.read_homefile(use_empty=True)
assert "FINISHED" in bpy.ops.import_scene.x3dbake(filepath=scene_path)

scene = bpy.context.scene
if action:
    # That clip (the glTF importer makes the first one active).
    for o in scene.objects:
        if o.animation_data and o.animation_data.action:
            slot = o.animation_data.action_slot
            o.animation_data.action = bpy.data.actions[action]
            if slot and slot.identifier in o.animation_data.action.slots:
                o.animation_data.action_slot = o.animation_data.action.slots[slot.identifier]
scene.frame_set(round(seconds * scene.render.fps))
bpy.context.view_layer.update()

# The bounds of what is drawn, at that frame.
points = []
depsgraph = bpy.context.evaluated_depsgraph_get()
for o in scene.objects:
    if o.type == 'MESH' and not o.hide_render:
        ev = o.evaluated_get(depsgraph)
        mesh = ev.to_mesh()
        points += [ev.matrix_world @ v.co for v in mesh.vertices]
        ev.to_mesh_clear()
lo = Vector([min(p[i] for p in points) for i in range(3)])
hi = Vector([max(p[i] for p in points) for i in range(3)])
center, size = (lo + hi) / 2, max((hi - lo).length, 1e-3)

camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(camera)
camera.data.lens = 50
direction = Vector((0.9, -1.6, 0.7)).normalized()
camera.location = center + direction * size * 1.7
camera.rotation_euler = (center - camera.location).to_track_quat('-Z', 'Y').to_euler()
scene.camera = camera

sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", 'SUN'))
sun.data.energy = 3.0
sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
scene.collection.objects.link(sun)

bpy.ops.mesh.primitive_plane_add(size=size * 8, location=(center.x, center.y, lo.z))
floor = bpy.context.object
floor_material = bpy.data.materials.new("Floor")
floor_material.diffuse_color = (0.55, 0.57, 0.6, 1)
if floor_material.node_tree:
    floor_material.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.57, 0.6, 1)
floor.data.materials.append(floor_material)

world = bpy.data.worlds.new("World")
if not world.node_tree:
    world.use_nodes = True
world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.75, 0.8, 0.88, 1)
world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.6
scene.world = world

scene.render.engine = 'CYCLES'
scene.cycles.device = 'CPU'
scene.cycles.samples = 24
scene.cycles.use_denoising = True
scene.render.resolution_x, scene.render.resolution_y = 640, 360
scene.render.resolution_percentage = 100
scene.render.image_settings.file_format = 'PNG'
scene.render.image_settings.color_mode = 'RGB'
scene.render.image_settings.compression = 100
scene.render.filepath = os.path.abspath(out)
bpy.ops.render.render(write_still=True)
print(f"{out}: frame {scene.frame_current} of {scene_path}")
