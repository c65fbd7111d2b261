"""Materials: what Blender's glTF exporter cannot carry of a surface (the
notes, mostly of the Principled BSDF), and plain glTF materials from a
Principled BSDF's values for what the exporter does not write (strands,
points, objects in edit mode)."""

import math

import numpy as np

from .shader_nodes import input_value, is_linked, linked_source, output_node, surface_shader

# Principled BSDF inputs that Blender's exporter does not carry: (input,
# the value at which it has no effect, what to say). Blender 3.x's names,
# then 4.x's.
_PRINCIPLED_NOT_CARRIED_3 = (
    ("Subsurface", 0.0, "Subsurface is not carried"),
    ("Sheen", 0.0, "Sheen is not carried"),
    ("Anisotropic", 0.0, "Anisotropic is not carried"),
)
_PRINCIPLED_NOT_CARRIED_4 = (
    ("Subsurface Weight", 0.0, "Subsurface is not carried"),
    ("Diffuse Roughness", 0.0, "Diffuse Roughness is not carried"),
    ("Thin Film Thickness", 0.0, "Thin Film is not carried"),
)
# Inputs whose links the exporter follows to an image (others, linked to
# procedural nodes, go out as their default values).
_PRINCIPLED_TEXTURED = ("Base Color", "Metallic", "Roughness", "Normal", "Emission", "Emission Color",
                        "Alpha", "Clearcoat", "Clearcoat Roughness", "Clearcoat Normal", "Coat Weight",
                        "Coat Roughness", "Coat Normal", "Transmission", "Transmission Weight", "Specular",
                        "Specular IOR Level", "Specular Tint", "Sheen Weight", "Sheen Tint", "Sheen Roughness",
                        "Anisotropic", "Emission Strength")


def material_notes(mat):
    """What Blender's glTF exporter cannot carry of mat's surface, as
    lines "material 'NAME': ..."."""
    if mat is None:
        return []
    name = mat.name
    say = lambda what: "material '%s': %s" % (name, what)
    if not mat.use_nodes or mat.node_tree is None:
        return [say("has no shader nodes: the exporter's default material is used")]
    out_node = output_node(mat.node_tree, "OUTPUT_MATERIAL")
    if out_node is None:
        return [say("has no Material Output: the exporter's default material is used")]
    lines = []
    if linked_source(out_node.inputs["Volume"])[0] is not None:
        lines.append(say("Volume is not carried"))
    if linked_source(out_node.inputs["Displacement"])[0] is not None:
        lines.append(say("Displacement is not carried"))
    shader, _ = linked_source(out_node.inputs["Surface"])
    if shader is None:
        return lines + [say("has nothing linked to its Surface: it renders black in Cycles, not in sertrace")]
    if shader.type == "BSDF_PRINCIPLED":
        lines += [say(w) for w in _principled_notes(mat, shader)]
    elif shader.type == "EMISSION":
        pass  # the exporter writes it as an emissive material with a black base
    elif shader.type in ("MIX_SHADER", "ADD_SHADER"):
        principled = _upstream(shader, "BSDF_PRINCIPLED")
        kinds = sorted({n.bl_label for n in _upstream_shaders(shader)} - {"Principled BSDF"})
        if principled is not None:
            lines.append(say("only its Principled BSDF is carried (not the %s around it%s)" % (
                shader.bl_label, ": " + ", ".join(kinds) if kinds else "")))
            lines += [say(w) for w in _principled_notes(mat, principled)]
        else:
            lines.append(say("%s of %s is not carried: the exporter's default material is used" % (
                shader.bl_label, ", ".join(kinds) or "shaders")))
    else:
        lines.append(say("shader '%s' is not carried (only the Principled BSDF and Emission are)" % shader.bl_label))
    return lines


def _upstream_shaders(node, depth=0):
    """The shader nodes that feed a Mix or Add Shader."""
    found = []
    if depth > 8:
        return found
    for sock in node.inputs:
        if sock.type != "SHADER":
            continue
        src, _ = linked_source(sock)
        if src is None:
            continue
        if src.type in ("MIX_SHADER", "ADD_SHADER"):
            found += _upstream_shaders(src, depth + 1)
        else:
            found.append(src)
    return found


def _upstream(node, kind):
    for n in _upstream_shaders(node):
        if n.type == kind:
            return n
    return None


