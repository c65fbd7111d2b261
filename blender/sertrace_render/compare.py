"""Compare with Cycles: the same frame rendered by sertrace and by Cycles
(same resolution, samples, bounces, seed and pixel filter), shown side by
side with a signed difference map, and the figures an artist checks: the
mean ratio and the regions that differ most beyond the noise."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import bpy
import numpy
from bpy.props import StringProperty

from . import binary, engine, pfm, properties

GRID = 8  # the image is cut in GRID x GRID regions for the figures
# The difference map's full colour is this fraction of the mean Cycles
# luminance (a pixel 25% brighter than Cycles' mean is full red).
DIFF_SCALE = 0.25


def luminance(img):
    return img[..., 0] * 0.2126 + img[..., 1] * 0.7152 + img[..., 2] * 0.0722


def difference_map(ours, theirs):
    """A signed difference map, linear RGB: red where sertrace is brighter,
    blue where Cycles is, black where they agree; full colour at
    DIFF_SCALE of Cycles' mean luminance."""
    d = (luminance(ours) - luminance(theirs)) / max(float(luminance(theirs).mean()) * DIFF_SCALE, 1e-12)
    d = numpy.clip(d, -1, 1)
    return numpy.stack([numpy.maximum(d, 0), numpy.zeros_like(d) + 0.1 * numpy.abs(d), numpy.maximum(-d, 0)], -1).astype(numpy.float32)


# A pixel filter wider than a pixel (Blackman-Harris, 3 pixels) spreads
# each sample over neighbours, so neighbouring pixels' noise is
# correlated: the standard error of a region's mean is this many times the
# one its pixels would give if independent (about 2 for the 3-pixel
# filters, measured on a flat white region).
CORRELATION = 2.0


def figures(ours, theirs, grid=GRID):
    """The mean ratio and each region's: its difference relative to the
    region's Cycles mean (to the image's where that is 0) and how many
    standard errors of the noise it is. The standard error comes from the
    pixel-by-pixel differences of the two images (the scene's structure
    cancels in them), times CORRELATION, and at least a millionth of the
    image's mean (a noise-free region that differs is far beyond it). Regions are ranked by relative
    difference, those within 3 standard errors last. Rows and columns are
    counted from the top left, as an image is read."""
    yo, yt = luminance(ours)[::-1], luminance(theirs)[::-1]  # top row first
    h, w = yo.shape
    out = {"mean_sertrace": float(yo.mean()), "mean_cycles": float(yt.mean())}
    out["mean_ratio"] = out["mean_sertrace"] / out["mean_cycles"] if out["mean_cycles"] > 0 else None
    scale = out["mean_cycles"] if out["mean_cycles"] > 0 else 1.0
    regions = []
    for gy in range(grid):
        for gx in range(grid):
            y0, y1, x0, x1 = gy * h // grid, (gy + 1) * h // grid, gx * w // grid, (gx + 1) * w // grid
            a, b = yo[y0:y1, x0:x1], yt[y0:y1, x0:x1]
            if a.size < 2:
                continue
            d = (a - b).astype(numpy.float64)
            diff = float(d.mean())
            # (floored at a millionth of the image's mean: two noise-free
            # skies that differ in the last bit do not differ)
            se = max(CORRELATION * float(d.std(ddof=1)) / numpy.sqrt(d.size), 1e-6 * scale)
            ref = float(b.mean()) if b.mean() > 0 else scale
            regions.append({"rows": [y0, y1], "columns": [x0, x1], "sertrace": float(a.mean()), "cycles": float(b.mean()),
                            "relative": diff / ref, "sigmas": diff / se})
    regions.sort(key=lambda r: (abs(r["sigmas"]) <= 3, -abs(r["relative"])))
    out["regions"] = regions
    return out


def summary(fig, top=3):
    """One line for Blender's report."""
    line = "sertrace / Cycles mean %.4f (sertrace %.4g, Cycles %.4g)" % (
        fig["mean_ratio"] or float("nan"), fig["mean_sertrace"], fig["mean_cycles"])
    differ = [r for r in fig["regions"][:top] if abs(r["sigmas"]) > 3 and abs(r["relative"]) >= 0.01]
    if not differ:
        return line + "; no region differs by 1% or more beyond 3 standard errors of the noise"
    return line + "; differ most: " + ", ".join(
        "rows %d-%d columns %d-%d %+.1f%% (%.0f sigma)" % (r["rows"][0], r["rows"][1], r["columns"][0], r["columns"][1],
                                                          100 * r["relative"], r["sigmas"]) for r in differ)


