"""Hair and point clouds, which glTF has no standard for
(docs/design/11-hair-and-particles.md): read from the depsgraph (Curves objects and
instances, curves Geometry Nodes made, particle-system hair, point clouds)
in world space, and written as LINES primitives with a `_RADIUS` attribute,
each strand's segments chained through shared vertices, and as POINTS
primitives with `_RADIUS`.
"""

import numpy as np

from .gltf_doc import apply_matrix, gltf_points, uniform_scale
from .hair_bsdf import hair_material
from .materials import plain_material

# The radius of a hair curve without a `radius` attribute, as Cycles takes
# it (blender/curves.cpp; test_export.py's scenes never need it, a Cycles
# render of a curve without one matches 0.005 in 3.4 and 4.3).
DEFAULT_CURVE_RADIUS = 0.005
# A point without a `radius` attribute, as Cycles' blender/pointcloud.cpp
# takes it (not measured: Geometry Nodes' points always have one).
DEFAULT_POINT_RADIUS = 0.01


class Strands:
    """Strands of one object and material, in world space: points, radii
    and the number of points of each strand."""

    def __init__(self):
        self.points, self.radii, self.counts = [], [], []

    def add(self, points, radii, counts):
        self.points.append(np.asarray(points, np.float64).reshape(-1, 3))
        self.radii.append(np.asarray(radii, np.float64).ravel())
        self.counts.append(np.asarray(counts, np.int64).ravel())


def curves_strands(obj, matrix):
    """A Curves geometry (an object's, or one Geometry Nodes made) under
    matrix: world positions (n, 3), radii (n,), the number of points of each
    curve and each curve's material index (None without the attribute); None
    when it has no curves."""
    curves = obj.data
    n_points, n_curves = len(curves.points), len(curves.curves)
    if n_points == 0 or n_curves == 0:
        return None
    pos = np.zeros(n_points * 3, np.float32)
    curves.attributes["position"].data.foreach_get("vector", pos)
    offsets = np.zeros(len(curves.curve_offset_data), np.int32)
    curves.curve_offset_data.foreach_get("value", offsets)
    counts = np.diff(offsets[: n_curves + 1])
    radius = _float_attribute(curves, "radius", n_points, n_curves, counts)
    if radius is None:
        radius = np.full(n_points, DEFAULT_CURVE_RADIUS, np.float32)
    mat_index = _int_attribute(curves, "material_index", "CURVE", n_curves)
    world = apply_matrix(matrix, pos.reshape(-1, 3).astype(np.float64))
    radius = radius.astype(np.float64) * uniform_scale(matrix)
    return world, radius, counts, mat_index


def pointcloud_points(obj, matrix):
    """A point cloud under matrix, as curves_strands gives a Curves
    geometry (each point a strand of one point), or None when it is
    empty."""
    cloud = obj.data
    n = len(cloud.points)
    if n == 0:
        return None
    pos = np.zeros(n * 3, np.float32)
    cloud.attributes["position"].data.foreach_get("vector", pos)
    radius = _float_attribute(cloud, "radius", n)
    if radius is None:
        radius = np.full(n, DEFAULT_POINT_RADIUS, np.float32)
    mat_index = _int_attribute(cloud, "material_index", "POINT", n)
    world = apply_matrix(matrix, pos.reshape(-1, 3).astype(np.float64))
    radius = radius.astype(np.float64) * uniform_scale(matrix)
    return world, radius, np.ones(n, np.int64), mat_index


def particle_hair(obj, matrix, render):
    """Particle-system hair of a mesh, as Cycles takes it
    (blender/curves.cpp): for each particle-system modifier shown in
    this mode whose particles are hair drawn as paths, the children
    when there are any (else the parents), (1 << steps) + 1 points each
    from the path cache, a radius that goes from the root's to the tip's
    with the Shape exponent over the fraction of the strand's length.
    render: the depsgraph's mode is RENDER. Yields, for each particle system,
    its name, its material's slot number (1 on), the world positions (n, 3),
    the radii (n,) and the number of points of each strand."""
    # co_hair gives world positions for obj as it is placed itself;
    # an instance of it is elsewhere.
    to_instance = matrix @ np.linalg.inv(np.array(obj.matrix_world, np.float64))
    scale = uniform_scale(matrix)
    for mod in obj.modifiers:
        if mod.type != "PARTICLE_SYSTEM" or not (mod.show_render if render else mod.show_viewport):
            continue
        psys = mod.particle_system
        part = psys.settings
        if part.type != "HAIR" or part.render_type != "PATH":
            continue
        n_parents = len(psys.particles)
        n_children = len(psys.child_particles)
        if not render:
            n_children = int(n_children * part.display_percentage / 100.0)
        first = n_parents if (part.child_type != "NONE" and n_children > 0) else 0
        total = n_parents + n_children
        if total - first <= 0:
            continue
        steps = (1 << (part.render_step if render else part.display_step)) + 1
        if part.kink == "SPIRAL":
            steps += part.kink_extra_steps
        pts = np.empty(((total - first) * steps, 3), np.float64)
        k = 0
        for p in range(first, total):
            for s in range(steps):
                pts[k] = psys.co_hair(object=obj, particle_no=p, step=s)
                k += 1
        pts = pts.reshape(-1, steps, 3)
        seg = np.linalg.norm(np.diff(pts, axis=1), axis=2)
        length = seg.sum(axis=1)
        keep = length > 0  # Cycles drops strands of no length
        pts, seg, length = pts[keep], seg[keep], length[keep]
        if len(pts) == 0:
            continue
        t = np.concatenate([np.zeros((len(pts), 1)), np.cumsum(seg, axis=1)], axis=1) / length[:, None]
        half = part.radius_scale * 0.5
        root, tip = half * part.root_radius, half * part.tip_radius
        radius = hair_shape_radius(part.shape, root, tip, t)
        if part.use_close_tip:
            radius[:, -1] = 0.0
        world = apply_matrix(to_instance, pts.reshape(-1, 3))
        yield psys.name, part.material, world, radius.ravel() * scale, np.full(len(pts), steps)


