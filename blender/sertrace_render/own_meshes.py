"""The meshes Blender's glTF exporter leaves out, written from their
evaluated meshes: objects in edit mode (Blender's Python reads their
arrays empty), metaballs, and Geometry Nodes mesh instances in Blender 3.x
(whose exporter has none)."""

import numpy as np

from .gltf_doc import TO_GLTF, gltf_points
from .materials import plain_material


class OwnMesh:
    """An evaluated mesh as triangles: a position, normal and UV per
    corner, triangles by material slot."""

    def __init__(self, obj, material_keys):
        # to_mesh, not obj.data: an evaluated mesh in edit mode wraps the
        # edit mesh, and its arrays read empty.
        me = obj.to_mesh()
        try:
            self._read(me, material_keys)
        finally:
            obj.to_mesh_clear()

    def _read(self, me, material_keys):
        me.calc_loop_triangles()
        n_tri, n_loop = len(me.loop_triangles), len(me.loops)
        self.material_keys = material_keys
        tri = np.zeros(n_tri * 3, np.int32)
        me.loop_triangles.foreach_get("loops", tri)
        self.tris = tri.reshape(-1, 3)
        self.tri_material = np.zeros(n_tri, np.int32)
        me.loop_triangles.foreach_get("material_index", self.tri_material)
        vidx = np.zeros(n_loop, np.int32)
        me.loops.foreach_get("vertex_index", vidx)
        co = np.zeros(len(me.vertices) * 3, np.float32)
        me.vertices.foreach_get("co", co)
        self.positions = co.reshape(-1, 3)[vidx]
        normals = np.zeros(n_loop * 3, np.float32)
        if hasattr(me, "corner_normals"):  # 4.1+
            me.corner_normals.foreach_get("vector", normals)
        else:
            me.calc_normals_split()
            me.loops.foreach_get("normal", normals)
        self.normals = normals.reshape(-1, 3)
        self.uvs = None
        if me.uv_layers.active is not None:
            uv = np.zeros(n_loop * 2, np.float32)
            me.uv_layers.active.data.foreach_get("uv", uv)
            uv = uv.reshape(-1, 2)
            uv[:, 1] = 1.0 - uv[:, 1]  # glTF's v runs down
            self.uvs = uv


def write_own_meshes(out, scan, notes):
    """The meshes the exporter left out (Geometry Nodes instances in
    Blender 3.x, objects in edit mode): each mesh once, a primitive per
    material (the exporter's material of that name where it wrote one),
    placed by a node for each place."""
    if not scan.own_places:
        return False
    by_name = {m.get("name"): i for i, m in enumerate(out.doc.get("materials", []))}
    meshes = {}
    for key, mesh in scan.own_meshes.items():
        prims = []
        if len(mesh.tris) == 0:
            continue
        pos = out.accessor(gltf_points(mesh.positions), "VEC3", out.ARRAY_BUFFER, bounds=True)
        nor = out.accessor((mesh.normals @ TO_GLTF.T).astype(np.float32), "VEC3", out.ARRAY_BUFFER)
        attrs = {"POSITION": pos, "NORMAL": nor}
        if mesh.uvs is not None:
            attrs["TEXCOORD_0"] = out.accessor(mesh.uvs, "VEC2", out.ARRAY_BUFFER)
        for slot in np.unique(mesh.tri_material):
            tris = mesh.tris[mesh.tri_material == slot].astype(np.uint32).ravel()
            prim = {"attributes": dict(attrs), "indices": out.accessor(tris, "SCALAR", out.ELEMENT_ARRAY_BUFFER), "mode": 4}
            mkey = mesh.material_keys[slot] if slot < len(mesh.material_keys) else None
            mat = scan.materials.get(mkey)
            if mat is not None and mat.name in by_name:
                prim["material"] = by_name[mat.name]
            elif mat is not None:
                prim["material"] = plain_material(out, mat, notes)
            prims.append(prim)
        if prims:
            meshes[key] = out.add("meshes", {"name": "mesh", "primitives": prims})
    c = np.eye(4)
    c[:3, :3] = TO_GLTF
    for key, matrix, name in scan.own_places:
        if key in meshes:
            m = c @ matrix @ c.T
            out.root_node({"name": name, "mesh": meshes[key], "matrix": [float(v) for v in m.T.ravel()]})
    return bool(meshes)