def image_of(name, pixels):
    """A float image in bpy.data named "sertrace compare: NAME" holding
    pixels (h, w, 3): a comparison's earlier one of that name is reused
    or replaced, never an image of the user's."""
    name = "sertrace compare: " + name
    h, w = pixels.shape[:2]
    img = bpy.data.images.get(name)
    if img is not None and (not img.get("sertrace_compare") or tuple(img.size) != (w, h)):
        if img.get("sertrace_compare") and img.users == 0:
            bpy.data.images.remove(img)
        img = None
    if img is None:
        img = bpy.data.images.new(name, w, h, alpha=True, float_buffer=True)
        img["sertrace_compare"] = True
    rgba = numpy.concatenate([pixels, numpy.ones((h, w, 1), numpy.float32)], -1)
    img.pixels.foreach_set(rgba.ravel())
    img.update()
    return img


def show(context, img):
    """Show img in an image editor: the first one open, else one in a new
    window."""
    if bpy.app.background:
        return
    wm = context.window_manager
    for window in wm.windows:
        for area in window.screen.areas:
            if area.type == "IMAGE_EDITOR":
                area.spaces.active.image = img
                return
    window = context.window or wm.windows[0]
    with context.temp_override(window=window, area=window.screen.areas[0]):
        bpy.ops.wm.window_new()
    area = wm.windows[-1].screen.areas[0]
    area.type = "IMAGE_EDITOR"
    area.spaces.active.image = img


