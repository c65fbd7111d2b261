"""Screenshots of the Blender add-on for the guide: the engine's panels,
an F12 render in progress and the comparison with Cycles, taken from a
real Blender window (under Xvfb here):

    xvfb-run -a -s "-screen 0 1280x800x24" blender SCENE.blend --factory-startup \\
        -P docs/images/blender_screens.py -- SERTRACE OUT_DIR

($SHOT_SPP sets the samples, 256 by default.)
SCENE.blend is blender/tests/make_scene.py's. Blender quits when done.
"""

import os
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
os.environ["SERTRACE"], out = os.path.abspath(argv[0]), os.path.abspath(argv[1])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "blender"))
import addon_utils  # noqa: E402

addon_utils.enable("sertrace_render", default_set=True)
scene = bpy.context.scene
scene.render.engine = "SERTRACE"
scene.render.resolution_percentage = 300  # 480x360
scene.sertrace.samples = int(os.environ.get("SHOT_SPP", "256"))
scene.sertrace.preview_every = 1.0
bpy.context.preferences.view.render_display_type = "SCREEN"  # F12 fills the window
state = {"rendered": False, "step": 0}
bpy.app.handlers.render_complete.append(lambda *a: state.update(rendered=True))
bpy.app.handlers.render_cancel.append(lambda *a: state.update(rendered=True))


def area_of(kind, window=None):
    for w in [window] if window else bpy.context.window_manager.windows:
        for a in w.screen.areas:
            if a.type == kind:
                return w, a
    return None, None


def shot(window, area, name):
    with bpy.context.temp_override(window=window, area=area):
        bpy.ops.screen.screenshot_area(filepath=os.path.join(out, name))
    print("wrote", name, flush=True)


def step():
    s = state["step"]
    if s == 0:
        w, a = area_of("PROPERTIES")
        a.spaces.active.context = "RENDER"
        state["step"] = 1
        return 1.0
    if s == 1:
        w, a = area_of("PROPERTIES")
        shot(w, a, "blender-panel.png")
        bpy.ops.render.render("INVOKE_DEFAULT")
        state["step"] = 2
        return 6.0
    if s == 2:  # the render window, mid-render
        w = bpy.context.window_manager.windows[-1]
        shot(w, w.screen.areas[0], "blender-render.png")
        state["step"] = 3
        return 1.0
    if s == 3:
        if not state["rendered"]:
            return 1.0
        w = bpy.context.window_manager.windows[0]
        with bpy.context.temp_override(window=w):
            bpy.ops.sertrace.compare_cycles("INVOKE_DEFAULT", folder=os.path.join(out, "compare"))
        state["step"] = 4
        return 2.0
    if s == 4:
        if not os.path.exists(os.path.join(out, "compare", "figures.json")):
            return 2.0
        state["step"] = 5
        return 2.0
    if s == 5:
        w, a = area_of("IMAGE_EDITOR", bpy.context.window_manager.windows[-1])
        if a is None:
            w, a = area_of("IMAGE_EDITOR")
        region = [r for r in a.regions if r.type == "WINDOW"][0]
        with bpy.context.temp_override(window=w, area=a, region=region):
            bpy.ops.image.view_all(fit_view=True)
        state["step"] = 6
        return 1.0
    w, a = area_of("IMAGE_EDITOR", bpy.context.window_manager.windows[-1])
    if a is None:
        w, a = area_of("IMAGE_EDITOR")
    shot(w, a, "blender-compare.png")
    bpy.ops.wm.quit_blender()
    return None


bpy.app.timers.register(step, first_interval=3.0)
