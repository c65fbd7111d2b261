"""The render engine's tests, run inside Blender on the scene make_scene.py
built (the Go test in ../addon_test.go runs each case):

    blender -b SCENE.blend --factory-startup --python-exit-code 1 -P test_engine.py -- CASE SERTRACE WORKDIR

CASE is one of:
  messages  a missing binary, one too old, none on PATH and a scene with
            nothing to render each fail the render with their one line,
            and Blender renders again afterwards;
  render    the engine's image is byte for byte sertrace's own render of
            the add-on's export (its kept command run again), the passes
            arrive, and the comparison operator writes its images and
            figures: the mean and the hair's region within TOLERANCE of
            Cycles';
  figures   the comparison's statistics on images made to differ;
  passes    the Normal pass is sertrace's normal in Blender's axes;
  frame     the frame's size as Blender computes it, and a render region
            cropped to;
  cancel    a render stopped after its first pass keeps that pass (the
            image is not black), says so, and Blender renders again.
"""

import json
import os
import shlex
import stat
import subprocess
import sys

import bpy
import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import addon_utils  # noqa: E402

addon_utils.enable("sertrace_render", default_set=True)  # as installed: its preferences exist
from sertrace_render import compare, engine, pfm  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:]
case, sertrace, work = argv[0], os.path.abspath(argv[1]), os.path.abspath(argv[2])
os.makedirs(work, exist_ok=True)
os.environ["SERTRACE"] = sertrace
prefs = bpy.context.preferences.addons["sertrace_render"].preferences

# sertrace against Cycles on the test scene (160x120, 64 samples, both
# seeded, so the figures are the same each run): the whole image's mean
# within 5%, the hair's region (the hair over the head) within 6%.
# Measured (2026-12-05): Blender 3.4 0.969 and 0.974 (its Principled BSDF's
# diffuse is Disney's, brighter at grazing angles than glTF's Lambertian),
# Blender 4.3 1.001 and 1.023.
TOLERANCE_MEAN = 0.05
TOLERANCE_HAIR = 0.06

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        print("FAIL: " + message, file=sys.stderr)


def the_same_render(a, b):
    """Whether images a and b, from two exports of one frame, are one
    render: their shapes agree, and all but under 1% of their values.
    Blender's exports of one file differ from run to run in the last bits
    of some normals, and now and then that turns a few paths (0.36% of the
    values, once seen); another seed or sample count changes 60% of them."""
    return a.shape == b.shape and float((a != b).mean()) < 0.01


def render_error():
    """Render the scene; the error's message, or None when it rendered."""
    try:
        bpy.ops.render.render()
    except RuntimeError as e:
        return str(e)
    return None


def result_pixels(scene):
    """The Render Result's Combined pass as an (h, w, 4) array, read back
    through an EXR (Blender gives no pixels of a render result)."""
    path = os.path.join(work, "result.exr")
    fmt = scene.render.image_settings
    old = fmt.file_format, fmt.color_depth, fmt.color_mode
    fmt.file_format, fmt.color_depth, fmt.color_mode = "OPEN_EXR", "32", "RGBA"
    bpy.data.images["Render Result"].save_render(path, scene=scene)
    fmt.file_format, fmt.color_depth, fmt.color_mode = old
    img = bpy.data.images.load(path)
    try:
        w, h = img.size
        px = numpy.empty(w * h * img.channels, numpy.float32)
        img.pixels.foreach_get(px)
        return px.reshape(h, w, img.channels)
    finally:
        bpy.data.images.remove(img)


scene = bpy.context.scene
scene.render.engine = "SERTRACE"
s = scene.sertrace
s.samples = 64
s.max_bounces = 7
prefs_folder = os.path.join(work, "kept")

if case == "messages":
    os.environ["SERTRACE"] = os.path.join(work, "no-such-sertrace")
    err = render_error()
    check(err is not None and "$SERTRACE names" in err and "not an executable file" in err,
          "a missing binary: %r" % err)
    old = os.path.join(work, "old-sertrace")
    with open(old, "w") as f:
        f.write("#!/bin/sh\necho 'Usage: sertrace render SCENE [flags] --spp int'\n")
    os.chmod(old, os.stat(old).st_mode | stat.S_IEXEC)
    os.environ["SERTRACE"] = old
    err = render_error()
    check(err is not None and "too old for this add-on" in err and "--progress" in err, "a binary too old: %r" % err)
    del os.environ["SERTRACE"]
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = work  # holds no sertrace
    err = render_error()
    os.environ["PATH"] = path
    check(err is not None and "no binary found" in err and "preferences" in err, "no binary anywhere: %r" % err)
    os.environ["SERTRACE"] = sertrace
    # Nothing to render: every object but the camera hidden from the render.
    hidden = [o for o in scene.objects if o.type != "CAMERA" and not o.hide_render]
    for o in hidden:
        o.hide_render = True
    err = render_error()
    check(err is not None and "nothing to render" in err, "an empty scene: %r" % err)
    for o in hidden:
        o.hide_render = False
    s.samples = 4
    err = render_error()
    check(err is None, "Blender did not render again after the failures: %r" % err)

