"""Blender's glTF exporter, run on a given depsgraph.

run_gltf_exporter runs the exporter on the depsgraph it is given (the
render's, inside RenderEngine.render), not on the viewport's of its own:
the exporter's module-level `bpy` is swapped, for the call, for a view
whose context answers with that depsgraph, its scene and no window, active
object or selection (_exporter_sees), and the operator is called without
bpy.ops' view_layer.update() around it (_call_operator). So modifiers are
evaluated with their render settings, nothing of the user's (frame, mode,
window scene, selection, objects' matrices) is touched, and it runs the
same on the main thread (`blender -b ... -f 1`) and on F12's render
thread, where the real context has no window.
"""

import contextlib
import importlib
import os
import sys
import threading

import bpy

_EXPORT_LOCK = threading.Lock()

# The operator's options; each is passed only where this Blender's exporter
# has it (3.4 and 4.x differ). Modifiers applied, what renders only (not
# what the viewport hides), no animation (it would change the frame), no
# skins (the evaluated mesh carries them), shape keys as morph targets (a
# mesh without modifiers goes out as its original data, the shape keys not
# applied: exporter_fixes.bake_morph_targets applies them), extras (custom
# properties) on, lights off (lights.py writes them in Cycles' units), no
# loose edges or points (they would be LINES and POINTS without a radius),
# vertex colours only where a material uses them (glTF multiplies COLOR_0
# into the base colour; Cycles uses them only through nodes).
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
    export_morph=True,  # shape keys as morph targets, baked into the mesh afterwards
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


def run_gltf_exporter(depsgraph, path, skip):
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


def exporter_has(option):
    """Whether this Blender's glTF exporter has an option."""
    return option in bpy.ops.export_scene.gltf.get_rna_type().properties.keys()


def exporter_instances(parent):
    """Whether the exporter writes the instances of parent itself: those of
    an instancer (particles, vertices, faces, a collection), not those that
    Geometry Nodes makes."""
    if parent is None:
        return False
    orig = parent.original if parent.original is not None else parent
    return bool(orig.is_instancer)