def hair_shape_radius(shape, root, tip, t):
    """Cycles' radius along a particle hair (shaperadius in
    blender/curves.cpp): from root at t = 0 to tip at t = 1, bent by the
    Shape exponent."""
    r = 1.0 - np.asarray(t, np.float64)
    if shape < 0:
        r = r ** (1.0 + shape)
    elif shape > 0:
        r = r ** (1.0 / (1.0 - shape))
    return tip + (root - tip) * r


def _float_attribute(geometry, name, n_points, n_curves=None, counts=None):
    """A float attribute on points (a curve-domain one spread to its
    points), or None."""
    attr = geometry.attributes.get(name)
    if attr is None or attr.data_type != "FLOAT":
        return None
    if attr.domain == "POINT":
        out = np.zeros(n_points, np.float32)
        attr.data.foreach_get("value", out)
        return out
    if attr.domain == "CURVE" and n_curves is not None:
        per = np.zeros(n_curves, np.float32)
        attr.data.foreach_get("value", per)
        return np.repeat(per, counts)
    return None


def _int_attribute(geometry, name, domain, n):
    attr = geometry.attributes.get(name)
    if attr is None or attr.domain != domain or attr.data_type != "INT":
        return None
    out = np.zeros(n, np.int32)
    attr.data.foreach_get("value", out)
    return out


def points_of(counts, selected):
    """The indices of the points of the selected strands, strands being
    runs of counts points."""
    owner = np.repeat(np.arange(len(counts)), counts)
    return np.nonzero(np.asarray(selected)[owner])[0]


def _write_meshes(out, groups, primitive):
    """One mesh per object, on a node with no transform (positions in
    world space), of a primitive per (object, material) group in groups
    ({(object name, material key): group}); primitive(key, group) makes it,
    or None for a group with nothing to draw. Whether any was written."""
    by_object = {}
    for (name, key), group in groups.items():
        by_object.setdefault(name, []).append((key, group))
    written = False
    for name, members in by_object.items():
        prims = [p for p in (primitive(key, group) for key, group in members) if p is not None]
        if prims:
            mesh = out.add("meshes", {"name": name, "primitives": prims})
            out.root_node({"name": name, "mesh": mesh})
            written = True
    return written


def _radius_primitive(out, mode, pts, rad, indices=None):
    """A glTF primitive of points with a _RADIUS each (mode 0: spheres, 1:
    swept-sphere segments by indices), its material for the caller to set."""
    prim = {
        "mode": mode,
        "attributes": {
            "POSITION": out.accessor(gltf_points(pts), "VEC3", out.ARRAY_BUFFER, bounds=True),
            "_RADIUS": out.accessor(rad.astype(np.float32), "SCALAR", out.ARRAY_BUFFER),
        },
    }
    if indices is not None:
        prim["indices"] = out.accessor(indices, "SCALAR", out.ELEMENT_ARRAY_BUFFER)
    return prim


def write_hair(out, scan, notes):
    """Each (object, material) group of strands as a LINES primitive (each
    strand's segments share their vertices, so sertrace chains them)."""

    def primitive(key, strands):
        pts = np.concatenate(strands.points)
        rad = np.concatenate(strands.radii)
        counts = np.concatenate(strands.counts)
        keep = counts >= 2  # a point alone is no strand
        if not keep.all():
            idx = points_of(counts, keep)
            pts, rad, counts = pts[idx], rad[idx], counts[keep]
        if len(counts) == 0:
            return None
        # Each point but a strand's last starts a segment to the next.
        last = np.cumsum(counts) - 1
        first = np.setdiff1d(np.arange(len(pts)), last, assume_unique=True)
        lines = np.stack([first, first + 1], axis=1).astype(np.uint32).ravel()
        material = hair_material(out, scan.materials.get(key), notes)
        return dict(_radius_primitive(out, 1, pts, rad, lines), material=material)

    return _write_meshes(out, scan.hair, primitive)


def write_points(out, scan, notes):
    """Each (object, material) group of points as a POINTS primitive."""

    def primitive(key, group):
        pts = np.concatenate(group.points)
        if len(pts) == 0:
            return None
        prim = _radius_primitive(out, 0, pts, np.concatenate(group.radii))
        return dict(prim, material=plain_material(out, scan.materials.get(key), notes))

    return _write_meshes(out, scan.points, primitive)