class SERTRACE_OT_compare_cycles(bpy.types.Operator):
    """Render this frame with sertrace and with Cycles (same resolution, samples, bounces and filter) and show
    them side by side with a signed difference map (red: sertrace brighter, blue: Cycles brighter)"""

    bl_idname = "sertrace.compare_cycles"
    bl_label = "Compare with Cycles"

    folder: StringProperty(name="Folder", subtype="DIR_PATH", default="",
                           description="Where the three images and figures.json go (empty: a new temporary folder)")

    _timer = None
    _procs = ()

    def execute(self, context):
        """Run to the end (blender -b, scripts)."""
        self._procs = []
        try:
            for _ in self._steps(context):
                time.sleep(0.1)
        except (binary.SertraceMissing, engine.SertraceError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        finally:
            self._stop_children()
        return {"FINISHED"}

    def invoke(self, context, event):
        """Run in the background of the interface, Esc stopping it."""
        self._procs = []
        self._gen = self._steps(context)
        self._timer = context.window_manager.event_timer_add(0.2, window=context.window)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type == "ESC":
            self.report({"INFO"}, "sertrace: comparison cancelled")
            return self._end(context, {"CANCELLED"})
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        try:
            next(self._gen)
            return {"RUNNING_MODAL"}
        except StopIteration:
            return self._end(context, {"FINISHED"})
        except (binary.SertraceMissing, engine.SertraceError) as e:
            self.report({"ERROR"}, str(e))
        except Exception as e:  # a bug must not leave the timer and the renders running
            import traceback

            traceback.print_exc()
            self.report({"ERROR"}, "sertrace: the comparison failed: %s: %s" % (type(e).__name__, e))
        return self._end(context, {"CANCELLED"})

    def cancel(self, context):
        """Blender ends the operator (a file loaded, Blender quitting)."""
        self._end(context, {"CANCELLED"})

    def _end(self, context, status):
        if self._timer is not None:
            context.window_manager.event_timer_remove(self._timer)
            self._timer = None
        self._gen.close()  # its finally removes the copy of the file
        self._stop_children()
        if bpy.context.workspace is not None:
            bpy.context.workspace.status_text_set(None)
        return status

    def _stop_children(self):
        """The Blenders rendering, stopped as Esc stops a render (SIGINT:
        the engine's sertrace ends its pass), killed if they linger."""
        for p in self._procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in self._procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def _status(self, text):
        if not bpy.app.background and bpy.context.workspace is not None:
            bpy.context.workspace.status_text_set(text)
        else:
            print(text, file=sys.stderr)

    def _steps(self, context):
        # What the renders need, taken now: between steps the user may
        # undo or load a file, which frees the scene's data.
        scene, view_layer = context.scene, context.view_layer
        s = scene.sertrace
        samples, bounces, seed, pixel_filter = s.samples, s.max_bounces, s.seed, s.filter
        scene_name, layer_name = scene.name, view_layer.name
        threads = s.threads or (scene.render.threads if scene.render.threads_mode == "FIXED" else 0)
        width, height = engine.resolution(scene)
        prefs = properties.preferences(context)
        sertrace = binary.find(prefs.binary if prefs else "")
        folder = bpy.path.abspath(self.folder) if self.folder else tempfile.mkdtemp(prefix="sertrace-compare-")
        os.makedirs(folder, exist_ok=True)
        # Both renders run on a copy of the file in a Blender of their own:
        # the user's scene is not touched, the interface stays live, and
        # both see the scene as a render does (modifiers at their render
        # levels), sertrace through the very engine F12 runs.
        copy = os.path.join(folder, "compared.blend")
        bpy.ops.wm.save_as_mainfile(filepath=copy, copy=True, check_existing=False)
        seconds, images = {}, {}
        try:
            for name, label in (("SERTRACE", "sertrace"), ("CYCLES", "Cycles")):
                out = os.path.join(folder, label.lower() + ".pfm")
                if os.path.exists(out):
                    os.remove(out)  # an earlier comparison's
                log_path = os.path.join(folder, label.lower() + ".log")
                cmd = [bpy.app.binary_path, "-b", "--factory-startup", copy, "--python-exit-code", "1",
                       "-P", os.path.join(os.path.dirname(__file__), "render_copy.py"), "--", name, out, scene_name,
                       layer_name, str(samples), str(bounces), str(seed), pixel_filter, str(threads)]
                start = time.monotonic()
                with open(log_path, "w") as log:
                    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                            env=dict(os.environ, SERTRACE=sertrace))
                    self._procs.append(proc)
                    while proc.poll() is None:
                        self._status("%s: rendering %d samples (%.0f s; Esc cancels)%s" % (
                            label, samples, time.monotonic() - start, ", then Cycles" if name == "SERTRACE" else ""))
                        yield
                with open(log_path, errors="replace") as log:
                    lines = log.read().splitlines()
                if name == "SERTRACE":  # the engine's report: what the export could not carry
                    for line in lines:
                        if line.startswith("Warning: "):
                            self.report({"WARNING"}, line[len("Warning: "):])
                if proc.returncode != 0 or not os.path.exists(out):
                    errors = [ln for ln in lines if ln.startswith("Error: ")]
                    raise engine.SertraceError("sertrace: the comparison's %s render failed: %s (its log: %s)" % (
                        label, errors[-1][len("Error: "):] if errors else "exit status %s" % proc.returncode, log_path))
                seconds[label], images[label] = time.monotonic() - start, pfm.read(out)
        finally:
            if os.path.exists(copy):
                os.remove(copy)
        ours, theirs = images["sertrace"], images["Cycles"]
        seconds_sertrace, seconds_cycles = seconds["sertrace"], seconds["Cycles"]

        diff = difference_map(ours, theirs)
        fig = figures(ours, theirs)
        fig.update({"width": width, "height": height, "samples": samples, "max_bounces": bounces, "seed": seed,
                    "filter": pixel_filter, "seconds_sertrace": seconds_sertrace, "seconds_cycles": seconds_cycles,
                    "blender": bpy.app.version_string, "difference_scale": DIFF_SCALE,
                    "images": {"sertrace": os.path.join(folder, "sertrace.pfm"), "cycles": os.path.join(folder, "cycles.pfm"),
                               "difference": os.path.join(folder, "difference.pfm")}})
        pfm.write(os.path.join(folder, "difference.pfm"), diff)
        with open(os.path.join(folder, "figures.json"), "w") as f:
            json.dump(fig, f, indent=2)
        gap = numpy.zeros((height, max(2, width // 64), 3), numpy.float32)
        side = image_of("sertrace | Cycles | difference", numpy.concatenate([ours, gap, theirs, gap, diff], axis=1))
        image_of("sertrace", ours)
        image_of("Cycles", theirs)
        image_of("sertrace - Cycles", diff)
        show(bpy.context, side)
        self.report({"INFO"}, summary(fig) + " -> " + folder)


def register():
    bpy.utils.register_class(SERTRACE_OT_compare_cycles)


def unregister():
    bpy.utils.unregister_class(SERTRACE_OT_compare_cycles)
