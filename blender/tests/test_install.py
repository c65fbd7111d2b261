"""The add-on installs from the zip of its folder, as a user installs it
(Edit > Preferences > Add-ons > Install), and offers the engine:

    BLENDER_USER_SCRIPTS=DIR blender -b --factory-startup --python-exit-code 1 -P test_install.py -- ZIP
"""

import sys

import bpy

zip_path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.preferences.addon_install(filepath=zip_path)
bpy.ops.preferences.addon_enable(module="sertrace_render")
import sertrace_render  # noqa: E402

engines = {getattr(e, "bl_idname", None) for e in bpy.types.RenderEngine.__subclasses__()}
if "SERTRACE" not in engines:
    sys.exit("test_install.py: no SERTRACE engine after installing %s (engines: %s)" % (zip_path, engines))
info = sertrace_render.bl_info
if info["blender"] > bpy.app.version:
    sys.exit("test_install.py: bl_info asks for Blender %s" % (info["blender"],))
scene = bpy.context.scene
scene.render.engine = "SERTRACE"
if not hasattr(scene, "sertrace") or scene.sertrace.samples < 1:
    sys.exit("test_install.py: the engine's settings are missing")
# The panels of what the export reads open to the engine: material slots
# and surface, the world's surface, the light's settings.
for name in ("EEVEE_MATERIAL_PT_context_material", "EEVEE_MATERIAL_PT_surface", "EEVEE_WORLD_PT_surface",
             "DATA_PT_EEVEE_light", "RENDER_PT_format"):
    if "SERTRACE" not in getattr(bpy.types, name).COMPAT_ENGINES:
        sys.exit("test_install.py: the panel %s is closed to the engine" % name)
if "sertrace_render" not in bpy.context.preferences.addons:
    sys.exit("test_install.py: the add-on is not enabled")
bpy.ops.preferences.addon_disable(module="sertrace_render")
print("test_install.py: ok")