def _principled_notes(mat, bsdf):
    """What the exporter leaves out of a Principled BSDF (3.x or 4.x)."""
    v4 = "Subsurface Weight" in bsdf.inputs
    lines = []
    for name, neutral, what in (_PRINCIPLED_NOT_CARRIED_4 if v4 else _PRINCIPLED_NOT_CARRIED_3):
        if name in bsdf.inputs and (is_linked(bsdf, name) or abs(input_value(bsdf, name) - neutral) > 1e-6):
            lines.append(what)
    if v4:
        coat = input_value(bsdf, "Coat Weight") or 0.0
        if coat > 0 or is_linked(bsdf, "Coat Weight"):
            if abs(input_value(bsdf, "Coat IOR") - 1.5) > 1e-4:
                lines.append("Coat IOR is not carried (glTF's clearcoat has IOR 1.5)")
            tint = input_value(bsdf, "Coat Tint")
            if is_linked(bsdf, "Coat Tint") or (tint and any(abs(c - 1) > 1e-4 for c in tint[:3])):
                lines.append("Coat Tint is not carried")
    else:
        tr = input_value(bsdf, "Transmission") or 0.0
        if (tr > 0 or is_linked(bsdf, "Transmission")) and (input_value(bsdf, "Transmission Roughness") or 0) > 0:
            lines.append("Transmission Roughness is not carried")
        # The 3.x exporter takes the alpha mode from the material's Blend
        # Mode (an EEVEE setting); Cycles always uses Alpha.
        alpha = input_value(bsdf, "Alpha")
        if (is_linked(bsdf, "Alpha") or (alpha is not None and alpha < 1)) and mat.blend_method == "OPAQUE":
            lines.append("Alpha is not carried while its Blend Mode is Opaque (set Alpha Clip, Hashed or Blend)")
    for name in _PRINCIPLED_TEXTURED:
        sock = bsdf.inputs.get(name)
        if sock is not None and sock.is_linked and not _is_image_path(sock):
            node, _ = linked_source(sock)
            if node is not None:
                lines.append("%s is driven by '%s', which is not carried (only image textures are)" % (name, node.bl_label))
    if is_linked(bsdf, "Tangent", "Anisotropic Rotation"):
        lines.append("the anisotropy's tangent or rotation is not carried")
    return lines


def _is_image_path(socket, depth=0):
    """Whether what feeds socket is an image (possibly through a normal
    map, a channel split or a multiply): what the exporter bakes into a
    texture. Procedural nodes are not."""
    node, _ = linked_source(socket)
    if node is None or depth > 4:
        return False
    if node.type == "TEX_IMAGE":
        return True
    if node.type in ("NORMAL_MAP", "SEPRGB", "SEPARATE_RGB", "SEPARATE_COLOR", "SEPXYZ", "BUMP",
                     "MIX_RGB", "MIX", "MATH", "VECT_MATH", "GAMMA", "INVERT", "CURVE_RGB"):
        return any(_is_image_path(s, depth + 1) for s in node.inputs if s.is_linked)
    return False


def _principled_of(mat):
    """The Principled BSDF that the surface of mat uses, or None."""
    shader = surface_shader(mat)
    if shader is None:
        return None
    if shader.type == "BSDF_PRINCIPLED":
        return shader
    if shader.type in ("MIX_SHADER", "ADD_SHADER"):
        return _upstream(shader, "BSDF_PRINCIPLED")
    return None


def plain_material(out, mat, notes):
    """A material from mat's Principled BSDF values (base colour, metallic,
    roughness, specular, emission; no textures) for what the exporter does
    not write (strands, points, objects in edit mode), or from its
    viewport colour."""
    key = ("plain", mat.name_full if mat is not None else None)

    def make():
        if mat is None:
            return {"name": "default", "pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.8, 0.8, 1]}}
        bsdf = _principled_of(mat)
        if bsdf is None:
            notes.add("material '%s': only a Principled BSDF is carried on strands, points and objects in edit mode: "
                      "its viewport colour is used" % mat.name)
            c = list(mat.diffuse_color)
            return {"name": mat.name, "pbrMetallicRoughness": {"baseColorFactor": c[:3] + [1.0],
                                                               "metallicFactor": float(mat.metallic),
                                                               "roughnessFactor": float(mat.roughness)}}
        for line in material_notes(mat):
            notes.add(line)
        base = input_value(bsdf, "Base Color")
        pbr = {"baseColorFactor": [float(c) for c in base[:3]] + [1.0],
               "metallicFactor": input_value(bsdf, "Metallic"), "roughnessFactor": input_value(bsdf, "Roughness")}
        m = {"name": mat.name, "pbrMetallicRoughness": pbr, "extensions": {}}
        # Specular: Blender's 0.5 is glTF's F0 of 0.04 (specularFactor 1);
        # above it, a higher IOR (glTF's factor stops at 1).
        level = input_value(bsdf, "Specular IOR Level", "Specular")
        if level is not None and abs(level - 0.5) > 1e-6:
            m["extensions"]["KHR_materials_specular"] = {"specularFactor": min(2.0 * level, 1.0)}
            out.use_extension("KHR_materials_specular")
            if level > 0.5:
                f0 = math.sqrt(min(0.08 * level, 0.99))
                m["extensions"]["KHR_materials_ior"] = {"ior": (1 + f0) / (1 - f0)}
                out.use_extension("KHR_materials_ior")
        color = input_value(bsdf, "Emission Color", "Emission")
        strength = input_value(bsdf, "Emission Strength")
        if color is not None and strength:
            e = np.array(color[:3], np.float64) * strength
            if e.max() > 0:
                scale = max(1.0, float(e.max()))
                m["emissiveFactor"] = [float(v) for v in e / scale]
                if scale > 1:
                    m["extensions"]["KHR_materials_emissive_strength"] = {"emissiveStrength": scale}
                    out.use_extension("KHR_materials_emissive_strength")
        if not m["extensions"]:
            del m["extensions"]
        if is_linked(bsdf, "Base Color", "Metallic", "Roughness"):
            notes.add("material '%s': its textures are not carried on strands, points and objects in edit mode: "
                      "its inputs' values are used" % mat.name)
        return m

    return out.material(key, make)
