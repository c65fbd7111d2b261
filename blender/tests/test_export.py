"""The export's tests (sertrace_render/export.py and the modules it uses),
run inside Blender on the scene make_scene.py built:

    blender -b SCENE.blend --factory-startup --python-exit-code 1 -P test_export.py -- SERTRACE [WORKDIR]

Each export runs where the engine runs it: inside RenderEngine.render, on
the render's depsgraph (a test engine, EXPORT_TEST, that only exports).

- the scene: nothing in bpy.data added or changed, nor the selection, the
  active object, its edit mode, the frame; `sertrace inspect` finds the
  hair as chained swept spheres (strands = the Curves' curves, segments =
  points - curves, Blender's radii), the hair model the Principled Hair
  BSDF maps to, both lights, the camera by the name --camera gives, the
  world's colour; no notes (the scene is one whose every part carries);
  the same geometry from the viewport's depsgraph; and a scene of a light
  and a camera alone is not renderable;
- a second scene built here: particle-system hair (children, render
  steps, radius from the particle settings and the object's scale, the
  Shape exponent), a Geometry Nodes point cloud, Geometry Nodes curves of
  uneven lengths (realized; instanced ones stay out, as in Cycles), a
  Curves object in a scaled collection instance, mesh instances, a
  modifier whose render level differs from the viewport's, what the render
  hides and shows, a texture, a child of a turned parent, an object and a
  shape key animated to the frame, a metaball, a spot and an area light,
  depth of field from a focus object, and the notes of what does not carry;
- the hair BSDF's other parametrisations, and the .hdr writer;
- conventions against Cycles: each light's units (point, spot, sun, square
  and disk area lights on a diffuse floor, direct light only: the mean
  within 3%), and the environment's rotation (an image with one bright
  patch behind a Mapping node: the patch lands on the same pixels,
  through the written .hdr and through the image's own file);
- F12: the export from the render thread of an interactive Blender
  (under xvfb-run, when there is one) equals the one from the main thread.

Prints "test_export.py: ok" at the end; exits 1 with the failures listed.
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import bpy
import numpy as np
from mathutils import Matrix, Vector

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from sertrace_render import export, gltf_doc, hair_bsdf, hdr  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
F12_MODE = len(argv) >= 1 and argv[0] == "--f12"  # the interactive half (see f12_child)
if not F12_MODE and len(argv) < 1:
    sys.exit("test_export.py: want SERTRACE [WORKDIR]")

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        print("FAIL: " + message, file=sys.stderr)
    return ok


def close(a, b, rel=1e-4, abs_=1e-7):
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_)


# --- the engine that only exports -----------------------------------------------

RESULTS = {}  # scene name -> (ExportResult or exception text, extra)


class ExportTestEngine(bpy.types.RenderEngine):
    """Exports on the render's depsgraph, as the sertrace engine does, and
    keeps what the tests compare with (read from the same depsgraph)."""

    bl_idname = "EXPORT_TEST"
    bl_label = "export test"

    def render(self, depsgraph):
        name = depsgraph.scene.name
        folder = os.path.join(WORK, "export-" + name.replace(" ", "_"))
        os.makedirs(folder, exist_ok=True)
        try:
            before = data_fingerprint()
            start = time.monotonic()
            result = export.export_scene(depsgraph, folder)
            seconds = time.monotonic() - start
            after = data_fingerprint()
            RESULTS[name] = (result, {"seconds": seconds, "before": before, "after": after,
                                      "expect": expectations(depsgraph),
                                      "main_thread": threading.current_thread() is threading.main_thread()})
        except Exception:
            RESULTS[name] = (traceback.format_exc(), {})


def export_by_render(scene):
    """Render scene with the test engine; its export's result and extras."""
    engine = scene.render.engine
    scene.render.engine = "EXPORT_TEST"
    # The window's scene, or the render takes the frame of the one there.
    window_scene = bpy.context.window.scene
    bpy.context.window.scene = scene
    try:
        bpy.ops.render.render(scene=scene.name)
    finally:
        scene.render.engine = engine
        bpy.context.window.scene = window_scene
    result, extra = RESULTS.pop(scene.name, ("the test engine did not run", {}))
    if isinstance(result, str):
        raise RuntimeError("export_scene failed on scene %s:\n%s" % (scene.name, result))
    return result, extra


def expectations(depsgraph):
    """What the tests expect of particle hair, read from the psys API in
    the render's depsgraph (the only place render-mode counts exist)."""
    out = {}
    for inst in depsgraph.object_instances:
        obj = inst.object
        if obj.type != "MESH" or inst.is_instance:
            continue
        for psys in obj.particle_systems:
            part = psys.settings
            if part.type != "HAIR":
                continue
            n = len(psys.child_particles) if part.child_type != "NONE" else len(psys.particles)
            first = len(psys.particles) if part.child_type != "NONE" else 0
            steps = (1 << part.render_step) + 1
            strand = [tuple(psys.co_hair(object=obj, particle_no=first, step=s)) for s in range(steps)]
            out["%s %s" % (obj.name, psys.name)] = {"strands": n, "steps": steps, "first_strand": strand}
    return out


bpy.utils.register_class(ExportTestEngine)


# --- what must not change -------------------------------------------------------------

COLLECTIONS = ("objects", "meshes", "materials", "images", "node_groups", "hair_curves", "lights", "cameras",
               "worlds", "particles", "textures", "scenes", "collections", "actions", "curves", "pointclouds")


def data_fingerprint():
    """bpy.data's datablocks (names and users), the objects' placement,
    selection and modes, and the context's scene, frame and active object."""
    fp = {}
    for coll in COLLECTIONS:
        items = getattr(bpy.data, coll, None)
        if items is not None:
            fp[coll] = sorted((i.name_full, i.users) for i in items)
    fp["object state"] = sorted(
        (o.name, tuple(round(v, 6) for row in o.matrix_world for v in row), o.select_get(), o.mode,
         o.hide_render, o.hide_viewport, o.hide_get()) for o in bpy.context.scene.objects)
    vl = bpy.context.view_layer
    fp["context"] = (bpy.context.scene.name, bpy.context.scene.frame_current,
                     vl.objects.active.name if vl.objects.active else None,
                     bpy.context.window.scene.name if bpy.context.window else None, bpy.context.mode)
    fp["materials' nodes"] = sorted((m.name, len(m.node_tree.nodes), len(m.node_tree.links)) for m in bpy.data.materials
                                    if m.node_tree)
    return fp


def compare_fingerprints(before, after, what):
    for key in before:
        if before[key] != after.get(key):
            a, b = before[key], after.get(key)
            if isinstance(a, list) and isinstance(b, list):
                diff = sorted(set(map(str, a)) ^ set(map(str, b)))[:6]
            else:
                diff = [a, b]
            check(False, "%s changed bpy.data's %s: %s" % (what, key, diff))


# --- reading sertrace's answers and glTF --------------------------------------------


