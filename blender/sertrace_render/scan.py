"""One pass over the depsgraph's object instances, keeping what the glTF
needs beyond what Blender's exporter writes."""

import numpy as np

from .gltf_exporter import exporter_has, exporter_instances
from .hair import Strands, curves_strands, particle_hair, pointcloud_points, points_of
from .lights import light_record
from .own_meshes import OwnMesh


class Scan:
    """One pass over depsgraph.object_instances (whose items live only
    during the loop), keeping what the glTF needs beyond the exporter's:
    hair and points (by object name and material), lights, the materials
    of surfaces (for the notes) and the objects not shown themselves."""

    def __init__(self, depsgraph, notes, editing=()):
        self.depsgraph = depsgraph
        self.editing = editing
        self.render = depsgraph.mode == "RENDER"
        self.notes = notes
        self.hair = {}  # (object name, material key) -> Strands
        self.points = {}  # (object name, material key) -> Strands (counts unused)
        self.materials = {}  # material key -> material (original) or None
        self.lights = []  # (name, light_record, matrix)
        self.surface_materials = {}  # key -> material on rendered meshes
        self.hidden_self = set()  # object names whose own geometry the render hides
        # Meshes the exporter leaves out, written here: Geometry Nodes
        # instances (Blender 3.x's exporter has none) and objects in edit
        # mode. Each mesh once (by its data's address), then where it goes.
        self.own_meshes = {}  # pointer -> OwnMesh
        self.own_places = []  # (pointer, matrix, node name)
        self.gn_instances = not exporter_has("export_gn_mesh")

    def run(self):
        for inst in self.depsgraph.object_instances:
            obj = inst.object
            kind = obj.type
            matrix = np.array(inst.matrix_world, np.float64)
            if not inst.is_instance and not inst.show_self:
                self.hidden_self.add(obj.original.name if obj.original else obj.name)
            if kind == "MESH":
                if inst.show_self:
                    self._surface_materials(obj)
                    if inst.is_instance and self.gn_instances and not exporter_instances(inst.parent):
                        self._own_mesh(obj, matrix, inst.parent.name + " instance")
                    elif not inst.is_instance and obj.name in self.editing:
                        self._own_mesh(obj, matrix, obj.name)
                if inst.show_particles and len(obj.particle_systems):
                    self._particle_hair(obj, matrix)
            elif kind == "CURVES" and inst.show_self:
                self._curves(obj, matrix)
            elif kind == "POINTCLOUD" and inst.show_self:
                self._pointcloud(obj, matrix)
            elif kind == "LIGHT" and inst.show_self:
                self.lights.append((obj.name, light_record(obj.data), matrix))
            elif kind == "META" and inst.show_self:
                # The exporter writes no metaballs: their evaluated mesh.
                self._surface_materials(obj)
                self._own_mesh(obj, matrix, obj.name)
            elif kind in ("CURVE", "SURFACE", "FONT") and inst.show_self:
                self._surface_materials(obj)
            elif kind == "VOLUME" and inst.show_self:
                self.notes.add("object '%s': volumes are not carried" % obj.name)

    def _own_mesh(self, obj, matrix, name):
        key = obj.data.as_pointer()
        if key not in self.own_meshes:
            self.own_meshes[key] = OwnMesh(obj, [self._material_key(m) for m in self._slot_materials(obj)])
        self.own_places.append((key, matrix, name))

    def _material_key(self, mat):
        if mat is None:
            return None
        orig = mat.original if mat.original is not None else mat
        key = orig.name_full
        self.materials[key] = orig
        return key

    def _slot_materials(self, obj):
        """The materials by index that the evaluated object's geometry uses."""
        mats = [slot.material for slot in obj.material_slots]
        if not mats and obj.data is not None and hasattr(obj.data, "materials"):
            mats = list(obj.data.materials)
        return mats

    def _surface_materials(self, obj):
        for mat in self._slot_materials(obj):
            key = self._material_key(mat)
            if key is not None:
                self.surface_materials[key] = self.materials[key]

    def _curves(self, obj, matrix):
        strands = curves_strands(obj, matrix)
        if strands is not None:
            self._add_strands(self.hair, obj, *strands)

    def _pointcloud(self, obj, matrix):
        points = pointcloud_points(obj, matrix)
        if points is not None:
            self._add_strands(self.points, obj, *points)

    def _add_strands(self, into, obj, world, radius, counts, mat_index):
        """Split strands (or points: counts of 1) by material index and add
        them to into under (object name, material key)."""
        mats = self._slot_materials(obj)
        if mat_index is None or len(mats) <= 1:
            groups = {0: np.ones(len(counts), bool)}
        else:
            mat_index = np.clip(mat_index, 0, len(mats) - 1)
            groups = {i: mat_index == i for i in np.unique(mat_index)}
        for i, sel in groups.items():
            mat = mats[i] if i < len(mats) else None
            key = (obj.name, self._material_key(mat))
            if sel.all():
                pts, rad, cnt = world, radius, counts
            else:
                idx = points_of(counts, sel)
                pts, rad, cnt = world[idx], radius[idx], counts[sel]
            into.setdefault(key, Strands()).add(pts, rad, cnt)

    def _particle_hair(self, obj, matrix):
        """Particle-system hair of a mesh (hair.particle_hair), by the
        material of each particle system."""
        for psys_name, slot, world, radii, counts in particle_hair(obj, matrix, self.render):
            mats = self._slot_materials(obj)
            mat = mats[slot - 1] if 0 < slot <= len(mats) else (mats[0] if mats else None)
            key = ("%s %s" % (obj.name, psys_name), self._material_key(mat))
            self.hair.setdefault(key, Strands()).add(world, radii, counts)
