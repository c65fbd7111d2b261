"""The evaluated Blender scene as a glTF file and sertrace flags.

Blender's own glTF exporter writes the meshes, their materials and the
cameras; this module then adds to its JSON what glTF has no standard for
(DESIGN.md, "Hair and particles in glTF") and what Cycles renders
otherwise than the exporter writes it:

- hair (Curves objects and instances, curves Geometry Nodes made,
  particle-system hair) as LINES primitives with a `_RADIUS` attribute,
  each strand's segments chained through shared vertices, and a Principled
  Hair BSDF as a material whose extras name sertrace's hair model;
- point clouds as POINTS primitives with `_RADIUS`;
- lights in Cycles' units, measured against Cycles (the exporter's are
  photometric), area lights as emissive polygons;
- the world (a colour, or an equirectangular image as Radiance .hdr) and
  the camera's depth of field, as command-line flags;
- where the exporter reads the user's original data rather than the
  depsgraph's: nodes placed by the evaluated matrices (_place_by_depsgraph),
  shape keys applied at their evaluated values (_bake_morph_targets),
  objects in edit mode, metaballs and (Blender 3.x) Geometry Nodes mesh
  instances written from their evaluated meshes (_OwnMesh).

What cannot be carried is said in ExportResult.notes, one line per
material, light, world or camera, for Blender's report.

export_scene runs the exporter on the depsgraph it is given (the render's,
inside RenderEngine.render), not on the viewport's of its own: the
exporter's module-level `bpy` is swapped, for the call, for a view whose
context answers with that depsgraph, its scene and no window, active object
or selection (_exporter_sees), and the operator is called without bpy.ops'
view_layer.update() around it (_call_operator). So modifiers are evaluated
with their render settings, nothing of the user's (frame, mode, window
scene, selection, objects' matrices) is touched, and it runs the same on
the main thread (`blender -b ... -f 1`) and on F12's render thread, where
the real context has no window.
"""

import contextlib
import importlib
import json
import math
import os
import sys
import threading
import types
from dataclasses import dataclass, field

import bpy
import numpy as np

GLTF_FILE = "scene.gltf"
EXTRA_BUFFER = "sertrace-extra.bin"  # the hair, points and area lights added after the exporter
ENV_FILE = "world.hdr"

# glTF's axes from Blender's: Y up, so (x, y, z) -> (x, z, -y).
TO_GLTF = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]], np.float64)

# The radius of a hair curve without a `radius` attribute, as Cycles takes
# it (blender/curves.cpp; test_export.py's scenes never need it, a Cycles
# render of a curve without one matches 0.005 in 3.4 and 4.3).
DEFAULT_CURVE_RADIUS = 0.005
# A point without a `radius` attribute, as Cycles' blender/pointcloud.cpp
# takes it (not measured: Geometry Nodes' points always have one).
DEFAULT_POINT_RADIUS = 0.01

# sertrace's limits on its hair model (render/layout): roughnesses below
# HAIR_BETA_MIN are clamped, a colour channel below HAIR_COLOR_MIN too.
HAIR_BETA_MIN = 0.01
HAIR_COLOR_MIN = 1e-4

# Cycles' absorption of eumelanin and pheomelanin (its
# sigma_from_concentration; pbrt's, which sertrace's eumelanin and
# pheomelanin keys use, are 0.419, 0.697, 1.37 and 0.187, 0.4, 1.05).
CYCLES_EUMELANIN_SIGMA = np.array([0.506, 0.841, 1.653])
CYCLES_PHEOMELANIN_SIGMA = np.array([0.343, 0.733, 1.924])


@dataclass
class ExportResult:
    """What export_scene wrote and what the sertrace command line needs."""

    gltf: str  # the .gltf written (its .bin files and textures beside it)
    args: list = field(default_factory=list)  # sertrace flags: world and camera
    renderable: bool = False  # any face, strand or point visible to the render
    notes: list = field(default_factory=list)  # what could not be carried, one line each


class _Notes:
    """Notes in order, each line once."""

    def __init__(self):
        self.lines = []

    def add(self, line):
        if line not in self.lines:
            self.lines.append(line)


def export_scene(depsgraph, folder):
    """Write the evaluated scene of depsgraph into folder as GLTF_FILE (with
    its buffers, textures and, where the world has an image, ENV_FILE) and
    return an ExportResult. Changes nothing in bpy.data."""
    notes = _Notes()
    path = os.path.join(folder, GLTF_FILE)
    # Blender's Python gives no mesh data of an object in edit mode (its
    # arrays read empty): the exporter would fail on it, so it leaves them
    # to us, and we write their evaluated meshes.
    shown = {o.original.name for o in depsgraph.objects if o.original is not None}
    editing = {o.original.name for o in depsgraph.objects
               if o.type == "MESH" and o.original is not None and o.original.mode == "EDIT"}
    # The exporter walks all of the scene's objects; those the render's
    # depsgraph does not show (in a collection excluded from the view
    # layer, say) stay out.
    hidden = {o.name for o in depsgraph.scene.objects} - shown
    metaballs = {o.original.name for o in depsgraph.objects if o.type == "META" and o.original is not None}
    _run_gltf_exporter(depsgraph, path, editing | hidden | metaballs)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    _place_by_depsgraph(doc, depsgraph)
    out = _Gltf(doc, folder)
    _bake_morph_targets(out, depsgraph, notes)

    scan = _Scan(depsgraph, notes, editing)
    scan.run()
    _hide_emitters(doc, scan.hidden_self)
    renderable = _has_faces(doc)
    renderable |= _write_own_meshes(out, scan, notes)
    renderable |= _write_hair(out, scan, notes)
    renderable |= _write_points(out, scan, notes)
    _write_lights(out, scan, notes)
    for mat in scan.surface_materials.values():
        for line in material_notes(mat):
            notes.add(line)

    args = []
    args += _camera(out, depsgraph, notes)
    args += _world(depsgraph, folder, notes)
    render = depsgraph.scene.render
    if render.film_transparent:
        notes.add("film: transparency is not carried: the world is rendered behind the scene")
    if render.use_motion_blur:
        notes.add("render: motion blur is not carried")

    out.finish()
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
    return ExportResult(gltf=path, args=args, renderable=renderable, notes=notes.lines)


# --- Blender's glTF exporter ------------------------------------------------

_EXPORT_LOCK = threading.Lock()

# The operator's options; each is passed only where this Blender's exporter
# has it (3.4 and 4.x differ). Modifiers applied, what renders only (not
# what the viewport hides), no animation (it would change the frame), no
# skins (the evaluated mesh carries them), shape keys as morph targets (a
# mesh without modifiers goes out as its original data, the shape keys not
# applied: _bake_morph_targets applies them), extras (custom
# properties) on, lights off (written here in Cycles' units), no loose edges
# or points (they would be LINES and POINTS without a radius), vertex
# colours only where a material uses them (glTF multiplies COLOR_0 into the
# base colour; Cycles uses them only through nodes).
_EXPORTER_OPTIONS = dict(
    export_format="GLTF_SEPARATE",
    use_selection=False,
    use_visible=False,
    use_renderable=True,
    use_active_collection=False,
    use_active_scene=True,
    export_apply=True,
    export_extras=True,
    export_cameras=True,
    export_lights=False,
    export_animations=False,
    export_current_frame=True,
    export_skins=False,
    export_morph=True,  # shape keys as morph targets, baked into the mesh here
    export_morph_normal=True,
    export_morph_tangent=False,
    export_morph_animation=False,
    export_try_sparse_sk=False,
    export_yup=True,
    export_texcoords=True,
    export_normals=True,
    export_tangents=False,
    export_materials="EXPORT",
    export_image_format="AUTO",
    export_keep_originals=False,
    export_draco_mesh_compression_enable=False,
    use_mesh_edges=False,
    use_mesh_vertices=False,
    export_attributes=False,
    export_colors=False,  # 3.4
    export_vertex_color="MATERIAL",  # 4.x
    export_gn_mesh=True,  # 4.x: Geometry Nodes instances
    export_gpu_instances=False,
    export_original_specular=False,
    will_save_settings=False,
    check_existing=False,
)


def _run_gltf_exporter(depsgraph, path, skip):
    """Run bpy.ops.export_scene.gltf on depsgraph's scene into path,
    leaving out the objects named in skip."""
    if not hasattr(bpy.types, "EXPORT_SCENE_OT_gltf"):
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("the glTF 2.0 add-on (io_scene_gltf2) is not enabled: enable it in the preferences")
        import addon_utils

        addon_utils.enable("io_scene_gltf2", default_set=False)
    known = bpy.ops.export_scene.gltf.get_rna_type().properties.keys()
    options = {k: v for k, v in _EXPORTER_OPTIONS.items() if k in known}
    options["filepath"] = path
    with _EXPORT_LOCK, _exporter_sees(depsgraph, skip):
        try:
            result = _call_operator("export_scene.gltf", options)
        except RuntimeError as e:  # its message ends with the exporter's own error
            lines = [ln.strip() for ln in str(e).splitlines() if ln.strip() and not ln.startswith("Location")]
            raise RuntimeError("Blender's glTF exporter failed: %s" % (lines[-1] if lines else e)) from e
    if "FINISHED" not in result:
        raise RuntimeError("Blender's glTF exporter did not finish: %s" % sorted(result))


def _call_operator(idname, options):
    """bpy.ops' call of an operator without what bpy.ops adds around it:
    context.view_layer.update() before and after, which evaluates the
    viewport's depsgraph (from the render thread, under F12) and writes its
    results back into the user's objects (the exporter's temporary images
    tag it). Blender 4.0 dropped the context-dictionary argument."""
    try:
        from _bpy import ops as ops_module
    except ImportError:  # not where bpy.ops comes from: the public way
        module, name = idname.split(".")
        return getattr(getattr(bpy.ops, module), name)(**options)
    if bpy.app.version >= (4, 0):
        return ops_module.call(idname, options)
    return ops_module.call(idname, None, options)


class _WindowStandIn:
    """The window the exporter sees: it sets its scene to the one it exports
    (and back) and its cursor; neither may reach a real window."""

    def __init__(self, scene, view_layer):
        self.scene = scene
        self.view_layer = view_layer

    def cursor_set(self, _cursor):
        pass


