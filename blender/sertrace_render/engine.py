"""The render engine: the scene out as glTF, sertrace run on it, its
images back into Blender's render result as they refine."""

import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import traceback

import bpy
import numpy

from . import binary, export, pfm, properties

# Blender's depth for a pixel that hits nothing (Cycles' too); sertrace's is 0.
BACKGROUND_DEPTH = 1e10


# Seconds after Esc within which sertrace must have ended its pass and
# written its images; past them (a device that hangs, a Blender quitting)
# a second SIGINT aborts it.
STOP_GRACE = 120.0


class SertraceError(Exception):
    """A render that cannot go on: the message is the one line to report."""


def render_args(scene, settings, width, height):
    """sertrace flags for the engine's settings (scene.sertrace) at width x height."""
    args = ["--res", "%dx%d" % (width, height), "--spp", str(settings.samples),
            "--max-depth", str(settings.max_bounces + 1), "--seed", str(settings.seed),
            "--filter", settings.filter, "--backend", settings.backend, "--reorder", settings.reorder]
    if settings.path != "auto":
        args += ["--path", settings.path]
    if settings.use_adaptive_sampling:
        args += ["--noise-threshold", "%g" % settings.adaptive_threshold]
        if settings.adaptive_min_samples > 0:
            args += ["--min-spp", str(min(settings.adaptive_min_samples, settings.samples))]
    if settings.time_limit > 0:
        args += ["--time-budget", "%g" % settings.time_limit]
    threads = settings.threads
    if threads == 0 and scene.render.threads_mode == "FIXED":
        threads = scene.render.threads
    if threads > 0:
        args += ["--threads", str(threads)]
    if settings.denoise:
        args += ["--denoise", "--denoiser", settings.denoiser]
    return args


def resolution(scene):
    """The frame's size in pixels, as Blender computes it from the
    resolution and its percentage (in integers)."""
    r = scene.render
    return max(1, r.resolution_x * r.resolution_percentage // 100), max(1, r.resolution_y * r.resolution_percentage // 100)


def region(scene, width, height):
    """The part of the frame a render writes, (x0, y0, w, h) in pixels from
    the bottom left: the render region where one is set (truncated as
    Blender truncates it), else the whole frame."""
    r = scene.render
    if not r.use_border:
        return 0, 0, width, height
    x0, x1 = int(r.border_min_x * width), int(r.border_max_x * width)
    y0, y1 = int(r.border_min_y * height), int(r.border_max_y * height)
    x0, y0 = min(max(x0, 0), width - 1), min(max(y0, 0), height - 1)
    return x0, y0, max(1, min(x1, width) - x0), max(1, min(y1, height) - y0)


def crop(image, rect):
    """rect (x0, y0, w, h) of a frame's image, bottom row first."""
    x0, y0, w, h = rect
    return image[y0:y0 + h, x0:x0 + w]


class Run:
    """One sertrace render of an exported scene into folder: started,
    followed by its JSON lines, stopped as Ctrl-C stops it."""

    def __init__(self, sertrace, gltf, folder, args, aovs=(), preview_every=2.0):
        self.folder = folder
        self.out = os.path.join(folder, "render.pfm")
        self.preview = os.path.join(folder, "preview.pfm")
        self.aovs = list(aovs)
        self.command = [sertrace, "render", gltf, "-o", self.out, "--progress", "json",
                        "--preview", self.preview, "--preview-every", "%g" % preview_every] + list(args)
        if self.aovs:
            self.command += ["--aov", ",".join(self.aovs)]
        self.events = queue.Queue()
        self.stderr = []
        self.stopped = None  # when Esc was pressed (time.monotonic)
        self.done = None  # the "done" line: the files written, partial or not
        self.error = None  # the "error" line's message
        self.proc = None

    def start(self):
        # A kept folder's images of an earlier render must not pass for
        # this one's.
        stem = os.path.splitext(self.out)[0]
        for name in os.listdir(self.folder):
            path = os.path.join(self.folder, name)
            if path == self.preview or path.startswith(stem + ".") and name.endswith(".pfm"):
                os.remove(path)
        with open(os.path.join(self.folder, "command.txt"), "w") as f:
            f.write(shlex.join(self.command) + "\n")
        # Its own session: a Ctrl-C in Blender's terminal is Blender's, and
        # the engine tells sertrace to stop when Esc asks. A Blender that
        # dies leaves no render behind for long: sertrace's next JSON line
        # (a second at most while it renders) meets a closed pipe.
        self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, encoding="utf-8", errors="replace", bufsize=1,
                                     start_new_session=True)
        self._readers = [threading.Thread(target=f, daemon=True) for f in (self._read_events, self._read_stderr)]
        for t in self._readers:
            t.start()

    def _read_events(self):
        try:
            for line in self.proc.stdout:
                try:
                    ev = json.loads(line)
                except ValueError:
                    ev = None
                if isinstance(ev, dict):
                    self.events.put(ev)
                else:
                    self.stderr.append(line.rstrip("\n"))
        finally:
            self.events.put(None)  # the end, whatever happened

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))

    def stop(self):
        """Stop the render at its pass's end; it writes what it rendered.
        Asked again STOP_GRACE seconds later (a pass that does not end, a
        Blender quitting), the second SIGINT aborts it."""
        if self.proc is None or self.proc.poll() is not None:
            return
        now = time.monotonic()
        if self.stopped is None:
            self.stopped = now
            self.proc.send_signal(signal.SIGINT)
        elif now - self.stopped > STOP_GRACE:
            self.stopped = float("inf")  # once
            self.proc.send_signal(signal.SIGINT)

    def kill(self):
        """End sertrace, if it still runs: SIGINT (it ends its pass), then
        after a while SIGKILL."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def follow(self, on_event, should_stop, poll=0.1):
        """Call on_event with each JSON line until sertrace exits, stopping
        it when should_stop() says so; returns its exit status."""
        while True:
            if should_stop():
                self.stop()
            try:
                ev = self.events.get(timeout=poll)
            except queue.Empty:
                continue
            if ev is None:
                break
            if ev.get("event") == "done":
                self.done = ev
            elif ev.get("event") == "error":
                self.error = ev.get("message")
            on_event(ev)
        return self.wait()

    def wait(self):
        """sertrace's exit status, once it and what it wrote are read."""
        code = self.proc.wait()
        for t in self._readers:
            t.join(timeout=10)
        return code

    def failure(self):
        """The line sertrace said what went wrong in (its last 'sertrace: ' line)."""
        if self.error:
            return "sertrace: " + self.error
        for line in reversed(self.stderr):
            if line.startswith("sertrace: ") and not line.startswith("sertrace: removed "):
                return line
        return "sertrace exited with status %s%s" % (self.proc.returncode, (": " + self.stderr[-1]) if self.stderr else "")

    def images(self):
        """The beauty and each AOV written, as float32 arrays bottom row first."""
        out = {"beauty": pfm.read(self.out)}
        stem = os.path.splitext(self.out)[0]
        for a in self.aovs:
            path = "%s.%s.pfm" % (stem, a)
            if os.path.exists(path):
                out[a] = pfm.read(path)
        return out


