"""The engine's settings: per scene (the render), per view layer (the
passes), and the add-on's preferences (where the binary is)."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty, StringProperty

ADDON = __package__


class SertracePreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON

    binary: StringProperty(
        name="sertrace binary", subtype="FILE_PATH",
        description="The sertrace program to run (empty: $SERTRACE, else sertrace on PATH)")
    keep_folder: StringProperty(
        name="Keep exports in", subtype="DIR_PATH",
        description="Keep each render's glTF export, the command line that rendered it and its images in this "
                    "folder (to run the render again outside Blender, or to report a problem); empty: a temporary "
                    "folder, removed after the render")

    def draw(self, context):
        self.layout.prop(self, "binary")
        self.layout.prop(self, "keep_folder")


def preferences(context=None):
    """The add-on's preferences (defaults where it is not registered as an add-on)."""
    addon = (context or bpy.context).preferences.addons.get(ADDON)
    return addon.preferences if addon else None


BACKENDS = [
    ("auto", "Automatic", "The best Vulkan device and path that runs the scene, else the CPU"),
    ("cpu", "CPU", "sertrace's CPU backend (Embree where it loads)"),
    ("vulkan", "GPU (Vulkan)", "A Vulkan device with ray tracing"),
]
PATHS = [
    ("auto", "Best", "The fastest path the device runs"),
    ("ser", "SER", "Ray-tracing pipeline with Shader Execution Reordering"),
    ("rt", "Ray tracing", "Ray-tracing pipeline, no reordering"),
    ("rt-sorted", "Ray tracing, sorted", "Wavefront on the ray-tracing pipeline, hits sorted by material"),
    ("rayquery", "Ray query", "Compute wavefront with ray queries"),
]
REORDERS = [
    ("material", "Material", "Reorder by material"),
    ("coherence", "Coherence", "Reorder by material and path state"),
    ("shader", "Shader", "Reorder by hit shader"),
    ("none", "None", "No reordering"),
]
DENOISERS = [
    ("auto", "Automatic", "OIDN's network where its weights are installed, else the regression filter"),
    ("network", "Network", "OIDN's networks run by sertrace (sertrace weights fetch installs them)"),
    ("regression", "Regression", "sertrace's regression filter"),
]


FILTERS = [
    ("blackman-harris", "Blackman-Harris", "3 pixels wide, as Cycles' default (1.5 px Blackman-Harris)"),
    ("gaussian", "Gaussian", "σ 0.5 pixel, 3 pixels wide"),
    ("box", "Box", "One pixel"),
]


class SertraceRenderSettings(bpy.types.PropertyGroup):
    samples: IntProperty(name="Samples", default=64, min=1, max=1 << 24, soft_max=4096,
                         description="Samples per pixel")
    max_bounces: IntProperty(name="Max Bounces", default=7, min=0, max=1023,
                             description="Bounces after the first hit, as Cycles counts them "
                                         "(sertrace's --max-depth is one more)")
    use_adaptive_sampling: BoolProperty(name="Noise Threshold", default=False,
                                        description="Stop sampling each pixel once its noise is below the "
                                                    "threshold (Samples is then the most a pixel takes)")
    adaptive_threshold: FloatProperty(name="Noise Threshold", default=0.01, min=0.0001, max=1.0, soft_min=0.001,
                                      precision=4, description="The noise at which a pixel stops "
                                                               "(sertrace's --noise-threshold; Cycles' default 0.01)")
    adaptive_min_samples: IntProperty(name="Min Samples", default=0, min=0, max=1 << 24,
                                      description="Samples every pixel takes before it may stop (0: automatic, "
                                                  "64 at 0.01)")
    seed: IntProperty(name="Seed", default=0, min=0, description="Selects the random streams")
    time_limit: FloatProperty(name="Time Limit", default=0.0, min=0.0, unit="TIME_ABSOLUTE", subtype="TIME_ABSOLUTE",
                              description="Stop after this many seconds, at a pass's end (0: no limit)")
    denoise: BoolProperty(name="Denoise", default=False,
                          description="Denoise the image (the noisy one stays in the folder kept, if any)")
    denoiser: EnumProperty(name="Denoiser", items=DENOISERS, default="auto")
    backend: EnumProperty(name="Device", items=BACKENDS, default="auto")
    path: EnumProperty(name="GPU Path", items=PATHS, default="auto")
    reorder: EnumProperty(name="Reorder", items=REORDERS, default="material",
                          description="How threads or hits are reordered before shading")
    filter: EnumProperty(name="Pixel Filter", items=FILTERS, default="blackman-harris")
    threads: IntProperty(name="Threads", default=0, min=0, max=1024,
                         description="CPU threads (0: Blender's own setting)")
    preview_every: FloatProperty(name="Refresh", default=2.0, min=0.0, max=600.0, subtype="TIME_ABSOLUTE",
                                 unit="TIME_ABSOLUTE",
                                 description="Seconds at least between two updates of the image while it renders")


