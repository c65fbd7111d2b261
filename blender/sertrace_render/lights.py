"""Lights in Cycles' units, measured against Cycles (Blender's exporter's
are photometric): point, spot and sun lights as KHR_lights_punctual, area
lights as emissive polygons."""

import math
import types

import bpy
import numpy as np

from .gltf_doc import TO_GLTF, apply_matrix, gltf_points, node_rotation
from .shader_nodes import input_value, is_linked, linked_source, output_node


def light_record(light):
    """What the export reads of an evaluated light, copied while its
    depsgraph instance lives."""
    cycles = getattr(light, "cycles", None)
    get = lambda name, default=0.0: getattr(light, name, default)
    return types.SimpleNamespace(
        name=light.name, type=light.type, color=tuple(light.color[:3]), energy=float(light.energy),
        exposure=float(get("exposure")), shadow_soft_size=float(get("shadow_soft_size")), angle=float(get("angle")),
        spot_size=float(get("spot_size")), spot_blend=float(get("spot_blend")), shape=get("shape", "SQUARE"),
        size=float(get("size")), size_y=float(get("size_y")), spread=float(get("spread", math.pi)),
        normalize=bool(get("normalize", True)),
        casts_shadow=bool(get("use_shadow", True)) and bool(getattr(cycles, "cast_shadow", True)),
        is_portal=bool(getattr(cycles, "is_portal", False)),
        uses_nodes=bool(get("use_nodes", False)) and light.node_tree is not None and _light_uses_nodes(light))


def _light_power(light):
    """The light's power (W, or W/m² for a sun) with Blender 4.x's exposure."""
    return light.energy * 2.0 ** light.exposure


def write_lights(out, scan, notes):
    """Point, spot and sun lights as KHR_lights_punctual in Cycles' units
    (sertrace's punctual lights are radiometric: W/sr and W/m²); area
    lights as emissive polygons."""
    lights = []
    used = {}
    for name, light, matrix in scan.lights:
        count = used.get(name, 0)
        used[name] = count + 1
        node_name = name if count == 0 else "%s.%d" % (name, count)
        say = lambda what: notes.add("light '%s': %s" % (name, what))
        if light.uses_nodes:
            say("its shader nodes are not carried")
        color = [float(c) for c in light.color[:3]]
        power = _light_power(light)
        if light.type == "AREA":
            if light.is_portal:
                say("portals are not carried")
                continue
            _area_light(out, node_name, light, matrix, power, say)
            continue
        entry = {"name": node_name, "color": color}
        if light.type == "SUN":
            entry["type"] = "directional"
            entry["intensity"] = power
            if light.angle > 0:
                say("its angle (%.3g°) is not carried: sertrace's sun is a direction (sharper shadows)" % math.degrees(light.angle))
        else:
            # Cycles' point and spot lights radiate P/(4π) W/sr (a spot's
            # cone cuts that, it does not focus it).
            entry["intensity"] = power / (4 * math.pi)
            if light.shadow_soft_size > 0:
                say("its radius (%.3g) is not carried: sertrace's lights are points (sharper shadows)" % light.shadow_soft_size)
            if light.type == "POINT":
                entry["type"] = "point"
            else:
                entry["type"] = "spot"
                outer = min(light.spot_size / 2, math.pi / 2)
                # Blender's smoothstep starts (1 - cos outer) * blend
                # inside the edge, in cosine; glTF's ramp ends at the inner
                # cone. The ramp's shape differs: said when there is one.
                cos_outer = math.cos(outer)
                cos_inner = min(cos_outer + (1 - cos_outer) * light.spot_blend, 1.0)
                inner = min(math.acos(cos_inner), outer * (1 - 1e-6))
                entry["spot"] = {"innerConeAngle": inner, "outerConeAngle": outer}
                if light.spot_blend > 0:
                    say("its blend is approximated (glTF's falloff between two cones is not Blender's smoothstep)")
                if bpy.app.version < (4, 0) and math.cos(outer) < 0.98:
                    # Cycles 3.x multiplies a spot by the cosine of the
                    # angle off its axis (spot_light_attenuation).
                    say("Cycles 3.x dims it towards its edge (by the cosine off its axis, %.2f at the edge), "
                        "sertrace does not" % math.cos(outer))
        if not light.casts_shadow:
            say("turning its shadows off is not carried")
        index = len(lights)
        lights.append(entry)
        m = np.array(matrix, np.float64)
        out.root_node({"name": node_name, "translation": [float(v) for v in TO_GLTF @ m[:3, 3]],
                       "rotation": node_rotation(m),
                       "extensions": {"KHR_lights_punctual": {"light": index}}})
    if lights:
        out.doc.setdefault("extensions", {})["KHR_lights_punctual"] = {"lights": lights}
        out.use_extension("KHR_lights_punctual")


