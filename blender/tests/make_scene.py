"""Build the add-on's test scene by script and save it:

    blender -b --factory-startup --python-exit-code 1 -P make_scene.py -- OUT.blend

A grey ground, a "head" sphere with 1200 hair curves (a Curves
object, Principled Hair BSDF in its melanin parametrisation), a blue box
and a gold sphere, each with its own Principled BSDF; a point light and a
sun (both sharp: radius and angle 0, as sertrace's are) and a dim bluish
world; a camera that frames it all at 160x120.

It is fair to both renderers where their models agree: multiscatter GGX
(sertrace compensates the energy single scattering loses), no Subsurface,
Sheen or anisotropy, diffuse materials without a specular layer (see
DIFFUSE_ROUGHNESS), a metal, view transform Standard. The strands are polylines in sertrace and Catmull-Rom splines in
Cycles, close to each other at 9 points a strand.
"""

import math
import sys

import bpy
import numpy as np
from mathutils import Vector

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
if len(argv) != 1:
    sys.exit("make_scene.py: want OUT.blend")
out_path = argv[0]

HAIR_STRANDS = 1200
HAIR_DISPLAY_STEP = 3
HAIR_POINTS = 2 ** HAIR_DISPLAY_STEP + 1  # per strand: 9
HAIR_ROOT_RADIUS = 0.006
HAIR_TIP_RADIUS = 0.002
HEAD_RADIUS = 0.5
# The diffuse materials have no specular layer: Cycles 3.4's Principled
# BSDF adds its specular to the diffuse where sertrace (and Cycles 4) takes
# the specular's albedo off the diffuse (so at the ground's grazing angles
# Cycles 3.4 is ~10% brighter); and its diffuse is Disney's, whose
# retro-reflection goes with roughness: at 0.3 it is close to Lambert's.
DIFFUSE_ROUGHNESS = 0.3

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
rng = np.random.default_rng(7)


def principled(name, base, roughness, metallic=0.0, specular=0.5):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*base, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Specular IOR Level" if "Specular IOR Level" in bsdf.inputs else "Specular"].default_value = specular
    bsdf.distribution = "MULTI_GGX"
    mat.diffuse_color = (*base, 1.0)
    return mat


def link(obj):
    scene.collection.objects.link(obj)
    return obj


def mesh_object(name, op, mat, **kw):
    """A primitive made by op, renamed, with mat; no operator state left."""
    op(**kw)
    obj = bpy.context.object
    obj.name = obj.data.name = name
    obj.data.materials.append(mat)
    return obj


# Ground, head, box, gold sphere.
mesh_object("Ground", bpy.ops.mesh.primitive_plane_add, principled("Ground", (0.5, 0.5, 0.5), DIFFUSE_ROUGHNESS, specular=0.0), size=8)
head = mesh_object("Head", bpy.ops.mesh.primitive_uv_sphere_add, principled("Skin", (0.8, 0.55, 0.45), DIFFUSE_ROUGHNESS, specular=0.0),
                   radius=HEAD_RADIUS, location=(0, 0, HEAD_RADIUS), segments=48, ring_count=24)
bpy.ops.object.shade_smooth()
box = mesh_object("Box", bpy.ops.mesh.primitive_cube_add, principled("Blue paint", (0.1, 0.25, 0.7), DIFFUSE_ROUGHNESS, specular=0.0),
                  size=0.6, location=(1.15, 0.4, 0.3), rotation=(0, 0, math.radians(30)))
gold = mesh_object("Gold", bpy.ops.mesh.primitive_uv_sphere_add, principled("Gold", (1.0, 0.76, 0.33), 0.25, 1.0),
                   radius=0.35, location=(-1.05, 0.3, 0.35), segments=32, ring_count=16)
bpy.ops.object.shade_smooth()

# Hair: Blender 3.4's Python cannot size a Curves datablock (no
# add_curves), so the curves come from a particle system converted by the
# operator (HAIR_POINTS points each, from its path cache), then get their
# own shapes and radii.
emitter = head.modifiers.new("hair", "PARTICLE_SYSTEM")
part = emitter.particle_system.settings
part.type = "HAIR"
part.count = HAIR_STRANDS
part.hair_length = 0.3
part.display_step = HAIR_DISPLAY_STEP
bpy.context.view_layer.objects.active = head
head.select_set(True)
bpy.context.view_layer.update()
# The conversion takes the path cache: 2^display_step + 1 points a strand.
bpy.ops.curves.convert_from_particle_system()
hair = bpy.context.object
hair.name = "Hair"
head.modifiers.remove(emitter)
bpy.data.particles.remove(part)
curves = hair.data
curves.name = "Hair"
n_curves, n_points = len(curves.curves), len(curves.points)
offsets = np.zeros(n_curves + 1, np.int32)
curves.curve_offset_data.foreach_get("value", offsets)
counts = np.diff(offsets)
if n_curves != HAIR_STRANDS:
    sys.exit("make_scene.py: %d curves, want %d" % (n_curves, HAIR_STRANDS))

