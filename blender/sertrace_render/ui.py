"""The engine's panels (Render and View Layer properties), and Blender's
own panels (dimensions, output, lights, camera, world, materials) opened
to it."""

import bpy

ENGINE = "SERTRACE"


def column(layout, heading=""):
    """A column of properties as Blender's own panels lay them out: labels
    split to the left, no animation decorators."""
    col = layout.column(heading=heading)
    col.use_property_split = True
    col.use_property_decorate = False
    return col


class SertracePanel:
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "render"
    COMPAT_ENGINES = {ENGINE}

    @classmethod
    def poll(cls, context):
        return context.engine in cls.COMPAT_ENGINES


class SERTRACE_PT_sampling(SertracePanel, bpy.types.Panel):
    bl_label = "Sampling"

    def draw(self, context):
        s = context.scene.sertrace
        col = column(self.layout)
        row = col.row(heading="Noise Threshold")
        row.prop(s, "use_adaptive_sampling", text="")
        sub = row.row()
        sub.active = s.use_adaptive_sampling
        sub.prop(s, "adaptive_threshold", text="")
        col.prop(s, "samples", text="Max Samples" if s.use_adaptive_sampling else "Samples")
        sub = col.row()
        sub.active = s.use_adaptive_sampling
        sub.prop(s, "adaptive_min_samples")
        col.prop(s, "time_limit")
        col.prop(s, "seed")
        col.prop(s, "filter")


class SERTRACE_PT_light_paths(SertracePanel, bpy.types.Panel):
    bl_label = "Light Paths"

    def draw(self, context):
        col = column(self.layout)
        col.prop(context.scene.sertrace, "max_bounces")


class SERTRACE_PT_denoising(SertracePanel, bpy.types.Panel):
    bl_label = "Denoising"
    bl_options = {"DEFAULT_CLOSED"}

    def draw_header(self, context):
        self.layout.prop(context.scene.sertrace, "denoise", text="")

    def draw(self, context):
        s = context.scene.sertrace
        col = column(self.layout)
        col.active = s.denoise
        col.prop(s, "denoiser")


class SERTRACE_PT_device(SertracePanel, bpy.types.Panel):
    bl_label = "Device"

    def draw(self, context):
        s = context.scene.sertrace
        col = column(self.layout)
        col.prop(s, "backend")
        sub = col.column()
        sub.active = s.backend != "cpu"
        sub.prop(s, "path")
        col.prop(s, "reorder")
        col.prop(s, "threads")
        col.prop(s, "preview_every")


class SERTRACE_PT_compare(SertracePanel, bpy.types.Panel):
    bl_label = "Reference"

    def draw(self, context):
        self.layout.operator("sertrace.compare_cycles", icon="IMAGE_REFERENCE")


class SERTRACE_PT_passes(SertracePanel, bpy.types.Panel):
    bl_label = "sertrace Passes"
    bl_context = "view_layer"

    def draw(self, context):
        vl = context.view_layer
        col = column(self.layout, "Data")
        col.prop(vl, "use_pass_z", text="Depth")
        col.prop(vl, "use_pass_normal", text="Normal")
        col.prop(vl.sertrace, "use_pass_albedo")
        col = column(self.layout, "Light")
        col.prop(vl.sertrace, "use_pass_diffuse")
        col.prop(vl.sertrace, "use_pass_specular")
        col.prop(vl, "use_pass_diffuse_color", text="Diffuse Color")
        col.prop(vl, "use_pass_glossy_color", text="Glossy Color")


classes = (SERTRACE_PT_sampling, SERTRACE_PT_light_paths, SERTRACE_PT_denoising, SERTRACE_PT_device,
           SERTRACE_PT_compare, SERTRACE_PT_passes)

# Blender's panels that make sense for sertrace too (those the legacy
# engine name opens: dimensions, output, camera, lights, world, materials),
# but not the passes and filters that are Eevee's.
EXCLUDED = {"VIEWLAYER_PT_filter", "VIEWLAYER_PT_layer_passes", "VIEWLAYER_PT_eevee_layer_passes_data",
            "VIEWLAYER_PT_eevee_layer_passes_light", "VIEWLAYER_PT_eevee_layer_passes_effects"}


# Eevee's own panels for what the export reads: the material slots and
# surface, the world's surface, the light's colour, power and size.
EEVEE_PANELS = {"EEVEE_MATERIAL_PT_context_material", "EEVEE_MATERIAL_PT_surface", "EEVEE_WORLD_PT_surface",
                "DATA_PT_EEVEE_light", "DATA_PT_EEVEE_light_distance", "DATA_PT_spot", "DATA_PT_area"}


def blender_panels():
    for panel in bpy.types.Panel.__subclasses__():
        engines = getattr(panel, "COMPAT_ENGINES", None)
        if engines is None or panel.__name__ in EXCLUDED:
            continue
        if "BLENDER_RENDER" in engines or panel.__name__ in EEVEE_PANELS:
            yield panel


def register():
    for c in classes:
        bpy.utils.register_class(c)
    for panel in blender_panels():
        panel.COMPAT_ENGINES.add(ENGINE)


def unregister():
    for panel in blender_panels():
        panel.COMPAT_ENGINES.discard(ENGINE)
    for c in reversed(classes):
        bpy.utils.unregister_class(c)