def _light_uses_nodes(light):
    """Whether a light's node tree changes its emission (anything but an
    Emission node of white colour and strength 1 into the output)."""
    out = output_node(light.node_tree, "OUTPUT_LIGHT")
    if out is None:
        return False
    node, _ = linked_source(out.inputs["Surface"])
    if node is None:
        return False
    if node.type != "EMISSION" or is_linked(node, "Color", "Strength"):
        return True
    return any(abs(c - 1) > 1e-6 for c in input_value(node, "Color")[:3]) or abs(input_value(node, "Strength") - 1) > 1e-6


AREA_POLYGON_SIDES = 32


def _area_light(out, name, light, matrix, power, say):
    """An area light as a one-sided emissive polygon facing the light's -Z
    with Cycles' radiance (A in world units: the object's scale counts),
    black and without specular so it only emits. Cycles 4.x gives it
    P / (π A), so that it emits P; Cycles 3.x gives P / (4 A) (its area
    light's eval_fac is strength / 4 per area); test_export.py measures both.
    Blender 4.x's Normalize off (where it exists) leaves out the area."""
    sx = light.size
    sy = light.size_y if light.shape in ("RECTANGLE", "ELLIPSE") else light.size
    if light.shape in ("SQUARE", "RECTANGLE"):
        local = np.array([[-sx / 2, -sy / 2, 0], [sx / 2, -sy / 2, 0], [sx / 2, sy / 2, 0], [-sx / 2, sy / 2, 0]])
    else:
        # A polygon of the ellipse's area (its vertices a little outside it).
        n = AREA_POLYGON_SIDES
        grow = math.sqrt(2 * math.pi / (n * math.sin(2 * math.pi / n)))
        a = 2 * math.pi * np.arange(n) / n
        local = np.stack([grow * sx / 2 * np.cos(a), grow * sy / 2 * np.sin(a), np.zeros(n)], axis=1)
    world = apply_matrix(matrix, local)
    m = np.array(matrix, np.float64)
    facing = -m[:3, 2]
    facing /= np.linalg.norm(facing)
    # A fan from the centre: triangles (c, i, i+1) wound to face -Z.
    centre = world.mean(axis=0)
    verts = np.concatenate([[centre], world])
    k = len(world)
    tris = np.array([[0, 1 + i, 1 + (i + 1) % k] for i in range(k)], np.int64)
    normal = np.cross(verts[tris[0, 1]] - verts[0], verts[tris[0, 2]] - verts[0])
    if np.dot(normal, facing) < 0:
        tris = tris[:, [0, 2, 1]]
    area = sum(0.5 * np.linalg.norm(np.cross(verts[b] - verts[a], verts[c] - verts[a])) for a, b, c in tris)
    if area <= 0:
        say("it has no area: not carried")
        return
    per = math.pi if bpy.app.version >= (4, 0) else 4.0
    if light.normalize:
        per *= area
    radiance = power / per * np.array(light.color[:3], np.float64)
    strength = max(1.0, float(radiance.max()))
    emissive = [float(c) for c in radiance / strength]
    material = {
        "name": "light %s" % name,
        "pbrMetallicRoughness": {"baseColorFactor": [0, 0, 0, 1], "metallicFactor": 0.0, "roughnessFactor": 1.0},
        "emissiveFactor": emissive,
        "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}},
    }
    out.use_extension("KHR_materials_specular")
    if strength > 1:
        material["extensions"]["KHR_materials_emissive_strength"] = {"emissiveStrength": strength}
        out.use_extension("KHR_materials_emissive_strength")
    mat_index = out.add("materials", material)
    normals = np.repeat((TO_GLTF @ facing)[None, :], len(verts), axis=0).astype(np.float32)
    prim = {
        "attributes": {
            "POSITION": out.accessor(gltf_points(verts), "VEC3", out.ARRAY_BUFFER, bounds=True),
            "NORMAL": out.accessor(normals, "VEC3", out.ARRAY_BUFFER),
        },
        "indices": out.accessor(tris.astype(np.uint32).ravel(), "SCALAR", out.ELEMENT_ARRAY_BUFFER),
        "material": mat_index,
        "mode": 4,
    }
    mesh = out.add("meshes", {"name": "light %s" % name, "primitives": [prim]})
    out.root_node({"name": name, "mesh": mesh})
    spread = light.spread
    if spread < math.pi - 1e-4:
        say("its spread (%.3g°) is not carried" % math.degrees(spread))
    say("it becomes an emissive %s, which also blocks light from behind it" % ("quad" if len(local) == 4 else "polygon"))