def inspect(gltf):
    out = subprocess.run([SERTRACE, "inspect", "--json", gltf], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("sertrace inspect %s: %s" % (gltf, out.stderr.strip()))
    return json.loads(out.stdout)


def sertrace_render(result, folder, width, height, spp, depth, extra=(), name="sertrace.pfm"):
    path = os.path.join(folder, name)
    cmd = [SERTRACE, "render", result.gltf, "-o", path, "--res", "%dx%d" % (width, height), "--spp", str(spp),
           "--max-depth", str(depth), "--threads", "2", "--seed", "1"] + list(result.args) + list(extra)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), out.stderr.strip()))
    return read_pfm(path)


def read_pfm(path):
    """A PFM image, (h, w, 3) float32, bottom row first."""
    with open(path, "rb") as f:
        data = f.read()
    head = data.split(maxsplit=4)
    w, h, scale = int(head[1]), int(head[2]), float(head[3])
    body = data[len(data) - w * h * 3 * 4:]
    return np.frombuffer(body, "<f4" if scale < 0 else ">f4").reshape(h, w, 3).astype(np.float64)


def cycles_render(scene, folder, width, height, spp, bounces):
    """scene rendered by Cycles: (h, w, 3) float64, bottom row first."""
    r = scene.render
    r.engine = "CYCLES"
    r.resolution_x, r.resolution_y, r.resolution_percentage = width, height, 100
    c = scene.cycles
    c.samples, c.use_denoising, c.use_adaptive_sampling = spp, False, False
    c.max_bounces = bounces
    c.diffuse_bounces = c.glossy_bounces = c.transmission_bounces = bounces
    c.sample_clamp_direct = c.sample_clamp_indirect = 0.0
    c.filter_type, c.filter_width = "BOX", 1.0
    c.device = "CPU"
    r.threads_mode, r.threads = "FIXED", 2
    r.film_transparent = False
    scene.view_settings.view_transform = "Standard"
    path = os.path.join(folder, "cycles.exr")
    fmt = r.image_settings
    fmt.file_format, fmt.color_depth, fmt.color_mode = "OPEN_EXR", "32", "RGB"
    r.filepath = path
    bpy.ops.render.render(write_still=True, scene=scene.name)
    img = bpy.data.images.load(path)
    try:
        w, h = img.size
        px = np.zeros(w * h * img.channels, np.float32)
        img.pixels.foreach_get(px)
        return px.reshape(h, w, img.channels)[:, :, :3].astype(np.float64)
    finally:
        bpy.data.images.remove(img)


class Gltf:
    """A written glTF's JSON and its accessors as arrays."""

    def __init__(self, path):
        self.folder = os.path.dirname(path)
        with open(path) as f:
            self.doc = json.load(f)
        self.buffers = {}

    def accessor(self, index):
        acc = self.doc["accessors"][index]
        view = self.doc["bufferViews"][acc["bufferView"]]
        b = view["buffer"]
        if b not in self.buffers:
            with open(os.path.join(self.folder, self.doc["buffers"][b]["uri"]), "rb") as f:
                self.buffers[b] = f.read()
        dtype = {5126: "<f4", 5125: "<u4", 5123: "<u2", 5121: "u1"}[acc["componentType"]]
        n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[acc["type"]]
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        a = np.frombuffer(self.buffers[b], dtype, acc["count"] * n, start)
        return a.reshape(-1, n) if n > 1 else a

    def node(self, name):
        nodes = [n for n in self.doc.get("nodes", []) if n.get("name") == name]
        return nodes[0] if nodes else None

    def world(self, name):
        """The world matrix (rows first) of the node named name."""
        nodes = self.doc.get("nodes", [])
        parent = {c: i for i, n in enumerate(nodes) for c in n.get("children", [])}
        index = [i for i, n in enumerate(nodes) if n.get("name") == name]
        if not index:
            return None
        i, m = index[0], np.eye(4)
        while i is not None:
            m = gltf_doc.node_matrix(nodes[i]) @ m
            i = parent.get(i)
        return m

    def mesh_of(self, name):
        node = self.node(name)
        return self.doc["meshes"][node["mesh"]] if node and "mesh" in node else None


def hair_entry(info, name):
    entries = [h for h in info["hair"] if h["name"] == name]
    return entries[0] if entries else None


def expected_model(node):
    """sertrace's hair model for a Principled Hair BSDF in its melanin
    parametrisation with a white tint: Cycles' absorption, with its own
    pigment spectra (intern/cycles/kernel/svm/closure.h), as sigma_a."""
    m, red = node.inputs["Melanin"].default_value, node.inputs["Melanin Redness"].default_value
    q = -math.log(1 - m)
    sigma = q * (1 - red) * np.array([0.506, 0.841, 1.653]) + q * red * np.array([0.343, 0.733, 1.924])
    return {"sigma_a": [float(c) for c in sigma],
            "beta_m": node.inputs["Roughness"].default_value, "beta_n": node.inputs["Radial Roughness"].default_value,
            "alpha": -math.degrees(node.inputs["Offset"].default_value), "eta": node.inputs["IOR"].default_value}


# --- 1. the scene ------------------------------------------------------------------------