elif case == "render":
    prefs.keep_folder = prefs_folder
    vl = bpy.context.view_layer
    vl.use_pass_z = vl.use_pass_normal = True
    vl.sertrace.use_pass_albedo = True
    err = render_error()
    check(err is None, "the render failed: %r" % err)
    kept = [os.path.join(prefs_folder, d) for d in os.listdir(prefs_folder)]
    check(len(kept) == 1, "the kept folder holds %s, not one render's folder" % kept)
    prefs_folder = kept[0]
    with open(os.path.join(prefs_folder, "command.txt")) as f:
        command = shlex.split(f.read())
    ours = pfm.read(os.path.join(prefs_folder, "render.pfm"))
    check(float(ours.mean()) > 1e-3 and numpy.isfinite(ours).all(), "the engine's image is black or not finite")
    # The same export, rendered by sertrace run directly.
    direct = os.path.join(work, "direct.pfm")
    command[command.index("-o") + 1] = direct
    i = command.index("--preview")
    del command[i:i + 2]
    subprocess.run(command, check=True, capture_output=True)
    with open(os.path.join(prefs_folder, "render.pfm"), "rb") as a, open(direct, "rb") as b:
        check(a.read() == b.read(), "the engine's image differs from sertrace's own render of the export")
    # The image in Blender is the one sertrace wrote, and the passes came.
    got = result_pixels(scene)
    check(got.shape[:2] == ours.shape[:2] and numpy.allclose(got[..., :3], ours, rtol=1e-5, atol=1e-6),
          "the Render Result is not sertrace's image")
    for name in ("render.depth.pfm", "render.normal.pfm", "render.albedo.pfm"):
        check(os.path.exists(os.path.join(prefs_folder, name)), "the pass " + name + " was not rendered")
    # Against Cycles, through the comparison operator.
    folder = os.path.join(work, "compare")
    r = bpy.ops.sertrace.compare_cycles(folder=folder)
    check(r == {"FINISHED"}, "the comparison did not finish: %r" % r)
    fig = json.load(open(os.path.join(folder, "figures.json")))
    for k in ("sertrace", "cycles", "difference"):
        check(os.path.exists(fig["images"][k]), "the comparison did not write its %s image" % k)
    check("sertrace compare: sertrace | Cycles | difference" in bpy.data.images, "the side-by-side image is not in Blender")
    # Its sertrace side is the engine's render of the same frame, from an
    # export of its own.
    side = pfm.read(fig["images"]["sertrace"])
    check(the_same_render(side, ours), "the comparison's sertrace image is not the engine's render: "
          "%.2f%% of its values differ" % (100 * float((side != ours).mean())))
    ratio = fig["mean_ratio"]
    print("sertrace / Cycles: mean ratio %.4f; regions %s" % (ratio, compare.summary(fig)))
    check(abs(ratio - 1) < TOLERANCE_MEAN, "mean ratio sertrace/Cycles %.4f beyond %.0f%%" % (ratio, 100 * TOLERANCE_MEAN))
    # The hair's region: the hair object's bounding box as the camera sees it.
    from bpy_extras.object_utils import world_to_camera_view
    from mathutils import Vector
    hair = [o for o in scene.objects if o.type == "CURVES"][0]
    corners = [world_to_camera_view(scene, scene.camera, hair.matrix_world @ Vector(c)) for c in hair.bound_box]
    h, w = ours.shape[:2]
    x0, x1 = (max(0, int(min(c.x for c in corners) * w)), min(w, int(max(c.x for c in corners) * w) + 1))
    y0, y1 = (max(0, int(min(c.y for c in corners) * h)), min(h, int(max(c.y for c in corners) * h) + 1))
    theirs = pfm.read(fig["images"]["cycles"])
    a, b = compare.luminance(ours[y0:y1, x0:x1]).mean(), compare.luminance(theirs[y0:y1, x0:x1]).mean()
    print("hair region rows %d-%d columns %d-%d (bottom up): sertrace %.4f, Cycles %.4f, ratio %.4f" % (y0, y1, x0, x1, a, b, a / b))
    check(x1 - x0 > 4 and y1 - y0 > 4, "the hair is not in view")
    check(abs(a / b - 1) < TOLERANCE_HAIR, "hair region ratio %.4f beyond %.0f%%" % (a / b, 100 * TOLERANCE_HAIR))

