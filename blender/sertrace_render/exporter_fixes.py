"""Where Blender's glTF exporter reads the user's original data rather
than the depsgraph's, its output corrected to what the depsgraph renders:
nodes placed by the evaluated matrices (place_by_depsgraph), shape keys
applied at their evaluated values (bake_morph_targets), emitters the
render does not show left without their mesh (hide_emitters).
"""

import bpy
import numpy as np

from .gltf_doc import TO_GLTF, AccessorReader, node_matrix


def place_by_depsgraph(doc, depsgraph):
    """Place the exporter's nodes where the depsgraph puts their objects.

    The exporter takes each object's matrix_world from the original object,
    which only the viewport's depsgraph keeps up to date: a render of
    another frame (blender -b -f N), of a scene not in a window, or of
    anything a driver or constraint moves differently in the render is
    placed as the viewport last saw it. Each node named after an object
    (once) gets the correction from that object's original matrix to its
    evaluated one, applied in world space; nodes below inherit their
    ancestor's; the local matrices are then recomputed."""
    nodes = doc.get("nodes", [])
    if not nodes:
        return
    c = np.eye(4)
    c[:3, :3] = TO_GLTF
    counts = {}
    for n in nodes:
        counts[n.get("name")] = counts.get(n.get("name"), 0) + 1
    parent = {}
    for i, n in enumerate(nodes):
        for ch in n.get("children", []):
            parent[ch] = i
    local = [node_matrix(n) for n in nodes]
    world, delta = {}, {}

    def world_of(i):
        if i not in world:
            world[i] = (world_of(parent[i]) @ local[i]) if i in parent else local[i]
        return world[i]

    def delta_of(i):
        if i not in delta:
            name = nodes[i].get("name")
            obj = bpy.data.objects.get(name) if counts.get(name) == 1 else None
            if obj is not None:
                ev = obj.evaluated_get(depsgraph)
                try:
                    m = np.array(ev.matrix_world, np.float64) @ np.linalg.inv(np.array(obj.matrix_world, np.float64))
                except np.linalg.LinAlgError:  # scaled to nothing: nothing to place
                    m = np.eye(4)
                delta[i] = c @ m @ c.T
            else:
                delta[i] = delta_of(parent[i]) if i in parent else np.eye(4)
        return delta[i]

    true_world = {}
    for i in range(len(nodes)):
        true_world[i] = delta_of(i) @ world_of(i)
    for i, n in enumerate(nodes):
        new = (np.linalg.inv(true_world[parent[i]]) @ true_world[i]) if i in parent else true_world[i]
        if np.allclose(new, local[i], rtol=0, atol=1e-9):
            continue
        for key in ("translation", "rotation", "scale"):
            n.pop(key, None)
        n["matrix"] = [float(v) for v in new.T.ravel()]


def bake_morph_targets(out, depsgraph, notes):
    """Apply the morph targets the exporter wrote (the shape keys of meshes
    without modifiers) with the shape keys' values as the depsgraph
    evaluates them (animated or driven), and drop them: sertrace reads no
    morph targets. Blender mixes each key relative to its own relative key
    and by its vertex group; the exporter's targets are relative to the
    basis and unweighted, so those two are said when they matter."""
    doc = out.doc
    reader = AccessorReader(doc, out.folder)
    for mesh in doc.get("meshes", []):
        prims = [p for p in mesh.get("primitives", []) if p.get("targets")]
        if not prims:
            continue
        names = (mesh.get("extras") or {}).get("targetNames") or []
        weights = list(mesh.get("weights") or [0.0] * len(prims[0]["targets"]))
        me = bpy.data.meshes.get(mesh.get("name", ""))
        key = me.shape_keys if me is not None else None
        if key is not None:
            ev = key.evaluated_get(depsgraph)
            blocks = {kb.name: kb for kb in ev.key_blocks}
            weights = [blocks[n].value if n in blocks else w for n, w in zip(names, weights)] + weights[len(names):]
            say = lambda what: notes.add("mesh '%s': %s" % (me.name, what))
            if not key.use_relative:
                say("absolute shape keys are not carried: its relative mix is used")
            for kb in ev.key_blocks[1:]:
                if kb.mute or kb.value == 0:
                    continue
                if kb.vertex_group:
                    say("shape key '%s': its vertex group is not carried" % kb.name)
                if kb.relative_key != ev.key_blocks[0]:
                    say("shape key '%s': relative to another key than the basis: approximated" % kb.name)
        for prim in prims:
            for attr in ("POSITION", "NORMAL"):
                if attr not in prim["attributes"]:
                    continue
                base = reader.read(prim["attributes"][attr]).astype(np.float64)
                for w, target in zip(weights, prim["targets"]):
                    if w != 0 and attr in target:
                        base = base + w * reader.read(target[attr])
                if attr == "NORMAL":
                    base /= np.maximum(np.linalg.norm(base, axis=1, keepdims=True), 1e-12)
                prim["attributes"][attr] = out.accessor(base.astype(np.float32), "VEC3", out.ARRAY_BUFFER,
                                                        bounds=attr == "POSITION")
            del prim["targets"]
        mesh.pop("weights", None)
        if mesh.get("extras"):
            mesh["extras"].pop("targetNames", None)


def hide_emitters(doc, names):
    """Drop the mesh of each node whose object the render does not show
    itself (an emitter of particles with Show Emitter off for renders): the
    exporter writes it regardless."""
    for node in doc.get("nodes", []):
        if node.get("name") in names and "mesh" in node:
            del node["mesh"]