def test_scene():
    scene = bpy.context.scene
    hair = [o for o in scene.objects if o.type == "CURVES"][0]
    # A user's state the export must leave: Box and Gold selected, Gold
    # active and in edit mode.
    for o in scene.objects:
        o.select_set(o.name in ("Box", "Gold"))
    gold = bpy.data.objects["Gold"]
    bpy.context.view_layer.objects.active = gold
    bpy.ops.object.mode_set(mode="EDIT")

    result, extra = export_by_render(scene)
    print("scene export: %.2f s on the %s thread" % (extra["seconds"], "main" if extra["main_thread"] else "render"))
    compare_fingerprints(extra["before"], extra["after"], "the export")
    check(bpy.context.object is not None and bpy.context.object.mode == "EDIT", "the export left edit mode")
    bpy.ops.object.mode_set(mode="OBJECT")

    info = inspect(result.gltf)
    check(result.renderable, "the scene is not renderable")
    check(result.notes == [], "the scene's export has notes: %s" % result.notes)
    check(info["warnings"] == [], "sertrace warns about the export: %s" % info["warnings"])

    # Hair: strands, segments, radii.
    curves = hair.data
    n_curves, n_points = len(curves.curves), len(curves.points)
    radius = np.zeros(n_points, np.float32)
    curves.attributes["radius"].data.foreach_get("value", radius)
    scale = abs(np.linalg.det(np.array(hair.matrix_world)[:3, :3])) ** (1 / 3)
    h = hair_entry(info, hair.name)
    if check(h is not None, "no hair entry named %s in %s" % (hair.name, [x["name"] for x in info["hair"]])):
        check(h["strands"] == n_curves, "hair strands %d, the Curves have %d curves" % (h["strands"], n_curves))
        check(h["segments"] == n_points - n_curves, "hair segments %d, want %d" % (h["segments"], n_points - n_curves))
        check(close(h["radius_min"], radius.min() * scale) and close(h["radius_max"], radius.max() * scale),
              "hair radii %g-%g, want %g-%g" % (h["radius_min"], h["radius_max"], radius.min() * scale, radius.max() * scale))
        mat = curves.materials[0]
        node = [n for n in mat.node_tree.nodes if n.type == "BSDF_HAIR_PRINCIPLED"][0]
        want = expected_model(node)
        got = h["model"] or {}
        for k, v in want.items():
            check(k in got and np.allclose(got[k], v, rtol=1e-5, atol=1e-6), "hair model %s = %s, want %s" % (k, got.get(k), v))
        check(h["material"] == mat.name, "hair material %r, want %r" % (h["material"], mat.name))

    lights = [o for o in scene.objects if o.type == "LIGHT"]
    check(info["lights"] == len(lights), "%d lights, the scene has %d" % (info["lights"], len(lights)))
    cam = scene.camera.name
    check(result.args[:2] == ["--camera", cam], "args %s do not start with --camera %s" % (result.args, cam))
    check(cam in info["camera_names"], "camera %s not among %s" % (cam, info["camera_names"]))
    bg = scene.world.node_tree.nodes["Background"]
    want = np.array(bg.inputs["Color"].default_value[:3]) * bg.inputs["Strength"].default_value
    i = result.args.index("--env-color") if "--env-color" in result.args else -1
    check(i >= 0 and np.allclose([float(v) for v in result.args[i + 1].split(",")], want, rtol=1e-6),
          "env colour: %s, want %s" % (result.args, want))
    check(not any(a.startswith("--res") or a.startswith("--spp") for a in result.args), "args set --res or --spp")

    # The same from the viewport's depsgraph on the main thread (as the
    # comparison operator calls it): the same geometry.
    folder = os.path.join(WORK, "export-viewport")
    os.makedirs(folder, exist_ok=True)
    before = data_fingerprint()
    viewport = export.export_scene(bpy.context.evaluated_depsgraph_get(), folder)
    compare_fingerprints(before, data_fingerprint(), "the viewport export")
    vinfo = inspect(viewport.gltf)
    for key in ("triangles", "lss_segments", "lights", "camera_names", "hair_materials"):
        check(vinfo[key] == info[key], "viewport export: %s %s, the render's %s" % (key, vinfo[key], info[key]))

    # Nothing to render: no face, strand or point (a light and a camera).
    empty = bpy.data.scenes.new("Nothing")
    new_object(empty, "Lamp", bpy.data.lights.new("Lamp", "POINT"), (0, 0, 2))
    empty.camera = new_object(empty, "Eye", bpy.data.cameras.new("Eye"), (0, -3, 1))
    nothing, _ = export_by_render(empty)
    check(not nothing.renderable, "a scene of a light and a camera is renderable")
    return result, info


# --- 2. particle hair, point clouds, instances, visibility, notes -----------------------


def gn_tree(name):
    tree = bpy.data.node_groups.new(name, "GeometryNodeTree")
    tree.inputs.new("NodeSocketGeometry", "Geometry") if hasattr(tree, "inputs") else \
        tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.outputs.new("NodeSocketGeometry", "Geometry") if hasattr(tree, "outputs") else \
        tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    out = tree.nodes.new("NodeGroupOutput")
    inp = tree.nodes.new("NodeGroupInput")
    return tree, inp, out


def principled(name, base=(0.8, 0.8, 0.8), **inputs):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*base, 1)
    for k, v in inputs.items():
        bsdf.inputs[k].default_value = v
    return mat


def new_object(scene, name, data, location=(0, 0, 0), scale=1.0, collection=None):
    obj = bpy.data.objects.new(name, data)
    (collection or scene.collection).objects.link(obj)
    obj.location = location
    obj.scale = (scale, scale, scale)
    return obj


def grid_mesh(name, nx, ny, size):
    me = bpy.data.meshes.new(name)
    xs, ys = np.meshgrid(np.linspace(-size / 2, size / 2, nx), np.linspace(-size / 2, size / 2, ny))
    verts = [(float(x), float(y), 0.0) for x, y in zip(xs.ravel(), ys.ravel())]
    faces = [(j * nx + i, j * nx + i + 1, (j + 1) * nx + i + 1, (j + 1) * nx + i) for j in range(ny - 1) for i in range(nx - 1)]
    me.from_pydata(verts, [], faces)
    me.update()
    return me


