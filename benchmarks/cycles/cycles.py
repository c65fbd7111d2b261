# Renders a glTF scene with Blender's Cycles on the CPU, the side-by-side
# anchor of sertrace's CPU backend (go run ./benchmarks/cycles runs it).
#
#   blender -b --factory-startup --python-exit-code 1 -P cycles.py -- \
#       SCENE.gltf OUT.exr WIDTH HEIGHT SAMPLES MAX_DEPTH THREADS [--diffuse] [--env R,G,B] [--camera NAME]
#       [--two-sided-emission] [--no-terminator-offset] [--multiscatter] [--adaptive THRESHOLD] [--seed N]
#
# MAX_DEPTH is sertrace's --max-depth (1: direct light only), which is one
# more than Cycles' max bounces. Box filter one pixel wide, no adaptive
# sampling, no denoising, no clamping, no glossy blur, caustics on. With
# --diffuse every material becomes a Diffuse BSDF of its base colour (and
# keeps its emission). Single-sided materials emit from their front only, as
# glTF says (Cycles' emission is two-sided; --two-sided-emission keeps it so).
# --no-terminator-offset sets the objects' shadow terminator offsets to 0.
# --multiscatter sets the Principled BSDFs to multiscatter GGX (the
# importer's are GGX: single scattering).
# Hair: main.go writes the scene's strands beside it (hair.json), which
# build_hair makes Cycles hair curves with a Principled Hair BSDF.
# Prints "import_seconds X" and "render_seconds X":
# the render's time excludes the import and the scene's preparation.
# --adaptive THRESHOLD turns on Cycles' adaptive sampling at that noise
# threshold, SAMPLES then the most a pixel takes and its minimum Cycles'
# automatic one: with 0.01 and 4096, Cycles' defaults.
import os
import sys
import time

import numpy

# Blender 3.4's glTF importer uses numpy.bool, which numpy 1.24 removed.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "blender", "sertrace_render"))
from cycles_match import match_sertrace  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:]
if len(argv) < 7:
    sys.exit("cycles.py: want SCENE OUT.exr WIDTH HEIGHT SAMPLES MAX_DEPTH THREADS [--diffuse] [--env R,G,B] [--camera NAME]")
scene_path, out_path = argv[0], argv[1]
width, height, samples, max_depth, threads = (int(a) for a in argv[2:7])
diffuse = "--diffuse" in argv
env = (0.0, 0.0, 0.0)
if "--env" in argv:
    env = tuple(float(x) for x in argv[argv.index("--env") + 1].split(","))
    if len(env) == 1:
        env = env * 3

bpy.ops.wm.read_factory_settings(use_empty=True)
start = time.perf_counter()
# Lights as glTF gives them, without the lumens-to-watts factor of 683 that
# the importer's default (SPEC) divides by: a sun of 3 lux is an irradiance
# of 3, as sertrace renders it. (COMPAT makes a point or spot light of I
# candela 4π·I W, as Blender measures their power.)
try:
    bpy.ops.import_scene.gltf(filepath=scene_path, convert_lighting_mode="COMPAT")
except TypeError:  # Blender 4's importer names it for import and export alike
    bpy.ops.import_scene.gltf(filepath=scene_path, export_import_convert_lighting_mode="COMPAT")
print("import_seconds %.3f" % (time.perf_counter() - start))

scene = bpy.context.scene
# glTF's punctual lights are points and directions: no size, no angle
# (Blender gives a sun half a degree, which softens thin strands' shadows).
for light in bpy.data.lights:
    if light.type == "SUN":
        light.angle = 0.0
    else:
        light.shadow_soft_size = 0.0
cams = [o for o in scene.objects if o.type == "CAMERA"]
if "--camera" in argv:
    name = argv[argv.index("--camera") + 1]
    cams = [o for o in cams if o.name == name or o.data.name == name]
if not cams:
    sys.exit("cycles.py: %s has no camera%s" % (scene_path, " named " + name if "--camera" in argv else ""))
scene.camera = cams[0]

def one_sided_emission(mat, bsdf):
    """glTF: a single-sided material has no back face, so it emits from its
    front only; Cycles' emission is two-sided, so scale it by 1 - backfacing."""
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    strength = bsdf.inputs["Emission Strength"]
    if strength.is_linked or strength.default_value == 0:
        return
    geo = nodes.new("ShaderNodeNewGeometry")
    front = nodes.new("ShaderNodeMath")
    front.operation = "SUBTRACT"
    front.inputs[0].default_value = 1.0
    links.new(geo.outputs["Backfacing"], front.inputs[1])
    scaled = nodes.new("ShaderNodeMath")
    scaled.operation = "MULTIPLY"
    scaled.inputs[1].default_value = strength.default_value
    links.new(front.outputs["Value"], scaled.inputs[0])
    links.new(scaled.outputs["Value"], strength)