def to_blender(aov, image):
    """An AOV's pixels (h, w, 3) as its Blender pass's: the normal from
    glTF's Y-up into Blender's Z-up, depth 1e10 where nothing was hit."""
    if aov == "normal":
        return numpy.stack([image[..., 0], -image[..., 2], image[..., 1]], axis=-1)
    if aov == "depth":
        d = image[..., :1].copy()
        d[d == 0] = BACKGROUND_DEPTH
        return d
    return image


def fill_pass(render_pass, pixels):
    """Copy pixels (h, w, c) into a render pass of as many or more channels."""
    h, w, c = pixels.shape
    n = render_pass.channels
    if c < n:  # RGB into RGBA: opaque
        pixels = numpy.concatenate([pixels, numpy.ones((h, w, n - c), numpy.float32)], axis=-1)
    render_pass.rect = numpy.ascontiguousarray(pixels[..., :n], numpy.float32).reshape(-1, n)


def work_folder(context, scene, view_layer):
    """A folder for one render: under the preferences' keep folder (kept;
    one per file, scene, view layer and frame), else a temporary one in
    Blender's temporary folder (removed after). Returns (path, keep)."""
    prefs = properties.preferences(context)
    keep = bpy.path.abspath(prefs.keep_folder) if prefs and prefs.keep_folder else ""
    if keep:
        blend = bpy.path.display_name_from_filepath(bpy.data.filepath) or "untitled"
        name = "%s-%s-%04d" % (blend, bpy.path.clean_name(scene.name), scene.frame_current)
        if len(scene.view_layers) > 1:
            name = "%s-%s-%04d" % (blend, bpy.path.clean_name(scene.name + "-" + view_layer.name), scene.frame_current)
        path = os.path.join(keep, name)
        os.makedirs(path, exist_ok=True)
        return path, True
    return tempfile.mkdtemp(prefix="sertrace-blender-", dir=bpy.app.tempdir or None), False


