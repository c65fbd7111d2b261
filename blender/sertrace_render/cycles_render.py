"""Renders a saved copy of the user's .blend with Cycles, for the
comparison (compare.py runs it in a Blender of its own, so the user's
scene is never touched):

    blender -b COPY.blend --python-exit-code 1 -P cycles_render.py -- OUT.pfm SCENE VIEW_LAYER \\
        SAMPLES MAX_BOUNCES SEED FILTER THREADS

Cycles is set as sertrace renders: the same samples and bounces, no
adaptive sampling, no denoising, no clamping, no glossy blur, caustics on,
sertrace's pixel filter. The image is written as a linear PFM.
"""

import os
import sys

import bpy
import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pfm  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:]
out, scene_name, layer_name = argv[0], argv[1], argv[2]
samples, bounces, seed, pixel_filter, threads = int(argv[3]), int(argv[4]), int(argv[5]), argv[6], int(argv[7])

scene = bpy.data.scenes[scene_name]
if bpy.context.window:
    bpy.context.window.scene = scene
for vl in scene.view_layers:
    vl.use = vl.name == layer_name
scene.render.engine = "CYCLES"
c = scene.cycles
c.device = "CPU"
c.samples = samples
c.use_adaptive_sampling = False
c.use_denoising = False
c.max_bounces = c.diffuse_bounces = c.glossy_bounces = c.transmission_bounces = bounces
c.transparent_max_bounces = 1024
c.volume_bounces = 0
c.sample_clamp_direct = c.sample_clamp_indirect = 0.0
c.blur_glossy = 0.0
c.caustics_reflective = c.caustics_refractive = True
c.filter_type, c.filter_width = {"box": ("BOX", 1.0), "gaussian": ("GAUSSIAN", 1.5),
                                 "blackman-harris": ("BLACKMAN_HARRIS", 1.5)}[pixel_filter]
c.seed = seed
c.use_animated_seed = False
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