def build_features_scene():
    """The second scene: one of each thing the export translates beyond
    the exporter, and a few it must say it cannot."""
    scene = bpy.data.scenes.new("Features")
    scene.render.resolution_x, scene.render.resolution_y = 64, 48
    white = principled("Plain white")

    # Particle hair on a scaled grid: 30 parents, 4 interpolated children
    # each in renders (2 in the viewport), 2^3 + 1 points, Shape 0.4.
    emitter = new_object(scene, "Emitter", grid_mesh("Emitter", 4, 4, 1.0), (-2, 0, 0), scale=1.5)
    emitter.data.materials.append(white)
    hair_mat = bpy.data.materials.new("Particle hair")
    hair_mat.use_nodes = True
    nt = hair_mat.node_tree
    for n in list(nt.nodes):
        nt.nodes.remove(n)
    hb = nt.nodes.new("ShaderNodeBsdfHairPrincipled")
    hb.parametrization = "COLOR"
    hb.inputs["Color"].default_value = (0.6, 0.4, 0.2, 1)
    hb.inputs["Coat"].default_value = 0.2  # a note
    nt.links.new(hb.outputs["BSDF"], nt.nodes.new("ShaderNodeOutputMaterial").inputs["Surface"])
    emitter.data.materials.append(hair_mat)
    mod = emitter.modifiers.new("fur", "PARTICLE_SYSTEM")
    part = mod.particle_system.settings
    part.type = "HAIR"
    part.count = 30
    part.hair_length = 0.4
    part.render_step = 3
    part.display_step = 2
    part.child_type = "INTERPOLATED"
    setattr(part, "child_percent" if hasattr(part, "child_percent") else "child_nbr", 2)  # 4.x renamed it
    part.rendered_child_count = 4
    part.radius_scale = 0.02
    part.root_radius = 1.0
    part.tip_radius = 0.2
    part.shape = 0.4
    part.use_close_tip = False
    part.material = 2  # the emitter's second slot
    emitter.show_instancer_for_render = False  # the grid itself is not rendered

    # A Geometry Nodes point cloud: a 4 x 4 grid's vertices, radius 0.05,
    # on an object scaled by 2.
    tree, inp, out = gn_tree("points")
    m2p = tree.nodes.new("GeometryNodeMeshToPoints")
    m2p.inputs["Radius"].default_value = 0.05
    tree.links.new(inp.outputs[0], m2p.inputs["Mesh"])
    tree.links.new(m2p.outputs["Points"], out.inputs[0])
    cloud = new_object(scene, "Cloud", grid_mesh("Cloud", 4, 4, 0.5), (0, 0, 0.5), scale=2.0)
    cloud.modifiers.new("gn", "NODES").node_group = tree

    # Geometry Nodes curves: two curves (4 and 7 points, radius 0.01) on 3
    # points: 6 strands, 3 * (3 + 6) segments, realized ("Strands"). Not
    # realized ("Strands instanced"), Blender (3.4 and 4.3) gives them as
    # legacy curves, which Cycles does not render: the export leaves them too.
    def strands_tree(name, counts, points, realize):
        tree, inp, out = gn_tree(name)
        nodes, links = tree.nodes, tree.links
        join = nodes.new("GeometryNodeJoinGeometry")
        for k, count in enumerate(counts):
            line = nodes.new("GeometryNodeCurvePrimitiveLine")
            line.inputs["End"].default_value = (0.1 * k, 0, 1)
            resample = nodes.new("GeometryNodeResampleCurve")
            resample.inputs["Count"].default_value = count
            links.new(line.outputs[0], resample.inputs["Curve"])
            links.new(resample.outputs[0], join.inputs[0])
        rad = nodes.new("GeometryNodeSetCurveRadius")
        rad.inputs["Radius"].default_value = 0.01
        pts = nodes.new("GeometryNodeMeshLine")
        pts.inputs["Count"].default_value = points
        iop = nodes.new("GeometryNodeInstanceOnPoints")
        links.new(join.outputs[0], rad.inputs["Curve"])
        links.new(pts.outputs["Mesh"], iop.inputs["Points"])
        links.new(rad.outputs[0], iop.inputs["Instance"])
        last = iop.outputs[0]
        if realize:
            real = nodes.new("GeometryNodeRealizeInstances")
            links.new(last, real.inputs[0])
            last = real.outputs[0]
        links.new(last, out.inputs[0])
        return tree

    for name, realize in (("Strands", True), ("Strands instanced", False)):
        strands = new_object(scene, name, bpy.data.hair_curves.new(name), (2, 0, 0))
        strands.modifiers.new("gn", "NODES").node_group = strands_tree(name, (4, 7), 3, realize)
        strands.data.materials.append(white)
    # A Curves object instanced by a collection instance, scaled by 2:
    # 4 strands of 5 points, radius 0.01 * 2.
    asset = bpy.data.collections.new("Tuft asset")  # not in the scene: instanced only
    tuft = new_object(scene, "Tuft", bpy.data.hair_curves.new("Tuft"), collection=asset)
    tuft.modifiers.new("gn", "NODES").node_group = strands_tree("Tuft", (5,), 4, True)
    tuft.data.materials.append(white)
    holder = new_object(scene, "Tuft holder", None, (-1, 2, 0), scale=2.0)
    holder.instance_type = "COLLECTION"
    holder.instance_collection = asset

    # A mesh instanced on 3 points (Blender 3.x's exporter leaves Geometry
    # Nodes instances out; the export adds them).
    tree, inp, out = gn_tree("blocks")
    nodes, links = tree.nodes, tree.links
    pts = nodes.new("GeometryNodeMeshLine")
    pts.inputs["Count"].default_value = 3
    cube = nodes.new("GeometryNodeMeshCube")
    cube.inputs["Size"].default_value = (0.1, 0.1, 0.1)
    iop = nodes.new("GeometryNodeInstanceOnPoints")
    setmat = nodes.new("GeometryNodeSetMaterial")
    setmat.inputs["Material"].default_value = white
    links.new(pts.outputs["Mesh"], iop.inputs["Points"])
    links.new(cube.outputs["Mesh"], setmat.inputs["Geometry"])
    links.new(setmat.outputs[0], iop.inputs["Instance"])
    links.new(iop.outputs[0], out.inputs[0])
    blocks = new_object(scene, "Blocks", bpy.data.meshes.new("Blocks"), (2, 1, 0))
    blocks.modifiers.new("gn", "NODES").node_group = tree

    # Render levels, not the viewport's: a cube subdivided once in renders.
    bpy.ops.mesh.primitive_cube_add(size=0.5, location=(0, 2, 0.25))  # into the current scene, moved below
    sub = bpy.context.object
    bpy.context.scene.collection.objects.unlink(sub)
    scene.collection.objects.link(sub)
    sub.name = "Subdivided"
    sub.data.materials.append(principled("Skin-like", (0.8, 0.5, 0.4), **{
        ("Subsurface Weight" if bpy.app.version >= (4, 0) else "Subsurface"): 0.2}))
    ss = sub.modifiers.new("sub", "SUBSURF")
    ss.levels, ss.render_levels = 0, 1

    # Visibility: hidden from renders (out), hidden in the viewport (in),
    # in a collection excluded from the view layer (out).
    for name, how in (("NoRender", "render"), ("ViewportHidden", "viewport"), ("Excluded", "excluded")):
        coll = None
        if how == "excluded":
            coll = bpy.data.collections.new("Excluded collection")
            scene.collection.children.link(coll)
        o = new_object(scene, name, grid_mesh(name, 2, 2, 0.3), (0, -2, 0), collection=coll)
        if how == "render":
            o.hide_render = True
        elif how == "viewport":
            o.hide_viewport = True
            # A texture (a generated image, which the exporter encodes
            # through a temporary image of its own: it must not stay).
            tex_mat = principled("Checker")
            image = bpy.data.images.new("Checker", 8, 8)
            image.generated_type = "COLOR_GRID"
            tex = tex_mat.node_tree.nodes.new("ShaderNodeTexImage")
            tex.image = image
            tex_mat.node_tree.links.new(tex.outputs["Color"], tex_mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"])
            o.data.materials.append(tex_mat)
        else:
            scene.view_layers[0].layer_collection.children[coll.name].exclude = True

    # A child of a turned parent (placed by the depsgraph, not by the
    # originals' stale matrix_world), and a metaball (the exporter writes none).
    parent = new_object(scene, "Parent", None, (0.5, -1.0, 0.2))
    parent.rotation_euler = (0, 0, math.radians(90))
    child = new_object(scene, "Child", grid_mesh("Child", 2, 2, 0.2), (1.0, 0, 0.3))
    child.parent = parent
    mball = bpy.data.metaballs.new("Blob")
    mball.elements.new().radius = 1.0  # (smaller ones fall under the threshold: nothing)
    mball.materials.append(white)
    new_object(scene, "Blob", mball, (-1, -1, 0.5))

    # Animation at the scene's frame 10: an object moving to (1, 1, 1), a
    # shape key's value going to 1 (it lifts the grid by 0.5).
    mover = new_object(scene, "Mover", grid_mesh("Mover", 2, 2, 0.2), (0, 0, 0))
    mover.keyframe_insert("location", frame=1)
    mover.location = (1, 1, 1)
    mover.keyframe_insert("location", frame=10)
    mover.location = (0, 0, 0)  # the original's own value, the frame's is the animation's
    morph = new_object(scene, "Morph", grid_mesh("Morph", 2, 2, 0.4), (-2, -2, 0))
    morph.shape_key_add(name="Basis")
    up = morph.shape_key_add(name="Up")
    for point in up.data:
        point.co.z += 0.5
    up.value = 0.0
    up.keyframe_insert("value", frame=1)
    up.value = 1.0
    up.keyframe_insert("value", frame=10)
    up.value = 0.0
    scene.frame_current = 10

    # A Diffuse BSDF: a note.
    diffuse = bpy.data.materials.new("Diffuse only")
    diffuse.use_nodes = True
    dn = diffuse.node_tree
    dn.nodes.remove(dn.nodes["Principled BSDF"])
    dn.links.new(dn.nodes.new("ShaderNodeBsdfDiffuse").outputs[0], dn.nodes["Material Output"].inputs["Surface"])
    ground = new_object(scene, "Floor", grid_mesh("Floor", 2, 2, 8.0))
    ground.data.materials.append(diffuse)

    # Lights: a spot with a blend (a note), a rectangle area light.
    spot = bpy.data.lights.new("Spot", "SPOT")
    spot.energy, spot.spot_size, spot.spot_blend, spot.shadow_soft_size = 200, math.radians(50), 0.15, 0
    new_object(scene, "Spot", spot, (0, -1, 3))
    area = bpy.data.lights.new("Panel", "AREA")
    area.shape, area.size, area.size_y, area.energy = "RECTANGLE", 0.5, 0.25, 40
    new_object(scene, "Panel", area, (1, 1, 2))

    # A camera with depth of field on a focus object.
    cam = new_object(scene, "Lens", bpy.data.cameras.new("Lens"), (0, -6, 2))
    cam.rotation_euler = (Vector((0, 0, 0.3)) - Vector((0, -6, 2))).to_track_quat("-Z", "Y").to_euler()
    cam.data.lens = 50
    cam.data.dof.use_dof = True
    cam.data.dof.aperture_fstop = 2.8
    target = new_object(scene, "Focus here", None, (0.4, -0.5, 0.3))
    cam.data.dof.focus_object = target
    scene.camera = cam
    scene.world = None
    return scene


def test_features():
    scene = build_features_scene()
    result, extra = export_by_render(scene)
    print("features export: %.2f s" % extra["seconds"])
    compare_fingerprints(extra["before"], extra["after"], "the features export")
    info = inspect(result.gltf)
    check(info["textures"] == 1, "%d textures, want 1 (the checker)" % info["textures"])
    gl = Gltf(result.gltf)
    check(result.renderable, "the features scene is not renderable")
    check(info["warnings"] == [], "sertrace warns about the features export: %s" % info["warnings"])

    # Particle hair.
    emitter = scene.objects["Emitter"]
    part = emitter.particle_systems[0].settings
    key = "Emitter " + emitter.particle_systems[0].name
    exp = extra["expect"].get(key)
    h = hair_entry(info, key)
    scale = 1.5
    if check(h is not None and exp is not None, "no particle hair %r in %s" % (key, [x["name"] for x in info["hair"]])):
        check(exp["strands"] == 30 * 4, "the psys has %d render children, want 120" % exp["strands"])
        check(h["strands"] == exp["strands"], "particle hair strands %d, want %d" % (h["strands"], exp["strands"]))
        check(h["segments"] == exp["strands"] * (exp["steps"] - 1),
              "particle hair segments %d, want %d" % (h["segments"], exp["strands"] * (exp["steps"] - 1)))
        root = part.radius_scale * 0.5 * part.root_radius * scale
        tip = part.radius_scale * 0.5 * part.tip_radius * scale
        check(close(h["radius_max"], root) and close(h["radius_min"], tip),
              "particle hair radii %g-%g, want %g-%g" % (h["radius_min"], h["radius_max"], tip, root))
        check(h["material"] == "Particle hair" and h["model"] and h["model"].get("color") is not None,
              "particle hair material %r model %s" % (h["material"], h["model"]))
        mesh = gl.mesh_of(key)
        prim = mesh["primitives"][0]
        pos = gl.accessor(prim["attributes"]["POSITION"])
        rad = gl.accessor(prim["attributes"]["_RADIUS"])
        steps = exp["steps"]
        first = np.array(exp["first_strand"], np.float64)
        want = np.stack([first[:, 0], first[:, 2], -first[:, 1]], axis=1)
        check(np.allclose(pos[:steps], want, atol=1e-5), "the first strand's points are not co_hair's, in glTF axes")
        seg = np.linalg.norm(np.diff(first, axis=0), axis=1)
        t = np.concatenate([[0], np.cumsum(seg)]) / seg.sum()
        shaped = tip + (root - tip) * (1 - t) ** (1 / (1 - part.shape))
        check(np.allclose(rad[:steps], shaped, rtol=1e-4), "the first strand's radii %s, want %s" % (rad[:steps], shaped))
    emitter_node = gl.node("Emitter")
    check(emitter_node is None or "mesh" not in emitter_node, "the emitter is rendered though Show Emitter is off")

    p = [x for x in info["particles"] if x["name"] == "Cloud"]
    if check(len(p) == 1, "no point cloud 'Cloud' in %s" % info["particles"]):
        check(p[0]["spheres"] == 16, "point cloud spheres %d, want 16" % p[0]["spheres"])
        check(close(p[0]["radius_min"], 0.1) and close(p[0]["radius_max"], 0.1),
              "point cloud radii %g-%g, want 0.1" % (p[0]["radius_min"], p[0]["radius_max"]))

    for name, strands, segments, radius in (("Strands", 6, 27, 0.01), ("Tuft", 4, 16, 0.02)):
        s = hair_entry(info, name)
        if check(s is not None, "no curves %r in %s" % (name, [x["name"] for x in info["hair"]])):
            check(s["strands"] == strands and s["segments"] == segments, "%s: %d strands %d segments, want %d and %d"
                  % (name, s["strands"], s["segments"], strands, segments))
            check(close(s["radius_min"], radius) and close(s["radius_max"], radius), "%s: radii %g-%g, want %g"
                  % (name, s["radius_min"], s["radius_max"], radius))
    check(hair_entry(info, "Strands instanced") is None, "instanced Geometry Nodes curves were exported: Cycles renders none")
    # The cubes Geometry Nodes instances: 12 triangles each, placed thrice
    # (by the export in Blender 3.x, by the exporter in 4.x).
    cubes = [n for n in gl.doc["nodes"] if "mesh" in n and sum(
        gl.doc["accessors"][p["indices"]]["count"] for p in gl.doc["meshes"][n["mesh"]]["primitives"]
        if p.get("mode", 4) == 4 and "indices" in p) == 36]
    check(len(cubes) == 3, "%d cube instances, want 3" % len(cubes))

    mesh = gl.mesh_of("Subdivided")
    tris = sum(gl.doc["accessors"][p["indices"]]["count"] // 3 for p in mesh["primitives"]) if mesh else 0
    check(tris == 48, "the subdivided cube has %d triangles: want 48, its render level's" % tris)

    # The child: world position = parent's + its offset turned by 90° about Z.
    want = np.array([0.5, -1.0, 0.2]) + np.array([0.0, 1.0, 0.3])
    world = gl.world("Child")
    check(world is not None and np.allclose(world[:3, 3], [want[0], want[2], -want[1]], atol=1e-6),
          "the child is at %s in glTF, want %s" % (None if world is None else world[:3, 3], want))
    world = gl.world("Mover")
    check(world is not None and np.allclose(world[:3, 3], [1, 1, -1], atol=1e-6),
          "the animated object is at %s at frame 10, want (1, 1, -1)" % (None if world is None else world[:3, 3]))
    morph = gl.mesh_of("Morph")
    top = max(gl.doc["accessors"][p["attributes"]["POSITION"]]["max"][1] for p in morph["primitives"]) if morph else None
    check(top is not None and close(top, 0.5) and not any("targets" in p for p in morph["primitives"]),
          "the shape key at frame 10: the grid's top is %s, want 0.5, and no morph targets left" % top)
    blob = [n for n in gl.doc["nodes"] if n.get("name") == "Blob" and "mesh" in n]
    check(len(blob) == 1, "the metaball was not exported as a mesh")
    check(hair_entry(info, "Strands") is None or hair_entry(info, "Strands")["model"] is None,
          "curves with a Principled BSDF got a hair model")

    names = {n.get("name") for n in gl.doc["nodes"]}
    check("NoRender" not in names, "an object hidden from renders was exported")
    check("ViewportHidden" in names, "an object hidden in the viewport only was left out")
    check("Excluded" not in names, "an object of an excluded collection was exported")

    check(info["lights"] == 1, "%d punctual lights, want 1 (the spot)" % info["lights"])
    check(info["emissive_materials"] == 1, "%d emissive materials, want 1 (the area light)" % info["emissive_materials"])

    cam = scene.camera
    i = result.args.index("--aperture-radius") if "--aperture-radius" in result.args else -1
    # (The originals' matrix_world is stale in a scene no window shows.)
    view = np.array(cam.rotation_euler.to_matrix())[:, 2]
    focus = abs(np.dot(view, np.array(cam.location) - np.array(cam.data.dof.focus_object.location)))
    if check(i >= 0, "no depth of field in %s" % result.args):
        check(close(float(result.args[i + 1]), 0.05 / (2 * 2.8), 1e-6), "aperture radius %s" % result.args[i + 1])
        j = result.args.index("--focus-distance")
        check(close(float(result.args[j + 1]), focus, 1e-5), "focus distance %s, want %g" % (result.args[j + 1], focus))
    check(result.args[:2] == ["--camera", "Lens"], "camera args %s" % result.args)
    check(result.args[-2:] == ["--env-color", "0,0,0"], "no world: args %s" % result.args)

    want_notes = ["material 'Skin-like': Subsurface is not carried",
                  "material 'Diffuse only': shader 'Diffuse BSDF' is not carried",
                  "material 'Particle hair': the hair's Coat is not carried",
                  "light 'Spot': its blend is approximated",
                  "light 'Panel': it becomes an emissive quad"]
    for w in want_notes:
        check(any(n.startswith(w) for n in result.notes), "no note %r in %s" % (w, result.notes))
    check(len(set(result.notes)) == len(result.notes), "notes repeat: %s" % result.notes)
    print("features notes:\n  " + "\n  ".join(result.notes))
    return scene


# --- 3. the hair BSDF's parametrisations, the .hdr writer --------------------------------


def test_hair_models():
    mat = bpy.data.materials.new("hair models")
    mat.use_nodes = True
    node = mat.node_tree.nodes.new("ShaderNodeBsdfHairPrincipled")
    node.inputs["Radial Roughness"].default_value = 0.4
    node.inputs["Offset"].default_value = math.radians(-3)
    node.parametrization = "COLOR"
    node.inputs["Color"].default_value = (0.5, 0.3, 0.1, 1)
    model, base, notes = hair_bsdf.hair_model(node)
    check(np.allclose(model["color"], [0.5, 0.3, 0.1]) and close(model["alpha"], 3.0), "COLOR: %s" % model)
    check(np.allclose(base, [0.5, 0.3, 0.1], atol=1e-6), "COLOR: base colour %s" % base)
    node.parametrization = "ABSORPTION"
    sigma = np.array([0.3, 0.6, 1.2])
    node.inputs["Absorption Coefficient"].default_value = sigma
    model, base, notes = hair_bsdf.hair_model(node)
    check(np.allclose(model["sigma_a"], sigma, rtol=1e-6) and not notes, "ABSORPTION: %s %s" % (model, notes))
    node.parametrization = "MELANIN"
    node.inputs["Melanin"].default_value = 0.4
    node.inputs["Melanin Redness"].default_value = 0.5
    node.inputs["Tint"].default_value = (1.0, 0.6, 0.6, 1)
    model, base, notes = hair_bsdf.hair_model(node)
    eu, ph = hair_bsdf.melanin_concentrations(0.4, 0.5)
    want = (eu * hair_bsdf.CYCLES_EUMELANIN_SIGMA + ph * hair_bsdf.CYCLES_PHEOMELANIN_SIGMA
            + hair_bsdf.sigma_from_color([1, 0.6, 0.6], 0.4))
    check(np.allclose(model.get("sigma_a", 0), want, rtol=1e-6), "MELANIN with a tint: %s, want σ %s" % (model, want))
    node.inputs["Random Roughness"].default_value = 0.1
    model, base, notes = hair_bsdf.hair_model(node)
    check(any("Random Roughness" in n for n in notes), "Random Roughness: no note in %s" % notes)
    bpy.data.materials.remove(mat)


def decode_hdr(path):
    """A minimal Radiance reader (flat or run-length scanlines), rows down."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"\n\n") + 2
    line_end = data.index(b"\n", end)
    _, h, _, w = data[end:line_end].split()
    h, w = int(h), int(w)
    pos = line_end + 1
    out = np.zeros((h, w, 4), np.uint8)
    for y in range(h):
        if 8 <= w <= 0x7FFF and data[pos] == 2 and data[pos + 1] == 2:
            pos += 4
            for c in range(4):
                x = 0
                while x < w:
                    n = data[pos]
                    pos += 1
                    if n > 128:
                        out[y, x:x + n - 128, c] = data[pos]
                        pos += 1
                        x += n - 128
                    else:
                        out[y, x:x + n, c] = np.frombuffer(data, np.uint8, n, pos)
                        pos += n
                        x += n
        else:
            out[y] = np.frombuffer(data, np.uint8, w * 4, pos).reshape(w, 4)
            pos += w * 4
    e = out[:, :, 3].astype(np.int32)
    f = np.where(e > 0, np.ldexp(1.0, e - 136), 0.0)
    return out[:, :, :3] * f[:, :, None]


def test_hdr_writer():
    rng = np.random.default_rng(3)
    for w in (5, 300):  # flat scanlines, and run-length ones over two packets
        img = rng.random((7, w, 3)) ** 4 * 100
        img[0, 0] = 0
        path = os.path.join(WORK, "writer-%d.hdr" % w)
        hdr.write_hdr(path, img)
        back = decode_hdr(path)
        check(np.all(np.abs(back - img) <= img.max(axis=2, keepdims=True) / 128 + 1e-30),
              ".hdr writer: %d wide, off by %g" % (w, np.abs(back - img).max()))


# --- 4. conventions against Cycles ----------------------------------------------------------


def diffuse_floor_scene(name):
    """A white floor seen from above: Principled (no specular) for the
    export, a Diffuse BSDF for Cycles (so both are Lambert)."""
    scene = bpy.data.scenes.new(name)
    mat = bpy.data.materials.new(name + " floor")
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.8, 0.8, 0.8, 1)
    bsdf.inputs["Specular IOR Level" if "Specular IOR Level" in bsdf.inputs else "Specular"].default_value = 0.0
    bsdf.inputs["Roughness"].default_value = 1.0
    floor = new_object(scene, "Floor", grid_mesh(name + " floor", 2, 2, 6.0))
    floor.data.materials.append(mat)
    scene.render.resolution_x = scene.render.resolution_y = 32  # the camera's aspect goes into the glTF
    cam = new_object(scene, "Top", bpy.data.cameras.new(name + " cam"), (0, 0, 4))
    cam.data.lens = 50
    scene.camera = cam
    world = bpy.data.worlds.new(name + " world")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0, 0, 0, 1)
    scene.world = world
    return scene, mat


def lambert_for_cycles(mat):
    nt = mat.node_tree
    d = nt.nodes.new("ShaderNodeBsdfDiffuse")
    d.inputs["Color"].default_value = (0.8, 0.8, 0.8, 1)
    d.inputs["Roughness"].default_value = 0.0
    nt.links.new(d.outputs[0], nt.nodes["Material Output"].inputs["Surface"])


def test_light_units():
    """Each light alone on a Lambert floor, direct light only: sertrace's
    mean against Cycles'."""
    cases = [
        ("point", "POINT", dict(energy=100.0, shadow_soft_size=0.0), (0.5, 0.3, 1.5), (0, 0, 0)),
        # (Narrow: Cycles 3.x dims a spot by the cosine off its axis.)
        ("spot", "SPOT", dict(energy=150.0, shadow_soft_size=0.0, spot_size=math.radians(24), spot_blend=0.0),
         (0.2, 0.1, 2.0), (math.radians(10), 0, 0)),
        ("sun", "SUN", dict(energy=2.0, angle=0.0), (0, 0, 5), (math.radians(30), 0, math.radians(20))),
        ("square", "AREA", dict(energy=60.0, shape="SQUARE", size=0.6), (2.0, 0, 1.0), (0, math.radians(50), 0)),
        ("disk", "AREA", dict(energy=60.0, shape="DISK", size=0.8), (-2.0, 0.3, 1.2), (0, math.radians(-50), 0)),
    ]
    for name, kind, props, loc, rot in cases:
        scene, mat = diffuse_floor_scene("Light " + name)
        light = bpy.data.lights.new("L " + name, kind)
        for k, v in props.items():
            setattr(light, k, v)
        obj = new_object(scene, "L " + name, light, loc)
        obj.rotation_euler = rot
        result, _ = export_by_render(scene)
        folder = os.path.dirname(result.gltf)
        ours = sertrace_render(result, folder, 32, 32, 16, 1)
        lambert_for_cycles(mat)
        theirs = cycles_render(scene, folder, 32, 32, 16, 0)
        a, b = ours.mean(), theirs.mean()
        print("light %-6s sertrace %.5f Cycles %.5f ratio %.4f" % (name, a, b, a / b))
        check(b > 1e-3 and abs(a / b - 1) < 0.03, "light %s: sertrace/Cycles mean ratio %.4f" % (name, a / b))


def environment_scene():
    """A dim environment with one bright patch, behind a Mapping node's Z
    rotation, and a camera looking near the patch."""
    scene = bpy.data.scenes.new("Environment")
    w, h = 64, 32
    px = np.full((h, w, 4), 0.2, np.float32)
    px[:, :, 3] = 1
    col, row = 40, 20  # the patch: 3 x 3 texels, rows counted from the bottom
    px[row - 1:row + 2, col - 1:col + 2, :3] = (50.0, 40.0, 30.0)
    img = bpy.data.images.new("patch env", w, h, alpha=False, float_buffer=True)
    img.pixels.foreach_set(px.ravel())
    world = bpy.data.worlds.new("patch world")
    world.use_nodes = True
    nt = world.node_tree
    tex = nt.nodes.new("ShaderNodeTexEnvironment")
    tex.image = img
    tex.interpolation = "Closest"  # sertrace looks texels up without filtering
    mapping = nt.nodes.new("ShaderNodeMapping")
    rot_z = math.radians(50)
    mapping.inputs["Rotation"].default_value = (0, 0, rot_z)
    coord = nt.nodes.new("ShaderNodeTexCoord")
    nt.links.new(coord.outputs["Generated"], mapping.inputs["Vector"])
    nt.links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
    bg = nt.nodes["Background"]
    bg.inputs["Strength"].default_value = 1.5
    nt.links.new(tex.outputs["Color"], bg.inputs["Color"])
    scene.world = world
    # The patch's direction, by Cycles' mapping (kernel/camera/projection.h:
    # u = 0.5 - atan2(y, x)/2π, v = 1 - acos(z)/π of the Mapping's output,
    # v up the image), the Mapping's rotation undone.
    u, v = (col + 0.5) / w, (row + 0.5) / h
    phi, theta = 2 * math.pi * (0.5 - u), math.pi * (1 - v)
    mapped = Vector((math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta)))
    d = Matrix.Rotation(-rot_z, 3, "Z") @ mapped
    aim = Matrix.Rotation(math.radians(12), 3, "Z") @ Matrix.Rotation(math.radians(-6), 3, "X") @ d
    cam = new_object(scene, "Look", bpy.data.cameras.new("Look"), (0, 0, 0))
    cam.rotation_euler = aim.to_track_quat("-Z", "Y").to_euler()
    cam.data.angle = math.radians(70)
    scene.camera = cam
    # sertrace wants something to render: a speck far behind the camera.
    speck = new_object(scene, "Speck", grid_mesh("speck", 2, 2, 0.01), tuple(-20 * aim))
    speck.data.materials.append(principled("speck"))
    return scene, img, d


def centroid(image):
    lum = image.mean(axis=2)
    mask = lum > 0.5 * lum.max()
    ys, xs = np.nonzero(mask)
    wts = lum[ys, xs]
    return np.array([np.average(xs, weights=wts), np.average(ys, weights=wts)])


def project(cam, direction, width, height):
    """Where a direction lands in the image (pixel units, x right, y up,
    from the bottom left corner) for a camera at the origin; from its
    rotation and angle (its matrix_world is stale in a scene no window shows)."""
    c = cam.rotation_euler.to_matrix().transposed() @ direction
    f = (width / 2) / math.tan(cam.data.angle / 2)  # the sensor fits the width
    return np.array([width / 2 + f * c.x / -c.z, height / 2 + f * c.y / -c.z])


def test_environment():
    scene, img, direction = environment_scene()
    W, H = 64, 48
    scene.render.resolution_x, scene.render.resolution_y = W, H
    result, _ = export_by_render(scene)
    check("--env" in result.args, "no --env in %s" % result.args)
    i = result.args.index("--env-rotation")
    rotation = float(result.args[i + 1])
    check(close(rotation, 50.0 + 90.0, 1e-6), "--env-rotation %g, want %g" % (rotation, 50.0 + 90.0))
    check(result.args[result.args.index("--env-intensity") + 1] == "1.5", "env intensity: %s" % result.args)
    folder = os.path.dirname(result.gltf)
    ours = sertrace_render(result, folder, W, H, 4, 1, name="written.pfm")
    theirs = cycles_render(scene, folder, W, H, 4, 0)
    # The same pixels from a .hdr file, which goes to sertrace as it is.
    src = os.path.join(WORK, "patch-source.hdr")
    px = np.zeros(len(img.pixels), np.float32)
    img.pixels.foreach_get(px)
    hdr.write_hdr(src, px.reshape(img.size[1], img.size[0], 4)[::-1, :, :3])
    from_file = bpy.data.images.load(src)
    scene.world.node_tree.nodes["Environment Texture"].image = from_file
    again, _ = export_by_render(scene)
    env = again.args[again.args.index("--env") + 1]
    check(os.path.samefile(env, src), "the image's own .hdr was not passed as it is: %s" % env)
    ours_file = sertrace_render(again, folder, W, H, 4, 1, name="own-file.pfm")
    want = project(scene.camera, direction, W, H) - 0.5  # pixel centres are at index + 0.5
    for label, image in (("written .hdr", ours), ("own .hdr", ours_file), ("Cycles", theirs)):
        c = centroid(image)
        print("environment patch (%s): pixel %.2f, %.2f; the patch's direction projects to %.2f, %.2f"
              % (label, c[0], c[1], want[0], want[1]))
        check(np.all(np.abs(c - want) < 2.0), "environment patch (%s) at %s, want %s" % (label, c, want))
    ratio = ours.mean() / theirs.mean()
    print("environment mean ratio sertrace/Cycles %.4f" % ratio)
    check(abs(ratio - 1) < 0.05, "environment mean ratio %.4f" % ratio)


# --- 5. F12: the render thread ------------------------------------------------------------


def f12_child(out_path):
    """In an interactive Blender: F12 with the test engine (its render()
    runs on the render thread), the export's result written to out_path,
    then quit."""
    state = {"ticks": 0}
    bpy.context.scene.render.engine = "EXPORT_TEST"

    def done(payload):
        with open(out_path, "w") as f:
            json.dump(payload, f)
        bpy.ops.wm.quit_blender()

    def tick():
        state["ticks"] += 1
        try:
            if state["ticks"] == 1:
                with open(out_path + ".started", "w") as f:  # the interface runs
                    f.write("started\n")
                with bpy.context.temp_override(window=bpy.context.window_manager.windows[0]):
                    bpy.ops.render.render("INVOKE_DEFAULT")
                return 0.5
            name = bpy.context.scene.name
            if name in RESULTS:
                result, extra = RESULTS.pop(name)
                if isinstance(result, str):
                    done({"error": result})
                else:
                    done({"gltf": result.gltf, "args": result.args, "notes": result.notes,
                          "main_thread": extra["main_thread"],
                          "unchanged": extra["before"] == extra["after"]})
                return None
            if state["ticks"] > 240:
                done({"error": "F12 did not export within 2 minutes"})
                return None
        except Exception:
            done({"error": traceback.format_exc()})
            return None
        return 0.5

    bpy.app.timers.register(tick, first_interval=1.0)


def test_f12(blend, main_info):
    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        print("F12 on the render thread: skipped (no xvfb-run)")
        return
    out = os.path.join(WORK, "f12.json")
    for stale in (out, out + ".started"):
        if os.path.exists(stale):
            os.remove(stale)
    cmd = [xvfb, "-a", "-s", "-screen 0 1024x768x24", bpy.app.binary_path, blend, "--factory-startup",
           "--python-exit-code", "1", "-P", os.path.abspath(__file__), "--", "--f12", out, SERTRACE, WORK]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        check(False, "F12: the interactive Blender did not finish")
        return
    if not os.path.exists(out + ".started"):  # no interface here (no OpenGL under Xvfb, say)
        print("F12 on the render thread: skipped (Blender's interface did not start under xvfb-run: exit %d, %s)"
              % (proc.returncode, (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ""))
        return
    if not os.path.exists(out):
        check(False, "F12: no result (exit %d):\n%s" % (proc.returncode, (proc.stdout + proc.stderr)[-3000:]))
        return
    with open(out) as f:
        got = json.load(f)
    if not check("error" not in got, "F12: %s" % got.get("error")):
        return
    check(not got["main_thread"], "F12: render() ran on the main thread; the test meant the render thread")
    check(got["unchanged"], "F12: the export changed bpy.data")
    info = inspect(got["gltf"])
    for key in ("triangles", "lss_segments", "lights", "camera_names", "materials", "hair_materials"):
        check(info[key] == main_info[key], "F12: %s %s, from the main thread %s" % (key, info[key], main_info[key]))
    print("F12 on the render thread: the same export (%d triangles, %d segments)" % (info["triangles"], info["lss_segments"]))


# --- main ------------------------------------------------------------------------------------

if F12_MODE:
    SERTRACE, WORK = argv[2], argv[3]
    f12_child(argv[1])
else:
    SERTRACE = os.path.abspath(argv[0])
    own_work = len(argv) < 2
    WORK = tempfile.mkdtemp(prefix="sertrace-test-export-") if own_work else os.path.abspath(argv[1])
    os.makedirs(WORK, exist_ok=True)
    blend = bpy.data.filepath
    print("test_export.py: Blender %s, %s" % (bpy.app.version_string, SERTRACE))
    start = time.monotonic()
    try:
        _, main_info = test_scene()
        test_features()
        test_hair_models()
        test_hdr_writer()
        test_light_units()
        test_environment()
        test_f12(blend, main_info)
    except Exception:
        check(False, "the test stopped: %s" % traceback.format_exc())
    print("test_export.py: %.1f s" % (time.monotonic() - start))
    if own_work and not failures:
        shutil.rmtree(WORK, ignore_errors=True)
    if failures:
        print("test_export.py: %d failures:\n  %s" % (len(failures), "\n  ".join(failures)), file=sys.stderr)
        sys.exit(1)
    print("test_export.py: ok")