def make_diffuse(mat, bsdf, out):
    """Replace a Principled BSDF by a Diffuse BSDF of its base colour, keeping
    its emission and normal."""
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    d = nodes.new("ShaderNodeBsdfDiffuse")
    d.inputs["Roughness"].default_value = 0.0  # Lambert
    for src, dst in (("Base Color", "Color"), ("Normal", "Normal")):
        s = bsdf.inputs[src]
        if s.is_linked:
            links.new(s.links[0].from_socket, d.inputs[dst])
        elif dst == "Color":
            d.inputs[dst].default_value = s.default_value
    shader = d.outputs["BSDF"]
    # Blender 4's Principled BSDF calls it Emission Color.
    e_color, e_strength = bsdf.inputs.get("Emission") or bsdf.inputs["Emission Color"], bsdf.inputs["Emission Strength"]
    if e_color.is_linked or e_strength.is_linked or (e_strength.default_value > 0 and any(e_color.default_value[:3])):
        e = nodes.new("ShaderNodeEmission")
        for src, dst in ((e_color, e.inputs["Color"]), (e_strength, e.inputs["Strength"])):
            if src.is_linked:
                links.new(src.links[0].from_socket, dst)
            else:
                dst.default_value = src.default_value
        add = nodes.new("ShaderNodeAddShader")
        links.new(shader, add.inputs[0])
        links.new(e.outputs["Emission"], add.inputs[1])
        shader = add.outputs["Shader"]
    links.new(shader, out.inputs["Surface"])


for mat in bpy.data.materials:
    if not mat.use_nodes:
        continue
    nodes = mat.node_tree.nodes
    bsdf = next((n for n in nodes if n.type == "BSDF_PRINCIPLED"), None)
    out = next((n for n in nodes if n.type == "OUTPUT_MATERIAL"), None)
    if bsdf is None or out is None:
        continue
    # use_backface_culling is the importer's mark of a single-sided material.
    if mat.use_backface_culling and "--two-sided-emission" not in argv:
        one_sided_emission(mat, bsdf)
    if diffuse:
        make_diffuse(mat, bsdf, out)
    elif "--multiscatter" in argv:
        bsdf.distribution = "MULTI_GGX"

def sphere_mesh(sides):
    """A unit UV sphere, poles on z, sides around and sides/2 rings, as vertex
    and triangle arrays, scaled so that its mean width is the sphere's."""
    rings = sides // 2
    ang = 2 * numpy.pi * (numpy.arange(sides) + 0.5) / sides
    t = numpy.pi * numpy.arange(1, rings) / rings
    v = numpy.concatenate([[[0, 0, -1], [0, 0, 1]], numpy.stack([
        numpy.outer(numpy.sin(t), numpy.cos(ang)).ravel(),
        numpy.outer(numpy.sin(t), numpy.sin(ang)).ravel(),
        numpy.repeat(-numpy.cos(t), sides)], axis=1)])
    k = numpy.arange(sides)
    k2 = (k + 1) % sides
    ring = lambda i: 2 + (i - 1) * sides
    tris = [numpy.stack([numpy.zeros(sides, int), ring(1) + k2, ring(1) + k], 1),
            numpy.stack([numpy.ones(sides, int), ring(rings - 1) + k, ring(rings - 1) + k2], 1)]
    for i in range(1, rings - 1):
        a, b = ring(i), ring(i + 1)
        tris += [numpy.stack([a + k, a + k2, b + k2], 1), numpy.stack([a + k, b + k2, b + k], 1)]
    return v * mean_width(sides), numpy.concatenate(tris)


def mean_width(sides):
    """The circumradius of a regular polygon whose mean width is the unit
    circle's: its perimeter over π."""
    return numpy.pi / (sides * numpy.sin(numpy.pi / sides))


def mesh_object(name, verts, tris, mat):
    me = bpy.data.meshes.new(name)
    me.vertices.add(len(verts))
    me.vertices.foreach_set("co", numpy.asarray(verts, numpy.float32).ravel())
    me.loops.add(3 * len(tris))
    me.loops.foreach_set("vertex_index", numpy.asarray(tris, numpy.int32).ravel())
    me.polygons.add(len(tris))
    me.polygons.foreach_set("loop_start", numpy.arange(0, 3 * len(tris), 3, dtype=numpy.int32))
    me.polygons.foreach_set("loop_total", numpy.full(len(tris), 3, numpy.int32))
    me.update()
    me.validate()
    me.materials.append(mat)
    obj = bpy.data.objects.new(name, me)
    scene.collection.objects.link(obj)
    return obj


