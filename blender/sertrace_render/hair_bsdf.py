"""The Principled Hair BSDF as sertrace's hair model: the material's
extras (`sertrace.hair`: roughnesses, tilt, IOR and σ_a computed as Cycles
computes it), with a base colour for viewers."""

import math

import numpy as np

from .materials import plain_material
from .shader_nodes import input_value, surface_shader

# sertrace's limits on its hair model (render/layout): roughnesses below
# HAIR_BETA_MIN are clamped, a colour channel below HAIR_COLOR_MIN too.
HAIR_BETA_MIN = 0.01
HAIR_COLOR_MIN = 1e-4

# Cycles' absorption of eumelanin and pheomelanin (its
# sigma_from_concentration; pbrt's, which sertrace's eumelanin and
# pheomelanin keys use, are 0.419, 0.697, 1.37 and 0.187, 0.4, 1.05).
CYCLES_EUMELANIN_SIGMA = np.array([0.506, 0.841, 1.653])
CYCLES_PHEOMELANIN_SIGMA = np.array([0.343, 0.733, 1.924])


def _hair_color_d(beta_n):
    """The denominator of pbrt's fit of a fibre's colour to σ_a, for β_n."""
    b = beta_n
    return 5.969 - 0.215 * b + 2.532 * b ** 2 - 10.73 * b ** 3 + 5.574 * b ** 4 + 0.245 * b ** 5


def sigma_from_color(color, beta_n):
    """σ_a of a fibre of colour color (pbrt's and Cycles' fit)."""
    c = np.clip(np.asarray(color, np.float64)[:3], HAIR_COLOR_MIN, 1.0)
    return (np.log(c) / _hair_color_d(beta_n)) ** 2


def color_from_sigma(sigma, beta_n):
    """The colour that sigma_from_color maps to sigma (its exact inverse)."""
    return np.exp(-np.sqrt(np.maximum(np.asarray(sigma, np.float64), 0.0)) * _hair_color_d(beta_n))


def melanin_concentrations(melanin, redness):
    """Cycles' melanin and redness as eumelanin and pheomelanin
    concentrations (Bitterli's remapping, as Cycles does)."""
    q = -math.log(max(1.0 - melanin, 1e-4))
    return q * (1.0 - redness), q * redness


def hair_model(node):
    """sertrace's hair model (a dict for the material's extras) from a
    Principled Hair BSDF, the base colour a viewer should show, and what is
    not carried (lines without the material's name)."""
    notes = []
    get = lambda name: input_value(node, name)
    for name in ("Melanin", "Melanin Redness", "Tint", "Color", "Absorption Coefficient", "Roughness",
                 "Radial Roughness", "Coat", "IOR", "Offset", "Random Color", "Random Roughness"):
        sock = node.inputs.get(name)
        if sock is not None and sock.enabled and sock.is_linked:
            notes.append("the hair's %s is linked to nodes: its own value is used" % name)
    huang = getattr(node, "model", "CHIANG") == "HUANG"
    beta_m = get("Roughness")
    beta_n = get("Radial Roughness") if not huang else beta_m
    if huang:
        notes.append("the Huang hair model is rendered with Chiang's (Aspect Ratio and the lobe weights are not carried)")
    model = {"beta_m": beta_m, "beta_n": beta_n, "alpha": -math.degrees(get("Offset")), "eta": get("IOR")}
    bn = max(beta_n, HAIR_BETA_MIN)
    param = node.parametrization
    if param == "MELANIN":
        # Cycles' absorption: its pigment spectra (not pbrt's, which
        # sertrace's eumelanin and pheomelanin use) plus the tint's, as
        # sigma_a, which sertrace takes as it is.
        eu, pheo = melanin_concentrations(get("Melanin"), get("Melanin Redness"))
        sigma = eu * CYCLES_EUMELANIN_SIGMA + pheo * CYCLES_PHEOMELANIN_SIGMA
        tint = np.asarray(get("Tint")[:3], np.float64)
        if not np.all(np.abs(tint - 1) < 1e-6):
            sigma = sigma + sigma_from_color(tint, bn)
        model["sigma_a"] = [float(c) for c in sigma]
    elif param == "COLOR":
        # The same fit of colour to σ_a in Cycles and sertrace.
        model["color"] = [float(c) for c in get("Color")[:3]]
        sigma = sigma_from_color(model["color"], bn)
    else:  # ABSORPTION
        sigma = np.maximum(np.asarray(get("Absorption Coefficient")[:3], np.float64), 0.0)
        model["sigma_a"] = [float(c) for c in sigma]
    if not huang and (get("Coat") or 0) > 0:
        notes.append("the hair's Coat is not carried")
    if huang:
        for name in ("Reflection", "Transmission", "Secondary Reflection"):
            v = get(name)
            if v is not None and abs(v - 1) > 1e-6:
                notes.append("the hair's %s lobe weight is not carried" % name)
    for name in ("Random Color", "Random Roughness"):
        v = get(name)
        if v is not None and v > 0 and (name != "Random Color" or param == "MELANIN"):
            notes.append("the hair's %s is not carried" % name)
    if min(beta_m, beta_n) < HAIR_BETA_MIN:
        notes.append("the hair's roughness below %g is rendered as %g" % (HAIR_BETA_MIN, HAIR_BETA_MIN))
    base = np.clip(color_from_sigma(sigma, bn), 0.0, 1.0)
    return model, [float(c) for c in base], notes


def hair_material(out, mat, notes):
    """The glTF material of strands of mat: sertrace's hair model when mat
    is a Principled Hair BSDF, else a plain one."""
    shader = surface_shader(mat)
    if shader is None or shader.type != "BSDF_HAIR_PRINCIPLED":
        if mat is not None and shader is not None and shader.type in ("BSDF_HAIR",):
            notes.add("material '%s': the Hair BSDF is not carried (only the Principled Hair BSDF is)" % mat.name)
        return plain_material(out, mat, notes)

    def make():
        model, base, lines = hair_model(shader)
        for line in lines:
            notes.add("material '%s': %s" % (mat.name, line))
        return {"name": mat.name,
                "pbrMetallicRoughness": {"baseColorFactor": base + [1.0], "metallicFactor": 0.0, "roughnessFactor": 0.5},
                "extras": {"sertrace": {"hair": model}}}

    return out.material(("hair", mat.name_full), make)
