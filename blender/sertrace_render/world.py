"""The world as sertrace's environment flags: a colour, or an
equirectangular image as a Radiance .hdr (the image's own file where
sertrace reads it, else its pixels written as ENV_FILE)."""

import math
import os

import bpy
import numpy as np

from .hdr import is_plain_radiance, write_hdr
from .shader_nodes import input_value, is_linked, linked_source, output_node

ENV_FILE = "world.hdr"  # the environment image written, in the export's folder


def world_args(depsgraph, folder, notes):
    """sertrace's environment flags for the scene's world: a colour
    (--env-color), or an equirectangular image (--env, --env-intensity,
    --env-rotation)."""
    # The evaluated world: animated or driven values at the render's frame.
    world = depsgraph.scene_eval.world
    if world is None:
        return ["--env-color", "0,0,0"]
    say = lambda what: notes.add("world '%s': %s" % (world.name, what))
    fallback = ["--env-color", _rgb(world.color[:3])]
    if not world.use_nodes or world.node_tree is None:
        return fallback
    out = output_node(world.node_tree, "OUTPUT_WORLD")
    if out is None:
        return ["--env-color", "0,0,0"]
    if linked_source(out.inputs["Volume"])[0] is not None:
        say("Volume is not carried")
    bg, _ = linked_source(out.inputs["Surface"])
    if bg is None:
        return ["--env-color", "0,0,0"]
    if bg.type != "BACKGROUND":
        say("its surface is a %s, not a Background: its viewport colour is used" % bg.bl_label)
        return fallback
    strength = input_value(bg, "Strength")
    if is_linked(bg, "Strength"):
        say("its Strength is linked to nodes: its own value (%g) is used" % strength)
    src, _ = linked_source(bg.inputs["Color"])
    if src is None:
        return ["--env-color", _rgb(np.array(input_value(bg, "Color")[:3]) * strength)]
    if src.type != "TEX_ENVIRONMENT":
        say("its Color comes from a %s, which is not carried: its viewport colour is used" % src.bl_label)
        return fallback
    if src.image is None:
        say("its Environment Texture has no image: black")
        return ["--env-color", "0,0,0"]
    if src.projection != "EQUIRECTANGULAR":
        say("the Environment Texture's %s projection is not carried: read as equirectangular" % src.projection.lower())
    rotation = _environment_rotation(src, say)
    path = _environment_file(src.image, folder, say)
    if path is None:
        return ["--env-color", "0,0,0"]
    # Cycles' equirectangular u = 0.5 - atan2(y, x)/2π of the mapped
    # direction (Z up; Mapping's Z rotation adds to atan2); sertrace's u =
    # atan2(X, -Z)/2π + 0.5 - rotation/2π (Y up, X = x, Z = -y), which is
    # 0.75 - atan2(y, x)/2π - rotation/2π: the same texel for rotation =
    # the Mapping's Z + 90°. (Checked against Cycles by test_export.py.)
    return ["--env", path, "--env-intensity", "%.9g" % strength, "--env-rotation", "%.9g" % (math.degrees(rotation) + 90.0)]


def _rgb(c):
    return ",".join("%.9g" % max(float(v), 0.0) for v in c)


def _environment_rotation(tex, say):
    """The Z rotation (radians) that a Mapping node before the Environment
    Texture applies to the direction; other transforms are said."""
    node, _ = linked_source(tex.inputs["Vector"])
    if node is None:
        return 0.0
    if node.type == "TEX_COORD":
        return 0.0
    if node.type != "MAPPING":
        say("the Environment Texture's vector comes from a %s, which is not carried" % node.bl_label)
        return 0.0
    src, sock = linked_source(node.inputs["Vector"])
    if src is not None and not (src.type == "TEX_COORD" and sock.name == "Generated"):
        say("the Mapping's vector comes from %s, which is not carried" % (src.bl_label + " " + sock.name))
    for name in ("Location", "Rotation", "Scale"):
        if name in node.inputs and node.inputs[name].enabled and node.inputs[name].is_linked:
            say("the Mapping's %s is linked to nodes: its own value is used" % name)
    rot = input_value(node, "Rotation") or (0.0, 0.0, 0.0)
    loc = input_value(node, "Location") or (0.0, 0.0, 0.0)
    scale = input_value(node, "Scale") or (1.0, 1.0, 1.0)
    if abs(rot[0]) > 1e-6 or abs(rot[1]) > 1e-6:
        say("the Mapping's X and Y rotations are not carried (only Z)")
    if node.vector_type in ("POINT", "TEXTURE") and any(abs(v) > 1e-6 for v in loc):
        say("the Mapping's Location is not carried")
    if not (scale[0] > 0 and abs(scale[0] - scale[1]) < 1e-6 and abs(scale[0] - scale[2]) < 1e-6):
        say("the Mapping's Scale is not carried")
    # TEXTURE maps the texture, the inverse of POINT's transform of the vector.
    return -rot[2] if node.vector_type == "TEXTURE" else rot[2]


def _environment_file(image, folder, say):
    """A Radiance .hdr of image for --env: the image's own file where it is
    one sertrace reads and unchanged, else its pixels written into folder."""
    img = image.original if image.original is not None else image
    if img.source == "FILE" and not img.is_dirty and img.packed_file is None:
        src = bpy.path.abspath(img.filepath_raw, library=img.library)
        if src.lower().endswith(".hdr") and os.path.isfile(src) and is_plain_radiance(src):
            return os.path.abspath(src)
    if img.source not in ("FILE", "GENERATED"):
        say("the Environment Texture's %s image is not carried" % img.source.lower())
        return None
    n = len(img.pixels)
    w, h = img.size
    if n == 0 or w == 0 or h == 0:
        say("the Environment Texture's image '%s' has no pixels" % img.name)
        return None
    ch = n // (w * h)
    px = np.zeros(n, np.float32)
    img.pixels.foreach_get(px)
    px = px.reshape(h, w, ch)
    rgb = px[:, :, :3] if ch >= 3 else np.repeat(px[:, :, :1], 3, axis=2)
    if not img.is_float:
        space = img.colorspace_settings.name
        if space == "sRGB":
            rgb = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        elif space not in ("Linear", "Linear Rec.709", "Non-Color", "Raw", "Linear BT.709", "Linear CIE-XYZ E"):
            say("the Environment Texture's colour space %s is read as linear" % space)
    path = os.path.join(folder, ENV_FILE)
    write_hdr(path, rgb[::-1])  # Blender's rows go up, a .hdr's down
    return path