def spheres(centres, radii, sides=12):
    """Triangles of a sphere at each centre with each radius."""
    v, t = sphere_mesh(sides)
    verts = (centres[:, None, :] + radii[:, None, None] * v[None]).reshape(-1, 3)
    tris = (t[None] + (len(v) * numpy.arange(len(centres)))[:, None, None]).reshape(-1, 3)
    return verts, tris


def tubes(strands, cut, sides=12):
    """The strands' linear swept spheres as triangles: a cone frustum per
    segment between its ends' circles and a sphere at every point (the
    segments' own points: every cut-th of the densified ones)."""
    verts, tris, base = [], [], 0
    ang = 2 * numpy.pi * (numpy.arange(sides) + 0.5) / sides
    k = numpy.arange(sides)
    k2 = (k + 1) % sides
    side = numpy.concatenate([numpy.stack([k, k2, sides + k2], 1), numpy.stack([k, sides + k2, sides + k], 1)])
    for strand in strands:
        p = numpy.asarray(strand, float).reshape(-1, 4)[::cut]
        v, t = spheres(p[:, :3], p[:, 3], sides)
        verts.append(v)
        tris.append(t + base)
        base += len(v)
        d = p[1:, :3] - p[:-1, :3]
        d /= numpy.linalg.norm(d, axis=1)[:, None]
        a = numpy.where(numpy.abs(d[:, :1]) < 0.9, [[1.0, 0, 0]], [[0, 1.0, 0]])
        u = numpy.cross(d, a)
        u /= numpy.linalg.norm(u, axis=1)[:, None]
        w = numpy.cross(d, u)
        circ = numpy.cos(ang)[None, :, None] * u[:, None] + numpy.sin(ang)[None, :, None] * w[:, None]
        circ *= mean_width(sides)
        ends = numpy.concatenate([p[:-1, None, :3] + circ * p[:-1, None, 3:], p[1:, None, :3] + circ * p[1:, None, 3:]], axis=1)
        verts.append(ends.reshape(-1, 3))
        tris.append((side[None] + base + 2 * sides * numpy.arange(len(d))[:, None, None]).reshape(-1, 3))
        base += 2 * sides * len(d)
    return numpy.concatenate(verts), numpy.concatenate(tris)


def black_material(name):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    for node in list(nt.nodes):
        nt.nodes.remove(node)
    d = nt.nodes.new("ShaderNodeBsdfDiffuse")
    d.inputs["Color"].default_value = (0, 0, 0, 1)
    out = nt.nodes.new("ShaderNodeOutputMaterial")
    nt.links.new(d.outputs["BSDF"], out.inputs["Surface"])
    return mat


