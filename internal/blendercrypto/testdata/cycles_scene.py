# Renders a tiny Cycles scene with an object Cryptomatte pass to a
# multilayer OpenEXR, for the blendercrypto tests:
#
#   blender -b --factory-startup --python cycles_scene.py -- --out OUT.exr
#
# The scene: a plane "Floor", a sphere "Ball" and a cube "Box" that covers
# part of the ball, seen by a camera at 64x48, 8 samples on one CPU thread.
import argparse
import os
import sys

import bpy


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    ap = argparse.ArgumentParser(prog="cycles_scene.py")
    ap.add_argument("--out", required=True)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--height", type=int, default=48)
    ap.add_argument("--samples", type=int, default=8)
    args = ap.parse_args(argv)

    scene = bpy.context.scene
    for ob in list(scene.objects):
        bpy.data.objects.remove(ob, do_unlink=True)

    bpy.ops.mesh.primitive_plane_add(size=10, location=(0, 0, 0))
    bpy.context.object.name = "Floor"
    bpy.ops.mesh.primitive_uv_sphere_add(radius=1, location=(0, 0, 1))
    bpy.context.object.name = "Ball"
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0.9, -1.2, 1.1))
    bpy.context.object.name = "Box"

    bpy.ops.object.camera_add(location=(0, -7, 3))
    cam = bpy.context.object
    cam.name = "Camera"
    cam.rotation_euler = (1.22, 0, 0)
    scene.camera = cam
    bpy.ops.object.light_add(type="SUN", location=(2, -2, 5))

    r = scene.render
    r.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = args.samples
    scene.cycles.use_denoising = False
    scene.cycles.use_adaptive_sampling = False
    r.threads_mode = "FIXED"
    r.threads = 1
    r.resolution_x, r.resolution_y, r.resolution_percentage = args.width, args.height, 100
    r.use_compositing = False
    r.use_sequencer = False
    r.image_settings.file_format = "OPEN_EXR_MULTILAYER"
    r.image_settings.color_depth = "32"
    r.image_settings.exr_codec = "ZIP"
    r.filepath = args.out

    vl = scene.view_layers[0]
    vl.name = "ViewLayer"
    vl.use_pass_cryptomatte_object = True
    vl.pass_cryptomatte_depth = 6  # three CryptoObject layers of two ranks each

    bpy.ops.render.render(write_still=True)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:  # one line on stderr, exit status 1
        print("cycles_scene.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)  # Blender ignores a script's SystemExit in -b --python