# Each strand combed over the head: from a root on its upper part, along
# the sphere's surface away from the crown (polar angle growing), lifting
# off it a little towards the tip, with a slight twist.
pos = np.zeros((n_points, 3), np.float32)  # object space: the hair's origin is the head's centre
if np.any(counts != HAIR_POINTS):
    sys.exit("make_scene.py: strands of %s points, want %d" % (sorted(set(counts.tolist())), HAIR_POINTS))
radius = np.zeros(n_points, np.float32)
for i in range(n_curves):
    a, n = offsets[i], counts[i]
    theta0 = math.radians(70) * math.sqrt(rng.random())
    phi0 = 2 * math.pi * rng.random()
    sweep = math.radians(45 + 25 * rng.random())
    twist = math.radians(15) * (rng.random() - 0.5)
    lift = 0.04 + 0.05 * rng.random()
    for k in range(n):
        t = k / (n - 1)
        theta, phi = theta0 + sweep * t, phi0 + twist * t
        rr = HEAD_RADIUS * (1.0 + lift * t)
        pos[a + k] = (rr * math.sin(theta) * math.cos(phi), rr * math.sin(theta) * math.sin(phi), rr * math.cos(theta))
        radius[a + k] = HAIR_ROOT_RADIUS + (HAIR_TIP_RADIUS - HAIR_ROOT_RADIUS) * t
curves.attributes["position"].data.foreach_set("vector", pos.ravel())
curves.attributes.new("radius", "FLOAT", "POINT").data.foreach_set("value", radius)
hair.location = head.location

hair_mat = bpy.data.materials.new("Brown hair")
hair_mat.use_nodes = True
nt = hair_mat.node_tree
for node in list(nt.nodes):
    nt.nodes.remove(node)
hbsdf = nt.nodes.new("ShaderNodeBsdfHairPrincipled")
hbsdf.parametrization = "MELANIN"
hbsdf.inputs["Melanin"].default_value = 0.55
hbsdf.inputs["Melanin Redness"].default_value = 0.35
hbsdf.inputs["Roughness"].default_value = 0.3
hbsdf.inputs["Radial Roughness"].default_value = 0.3
hbsdf.inputs["Coat"].default_value = 0.0
hbsdf.inputs["IOR"].default_value = 1.55
hbsdf.inputs["Offset"].default_value = math.radians(2.0)
hbsdf.inputs["Random Roughness"].default_value = 0.0
hbsdf.inputs["Random Color"].default_value = 0.0
hout = nt.nodes.new("ShaderNodeOutputMaterial")
nt.links.new(hbsdf.outputs["BSDF"], hout.inputs["Surface"])
hair_mat.diffuse_color = (0.25, 0.15, 0.08, 1.0)
curves.materials.clear()
curves.materials.append(hair_mat)

# Lights: sharp, as sertrace's punctual lights are.
point = bpy.data.lights.new("Key", "POINT")
point.energy = 500.0
point.shadow_soft_size = 0.0
link(bpy.data.objects.new("Key", point)).location = (2.2, -2.0, 3.0)
sun = bpy.data.lights.new("Sun", "SUN")
sun.energy = 1.5
sun.angle = 0.0
sun_obj = link(bpy.data.objects.new("Sun", sun))
sun_obj.rotation_euler = (math.radians(50), 0, math.radians(-40))

world = bpy.data.worlds.new("Sky")
world.use_nodes = True
world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.15, 0.17, 0.22, 1.0)
world.node_tree.nodes["Background"].inputs["Strength"].default_value = 1.0
world.color = (0.15, 0.17, 0.22)
scene.world = world

cam_data = bpy.data.cameras.new("Camera")
cam_data.lens = 45
cam = link(bpy.data.objects.new("Camera", cam_data))
cam.location = (0.0, -4.6, 1.7)
direction = Vector((0.0, 0.0, 0.55)) - cam.location
cam.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()
scene.camera = cam

r = scene.render
r.resolution_x, r.resolution_y, r.resolution_percentage = 160, 120, 100
r.film_transparent = False
r.engine = "CYCLES"
# Cycles as sertrace renders (the engine's comparison sets these too): no
# adaptive sampling, denoising, clamping or glossy blur; a one-pixel box.
c = scene.cycles
c.samples = 64
c.use_adaptive_sampling = False
c.use_denoising = False
c.sample_clamp_direct = c.sample_clamp_indirect = 0.0
c.blur_glossy = 0.0
c.filter_type, c.filter_width = "BOX", 1.0
scene.cycles_curves.shape = "THICK"
scene.view_settings.view_transform = "Standard"
scene.view_settings.look = "None"

# Nothing selected or active, as a user's file might be.
for obj in scene.objects:
    obj.select_set(False)
bpy.context.view_layer.objects.active = None
bpy.ops.wm.save_as_mainfile(filepath=out_path, check_existing=False)
print("make_scene.py: wrote %s: %d strands, %d points" % (out_path, n_curves, n_points))