def build_hair(path, black, as_tubes):
    """Build the strands that main.go wrote (hair.json: sertrace's world
    space, glTF's Y up) as hair curves: per material, a mesh of the strands'
    edges with a radius per point (hidden), turned into Catmull-Rom curves
    by geometry nodes in a Curves object, with a Principled Hair BSDF in its
    absorption parametrisation.

    Cycles' round curves are open at their ends (a ray that enters an end
    travels inside and leaves unseen), where sertrace's swept spheres end in
    a sphere: each strand's first and last point get a triangle sphere of
    its radius there, black (they are hidden against the skin at the root
    and a fifth of the radius at a tip; a black cap only shades what lies
    under it, as a hair's does).

    black: a black Diffuse BSDF in place of the hair's (a geometry check);
    as_tubes: the strands as triangles (tubes()) in place of curves."""
    import json
    with open(path) as f:
        data = json.load(f)
    groups, cut = data["groups"], data["cut"]
    zup = lambda a: numpy.stack([a[:, 0], -a[:, 2], a[:, 1]], axis=1)  # the importer's Y-up to Z-up
    caps = None if as_tubes else black_material("sertrace-hair-caps")
    for gi, g in enumerate(groups):
        if as_tubes:
            verts, tris = tubes(g["strands"], cut)
            mesh_object("sertrace-hair-tubes-%d" % gi, zup(verts), tris, black_material("sertrace-hair-%d" % gi))
            continue
        ends = numpy.array([s[:4] for s in g["strands"]] + [s[-4:] for s in g["strands"]], float)
        verts, tris = spheres(zup(ends[:, :3]), ends[:, 3])
        mesh_object("sertrace-hair-caps-%d" % gi, verts, tris, caps)
        verts, edges, radii = [], [], []
        for strand in g["strands"]:
            base = len(verts)
            n = len(strand) // 4
            for k in range(n):
                x, y, z, r = strand[4 * k:4 * k + 4]
                verts.append((x, -z, y))
                radii.append(r)
            edges.extend((base + k, base + k + 1) for k in range(n - 1))
        me = bpy.data.meshes.new("sertrace-strands-%d" % gi)
        me.from_pydata(verts, edges, [])
        attr = me.attributes.new("radius", "FLOAT", "POINT")  # the curves' own radius
        attr.data.foreach_set("value", radii)
        src = bpy.data.objects.new(me.name, me)
        scene.collection.objects.link(src)
        src.hide_render = True
        hair = bpy.data.objects.new("sertrace-hair-%d" % gi, bpy.data.hair_curves.new("sertrace-hair-%d" % gi))
        scene.collection.objects.link(hair)
        tree = bpy.data.node_groups.new("sertrace-hair-%d" % gi, "GeometryNodeTree")
        tree.inputs.new("NodeSocketGeometry", "Geometry")
        tree.outputs.new("NodeSocketGeometry", "Geometry")
        n, l = tree.nodes, tree.links
        info = n.new("GeometryNodeObjectInfo")
        info.inputs["Object"].default_value = src
        info.transform_space = "RELATIVE"
        to_curve = n.new("GeometryNodeMeshToCurve")
        spline = n.new("GeometryNodeCurveSplineType")
        spline.spline_type = "CATMULL_ROM"
        set_mat = n.new("GeometryNodeSetMaterial")
        out = n.new("NodeGroupOutput")
        l.new(info.outputs["Geometry"], to_curve.inputs["Mesh"])
        l.new(to_curve.outputs["Curve"], spline.inputs["Curve"])
        l.new(spline.outputs["Curve"], set_mat.inputs["Geometry"])
        l.new(set_mat.outputs["Geometry"], out.inputs[0])
        if black:
            mat = black_material("sertrace-hair-%d" % gi)
        else:
            mat = bpy.data.materials.new("sertrace-hair-%d" % gi)
            mat.use_nodes = True
            nt = mat.node_tree
            for node in list(nt.nodes):
                nt.nodes.remove(node)
            bsdf = nt.nodes.new("ShaderNodeBsdfHairPrincipled")
            bsdf.parametrization = "ABSORPTION"
            bsdf.inputs["Absorption Coefficient"].default_value = tuple(g["sigma_a"])
            bsdf.inputs["Roughness"].default_value = g["roughness"]
            bsdf.inputs["Radial Roughness"].default_value = g["radial_roughness"]
            bsdf.inputs["Coat"].default_value = 0.0
            bsdf.inputs["IOR"].default_value = g["ior"]
            bsdf.inputs["Offset"].default_value = g["offset"]
            bsdf.inputs["Random Roughness"].default_value = 0.0
            mout = nt.nodes.new("ShaderNodeOutputMaterial")
            nt.links.new(bsdf.outputs["BSDF"], mout.inputs["Surface"])
        set_mat.inputs["Material"].default_value = mat
        hair.data.materials.append(mat)
        hair.modifiers.new("sertrace-hair", "NODES").node_group = tree
    scene.cycles_curves.shape = "THICK"


hair_path = os.path.join(os.path.dirname(scene_path), "hair.json")
if os.path.exists(hair_path):
    build_hair(hair_path, "--hair-black" in argv, "--hair-tubes" in argv)

if "--no-terminator-offset" in argv:
    for o in scene.objects:
        o.cycles.shadow_terminator_geometry_offset = 0.0
        o.cycles.shadow_terminator_offset = 0.0

world = bpy.data.worlds.new("sertrace-env")
world.use_nodes = True
bg = world.node_tree.nodes["Background"]
bg.inputs["Color"].default_value = (env[0], env[1], env[2], 1.0)
bg.inputs["Strength"].default_value = 1.0
scene.world = world

# Cycles as sertrace renders, declared once with the Blender add-on's
# comparison. (Until 2026-12-05 this set filter_type, which is no Cycles
# property: Cycles kept its 1.5 px Blackman-Harris.)
seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
match_sertrace(scene, samples, max_depth - 1, seed, "box")
if "--adaptive" in argv:
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.adaptive_threshold = float(argv[argv.index("--adaptive") + 1])
    scene.cycles.adaptive_min_samples = 0  # automatic
scene.render.threads_mode = "FIXED"
scene.render.threads = threads
scene.render.resolution_x, scene.render.resolution_y = width, height
scene.render.resolution_percentage = 100
scene.render.pixel_aspect_x = scene.render.pixel_aspect_y = 1.0
scene.render.use_persistent_data = False
scene.view_settings.view_transform = "Standard"
scene.render.image_settings.file_format = "OPEN_EXR"
scene.render.image_settings.color_depth = "32"
scene.render.image_settings.color_mode = "RGBA"
scene.render.image_settings.exr_codec = "ZIP"
scene.render.filepath = out_path

start = time.perf_counter()
bpy.ops.render.render()
print("render_seconds %.3f" % (time.perf_counter() - start))
# Written after the timing: sertrace's time has no file in it either.
start = time.perf_counter()
bpy.data.images["Render Result"].save_render(out_path, scene=scene)
print("save_seconds %.3f" % (time.perf_counter() - start))