# sertrace's AOVs (--aov names) and the render pass each becomes: Blender's
# own pass where it has one, a named pass otherwise.
# name: (aov, pass name, channels, channel ids, type)
PASSES = {
    "albedo": ("albedo", "Denoising Albedo", 3, "RGB", "COLOR"),
    "diffuse": ("diffuse", "sertrace Diffuse", 3, "RGB", "COLOR"),
    "specular": ("specular", "sertrace Specular", 3, "RGB", "COLOR"),
}
# Blender's own passes sertrace fills, by their flags on the view layer.
BUILTIN = {
    "use_pass_z": ("depth", "Depth", 1, "Z", "VALUE"),
    "use_pass_normal": ("normal", "Normal", 3, "XYZ", "VECTOR"),
    "use_pass_diffuse_color": ("diffuse_albedo", "DiffCol", 3, "RGB", "COLOR"),
    "use_pass_glossy_color": ("specular_albedo", "GlossCol", 3, "RGB", "COLOR"),
}
# Blender's passes sertrace does not render: left on (from Cycles, say),
# they stay black, and the render says so.
UNRENDERED = ("use_pass_mist", "use_pass_emit", "use_pass_environment", "use_pass_ambient_occlusion",
              "use_pass_shadow", "use_pass_position", "use_pass_vector", "use_pass_uv", "use_pass_object_index",
              "use_pass_material_index", "use_pass_diffuse_direct", "use_pass_diffuse_indirect",
              "use_pass_glossy_direct", "use_pass_glossy_indirect", "use_pass_transmission_direct",
              "use_pass_transmission_indirect", "use_pass_transmission_color", "use_pass_cryptomatte_object",
              "use_pass_cryptomatte_material", "use_pass_cryptomatte_asset")


def unrendered_passes(view_layer):
    """The names of the view layer's passes that are on and that sertrace
    does not render."""
    return [f[len("use_pass_"):] for f in UNRENDERED if getattr(view_layer, f, False)]


def _passes_changed(self, context):
    """The compositor's Render Layers node shows the passes now asked for."""
    context.view_layer.update_render_passes()


class SertraceViewLayerSettings(bpy.types.PropertyGroup):
    use_pass_albedo: BoolProperty(name="Albedo", description="The first hit's albedo, as Denoising Albedo",
                                  update=_passes_changed)
    use_pass_diffuse: BoolProperty(name="Diffuse", description="The light diffusely reflected (sertrace Diffuse)",
                                   update=_passes_changed)
    use_pass_specular: BoolProperty(name="Specular", description="The light specularly reflected (sertrace Specular)",
                                    update=_passes_changed)


def passes_of(view_layer):
    """The passes a view layer asks for, as (aov, pass name, channels,
    channel ids, type): Blender's Depth and Normal flags, and the sertrace
    ones."""
    out = [spec for flag, spec in BUILTIN.items() if getattr(view_layer, flag, False)]
    s = getattr(view_layer, "sertrace", None)
    if s is not None:
        out += [spec for name, spec in PASSES.items() if getattr(s, "use_pass_" + name)]
    return out


classes = (SertracePreferences, SertraceRenderSettings, SertraceViewLayerSettings)


def register():
    for c in classes:
        bpy.utils.register_class(c)
    bpy.types.Scene.sertrace = PointerProperty(type=SertraceRenderSettings)
    bpy.types.ViewLayer.sertrace = PointerProperty(type=SertraceViewLayerSettings)


def unregister():
    del bpy.types.ViewLayer.sertrace
    del bpy.types.Scene.sertrace
    for c in reversed(classes):
        bpy.utils.unregister_class(c)