elif case == "cancel":
    s.samples = 1 << 20
    follow = engine.Run.follow

    def stop_after_first_pass(self, on_event, should_stop, poll=0.1):
        passes = []

        def seen(ev):
            if ev.get("event") == "pass":
                passes.append(ev)
            on_event(ev)
        return follow(self, seen, lambda: bool(passes), poll)

    engine.Run.follow = stop_after_first_pass
    err = render_error()
    engine.Run.follow = follow
    check(err is None, "a stopped render failed: %r" % err)
    got = result_pixels(scene)
    check(float(got[..., :3].mean()) > 1e-3, "the stopped render's image is black")
    s.samples = 4
    check(render_error() is None, "Blender did not render again after a stopped render")

elif case == "figures":
    # The comparison's statistics on images made to differ: noise alone
    # differs nowhere; a region 20% brighter is named, first; a noise-free
    # region (a sky) that differs by its last bit does not differ.
    rng = numpy.random.default_rng(1)
    base = numpy.full((80, 96, 3), 0.5, numpy.float32)
    base[40:] += 0.3 * rng.random((40, 96, 1), numpy.float32)  # a textured ground; a flat sky above (rows from the bottom)
    noisy = lambda: base * (1 + 0.1 * rng.standard_normal((80, 96, 1), numpy.float32))
    sky = base.copy()
    sky[:40] = numpy.nextafter(sky[:40], numpy.float32(1))
    fig = compare.figures(noisy(), noisy())
    check("no region differs" in compare.summary(fig), "noise alone: %s" % compare.summary(fig))
    ours = noisy()
    ours[0:10, 0:12] *= 1.2  # the bottom-left region (rows 70-80 counted from the top)
    fig = compare.figures(ours, noisy())
    top = fig["regions"][0]
    check(top["rows"] == [70, 80] and top["columns"] == [0, 12] and 0.1 < top["relative"] < 0.3 and top["sigmas"] > 3,
          "a region 20%% brighter: %s" % top)
    check("rows 70-80 columns 0-12 +" in compare.summary(fig), "the report: %s" % compare.summary(fig))
    fig = compare.figures(sky, base)
    check("no region differs" in compare.summary(fig) and abs(fig["mean_ratio"] - 1) < 1e-6
          and all(abs(r["sigmas"]) < 3 for r in fig["regions"]), "a sky's last bit: %s" % fig["regions"][:2])

