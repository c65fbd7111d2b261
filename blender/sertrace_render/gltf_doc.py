"""The glTF document that Blender's exporter wrote, read and added to.

Gltf appends our arrays (in one more buffer file, EXTRA_BUFFER), nodes,
meshes, materials and extensions to the exporter's JSON; AccessorReader
reads the exporter's accessors back as arrays. Beside them, the way from
Blender's space to glTF's: TO_GLTF's axes, a node's matrix and a light's
or camera's rotation.
"""

import math
import os

import numpy as np

EXTRA_BUFFER = "sertrace-extra.bin"  # the hair, points and area lights added after the exporter

# glTF's axes from Blender's: Y up, so (x, y, z) -> (x, z, -y).
TO_GLTF = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]], np.float64)


def node_matrix(node):
    """A glTF node's local matrix (4x4, rows first)."""
    if "matrix" in node:
        return np.array(node["matrix"], np.float64).reshape(4, 4).T
    t = np.eye(4)
    t[:3, 3] = node.get("translation", [0, 0, 0])
    x, y, z, w = node.get("rotation", [0, 0, 0, 1])
    r = np.eye(4)
    r[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                 [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                 [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    sc = np.diag(list(node.get("scale", [1, 1, 1])) + [1])
    return t @ r @ sc


class AccessorReader:
    """The exporter's accessors as arrays (strided views, sparse ones)."""

    TYPES = {5126: np.float32, 5125: np.uint32, 5123: np.uint16, 5121: np.uint8, 5122: np.int16, 5120: np.int8}
    WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}

    def __init__(self, doc, folder):
        self.doc, self.folder, self.buffers = doc, folder, {}

    def _view(self, index, dtype, count, width, offset=0):
        view = self.doc["bufferViews"][index]
        b = view["buffer"]
        if b not in self.buffers:
            with open(os.path.join(self.folder, self.doc["buffers"][b]["uri"]), "rb") as f:
                self.buffers[b] = f.read()
        item = np.dtype(dtype).itemsize * width
        stride = view.get("byteStride", item)
        start = view.get("byteOffset", 0) + offset
        raw = np.frombuffer(self.buffers[b], np.uint8, stride * (count - 1) + item, start)
        rows = np.lib.stride_tricks.as_strided(raw, (count, item), (stride, 1))
        return np.ascontiguousarray(rows).view(dtype).reshape(count, width)

    def read(self, index):
        acc = self.doc["accessors"][index]
        dtype, width, count = self.TYPES[acc["componentType"]], self.WIDTH[acc["type"]], acc["count"]
        if "bufferView" in acc:
            data = self._view(acc["bufferView"], dtype, count, width, acc.get("byteOffset", 0)).copy()
        else:
            data = np.zeros((count, width), dtype)
        sparse = acc.get("sparse")
        if sparse:
            idx = sparse["indices"]
            at = self._view(idx["bufferView"], self.TYPES[idx["componentType"]], sparse["count"], 1,
                            idx.get("byteOffset", 0)).ravel()
            val = sparse["values"]
            data[at] = self._view(val["bufferView"], dtype, sparse["count"], width, val.get("byteOffset", 0))
        return data


def has_faces(doc):
    """Whether any node places a mesh with triangles (mode 4, 5, 6)."""
    meshes = doc.get("meshes", [])
    for node in doc.get("nodes", []):
        m = node.get("mesh")
        if m is None or m >= len(meshes):
            continue
        for prim in meshes[m].get("primitives", []):
            if prim.get("mode", 4) in (4, 5, 6):
                return True
    return False


class Gltf:
    """The exporter's glTF document, added to: one more buffer file for our
    arrays, then nodes, meshes, materials and extensions."""

    FLOAT, UINT = 5126, 5125
    ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963

    def __init__(self, doc, folder):
        self.doc = doc
        self.folder = folder
        self.blob = bytearray()
        self.buffer = None
        self._materials = {}
        if not doc.get("scenes"):
            doc["scenes"] = [{"nodes": []}]
            doc["scene"] = 0

    def add(self, key, item):
        items = self.doc.setdefault(key, [])
        items.append(item)
        return len(items) - 1

    def accessor(self, data, kind, target, bounds=False):
        """An accessor of data (float32 or uint32, one row per element) in
        our buffer; bounds adds min and max (required of POSITION)."""
        data = np.ascontiguousarray(data)
        comp = self.UINT if data.dtype == np.uint32 else self.FLOAT
        if self.buffer is None:
            self.buffer = self.add("buffers", {"uri": EXTRA_BUFFER, "byteLength": 0})
        self.blob.extend(b"\0" * (-len(self.blob) % 4))
        view = self.add("bufferViews", {"buffer": self.buffer, "byteOffset": len(self.blob),
                                        "byteLength": data.nbytes, "target": target})
        self.blob.extend(data.tobytes())
        acc = {"bufferView": view, "componentType": comp, "count": int(data.shape[0]), "type": kind}
        if bounds:
            acc["min"] = [float(v) for v in data.min(axis=0)]
            acc["max"] = [float(v) for v in data.max(axis=0)]
        return self.add("accessors", acc)

    def root_node(self, node):
        index = self.add("nodes", node)
        self.doc["scenes"][self.doc.get("scene", 0)].setdefault("nodes", []).append(index)
        return index

    def use_extension(self, name):
        used = self.doc.setdefault("extensionsUsed", [])
        if name not in used:
            used.append(name)

    def material(self, key, make):
        """The index of the material for key, made by make() once."""
        if key not in self._materials:
            self._materials[key] = self.add("materials", make())
        return self._materials[key]

    def finish(self):
        if self.buffer is None:
            return
        self.doc["buffers"][self.buffer]["byteLength"] = len(self.blob)
        with open(os.path.join(self.folder, EXTRA_BUFFER), "wb") as f:
            f.write(self.blob)


def gltf_points(world_points):
    """Blender world positions (n, 3) as glTF's (Y up), float32."""
    p = np.asarray(world_points, np.float64).reshape(-1, 3)
    return (p @ TO_GLTF.T).astype(np.float32)


def apply_matrix(matrix, points):
    """A 4x4 Blender matrix applied to (n, 3) points."""
    m = np.array(matrix, np.float64)
    return points @ m[:3, :3].T + m[:3, 3]


def uniform_scale(matrix):
    """The scale a radius takes under matrix: the cube root of its
    determinant's magnitude, as Cycles scales curve radii."""
    m = np.array(matrix, np.float64)[:3, :3]
    return abs(np.linalg.det(m)) ** (1.0 / 3.0)


def node_rotation(matrix):
    """The glTF rotation (x, y, z, w) of a light (or camera) placed by
    Blender's matrix: its own axes stay (both look down their -Z), the
    world's turn Y up."""
    m = np.array(matrix, np.float64)[:3, :3]
    m = m / np.linalg.norm(m, axis=0)  # no scale: it would not change a light
    r = TO_GLTF @ m
    return _quaternion(r)


def _quaternion(r):
    """A rotation matrix as a unit quaternion (x, y, z, w)."""
    t = np.trace(r)
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        w, x, y, z = 0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2]) * 2
        w, x, y, z = (r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s
    elif r[1, 1] > r[2, 2]:
        s = math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2]) * 2
        w, x, y, z = (r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s
    else:
        s = math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1]) * 2
        w, x, y, z = (r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s
    q = np.array([x, y, z, w])
    return [float(v) for v in q / np.linalg.norm(q)]