class SertraceRenderEngine(bpy.types.RenderEngine):
    bl_idname = "SERTRACE"
    bl_label = "sertrace"
    bl_use_preview = False  # material previews stay Blender's
    bl_use_eevee_viewport = True  # the viewport's material preview is Eevee's
    bl_use_postprocess = True
    bl_use_shading_nodes_custom = False  # the Shader Editor edits the materials the export reads

    def render(self, depsgraph):
        try:
            self._render(depsgraph)
        except (binary.SertraceMissing, SertraceError) as e:
            self._fail(str(e))
        except Exception as e:  # a bug here must not take Blender's render down with a traceback
            traceback.print_exc()
            self._fail("sertrace: the add-on failed: %s: %s (the console has the traceback)" % (type(e).__name__, e))

    def _fail(self, message):
        self.report({"ERROR"}, message)
        if hasattr(self, "error_set"):
            self.error_set(message)

    def _render(self, depsgraph):
        scene, view_layer = depsgraph.scene, depsgraph.view_layer
        settings = scene.sertrace
        prefs = properties.preferences()
        sertrace = binary.find(prefs.binary if prefs else "")
        width, height = resolution(scene)
        folder, keep = work_folder(bpy.context, scene, view_layer)
        try:
            self.update_stats("", "sertrace: exporting the scene")
            exp = export.export_scene(depsgraph, folder)
            for note in exp.notes:
                self.report({"WARNING"}, note)
            if not exp.renderable:
                raise SertraceError("sertrace: nothing to render: the scene has no mesh, hair or point cloud "
                                    "visible to the render")
            passes = properties.passes_of(view_layer)
            run = Run(sertrace, exp.gltf, folder, render_args(scene, settings, width, height) + exp.args,
                      [p[0] for p in passes], settings.preview_every)
            builtin = {spec[1] for spec in properties.BUILTIN.values()}
            for aov, name, channels, chan_id, _ in passes:
                if name not in builtin:  # Blender's own are there when their flags are on
                    self.add_pass(name, channels, chan_id, layer=view_layer.name)
            unrendered = properties.unrendered_passes(view_layer)
            if unrendered:
                self.report({"WARNING"}, "sertrace: the view layer's %s %s not rendered by sertrace: %s black" % (
                    ", ".join(unrendered), "pass is" if len(unrendered) == 1 else "passes are",
                    "it stays" if len(unrendered) == 1 else "they stay"))
            self._run(run, view_layer, width, height, settings.samples)
        finally:
            if not keep:
                shutil.rmtree(folder, ignore_errors=True)

    def _run(self, run, view_layer, width, height, spp):
        scene = view_layer.id_data
        # A render region is cut from the whole frame sertrace renders (a
        # result's coordinates are the region's own: Blender places it).
        rect = region(scene, width, height)
        if scene.render.use_border:
            self.report({"INFO"}, "sertrace: the render region is cut from a render of the whole frame")
        result = self.begin_result(0, 0, rect[2], rect[3], layer=view_layer.name)
        start = time.monotonic()

        def on_event(ev):
            kind = ev.get("event")
            if kind in ("progress", "pass"):
                self.update_progress(min(1.0, ev.get("done", 0.0)))
                left = ev.get("left")
                self.update_stats("", "sertrace: %.1f of %d samples, %.0f s%s" % (
                    ev.get("samples", 0), spp, ev.get("elapsed", 0), "" if left is None else ", %.0f s left" % left))
            elif kind == "preview":
                try:
                    fill_pass(result.layers[0].passes["Combined"], crop(pfm.read(ev["path"]), rect))
                    self.update_result(result)
                except (OSError, ValueError):
                    pass  # the next one will do

        ended = False
        try:
            run.start()
            code = run.follow(on_event, self.test_break)
            if run.done is None:  # nothing written: failed, or stopped before a pass ended
                if run.stopped is not None and not run.error:
                    self.report({"INFO"}, "sertrace: stopped before its first pass ended: nothing rendered")
                    return
                raise SertraceError(run.failure())
            images = run.images()
            fill_pass(result.layers[0].passes["Combined"], crop(images.pop("beauty"), rect))
            for aov, name, _, _, _ in properties.passes_of(view_layer):
                if aov in images and name in result.layers[0].passes:
                    fill_pass(result.layers[0].passes[name], crop(to_blender(aov, images[aov]), rect))
            self.end_result(result)
            ended = True
        finally:
            if not ended:
                run.kill()
                self.end_result(result, cancel=True)
        for line in run.stderr:  # the backend chosen, the loader's warnings, the summary
            if not line.startswith("sertrace: "):
                self.report({"INFO"}, "sertrace: " + line)
        if code != 0:  # stopped (partial), or a failure after some passes (kept)
            self.report({"WARNING"}, run.failure())
        self.update_stats("", "sertrace: done in %.1f s" % (time.monotonic() - start))

    def update_render_passes(self, scene=None, renderlayer=None):
        self.register_pass(scene, renderlayer, "Combined", 4, "RGBA", "COLOR")
        for aov, name, channels, chan_id, kind in properties.passes_of(renderlayer):
            self.register_pass(scene, renderlayer, name, channels, chan_id, kind)


def register():
    bpy.utils.register_class(SertraceRenderEngine)


def unregister():
    bpy.utils.unregister_class(SertraceRenderEngine)
