"""Renders a saved copy of the user's .blend with sertrace or Cycles, for
the comparison (compare.py runs it in a Blender of its own, so the user's
scene is never touched, and both engines see the scene as a render does:
modifiers at their render levels, particles at their render counts):

    blender -b --factory-startup COPY.blend --python-exit-code 1 -P render_copy.py -- \\
        ENGINE OUT.pfm SCENE VIEW_LAYER SAMPLES MAX_BOUNCES SEED FILTER THREADS

ENGINE is SERTRACE (the add-on, loaded from the folder this file is in,
runs $SERTRACE with the scene's own sertrace settings) or CYCLES, set as
sertrace renders: the same samples and bounces, no adaptive sampling, no
denoising, no clamping, no glossy blur, caustics on, sertrace's pixel
filter. The image is written as a linear PFM.
"""

import os
import sys

import bpy
import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pfm  # noqa: E402
from cycles_match import match_sertrace  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:]
engine, out, scene_name, layer_name = argv[0], argv[1], argv[2], argv[3]
samples, bounces, seed, pixel_filter, threads = int(argv[4]), int(argv[5]), int(argv[6]), argv[7], int(argv[8])

scene = bpy.data.scenes[scene_name]
if bpy.context.window:
    bpy.context.window.scene = scene
for vl in scene.view_layers:
    vl.use = vl.name == layer_name


def use_sertrace(scene):
    """The add-on, from the folder this file is in, with the scene's own
    sertrace settings but those the comparison sets."""
    import addon_utils

    sys.path.insert(0, os.path.dirname(HERE))
    addon_utils.enable(os.path.basename(HERE), default_set=True)
    scene.render.engine = "SERTRACE"
    s = scene.sertrace
    s.samples, s.max_bounces, s.seed, s.filter, s.threads = samples, bounces, seed, pixel_filter, threads
    s.denoise = False
    s.time_limit = 0.0


def use_cycles(scene):
    """Cycles on the CPU, set as sertrace renders."""
    match_sertrace(scene, samples, bounces, seed, pixel_filter)


{"SERTRACE": use_sertrace, "CYCLES": use_cycles}[engine](scene)
# What would make the two differ besides the renderers.
scene.render.film_transparent = False
scene.render.use_motion_blur = False
for vl in scene.view_layers:
    for flag in ("use_sky", "use_solid", "use_strand"):
        if hasattr(vl, flag):
            setattr(vl, flag, True)
if threads > 0:
    scene.render.threads_mode = "FIXED"
    scene.render.threads = threads
scene.render.use_border = False
scene.render.use_compositing = False
scene.render.use_sequencer = False
scene.render.image_settings.file_format = "OPEN_EXR"
scene.render.image_settings.color_depth = "32"
scene.render.image_settings.color_mode = "RGB"
exr = os.path.splitext(out)[0] + ".exr"
bpy.ops.render.render(scene=scene.name, layer=layer_name)
bpy.data.images["Render Result"].save_render(exr, scene=scene)
img = bpy.data.images.load(exr)
w, h = img.size
px = numpy.empty(w * h * img.channels, numpy.float32)
img.pixels.foreach_get(px)
pfm.write(out, px.reshape(h, w, img.channels)[..., :3])
os.remove(exr)