elif case == "passes":
    # Blender's Normal pass is sertrace's normal turned into Blender's Z-up
    # world: the compositor sends it to the Composite output, which the
    # saved render result then holds.
    s.samples = 2
    prefs.keep_folder = prefs_folder
    vl = bpy.context.view_layer
    vl.use_pass_normal = True
    scene.use_nodes = True
    tree = scene.node_tree
    layers = next(n for n in tree.nodes if n.type == "R_LAYERS")
    composite = next(n for n in tree.nodes if n.type == "COMPOSITE")
    tree.links.new(layers.outputs["Normal"], composite.inputs["Image"])
    check(render_error() is None, "the render with passes failed")
    kept = os.path.join(prefs_folder, os.listdir(prefs_folder)[0])
    n = pfm.read(os.path.join(kept, "render.normal.pfm"))  # glTF's axes: Y up
    want = numpy.stack([n[..., 0], -n[..., 2], n[..., 1]], axis=-1)
    got = result_pixels(scene)[..., :3]
    check(got.shape == want.shape and numpy.allclose(got, want, atol=1e-5),
          "the Normal pass is not sertrace's normal in Blender's axes (max error %s)" % (
              (numpy.abs(got - want).max(),) if got.shape == want.shape else (got.shape,)))
    sky, ground = want[-1, want.shape[1] // 2], want[0, want.shape[1] // 2]
    check(numpy.allclose(sky, 0) and ground[2] > 0.9, "normals: sky %s, ground %s (want 0, and +Z up)" % (sky, ground))
    # Blender's own Diffuse Color flag gets sertrace's diffuse albedo.
    vl.use_pass_diffuse_color = True
    vl.use_pass_mist = True  # left on, say, from Cycles: stays black, said
    tree.links.new(layers.outputs["DiffCol"], composite.inputs["Image"])
    check(render_error() is None, "the render with DiffCol failed")
    want = pfm.read(os.path.join(kept, "render.diffuse_albedo.pfm"))
    got = result_pixels(scene)[..., :3]
    check(got.shape == want.shape and numpy.allclose(got, want, atol=1e-5) and float(want.mean()) > 0.05,
          "the DiffCol pass is not sertrace's diffuse albedo")

elif case == "frame":
    # The frame's size as Blender computes it (100 px at 57% is 57), and a
    # render region cropped to: the region's pixels of the whole frame.
    s.samples = 2
    r = scene.render
    r.resolution_x, r.resolution_y, r.resolution_percentage = 100, 80, 57
    check(render_error() is None, "the render at 57% failed")
    full = result_pixels(scene)
    check(full.shape[:2] == (45, 57), "the result is %s, not Blender's 57 x 45" % (full.shape[:2][::-1],))
    check(float(full[:, -1, :3].mean()) > 1e-3, "the frame's right column is black")
    r.use_border = r.use_crop_to_border = True
    r.border_min_x, r.border_max_x, r.border_min_y, r.border_max_y = 0.25, 0.75, 0.2, 0.6
    check(render_error() is None, "the render of a region failed")
    part = result_pixels(scene)
    h, w = part.shape[:2]
    found = [(x, y) for y in range(full.shape[0] - h + 1) for x in range(full.shape[1] - w + 1)
             if the_same_render(part[..., :3], full[y:y + h, x:x + w, :3])]
    check((w, h) == (28, 18) and found == [(14, 9)], "the cropped region (%d x %d) is at %s of the frame, not (14, 9)" % (w, h, found))
    r.use_crop_to_border = False  # the region in its place in the frame
    check(render_error() is None, "the render of an uncropped region failed")
    framed = result_pixels(scene)
    inside = numpy.zeros(framed.shape[:2], bool)
    inside[9:27, 14:42] = True
    check(framed.shape[:2] == (45, 57) and the_same_render(framed[inside][:, :3], full[inside][:, :3]),
          "the uncropped region is not the frame's pixels in their place")

elif case == "adaptive":
    # Noise Threshold: sertrace samples until clean; what it rendered comes
    # back as the render result, the passes too.
    s.samples = 64
    s.use_adaptive_sampling, s.adaptive_threshold, s.adaptive_min_samples = True, 0.1, 8
    prefs.keep_folder = prefs_folder
    check(render_error() is None, "the adaptive render failed")
    kept = os.path.join(prefs_folder, os.listdir(prefs_folder)[0])
    with open(os.path.join(kept, "command.txt")) as f:
        command = shlex.split(f.read())
    i = command.index("--noise-threshold")
    check(command[i + 1] == "0.1" and command[command.index("--min-spp") + 1] == "8",
          "the command does not carry the threshold: %s" % command)
    ours = pfm.read(os.path.join(kept, "render.pfm"))
    got = result_pixels(scene)
    check(float(ours.mean()) > 1e-3 and numpy.isfinite(ours).all(), "the adaptive image is black or not finite")
    check(got.shape[:2] == ours.shape[:2] and numpy.allclose(got[..., :3], ours, rtol=1e-5, atol=1e-6),
          "the Render Result is not sertrace's adaptive image")
    # The same export rendered by sertrace directly: the same image, bit
    # for bit, and its pixels took between 8 and 64 samples.
    direct = os.path.join(work, "direct.pfm")
    command[command.index("-o") + 1] = direct
    i = command.index("--preview")
    del command[i:i + 2]
    stats = os.path.join(work, "stats.json")
    subprocess.run(command + ["--stats", stats], check=True, capture_output=True)
    with open(os.path.join(kept, "render.pfm"), "rb") as a, open(direct, "rb") as b:
        check(a.read() == b.read(), "the engine's adaptive image differs from sertrace's own render of the export")
    a = json.load(open(stats)).get("adaptive") or {}
    check(a.get("pixels_stopped", 0) > 0 and 8 < a.get("mean_samples", 0) < 64, "adaptive stats %s" % a)

else:
    sys.exit("test_engine.py: unknown case %r" % case)

if failures:
    sys.exit("test_engine.py %s: %d failures:\n  %s" % (case, len(failures), "\n  ".join(failures)))
print("test_engine.py %s: ok" % case)