class _ContextView:
    """bpy.context as the exporter sees it during export_scene: the
    depsgraph given (evaluated already: the render's, or the viewport's),
    its scene and view layer, no active object (the exporter would leave
    edit mode) and no selection; everything else is the real context."""

    def __init__(self, depsgraph):
        self._depsgraph = depsgraph
        self.scene = depsgraph.scene
        self.view_layer = depsgraph.view_layer
        self.window = _WindowStandIn(self.scene, self.view_layer)
        self.active_object = None
        self.object = None
        self.selected_objects = []

    def evaluated_depsgraph_get(self):
        return self._depsgraph

    def __getattr__(self, name):
        return getattr(bpy.context, name)


class _BpyView:
    """The bpy module as the exporter's modules see it: its context is a
    _ContextView, the rest is bpy's."""

    def __init__(self, depsgraph):
        self.context = _ContextView(depsgraph)

    def __getattr__(self, name):
        return getattr(bpy, name)


def _exporter_modules():
    """The exporter's modules, all imported (it imports some only when it
    runs, and those must be patched too)."""
    root = sys.modules.get("io_scene_gltf2")
    if root is None:
        root = importlib.import_module("io_scene_gltf2")
    # Its sub-folders are namespace packages (no __init__.py), which
    # pkgutil.walk_packages does not enter: walk the files.
    for base in root.__path__:
        for folder, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "imp")]  # the importer's
            rel = os.path.relpath(folder, base)
            parts = [] if rel == "." else rel.split(os.sep)
            for f in files:
                if not f.endswith(".py") or f == "__init__.py" or "draco" in f:
                    continue
                name = ".".join([root.__name__] + parts + [f[:-3]])
                if name in sys.modules:
                    continue
                try:
                    importlib.import_module(name)
                except Exception:  # an optional part: the exporter copes without it
                    pass
    prefix = root.__name__ + "."
    return [m for n, m in list(sys.modules.items()) if m is not None and (n == root.__name__ or n.startswith(prefix))]


@contextlib.contextmanager
def _exporter_sees(depsgraph, skip=()):
    """While it lasts, the exporter's modules see a _BpyView of depsgraph
    instead of bpy, their start/end notices (which set the window's
    cursor through the operator's real context) do nothing, and its object
    filter (VExportTree.node_filter_inheritable_is_kept, in 3.4 and 4.x)
    leaves out the objects named in skip."""
    view = _BpyView(depsgraph)
    saved = []
    for mod in _exporter_modules():
        tree = mod.__dict__.get("VExportTree")
        if skip and isinstance(tree, type) and "node_filter_inheritable_is_kept" in tree.__dict__:
            kept = tree.__dict__["node_filter_inheritable_is_kept"]

            def filtered(self, uuid, _kept=kept):
                obj = self.nodes[uuid].blender_object
                return _kept(self, uuid) and not (obj is not None and obj.name in skip)

            saved.append((tree, "node_filter_inheritable_is_kept", kept))
            tree.node_filter_inheritable_is_kept = filtered
        if getattr(mod, "bpy", None) is bpy:
            saved.append((mod, "bpy", bpy))
            mod.bpy = view
        for name in ("__notify_start", "__notify_end"):
            fn = mod.__dict__.get(name)
            if callable(fn):
                saved.append((mod, name, fn))
                setattr(mod, name, lambda *a, **k: None)
    try:
        yield
    finally:
        for mod, name, value in reversed(saved):
            setattr(mod, name, value)


