"""sertrace as a Blender render engine.

Pick "sertrace" in the render-engine menu and press F12: the evaluated
scene goes out as glTF (Blender's own exporter, with the hair, point
clouds, lights, world and camera translated), the sertrace binary renders
it, and the image comes back into Blender's render result as it refines,
with sertrace's AOVs as render passes. "Compare with Cycles" renders the
same frame with Cycles and shows where the two differ.

Install: Edit > Preferences > Add-ons > Install..., the zip of this
folder; the sertrace binary is found from the add-on's preferences,
$SERTRACE or PATH.
"""

bl_info = {
    "name": "sertrace",
    "author": "the sertrace authors",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Render > Render Engine > sertrace",
    "description": "Render with sertrace, a reference path tracer, and compare it with Cycles",
    "doc_url": "https://github.com/sertrace/sertrace/blob/main/docs/guide.md#blender",
    "category": "Render",
}

# The modules, each after those it imports (the export's: gltf_doc to export).
if "bpy" in locals():  # a reload (F3 > Reload Scripts)
    import importlib

    for _m in (binary, pfm, hdr, properties, gltf_doc, shader_nodes, gltf_exporter,  # noqa: F821
               exporter_fixes, materials, hair_bsdf, hair, own_meshes, lights, camera,  # noqa: F821
               world, scan, export, engine, compare, ui):  # noqa: F821
        importlib.reload(_m)
else:
    from . import (binary, pfm, hdr, properties, gltf_doc, shader_nodes, gltf_exporter, exporter_fixes,
                   materials, hair_bsdf, hair, own_meshes, lights, camera, world, scan, export, engine,
                   compare, ui)

import bpy  # noqa: E402

_modules = (properties, engine, compare, ui)


def register():
    for m in _modules:
        m.register()


def unregister():
    for m in reversed(_modules):
        m.unregister()