def _node_matrix(node):
    """A glTF node's local matrix (4x4, rows first)."""
    if "matrix" in node:
        return np.array(node["matrix"], np.float64).reshape(4, 4).T
    t = np.eye(4)
    t[:3, 3] = node.get("translation", [0, 0, 0])
    x, y, z, w = node.get("rotation", [0, 0, 0, 1])
    r = np.eye(4)
    r[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                 [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                 [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    sc = np.diag(list(node.get("scale", [1, 1, 1])) + [1])
    return t @ r @ sc


def _place_by_depsgraph(doc, depsgraph):
    """Place the exporter's nodes where the depsgraph puts their objects.

    The exporter takes each object's matrix_world from the original object,
    which only the viewport's depsgraph keeps up to date: a render of
    another frame (blender -b -f N), of a scene not in a window, or of
    anything a driver or constraint moves differently in the render is
    placed as the viewport last saw it. Each node named after an object
    (once) gets the correction from that object's original matrix to its
    evaluated one, applied in world space; nodes below inherit their
    ancestor's; the local matrices are then recomputed."""
    nodes = doc.get("nodes", [])
    if not nodes:
        return
    c = np.eye(4)
    c[:3, :3] = TO_GLTF
    counts = {}
    for n in nodes:
        counts[n.get("name")] = counts.get(n.get("name"), 0) + 1
    parent = {}
    for i, n in enumerate(nodes):
        for ch in n.get("children", []):
            parent[ch] = i
    local = [_node_matrix(n) for n in nodes]
    world, delta = {}, {}

    def world_of(i):
        if i not in world:
            world[i] = (world_of(parent[i]) @ local[i]) if i in parent else local[i]
        return world[i]

    def delta_of(i):
        if i not in delta:
            name = nodes[i].get("name")
            obj = bpy.data.objects.get(name) if counts.get(name) == 1 else None
            if obj is not None:
                ev = obj.evaluated_get(depsgraph)
                try:
                    m = np.array(ev.matrix_world, np.float64) @ np.linalg.inv(np.array(obj.matrix_world, np.float64))
                except np.linalg.LinAlgError:  # scaled to nothing: nothing to place
                    m = np.eye(4)
                delta[i] = c @ m @ c.T
            else:
                delta[i] = delta_of(parent[i]) if i in parent else np.eye(4)
        return delta[i]

    true_world = {}
    for i in range(len(nodes)):
        true_world[i] = delta_of(i) @ world_of(i)
    for i, n in enumerate(nodes):
        new = (np.linalg.inv(true_world[parent[i]]) @ true_world[i]) if i in parent else true_world[i]
        if np.allclose(new, local[i], rtol=0, atol=1e-9):
            continue
        for key in ("translation", "rotation", "scale"):
            n.pop(key, None)
        n["matrix"] = [float(v) for v in new.T.ravel()]


def _bake_morph_targets(out, depsgraph, notes):
    """Apply the morph targets the exporter wrote (the shape keys of meshes
    without modifiers) with the shape keys' values as the depsgraph
    evaluates them (animated or driven), and drop them: sertrace reads no
    morph targets. Blender mixes each key relative to its own relative key
    and by its vertex group; the exporter's targets are relative to the
    basis and unweighted, so those two are said when they matter."""
    doc = out.doc
    reader = _AccessorReader(doc, out.folder)
    for mesh in doc.get("meshes", []):
        prims = [p for p in mesh.get("primitives", []) if p.get("targets")]
        if not prims:
            continue
        names = (mesh.get("extras") or {}).get("targetNames") or []
        weights = list(mesh.get("weights") or [0.0] * len(prims[0]["targets"]))
        me = bpy.data.meshes.get(mesh.get("name", ""))
        key = me.shape_keys if me is not None else None
        if key is not None:
            ev = key.evaluated_get(depsgraph)
            blocks = {kb.name: kb for kb in ev.key_blocks}
            weights = [blocks[n].value if n in blocks else w for n, w in zip(names, weights)] + weights[len(names):]
            say = lambda what: notes.add("mesh '%s': %s" % (me.name, what))
            if not key.use_relative:
                say("absolute shape keys are not carried: its relative mix is used")
            for kb in ev.key_blocks[1:]:
                if kb.mute or kb.value == 0:
                    continue
                if kb.vertex_group:
                    say("shape key '%s': its vertex group is not carried" % kb.name)
                if kb.relative_key != ev.key_blocks[0]:
                    say("shape key '%s': relative to another key than the basis: approximated" % kb.name)
        for prim in prims:
            for attr in ("POSITION", "NORMAL"):
                if attr not in prim["attributes"]:
                    continue
                base = reader.read(prim["attributes"][attr]).astype(np.float64)
                for w, target in zip(weights, prim["targets"]):
                    if w != 0 and attr in target:
                        base = base + w * reader.read(target[attr])
                if attr == "NORMAL":
                    base /= np.maximum(np.linalg.norm(base, axis=1, keepdims=True), 1e-12)
                prim["attributes"][attr] = out.accessor(base.astype(np.float32), "VEC3", out.ARRAY_BUFFER,
                                                        bounds=attr == "POSITION")
            del prim["targets"]
        mesh.pop("weights", None)
        if mesh.get("extras"):
            mesh["extras"].pop("targetNames", None)


class _AccessorReader:
    """The exporter's accessors as arrays (strided views, sparse ones)."""

    TYPES = {5126: np.float32, 5125: np.uint32, 5123: np.uint16, 5121: np.uint8, 5122: np.int16, 5120: np.int8}
    WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}

    def __init__(self, doc, folder):
        self.doc, self.folder, self.buffers = doc, folder, {}

    def _view(self, index, dtype, count, width, offset=0):
        view = self.doc["bufferViews"][index]
        b = view["buffer"]
        if b not in self.buffers:
            with open(os.path.join(self.folder, self.doc["buffers"][b]["uri"]), "rb") as f:
                self.buffers[b] = f.read()
        item = np.dtype(dtype).itemsize * width
        stride = view.get("byteStride", item)
        start = view.get("byteOffset", 0) + offset
        raw = np.frombuffer(self.buffers[b], np.uint8, stride * (count - 1) + item, start)
        rows = np.lib.stride_tricks.as_strided(raw, (count, item), (stride, 1))
        return np.ascontiguousarray(rows).view(dtype).reshape(count, width)

    def read(self, index):
        acc = self.doc["accessors"][index]
        dtype, width, count = self.TYPES[acc["componentType"]], self.WIDTH[acc["type"]], acc["count"]
        if "bufferView" in acc:
            data = self._view(acc["bufferView"], dtype, count, width, acc.get("byteOffset", 0)).copy()
        else:
            data = np.zeros((count, width), dtype)
        sparse = acc.get("sparse")
        if sparse:
            idx = sparse["indices"]
            at = self._view(idx["bufferView"], self.TYPES[idx["componentType"]], sparse["count"], 1,
                            idx.get("byteOffset", 0)).ravel()
            val = sparse["values"]
            data[at] = self._view(val["bufferView"], dtype, sparse["count"], width, val.get("byteOffset", 0))
        return data


def _has_faces(doc):
    """Whether any node places a mesh with triangles (mode 4, 5, 6)."""
    meshes = doc.get("meshes", [])
    for node in doc.get("nodes", []):
        m = node.get("mesh")
        if m is None or m >= len(meshes):
            continue
        for prim in meshes[m].get("primitives", []):
            if prim.get("mode", 4) in (4, 5, 6):
                return True
    return False


def _hide_emitters(doc, names):
    """Drop the mesh of each node whose object the render does not show
    itself (an emitter of particles with Show Emitter off for renders): the
    exporter writes it regardless."""
    for node in doc.get("nodes", []):
        if node.get("name") in names and "mesh" in node:
            del node["mesh"]


# --- glTF output --------------------------------------------------------------


class _Gltf:
    """The exporter's glTF document, added to: one more buffer file for our
    arrays, then nodes, meshes, materials and extensions."""

    FLOAT, UINT = 5126, 5125
    ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963

    def __init__(self, doc, folder):
        self.doc = doc
        self.folder = folder
        self.blob = bytearray()
        self.buffer = None
        self._materials = {}
        if not doc.get("scenes"):
            doc["scenes"] = [{"nodes": []}]
            doc["scene"] = 0

    def add(self, key, item):
        items = self.doc.setdefault(key, [])
        items.append(item)
        return len(items) - 1

    def accessor(self, data, kind, target, bounds=False):
        """An accessor of data (float32 or uint32, one row per element) in
        our buffer; bounds adds min and max (required of POSITION)."""
        data = np.ascontiguousarray(data)
        comp = self.UINT if data.dtype == np.uint32 else self.FLOAT
        if self.buffer is None:
            self.buffer = self.add("buffers", {"uri": EXTRA_BUFFER, "byteLength": 0})
        self.blob.extend(b"\0" * (-len(self.blob) % 4))
        view = self.add("bufferViews", {"buffer": self.buffer, "byteOffset": len(self.blob),
                                        "byteLength": data.nbytes, "target": target})
        self.blob.extend(data.tobytes())
        acc = {"bufferView": view, "componentType": comp, "count": int(data.shape[0]), "type": kind}
        if bounds:
            acc["min"] = [float(v) for v in data.min(axis=0)]
            acc["max"] = [float(v) for v in data.max(axis=0)]
        return self.add("accessors", acc)

    def root_node(self, node):
        index = self.add("nodes", node)
        self.doc["scenes"][self.doc.get("scene", 0)].setdefault("nodes", []).append(index)
        return index

    def use_extension(self, name):
        used = self.doc.setdefault("extensionsUsed", [])
        if name not in used:
            used.append(name)

    def material(self, key, make):
        """The index of the material for key, made by make() once."""
        if key not in self._materials:
            self._materials[key] = self.add("materials", make())
        return self._materials[key]

    def finish(self):
        if self.buffer is None:
            return
        self.doc["buffers"][self.buffer]["byteLength"] = len(self.blob)
        with open(os.path.join(self.folder, EXTRA_BUFFER), "wb") as f:
            f.write(self.blob)


def _gltf_points(world_points):
    """Blender world positions (n, 3) as glTF's (Y up), float32."""
    p = np.asarray(world_points, np.float64).reshape(-1, 3)
    return (p @ TO_GLTF.T).astype(np.float32)


def _apply(matrix, points):
    """A 4x4 Blender matrix applied to (n, 3) points."""
    m = np.array(matrix, np.float64)
    return points @ m[:3, :3].T + m[:3, 3]


def _uniform_scale(matrix):
    """The scale a radius takes under matrix: the cube root of its
    determinant's magnitude, as Cycles scales curve radii."""
    m = np.array(matrix, np.float64)[:3, :3]
    return abs(np.linalg.det(m)) ** (1.0 / 3.0)


# --- one pass over the depsgraph ------------------------------------------------


class _Strands:
    """Strands of one object and material, in world space: points, radii
    and the number of points of each strand."""

    def __init__(self):
        self.points, self.radii, self.counts = [], [], []

    def add(self, points, radii, counts):
        self.points.append(np.asarray(points, np.float64).reshape(-1, 3))
        self.radii.append(np.asarray(radii, np.float64).ravel())
        self.counts.append(np.asarray(counts, np.int64).ravel())


class _Scan:
    """One pass over depsgraph.object_instances (whose items live only
    during the loop), keeping what the glTF needs beyond the exporter's:
    hair and points (by object name and material), lights, the materials
    of surfaces (for the notes) and the objects not shown themselves."""

    def __init__(self, depsgraph, notes, editing=()):
        self.depsgraph = depsgraph
        self.editing = editing
        self.render = depsgraph.mode == "RENDER"
        self.notes = notes
        self.hair = {}  # (object name, material key) -> _Strands
        self.points = {}  # (object name, material key) -> _Strands (counts unused)
        self.materials = {}  # material key -> material (original) or None
        self.lights = []  # (name, _light_record, matrix)
        self.surface_materials = {}  # key -> material on rendered meshes
        self.hidden_self = set()  # object names whose own geometry the render hides
        # Meshes the exporter leaves out, written here: Geometry Nodes
        # instances (Blender 3.x's exporter has none) and objects in edit
        # mode. Each mesh once (by its data's address), then where it goes.
        self.own_meshes = {}  # pointer -> _OwnMesh
        self.own_places = []  # (pointer, matrix, node name)
        self.gn_instances = not _exporter_has("export_gn_mesh")

    def run(self):
        for inst in self.depsgraph.object_instances:
            obj = inst.object
            kind = obj.type
            matrix = np.array(inst.matrix_world, np.float64)
            if not inst.is_instance and not inst.show_self:
                self.hidden_self.add(obj.original.name if obj.original else obj.name)
            if kind == "MESH":
                if inst.show_self:
                    self._surface_materials(obj)
                    if inst.is_instance and self.gn_instances and not _exporter_instances(inst.parent):
                        self._own_mesh(obj, matrix, inst.parent.name + " instance")
                    elif not inst.is_instance and obj.name in self.editing:
                        self._own_mesh(obj, matrix, obj.name)
                if inst.show_particles and len(obj.particle_systems):
                    self._particle_hair(obj, matrix)
            elif kind == "CURVES" and inst.show_self:
                self._curves(obj, matrix)
            elif kind == "POINTCLOUD" and inst.show_self:
                self._pointcloud(obj, matrix)
            elif kind == "LIGHT" and inst.show_self:
                self.lights.append((obj.name, _light_record(obj.data), matrix))
            elif kind == "META" and inst.show_self:
                # The exporter writes no metaballs: their evaluated mesh.
                self._surface_materials(obj)
                self._own_mesh(obj, matrix, obj.name)
            elif kind in ("CURVE", "SURFACE", "FONT") and inst.show_self:
                self._surface_materials(obj)
            elif kind == "VOLUME" and inst.show_self:
                self.notes.add("object '%s': volumes are not carried" % obj.name)

    def _own_mesh(self, obj, matrix, name):
        key = obj.data.as_pointer()
        if key not in self.own_meshes:
            self.own_meshes[key] = _OwnMesh(obj, [self._material_key(m) for m in self._slot_materials(obj)])
        self.own_places.append((key, matrix, name))

    def _material_key(self, mat):
        if mat is None:
            return None
        orig = mat.original if mat.original is not None else mat
        key = orig.name_full
        self.materials[key] = orig
        return key

    def _slot_materials(self, obj):
        """The materials by index that the evaluated object's geometry uses."""
        mats = [slot.material for slot in obj.material_slots]
        if not mats and obj.data is not None and hasattr(obj.data, "materials"):
            mats = list(obj.data.materials)
        return mats

    def _surface_materials(self, obj):
        for mat in self._slot_materials(obj):
            key = self._material_key(mat)
            if key is not None:
                self.surface_materials[key] = self.materials[key]

    def _curves(self, obj, matrix):
        """A Curves geometry (an object's, or one Geometry Nodes made):
        positions, radii and per-curve material index."""
        curves = obj.data
        n_points, n_curves = len(curves.points), len(curves.curves)
        if n_points == 0 or n_curves == 0:
            return
        pos = np.zeros(n_points * 3, np.float32)
        curves.attributes["position"].data.foreach_get("vector", pos)
        offsets = np.zeros(len(curves.curve_offset_data), np.int32)
        curves.curve_offset_data.foreach_get("value", offsets)
        counts = np.diff(offsets[: n_curves + 1])
        radius = _float_attribute(curves, "radius", n_points, n_curves, counts)
        if radius is None:
            radius = np.full(n_points, DEFAULT_CURVE_RADIUS, np.float32)
        mat_index = _int_attribute(curves, "material_index", "CURVE", n_curves)
        world = _apply(matrix, pos.reshape(-1, 3).astype(np.float64))
        radius = radius.astype(np.float64) * _uniform_scale(matrix)
        self._add_strands(self.hair, obj, world, radius, counts, mat_index)

    def _pointcloud(self, obj, matrix):
        cloud = obj.data
        n = len(cloud.points)
        if n == 0:
            return
        pos = np.zeros(n * 3, np.float32)
        cloud.attributes["position"].data.foreach_get("vector", pos)
        radius = _float_attribute(cloud, "radius", n)
        if radius is None:
            radius = np.full(n, DEFAULT_POINT_RADIUS, np.float32)
        mat_index = _int_attribute(cloud, "material_index", "POINT", n)
        world = _apply(matrix, pos.reshape(-1, 3).astype(np.float64))
        radius = radius.astype(np.float64) * _uniform_scale(matrix)
        self._add_strands(self.points, obj, world, radius, np.ones(n, np.int64), mat_index)

    def _add_strands(self, into, obj, world, radius, counts, mat_index):
        """Split strands (or points: counts of 1) by material index and add
        them to into under (object name, material key)."""
        mats = self._slot_materials(obj)
        if mat_index is None or len(mats) <= 1:
            groups = {0: np.ones(len(counts), bool)}
        else:
            mat_index = np.clip(mat_index, 0, len(mats) - 1)
            groups = {i: mat_index == i for i in np.unique(mat_index)}
        for i, sel in groups.items():
            mat = mats[i] if i < len(mats) else None
            key = (obj.name, self._material_key(mat))
            if sel.all():
                pts, rad, cnt = world, radius, counts
            else:
                idx = _points_of(counts, sel)
                pts, rad, cnt = world[idx], radius[idx], counts[sel]
            into.setdefault(key, _Strands()).add(pts, rad, cnt)

    def _particle_hair(self, obj, matrix):
        """Particle-system hair of a mesh, as Cycles takes it
        (blender/curves.cpp): for each particle-system modifier shown in
        this mode whose particles are hair drawn as paths, the children
        when there are any (else the parents), (1 << steps) + 1 points each
        from the path cache, a radius that goes from the root's to the tip's
        with the Shape exponent over the fraction of the strand's length."""
        # co_hair gives world positions for obj as it is placed itself;
        # an instance of it is elsewhere.
        to_instance = matrix @ np.linalg.inv(np.array(obj.matrix_world, np.float64))
        scale = _uniform_scale(matrix)
        for mod in obj.modifiers:
            if mod.type != "PARTICLE_SYSTEM" or not (mod.show_render if self.render else mod.show_viewport):
                continue
            psys = mod.particle_system
            part = psys.settings
            if part.type != "HAIR" or part.render_type != "PATH":
                continue
            n_parents = len(psys.particles)
            n_children = len(psys.child_particles)
            if not self.render:
                n_children = int(n_children * part.display_percentage / 100.0)
            first = n_parents if (part.child_type != "NONE" and n_children > 0) else 0
            total = n_parents + n_children
            if total - first <= 0:
                continue
            steps = (1 << (part.render_step if self.render else part.display_step)) + 1
            if part.kink == "SPIRAL":
                steps += part.kink_extra_steps
            pts = np.empty(((total - first) * steps, 3), np.float64)
            k = 0
            for p in range(first, total):
                for s in range(steps):
                    pts[k] = psys.co_hair(object=obj, particle_no=p, step=s)
                    k += 1
            pts = pts.reshape(-1, steps, 3)
            seg = np.linalg.norm(np.diff(pts, axis=1), axis=2)
            length = seg.sum(axis=1)
            keep = length > 0  # Cycles drops strands of no length
            pts, seg, length = pts[keep], seg[keep], length[keep]
            if len(pts) == 0:
                continue
            t = np.concatenate([np.zeros((len(pts), 1)), np.cumsum(seg, axis=1)], axis=1) / length[:, None]
            half = part.radius_scale * 0.5
            root, tip = half * part.root_radius, half * part.tip_radius
            radius = hair_shape_radius(part.shape, root, tip, t)
            if part.use_close_tip:
                radius[:, -1] = 0.0
            world = _apply(to_instance, pts.reshape(-1, 3))
            mats = self._slot_materials(obj)
            mat = mats[part.material - 1] if 0 < part.material <= len(mats) else (mats[0] if mats else None)
            key = ("%s %s" % (obj.name, psys.name), self._material_key(mat))
            self.hair.setdefault(key, _Strands()).add(world, radius.ravel() * scale, np.full(len(pts), steps))


def _exporter_has(option):
    """Whether this Blender's glTF exporter has an option."""
    return option in bpy.ops.export_scene.gltf.get_rna_type().properties.keys()


def _exporter_instances(parent):
    """Whether the exporter writes the instances of parent itself: those of
    an instancer (particles, vertices, faces, a collection), not those that
    Geometry Nodes makes."""
    if parent is None:
        return False
    orig = parent.original if parent.original is not None else parent
    return bool(orig.is_instancer)


class _OwnMesh:
    """An evaluated mesh as triangles: a position, normal and UV per
    corner, triangles by material slot."""

    def __init__(self, obj, material_keys):
        # to_mesh, not obj.data: an evaluated mesh in edit mode wraps the
        # edit mesh, and its arrays read empty.
        me = obj.to_mesh()
        try:
            self._read(me, material_keys)
        finally:
            obj.to_mesh_clear()

    def _read(self, me, material_keys):
        me.calc_loop_triangles()
        n_tri, n_loop = len(me.loop_triangles), len(me.loops)
        self.material_keys = material_keys
        tri = np.zeros(n_tri * 3, np.int32)
        me.loop_triangles.foreach_get("loops", tri)
        self.tris = tri.reshape(-1, 3)
        self.tri_material = np.zeros(n_tri, np.int32)
        me.loop_triangles.foreach_get("material_index", self.tri_material)
        vidx = np.zeros(n_loop, np.int32)
        me.loops.foreach_get("vertex_index", vidx)
        co = np.zeros(len(me.vertices) * 3, np.float32)
        me.vertices.foreach_get("co", co)
        self.positions = co.reshape(-1, 3)[vidx]
        normals = np.zeros(n_loop * 3, np.float32)
        if hasattr(me, "corner_normals"):  # 4.1+
            me.corner_normals.foreach_get("vector", normals)
        else:
            me.calc_normals_split()
            me.loops.foreach_get("normal", normals)
        self.normals = normals.reshape(-1, 3)
        self.uvs = None
        if me.uv_layers.active is not None:
            uv = np.zeros(n_loop * 2, np.float32)
            me.uv_layers.active.data.foreach_get("uv", uv)
            uv = uv.reshape(-1, 2)
            uv[:, 1] = 1.0 - uv[:, 1]  # glTF's v runs down
            self.uvs = uv


def hair_shape_radius(shape, root, tip, t):
    """Cycles' radius along a particle hair (shaperadius in
    blender/curves.cpp): from root at t = 0 to tip at t = 1, bent by the
    Shape exponent."""
    r = 1.0 - np.asarray(t, np.float64)
    if shape < 0:
        r = r ** (1.0 + shape)
    elif shape > 0:
        r = r ** (1.0 / (1.0 - shape))
    return tip + (root - tip) * r


def _float_attribute(geometry, name, n_points, n_curves=None, counts=None):
    """A float attribute on points (a curve-domain one spread to its
    points), or None."""
    attr = geometry.attributes.get(name)
    if attr is None or attr.data_type != "FLOAT":
        return None
    if attr.domain == "POINT":
        out = np.zeros(n_points, np.float32)
        attr.data.foreach_get("value", out)
        return out
    if attr.domain == "CURVE" and n_curves is not None:
        per = np.zeros(n_curves, np.float32)
        attr.data.foreach_get("value", per)
        return np.repeat(per, counts)
    return None


def _int_attribute(geometry, name, domain, n):
    attr = geometry.attributes.get(name)
    if attr is None or attr.domain != domain or attr.data_type != "INT":
        return None
    out = np.zeros(n, np.int32)
    attr.data.foreach_get("value", out)
    return out


# --- hair and points into the glTF ---------------------------------------------


def _points_of(counts, selected):
    """The indices of the points of the selected strands, strands being
    runs of counts points."""
    owner = np.repeat(np.arange(len(counts)), counts)
    return np.nonzero(np.asarray(selected)[owner])[0]


def _write_hair(out, scan, notes):
    """Each (object, material) group of strands as a mesh of one LINES
    primitive (each strand's segments share their vertices, so sertrace
    chains them), on a node with no transform (positions in world space)."""
    any_strand = False
    by_object = {}
    for (name, key), strands in scan.hair.items():
        by_object.setdefault(name, []).append((key, strands))
    for name, groups in by_object.items():
        prims = []
        for key, strands in groups:
            pts = np.concatenate(strands.points)
            rad = np.concatenate(strands.radii)
            counts = np.concatenate(strands.counts)
            keep = counts >= 2  # a point alone is no strand
            if not keep.all():
                idx = _points_of(counts, keep)
                pts, rad, counts = pts[idx], rad[idx], counts[keep]
            if len(counts) == 0:
                continue
            # Each point but a strand's last starts a segment to the next.
            last = np.cumsum(counts) - 1
            first = np.setdiff1d(np.arange(len(pts)), last, assume_unique=True)
            lines = np.stack([first, first + 1], axis=1).astype(np.uint32).ravel()
            mat = _hair_material(out, scan.materials.get(key), notes)
            prims.append({
                "mode": 1,
                "attributes": {
                    "POSITION": out.accessor(_gltf_points(pts), "VEC3", out.ARRAY_BUFFER, bounds=True),
                    "_RADIUS": out.accessor(rad.astype(np.float32), "SCALAR", out.ARRAY_BUFFER),
                },
                "indices": out.accessor(lines, "SCALAR", out.ELEMENT_ARRAY_BUFFER),
                "material": mat,
            })
            any_strand = True
        if prims:
            mesh = out.add("meshes", {"name": name, "primitives": prims})
            out.root_node({"name": name, "mesh": mesh})
    return any_strand


def _write_points(out, scan, notes):
    """Each (object, material) group of points as a POINTS primitive."""
    any_point = False
    by_object = {}
    for (name, key), pts in scan.points.items():
        by_object.setdefault(name, []).append((key, pts))
    for name, groups in by_object.items():
        prims = []
        for key, group in groups:
            pts = np.concatenate(group.points)
            rad = np.concatenate(group.radii)
            if len(pts) == 0:
                continue
            prims.append({
                "mode": 0,
                "attributes": {
                    "POSITION": out.accessor(_gltf_points(pts), "VEC3", out.ARRAY_BUFFER, bounds=True),
                    "_RADIUS": out.accessor(rad.astype(np.float32), "SCALAR", out.ARRAY_BUFFER),
                },
                "material": _plain_material(out, scan.materials.get(key), notes),
            })
            any_point = True
        if prims:
            mesh = out.add("meshes", {"name": name, "primitives": prims})
            out.root_node({"name": name, "mesh": mesh})
    return any_point


def _write_own_meshes(out, scan, notes):
    """The meshes the exporter left out (Geometry Nodes instances in
    Blender 3.x, objects in edit mode): each mesh once, a primitive per
    material (the exporter's material of that name where it wrote one),
    placed by a node for each place."""
    if not scan.own_places:
        return False
    by_name = {m.get("name"): i for i, m in enumerate(out.doc.get("materials", []))}
    meshes = {}
    for key, mesh in scan.own_meshes.items():
        prims = []
        if len(mesh.tris) == 0:
            continue
        pos = out.accessor(_gltf_points(mesh.positions), "VEC3", out.ARRAY_BUFFER, bounds=True)
        nor = out.accessor((mesh.normals @ TO_GLTF.T).astype(np.float32), "VEC3", out.ARRAY_BUFFER)
        attrs = {"POSITION": pos, "NORMAL": nor}
        if mesh.uvs is not None:
            attrs["TEXCOORD_0"] = out.accessor(mesh.uvs, "VEC2", out.ARRAY_BUFFER)
        for slot in np.unique(mesh.tri_material):
            tris = mesh.tris[mesh.tri_material == slot].astype(np.uint32).ravel()
            prim = {"attributes": dict(attrs), "indices": out.accessor(tris, "SCALAR", out.ELEMENT_ARRAY_BUFFER), "mode": 4}
            mkey = mesh.material_keys[slot] if slot < len(mesh.material_keys) else None
            mat = scan.materials.get(mkey)
            if mat is not None and mat.name in by_name:
                prim["material"] = by_name[mat.name]
            elif mat is not None:
                prim["material"] = _plain_material(out, mat, notes)
            prims.append(prim)
        if prims:
            meshes[key] = out.add("meshes", {"name": "mesh", "primitives": prims})
    c = np.eye(4)
    c[:3, :3] = TO_GLTF
    for key, matrix, name in scan.own_places:
        if key in meshes:
            m = c @ matrix @ c.T
            out.root_node({"name": name, "mesh": meshes[key], "matrix": [float(v) for v in m.T.ravel()]})
    return bool(meshes)


# --- materials ------------------------------------------------------------------


def _linked_source(socket):
    """The node and output that feed socket, through reroutes and past
    muted links, or (None, None)."""
    seen = 0
    while socket is not None and socket.is_linked and seen < 64:
        link = socket.links[0]
        if getattr(link, "is_muted", False) or not link.is_valid:
            return None, None
        node = link.from_node
        if node.type == "REROUTE":
            socket = node.inputs[0]
            seen += 1
            continue
        return node, link.from_socket
    return None, None


def _output_node(tree, kind):
    """The active output node of a node tree (OUTPUT_MATERIAL or
    OUTPUT_WORLD) that Cycles renders."""
    outs = [n for n in tree.nodes if n.type == kind and not n.mute]
    for n in outs:
        if n.is_active_output and getattr(n, "target", "ALL") in ("ALL", "CYCLES"):
            return n
    for n in outs:
        if getattr(n, "target", "ALL") in ("ALL", "CYCLES"):
            return n
    return outs[0] if outs else None


def _surface_shader(mat):
    """The node linked to the material's Surface output, or None."""
    if mat is None or not mat.use_nodes or mat.node_tree is None:
        return None
    out = _output_node(mat.node_tree, "OUTPUT_MATERIAL")
    if out is None:
        return None
    node, _ = _linked_source(out.inputs["Surface"])
    return node


def _value(node, *names):
    """The default value of the first of names that node has (a tuple for
    vectors and colours), or None."""
    for name in names:
        sock = node.inputs.get(name)
        if sock is not None and hasattr(sock, "default_value"):
            v = sock.default_value
            return tuple(v) if hasattr(v, "__len__") else float(v)
    return None


def _is_linked(node, *names):
    for name in names:
        sock = node.inputs.get(name)
        if sock is not None and sock.is_linked:
            return True
    return False


def _is_image_path(socket, depth=0):
    """Whether what feeds socket is an image (possibly through a normal
    map, a channel split or a multiply): what the exporter bakes into a
    texture. Procedural nodes are not."""
    node, _ = _linked_source(socket)
    if node is None or depth > 4:
        return False
    if node.type == "TEX_IMAGE":
        return True
    if node.type in ("NORMAL_MAP", "SEPRGB", "SEPARATE_RGB", "SEPARATE_COLOR", "SEPXYZ", "BUMP",
                     "MIX_RGB", "MIX", "MATH", "VECT_MATH", "GAMMA", "INVERT", "CURVE_RGB"):
        return any(_is_image_path(s, depth + 1) for s in node.inputs if s.is_linked)
    return False


# Principled BSDF inputs that Blender's exporter does not carry: (input,
# the value at which it has no effect, what to say). Blender 3.x's names,
# then 4.x's.
_PRINCIPLED_NOT_CARRIED_3 = (
    ("Subsurface", 0.0, "Subsurface is not carried"),
    ("Sheen", 0.0, "Sheen is not carried"),
    ("Anisotropic", 0.0, "Anisotropic is not carried"),
)
_PRINCIPLED_NOT_CARRIED_4 = (
    ("Subsurface Weight", 0.0, "Subsurface is not carried"),
    ("Diffuse Roughness", 0.0, "Diffuse Roughness is not carried"),
    ("Thin Film Thickness", 0.0, "Thin Film is not carried"),
)
# Inputs whose links the exporter follows to an image (others, linked to
# procedural nodes, go out as their default values).
_PRINCIPLED_TEXTURED = ("Base Color", "Metallic", "Roughness", "Normal", "Emission", "Emission Color",
                        "Alpha", "Clearcoat", "Clearcoat Roughness", "Clearcoat Normal", "Coat Weight",
                        "Coat Roughness", "Coat Normal", "Transmission", "Transmission Weight", "Specular",
                        "Specular IOR Level", "Specular Tint", "Sheen Weight", "Sheen Tint", "Sheen Roughness",
                        "Anisotropic", "Emission Strength")


def material_notes(mat):
    """What Blender's glTF exporter cannot carry of mat's surface, as
    lines "material 'NAME': ..."."""
    if mat is None:
        return []
    name = mat.name
    say = lambda what: "material '%s': %s" % (name, what)
    if not mat.use_nodes or mat.node_tree is None:
        return [say("has no shader nodes: the exporter's default material is used")]
    out_node = _output_node(mat.node_tree, "OUTPUT_MATERIAL")
    if out_node is None:
        return [say("has no Material Output: the exporter's default material is used")]
    lines = []
    if _linked_source(out_node.inputs["Volume"])[0] is not None:
        lines.append(say("Volume is not carried"))
    if _linked_source(out_node.inputs["Displacement"])[0] is not None:
        lines.append(say("Displacement is not carried"))
    shader, _ = _linked_source(out_node.inputs["Surface"])
    if shader is None:
        return lines + [say("has nothing linked to its Surface: it renders black in Cycles, not in sertrace")]
    if shader.type == "BSDF_PRINCIPLED":
        lines += [say(w) for w in _principled_notes(mat, shader)]
    elif shader.type == "EMISSION":
        pass  # the exporter writes it as an emissive material with a black base
    elif shader.type in ("MIX_SHADER", "ADD_SHADER"):
        principled = _upstream(shader, "BSDF_PRINCIPLED")
        kinds = sorted({n.bl_label for n in _upstream_shaders(shader)} - {"Principled BSDF"})
        if principled is not None:
            lines.append(say("only its Principled BSDF is carried (not the %s around it%s)" % (
                shader.bl_label, ": " + ", ".join(kinds) if kinds else "")))
            lines += [say(w) for w in _principled_notes(mat, principled)]
        else:
            lines.append(say("%s of %s is not carried: the exporter's default material is used" % (
                shader.bl_label, ", ".join(kinds) or "shaders")))
    else:
        lines.append(say("shader '%s' is not carried (only the Principled BSDF and Emission are)" % shader.bl_label))
    return lines


def _upstream_shaders(node, depth=0):
    """The shader nodes that feed a Mix or Add Shader."""
    found = []
    if depth > 8:
        return found
    for sock in node.inputs:
        if sock.type != "SHADER":
            continue
        src, _ = _linked_source(sock)
        if src is None:
            continue
        if src.type in ("MIX_SHADER", "ADD_SHADER"):
            found += _upstream_shaders(src, depth + 1)
        else:
            found.append(src)
    return found


def _upstream(node, kind):
    for n in _upstream_shaders(node):
        if n.type == kind:
            return n
    return None


def _principled_notes(mat, bsdf):
    """What the exporter leaves out of a Principled BSDF (3.x or 4.x)."""
    v4 = "Subsurface Weight" in bsdf.inputs
    lines = []
    for name, neutral, what in (_PRINCIPLED_NOT_CARRIED_4 if v4 else _PRINCIPLED_NOT_CARRIED_3):
        if name in bsdf.inputs and (_is_linked(bsdf, name) or abs(_value(bsdf, name) - neutral) > 1e-6):
            lines.append(what)
    if v4:
        coat = _value(bsdf, "Coat Weight") or 0.0
        if coat > 0 or _is_linked(bsdf, "Coat Weight"):
            if abs(_value(bsdf, "Coat IOR") - 1.5) > 1e-4:
                lines.append("Coat IOR is not carried (glTF's clearcoat has IOR 1.5)")
            tint = _value(bsdf, "Coat Tint")
            if _is_linked(bsdf, "Coat Tint") or (tint and any(abs(c - 1) > 1e-4 for c in tint[:3])):
                lines.append("Coat Tint is not carried")
    else:
        tr = _value(bsdf, "Transmission") or 0.0
        if (tr > 0 or _is_linked(bsdf, "Transmission")) and (_value(bsdf, "Transmission Roughness") or 0) > 0:
            lines.append("Transmission Roughness is not carried")
        # The 3.x exporter takes the alpha mode from the material's Blend
        # Mode (an EEVEE setting); Cycles always uses Alpha.
        alpha = _value(bsdf, "Alpha")
        if (_is_linked(bsdf, "Alpha") or (alpha is not None and alpha < 1)) and mat.blend_method == "OPAQUE":
            lines.append("Alpha is not carried while its Blend Mode is Opaque (set Alpha Clip, Hashed or Blend)")
    for name in _PRINCIPLED_TEXTURED:
        sock = bsdf.inputs.get(name)
        if sock is not None and sock.is_linked and not _is_image_path(sock):
            node, _ = _linked_source(sock)
            if node is not None:
                lines.append("%s is driven by '%s', which is not carried (only image textures are)" % (name, node.bl_label))
    if _is_linked(bsdf, "Tangent", "Anisotropic Rotation"):
        lines.append("the anisotropy's tangent or rotation is not carried")
    return lines


def _principled_of(mat):
    """The Principled BSDF that the surface of mat uses, or None."""
    shader = _surface_shader(mat)
    if shader is None:
        return None
    if shader.type == "BSDF_PRINCIPLED":
        return shader
    if shader.type in ("MIX_SHADER", "ADD_SHADER"):
        return _upstream(shader, "BSDF_PRINCIPLED")
    return None


def _plain_material(out, mat, notes):
    """A material from mat's Principled BSDF values (base colour, metallic,
    roughness, specular, emission; no textures) for what the exporter does
    not write (strands, points, objects in edit mode), or from its
    viewport colour."""
    key = ("plain", mat.name_full if mat is not None else None)

    def make():
        if mat is None:
            return {"name": "default", "pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.8, 0.8, 1]}}
        bsdf = _principled_of(mat)
        if bsdf is None:
            notes.add("material '%s': only a Principled BSDF is carried on strands, points and objects in edit mode: "
                      "its viewport colour is used" % mat.name)
            c = list(mat.diffuse_color)
            return {"name": mat.name, "pbrMetallicRoughness": {"baseColorFactor": c[:3] + [1.0],
                                                               "metallicFactor": float(mat.metallic),
                                                               "roughnessFactor": float(mat.roughness)}}
        for line in material_notes(mat):
            notes.add(line)
        base = _value(bsdf, "Base Color")
        pbr = {"baseColorFactor": [float(c) for c in base[:3]] + [1.0],
               "metallicFactor": _value(bsdf, "Metallic"), "roughnessFactor": _value(bsdf, "Roughness")}
        m = {"name": mat.name, "pbrMetallicRoughness": pbr, "extensions": {}}
        # Specular: Blender's 0.5 is glTF's F0 of 0.04 (specularFactor 1);
        # above it, a higher IOR (glTF's factor stops at 1).
        level = _value(bsdf, "Specular IOR Level", "Specular")
        if level is not None and abs(level - 0.5) > 1e-6:
            m["extensions"]["KHR_materials_specular"] = {"specularFactor": min(2.0 * level, 1.0)}
            out.use_extension("KHR_materials_specular")
            if level > 0.5:
                f0 = math.sqrt(min(0.08 * level, 0.99))
                m["extensions"]["KHR_materials_ior"] = {"ior": (1 + f0) / (1 - f0)}
                out.use_extension("KHR_materials_ior")
        color = _value(bsdf, "Emission Color", "Emission")
        strength = _value(bsdf, "Emission Strength")
        if color is not None and strength:
            e = np.array(color[:3], np.float64) * strength
            if e.max() > 0:
                scale = max(1.0, float(e.max()))
                m["emissiveFactor"] = [float(v) for v in e / scale]
                if scale > 1:
                    m["extensions"]["KHR_materials_emissive_strength"] = {"emissiveStrength": scale}
                    out.use_extension("KHR_materials_emissive_strength")
        if not m["extensions"]:
            del m["extensions"]
        if _is_linked(bsdf, "Base Color", "Metallic", "Roughness"):
            notes.add("material '%s': its textures are not carried on strands, points and objects in edit mode: "
                      "its inputs' values are used" % mat.name)
        return m

    return out.material(key, make)


# --- the hair BSDF ----------------------------------------------------------------


def _hair_color_d(beta_n):
    """The denominator of pbrt's fit of a fibre's colour to σ_a, for β_n."""
    b = beta_n
    return 5.969 - 0.215 * b + 2.532 * b ** 2 - 10.73 * b ** 3 + 5.574 * b ** 4 + 0.245 * b ** 5


def sigma_from_color(color, beta_n):
    """σ_a of a fibre of colour color (pbrt's and Cycles' fit)."""
    c = np.clip(np.asarray(color, np.float64)[:3], HAIR_COLOR_MIN, 1.0)
    return (np.log(c) / _hair_color_d(beta_n)) ** 2


def color_from_sigma(sigma, beta_n):
    """The colour that sigma_from_color maps to sigma (its exact inverse)."""
    return np.exp(-np.sqrt(np.maximum(np.asarray(sigma, np.float64), 0.0)) * _hair_color_d(beta_n))


def melanin_concentrations(melanin, redness):
    """Cycles' melanin and redness as eumelanin and pheomelanin
    concentrations (Bitterli's remapping, as Cycles does)."""
    q = -math.log(max(1.0 - melanin, 1e-4))
    return q * (1.0 - redness), q * redness


def hair_model(node):
    """sertrace's hair model (a dict for the material's extras) from a
    Principled Hair BSDF, the base colour a viewer should show, and what is
    not carried (lines without the material's name)."""
    notes = []
    get = lambda name: _value(node, name)
    for name in ("Melanin", "Melanin Redness", "Tint", "Color", "Absorption Coefficient", "Roughness",
                 "Radial Roughness", "Coat", "IOR", "Offset", "Random Color", "Random Roughness"):
        sock = node.inputs.get(name)
        if sock is not None and sock.enabled and sock.is_linked:
            notes.append("the hair's %s is linked to nodes: its own value is used" % name)
    huang = getattr(node, "model", "CHIANG") == "HUANG"
    beta_m = get("Roughness")
    beta_n = get("Radial Roughness") if not huang else beta_m
    if huang:
        notes.append("the Huang hair model is rendered with Chiang's (Aspect Ratio and the lobe weights are not carried)")
    model = {"beta_m": beta_m, "beta_n": beta_n, "alpha": -math.degrees(get("Offset")), "eta": get("IOR")}
    bn = max(beta_n, HAIR_BETA_MIN)
    param = node.parametrization
    if param == "MELANIN":
        # Cycles' absorption: its pigment spectra (not pbrt's, which
        # sertrace's eumelanin and pheomelanin use) plus the tint's, as
        # sigma_a, which sertrace takes as it is.
        eu, pheo = melanin_concentrations(get("Melanin"), get("Melanin Redness"))
        sigma = eu * CYCLES_EUMELANIN_SIGMA + pheo * CYCLES_PHEOMELANIN_SIGMA
        tint = np.asarray(get("Tint")[:3], np.float64)
        if not np.all(np.abs(tint - 1) < 1e-6):
            sigma = sigma + sigma_from_color(tint, bn)
        model["sigma_a"] = [float(c) for c in sigma]
    elif param == "COLOR":
        # The same fit of colour to σ_a in Cycles and sertrace.
        model["color"] = [float(c) for c in get("Color")[:3]]
        sigma = sigma_from_color(model["color"], bn)
    else:  # ABSORPTION
        sigma = np.maximum(np.asarray(get("Absorption Coefficient")[:3], np.float64), 0.0)
        model["sigma_a"] = [float(c) for c in sigma]
    if not huang and (get("Coat") or 0) > 0:
        notes.append("the hair's Coat is not carried")
    if huang:
        for name in ("Reflection", "Transmission", "Secondary Reflection"):
            v = get(name)
            if v is not None and abs(v - 1) > 1e-6:
                notes.append("the hair's %s lobe weight is not carried" % name)
    for name in ("Random Color", "Random Roughness"):
        v = get(name)
        if v is not None and v > 0 and (name != "Random Color" or param == "MELANIN"):
            notes.append("the hair's %s is not carried" % name)
    if min(beta_m, beta_n) < HAIR_BETA_MIN:
        notes.append("the hair's roughness below %g is rendered as %g" % (HAIR_BETA_MIN, HAIR_BETA_MIN))
    base = np.clip(color_from_sigma(sigma, bn), 0.0, 1.0)
    return model, [float(c) for c in base], notes


def _hair_material(out, mat, notes):
    """The glTF material of strands of mat: sertrace's hair model when mat
    is a Principled Hair BSDF, else a plain one."""
    shader = _surface_shader(mat)
    if shader is None or shader.type != "BSDF_HAIR_PRINCIPLED":
        if mat is not None and shader is not None and shader.type in ("BSDF_HAIR",):
            notes.add("material '%s': the Hair BSDF is not carried (only the Principled Hair BSDF is)" % mat.name)
        return _plain_material(out, mat, notes)

    def make():
        model, base, lines = hair_model(shader)
        for line in lines:
            notes.add("material '%s': %s" % (mat.name, line))
        return {"name": mat.name,
                "pbrMetallicRoughness": {"baseColorFactor": base + [1.0], "metallicFactor": 0.0, "roughnessFactor": 0.5},
                "extras": {"sertrace": {"hair": model}}}

    return out.material(("hair", mat.name_full), make)


# --- lights ---------------------------------------------------------------------------


def _light_node_rotation(matrix):
    """The glTF rotation (x, y, z, w) of a light (or camera) placed by
    Blender's matrix: its own axes stay (both look down their -Z), the
    world's turn Y up."""
    m = np.array(matrix, np.float64)[:3, :3]
    m = m / np.linalg.norm(m, axis=0)  # no scale: it would not change a light
    r = TO_GLTF @ m
    return _quaternion(r)


def _quaternion(r):
    """A rotation matrix as a unit quaternion (x, y, z, w)."""
    t = np.trace(r)
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        w, x, y, z = 0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2]) * 2
        w, x, y, z = (r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s
    elif r[1, 1] > r[2, 2]:
        s = math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2]) * 2
        w, x, y, z = (r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s
    else:
        s = math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1]) * 2
        w, x, y, z = (r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s
    q = np.array([x, y, z, w])
    return [float(v) for v in q / np.linalg.norm(q)]


def _light_record(light):
    """What the export reads of an evaluated light, copied while its
    depsgraph instance lives."""
    cycles = getattr(light, "cycles", None)
    get = lambda name, default=0.0: getattr(light, name, default)
    return types.SimpleNamespace(
        name=light.name, type=light.type, color=tuple(light.color[:3]), energy=float(light.energy),
        exposure=float(get("exposure")), shadow_soft_size=float(get("shadow_soft_size")), angle=float(get("angle")),
        spot_size=float(get("spot_size")), spot_blend=float(get("spot_blend")), shape=get("shape", "SQUARE"),
        size=float(get("size")), size_y=float(get("size_y")), spread=float(get("spread", math.pi)),
        normalize=bool(get("normalize", True)),
        casts_shadow=bool(get("use_shadow", True)) and bool(getattr(cycles, "cast_shadow", True)),
        is_portal=bool(getattr(cycles, "is_portal", False)),
        uses_nodes=bool(get("use_nodes", False)) and light.node_tree is not None and _light_uses_nodes(light))


def _light_power(light):
    """The light's power (W, or W/m² for a sun) with Blender 4.x's exposure."""
    return light.energy * 2.0 ** light.exposure


def _write_lights(out, scan, notes):
    """Point, spot and sun lights as KHR_lights_punctual in Cycles' units
    (sertrace's punctual lights are radiometric: W/sr and W/m²); area
    lights as emissive polygons."""
    lights = []
    used = {}
    for name, light, matrix in scan.lights:
        count = used.get(name, 0)
        used[name] = count + 1
        node_name = name if count == 0 else "%s.%d" % (name, count)
        say = lambda what: notes.add("light '%s': %s" % (name, what))
        if light.uses_nodes:
            say("its shader nodes are not carried")
        color = [float(c) for c in light.color[:3]]
        power = _light_power(light)
        if light.type == "AREA":
            if light.is_portal:
                say("portals are not carried")
                continue
            _area_light(out, node_name, light, matrix, power, say)
            continue
        entry = {"name": node_name, "color": color}
        if light.type == "SUN":
            entry["type"] = "directional"
            entry["intensity"] = power
            if light.angle > 0:
                say("its angle (%.3g°) is not carried: sertrace's sun is a direction (sharper shadows)" % math.degrees(light.angle))
        else:
            # Cycles' point and spot lights radiate P/(4π) W/sr (a spot's
            # cone cuts that, it does not focus it).
            entry["intensity"] = power / (4 * math.pi)
            if light.shadow_soft_size > 0:
                say("its radius (%.3g) is not carried: sertrace's lights are points (sharper shadows)" % light.shadow_soft_size)
            if light.type == "POINT":
                entry["type"] = "point"
            else:
                entry["type"] = "spot"
                outer = min(light.spot_size / 2, math.pi / 2)
                # Blender's smoothstep starts (1 - cos outer) * blend
                # inside the edge, in cosine; glTF's ramp ends at the inner
                # cone. The ramp's shape differs: said when there is one.
                cos_outer = math.cos(outer)
                cos_inner = min(cos_outer + (1 - cos_outer) * light.spot_blend, 1.0)
                inner = min(math.acos(cos_inner), outer * (1 - 1e-6))
                entry["spot"] = {"innerConeAngle": inner, "outerConeAngle": outer}
                if light.spot_blend > 0:
                    say("its blend is approximated (glTF's falloff between two cones is not Blender's smoothstep)")
                if bpy.app.version < (4, 0) and math.cos(outer) < 0.98:
                    # Cycles 3.x multiplies a spot by the cosine of the
                    # angle off its axis (spot_light_attenuation).
                    say("Cycles 3.x dims it towards its edge (by the cosine off its axis, %.2f at the edge), "
                        "sertrace does not" % math.cos(outer))
        if not light.casts_shadow:
            say("turning its shadows off is not carried")
        index = len(lights)
        lights.append(entry)
        m = np.array(matrix, np.float64)
        out.root_node({"name": node_name, "translation": [float(v) for v in TO_GLTF @ m[:3, 3]],
                       "rotation": _light_node_rotation(m),
                       "extensions": {"KHR_lights_punctual": {"light": index}}})
    if lights:
        out.doc.setdefault("extensions", {})["KHR_lights_punctual"] = {"lights": lights}
        out.use_extension("KHR_lights_punctual")


def _light_uses_nodes(light):
    """Whether a light's node tree changes its emission (anything but an
    Emission node of white colour and strength 1 into the output)."""
    out = _output_node(light.node_tree, "OUTPUT_LIGHT")
    if out is None:
        return False
    node, _ = _linked_source(out.inputs["Surface"])
    if node is None:
        return False
    if node.type != "EMISSION" or _is_linked(node, "Color", "Strength"):
        return True
    return any(abs(c - 1) > 1e-6 for c in _value(node, "Color")[:3]) or abs(_value(node, "Strength") - 1) > 1e-6


AREA_POLYGON_SIDES = 32


def _area_light(out, name, light, matrix, power, say):
    """An area light as a one-sided emissive polygon facing the light's -Z
    with Cycles' radiance (A in world units: the object's scale counts),
    black and without specular so it only emits. Cycles 4.x gives it
    P / (π A), so that it emits P; Cycles 3.x gives P / (4 A) (its area
    light's eval_fac is strength / 4 per area); test_export.py measures both.
    Blender 4.x's Normalize off (where it exists) leaves out the area."""
    sx = light.size
    sy = light.size_y if light.shape in ("RECTANGLE", "ELLIPSE") else light.size
    if light.shape in ("SQUARE", "RECTANGLE"):
        local = np.array([[-sx / 2, -sy / 2, 0], [sx / 2, -sy / 2, 0], [sx / 2, sy / 2, 0], [-sx / 2, sy / 2, 0]])
    else:
        # A polygon of the ellipse's area (its vertices a little outside it).
        n = AREA_POLYGON_SIDES
        grow = math.sqrt(2 * math.pi / (n * math.sin(2 * math.pi / n)))
        a = 2 * math.pi * np.arange(n) / n
        local = np.stack([grow * sx / 2 * np.cos(a), grow * sy / 2 * np.sin(a), np.zeros(n)], axis=1)
    world = _apply(matrix, local)
    m = np.array(matrix, np.float64)
    facing = -m[:3, 2]
    facing /= np.linalg.norm(facing)
    # A fan from the centre: triangles (c, i, i+1) wound to face -Z.
    centre = world.mean(axis=0)
    verts = np.concatenate([[centre], world])
    k = len(world)
    tris = np.array([[0, 1 + i, 1 + (i + 1) % k] for i in range(k)], np.int64)
    normal = np.cross(verts[tris[0, 1]] - verts[0], verts[tris[0, 2]] - verts[0])
    if np.dot(normal, facing) < 0:
        tris = tris[:, [0, 2, 1]]
    area = sum(0.5 * np.linalg.norm(np.cross(verts[b] - verts[a], verts[c] - verts[a])) for a, b, c in tris)
    if area <= 0:
        say("it has no area: not carried")
        return
    per = math.pi if bpy.app.version >= (4, 0) else 4.0
    if light.normalize:
        per *= area
    radiance = power / per * np.array(light.color[:3], np.float64)
    strength = max(1.0, float(radiance.max()))
    emissive = [float(c) for c in radiance / strength]
    material = {
        "name": "light %s" % name,
        "pbrMetallicRoughness": {"baseColorFactor": [0, 0, 0, 1], "metallicFactor": 0.0, "roughnessFactor": 1.0},
        "emissiveFactor": emissive,
        "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}},
    }
    out.use_extension("KHR_materials_specular")
    if strength > 1:
        material["extensions"]["KHR_materials_emissive_strength"] = {"emissiveStrength": strength}
        out.use_extension("KHR_materials_emissive_strength")
    mat_index = out.add("materials", material)
    normals = np.repeat((TO_GLTF @ facing)[None, :], len(verts), axis=0).astype(np.float32)
    prim = {
        "attributes": {
            "POSITION": out.accessor(_gltf_points(verts), "VEC3", out.ARRAY_BUFFER, bounds=True),
            "NORMAL": out.accessor(normals, "VEC3", out.ARRAY_BUFFER),
        },
        "indices": out.accessor(tris.astype(np.uint32).ravel(), "SCALAR", out.ELEMENT_ARRAY_BUFFER),
        "material": mat_index,
        "mode": 4,
    }
    mesh = out.add("meshes", {"name": "light %s" % name, "primitives": [prim]})
    out.root_node({"name": name, "mesh": mesh})
    spread = light.spread
    if spread < math.pi - 1e-4:
        say("its spread (%.3g°) is not carried" % math.degrees(spread))
    say("it becomes an emissive %s, which also blocks light from behind it" % ("quad" if len(local) == 4 else "polygon"))


# --- camera -------------------------------------------------------------------------------


def _camera(out, depsgraph, notes):
    """Give every glTF camera the name of its node (the object's, unique),
    add the active camera where the exporter left it out (hidden from the
    render, as Cycles still renders through it), and return --camera with
    its depth-of-field flags."""
    doc = out.doc
    cams = doc.get("cameras", [])
    nodes = doc.get("nodes", [])
    scene = depsgraph.scene
    obj = scene.camera
    if obj is None:
        notes.add("camera: the scene has no active camera: sertrace frames the scene itself")
        return []
    # One glTF camera per node, named after it.
    seen = {}
    for node in nodes:
        if "camera" in node:
            src = cams[node["camera"]]
            if node["camera"] in seen:
                cams.append(json.loads(json.dumps(src)))
                node["camera"] = len(cams) - 1
            seen[node["camera"]] = True
            cams[node["camera"]]["name"] = node.get("name", cams[node["camera"]].get("name", "camera"))
    name = _camera_name(obj.name)
    target = [n for n in nodes if "camera" in n and n.get("name") == obj.name]
    cam_eval = obj.evaluated_get(depsgraph)
    data = cam_eval.data
    if target:
        cams[target[0]["camera"]]["name"] = name
    else:
        cams.append(_gltf_camera(data, scene.render, name))
        doc["cameras"] = cams
        m = np.array(cam_eval.matrix_world, np.float64)
        out.root_node({"name": obj.name, "camera": len(cams) - 1, "translation": [float(v) for v in TO_GLTF @ m[:3, 3]],
                       "rotation": _light_node_rotation(m)})
    for other in cams:  # the active camera's name must select it alone
        if other is not (cams[target[0]["camera"]] if target else cams[-1]) and other.get("name") == name:
            other["name"] = name + " (another)"
    args = ["--camera", name]
    say = lambda what: notes.add("camera '%s': %s" % (obj.name, what))
    if data.type == "PANO":
        say("panoramic cameras are not carried: rendered as a perspective one")
    if data.shift_x != 0 or data.shift_y != 0:
        say("lens shift is not carried")
    if data.dof.use_dof:
        fstop = max(data.dof.aperture_fstop, 1e-5)
        if data.type == "ORTHO":
            radius = 1.0 / (2.0 * fstop)  # as Cycles
        else:
            radius = data.lens / 1000.0 / (2.0 * fstop)
        focus = data.dof.focus_distance
        if data.dof.focus_object is not None:
            target_obj = data.dof.focus_object.evaluated_get(depsgraph)
            cm = np.array(cam_eval.matrix_world, np.float64)
            tm = np.array(target_obj.matrix_world, np.float64)
            view = cm[:3, 2] / np.linalg.norm(cm[:3, 2])
            focus = abs(float(np.dot(view, cm[:3, 3] - tm[:3, 3])))
            if getattr(data.dof, "focus_subtarget", ""):
                say("the focus bone is not carried: the focus object's origin is used")
        args += ["--aperture-radius", "%.9g" % radius, "--focus-distance", "%.9g" % focus]
        if data.dof.aperture_blades >= 3:
            say("the aperture's blades are not carried (a round aperture)")
        if abs(data.dof.aperture_ratio - 1) > 1e-6:
            say("the aperture's ratio is not carried")
    return args


def _camera_name(name):
    """A camera name sertrace takes as a name: one of digits alone would
    be taken as an index."""
    return "camera " + name if name.strip().isdigit() else name


def _gltf_camera(data, render, name):
    """A glTF camera for Blender camera data, as the exporter writes one."""
    width = render.pixel_aspect_x * render.resolution_x
    height = render.pixel_aspect_y * render.resolution_y
    aspect = width / height
    if data.type == "ORTHO":
        square = max(width, height)
        return {"name": name, "type": "orthographic", "orthographic": {
            "xmag": data.ortho_scale * width / square / 2, "ymag": data.ortho_scale * height / square / 2,
            "znear": data.clip_start, "zfar": data.clip_end}}
    fit = data.sensor_fit
    if (width >= height and fit != "VERTICAL") or (width < height and fit == "HORIZONTAL"):
        yfov = 2.0 * math.atan(math.tan(data.angle * 0.5) / aspect)
    else:
        yfov = data.angle
    return {"name": name, "type": "perspective", "perspective": {
        "aspectRatio": aspect, "yfov": yfov, "znear": data.clip_start, "zfar": data.clip_end}}


# --- world -------------------------------------------------------------------------------


def _world(depsgraph, folder, notes):
    """sertrace's environment flags for the scene's world: a colour
    (--env-color), or an equirectangular image (--env, --env-intensity,
    --env-rotation)."""
    # The evaluated world: animated or driven values at the render's frame.
    world = depsgraph.scene_eval.world
    if world is None:
        return ["--env-color", "0,0,0"]
    say = lambda what: notes.add("world '%s': %s" % (world.name, what))
    fallback = ["--env-color", _rgb(world.color[:3])]
    if not world.use_nodes or world.node_tree is None:
        return fallback
    out = _output_node(world.node_tree, "OUTPUT_WORLD")
    if out is None:
        return ["--env-color", "0,0,0"]
    if _linked_source(out.inputs["Volume"])[0] is not None:
        say("Volume is not carried")
    bg, _ = _linked_source(out.inputs["Surface"])
    if bg is None:
        return ["--env-color", "0,0,0"]
    if bg.type != "BACKGROUND":
        say("its surface is a %s, not a Background: its viewport colour is used" % bg.bl_label)
        return fallback
    strength = _value(bg, "Strength")
    if _is_linked(bg, "Strength"):
        say("its Strength is linked to nodes: its own value (%g) is used" % strength)
    src, _ = _linked_source(bg.inputs["Color"])
    if src is None:
        return ["--env-color", _rgb(np.array(_value(bg, "Color")[:3]) * strength)]
    if src.type != "TEX_ENVIRONMENT":
        say("its Color comes from a %s, which is not carried: its viewport colour is used" % src.bl_label)
        return fallback
    if src.image is None:
        say("its Environment Texture has no image: black")
        return ["--env-color", "0,0,0"]
    if src.projection != "EQUIRECTANGULAR":
        say("the Environment Texture's %s projection is not carried: read as equirectangular" % src.projection.lower())
    rotation = _environment_rotation(src, say)
    path = _environment_file(src.image, folder, say)
    if path is None:
        return ["--env-color", "0,0,0"]
    # Cycles' equirectangular u = 0.5 - atan2(y, x)/2π of the mapped
    # direction (Z up; Mapping's Z rotation adds to atan2); sertrace's u =
    # atan2(X, -Z)/2π + 0.5 - rotation/2π (Y up, X = x, Z = -y), which is
    # 0.75 - atan2(y, x)/2π - rotation/2π: the same texel for rotation =
    # the Mapping's Z + 90°. (Checked against Cycles by test_export.py.)
    return ["--env", path, "--env-intensity", "%.9g" % strength, "--env-rotation", "%.9g" % (math.degrees(rotation) + 90.0)]


def _rgb(c):
    return ",".join("%.9g" % max(float(v), 0.0) for v in c)


def _environment_rotation(tex, say):
    """The Z rotation (radians) that a Mapping node before the Environment
    Texture applies to the direction; other transforms are said."""
    node, _ = _linked_source(tex.inputs["Vector"])
    if node is None:
        return 0.0
    if node.type == "TEX_COORD":
        return 0.0
    if node.type != "MAPPING":
        say("the Environment Texture's vector comes from a %s, which is not carried" % node.bl_label)
        return 0.0
    src, sock = _linked_source(node.inputs["Vector"])
    if src is not None and not (src.type == "TEX_COORD" and sock.name == "Generated"):
        say("the Mapping's vector comes from %s, which is not carried" % (src.bl_label + " " + sock.name))
    for name in ("Location", "Rotation", "Scale"):
        if name in node.inputs and node.inputs[name].enabled and node.inputs[name].is_linked:
            say("the Mapping's %s is linked to nodes: its own value is used" % name)
    rot = _value(node, "Rotation") or (0.0, 0.0, 0.0)
    loc = _value(node, "Location") or (0.0, 0.0, 0.0)
    scale = _value(node, "Scale") or (1.0, 1.0, 1.0)
    if abs(rot[0]) > 1e-6 or abs(rot[1]) > 1e-6:
        say("the Mapping's X and Y rotations are not carried (only Z)")
    if node.vector_type in ("POINT", "TEXTURE") and any(abs(v) > 1e-6 for v in loc):
        say("the Mapping's Location is not carried")
    if not (scale[0] > 0 and abs(scale[0] - scale[1]) < 1e-6 and abs(scale[0] - scale[2]) < 1e-6):
        say("the Mapping's Scale is not carried")
    # TEXTURE maps the texture, the inverse of POINT's transform of the vector.
    return -rot[2] if node.vector_type == "TEXTURE" else rot[2]


def _environment_file(image, folder, say):
    """A Radiance .hdr of image for --env: the image's own file where it is
    one sertrace reads and unchanged, else its pixels written into folder."""
    img = image.original if image.original is not None else image
    if img.source == "FILE" and not img.is_dirty and img.packed_file is None:
        src = bpy.path.abspath(img.filepath_raw, library=img.library)
        if src.lower().endswith(".hdr") and os.path.isfile(src) and _plain_radiance(src):
            return os.path.abspath(src)
    if img.source not in ("FILE", "GENERATED"):
        say("the Environment Texture's %s image is not carried" % img.source.lower())
        return None
    n = len(img.pixels)
    w, h = img.size
    if n == 0 or w == 0 or h == 0:
        say("the Environment Texture's image '%s' has no pixels" % img.name)
        return None
    ch = n // (w * h)
    px = np.zeros(n, np.float32)
    img.pixels.foreach_get(px)
    px = px.reshape(h, w, ch)
    rgb = px[:, :, :3] if ch >= 3 else np.repeat(px[:, :, :1], 3, axis=2)
    if not img.is_float:
        space = img.colorspace_settings.name
        if space == "sRGB":
            rgb = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        elif space not in ("Linear", "Linear Rec.709", "Non-Color", "Raw", "Linear BT.709", "Linear CIE-XYZ E"):
            say("the Environment Texture's colour space %s is read as linear" % space)
    path = os.path.join(folder, ENV_FILE)
    write_hdr(path, rgb[::-1])  # Blender's rows go up, a .hdr's down
    return path


def _plain_radiance(path):
    """Whether a .hdr file is one sertrace reads: RGBE, -Y H +X W."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    if not (head.startswith(b"#?RADIANCE") or head.startswith(b"#?RGBE")):
        return False
    lines = head.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"FORMAT=") and line.strip() != b"FORMAT=32-bit_rle_rgbe":
            return False
        if line.strip() == b"" and i + 1 < len(lines):
            fields = lines[i + 1].split()
            return len(fields) == 4 and fields[0] == b"-Y" and fields[2] == b"+X"
    return False


def write_hdr(path, rgb):
    """Write rows-down float RGB (h, w, 3) as a Radiance .hdr: RGBE,
    run-length encoded scanlines (literal runs only) where the format
    allows them (widths 8 to 32767), else flat ones."""
    rgb = np.nan_to_num(np.asarray(rgb, np.float64), nan=0.0, posinf=6.5e4, neginf=0.0)
    rgb = np.clip(rgb, 0.0, None)
    h, w, _ = rgb.shape
    m = rgb.max(axis=2)
    mant, exp = np.frexp(m)
    scale = np.where(m > 1e-32, np.ldexp(1.0, 8 - exp), 0.0)
    rgbe = np.zeros((h, w, 4), np.uint8)
    rgbe[:, :, :3] = np.clip(np.floor(rgb * scale[:, :, None]), 0, 255).astype(np.uint8)
    rgbe[:, :, 3] = np.where(m > 1e-32, exp + 128, 0).astype(np.uint8)
    header = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n" % (h, w)
    if not 8 <= w <= 0x7FFF:
        body = rgbe.tobytes()
    else:
        # Each scanline: 2 2 w>>8 w&255, then each channel apart in
        # literal packets of up to 128 bytes (a count, then the bytes).
        starts = np.arange(0, w, 128)
        sizes = np.minimum(128, w - starts)
        seg = w + len(starts)  # one channel's bytes with its counts
        count_at = starts + np.arange(len(starts))  # where each count byte goes
        data_at = np.setdiff1d(np.arange(seg), count_at)
        line = np.zeros((h, 4 + 4 * seg), np.uint8)
        line[:, :4] = [2, 2, w >> 8, w & 255]
        for c in range(4):
            base = 4 + c * seg
            line[:, base + count_at] = sizes
            line[:, base + data_at] = rgbe[:, :, c]
        body = line.tobytes()
    with open(path, "wb") as f:
        f.write(header + body)
