"""The evaluated Blender scene as a glTF file and sertrace flags.

Blender's own glTF exporter writes the meshes, their materials and the
cameras (gltf_exporter: run on the depsgraph it is given); export_scene
then adds to its JSON (gltf_doc) what glTF has no standard for
(docs/design/11-hair-and-particles.md) and what Cycles renders otherwise than the
exporter writes it:

- hair (Curves objects and instances, curves Geometry Nodes made,
  particle-system hair) as LINES primitives with a `_RADIUS` attribute,
  each strand's segments chained through shared vertices (hair), and a
  Principled Hair BSDF as a material whose extras name sertrace's hair
  model (hair_bsdf);
- point clouds as POINTS primitives with `_RADIUS` (hair);
- lights in Cycles' units, measured against Cycles (the exporter's are
  photometric), area lights as emissive polygons (lights);
- the world (a colour, or an equirectangular image as Radiance .hdr) and
  the camera's depth of field, as command-line flags (world, camera);
- where the exporter reads the user's original data rather than the
  depsgraph's: nodes placed by the evaluated matrices, shape keys applied
  at their evaluated values (exporter_fixes), objects in edit mode,
  metaballs and (Blender 3.x) Geometry Nodes mesh instances written from
  their evaluated meshes (own_meshes).

One pass over the depsgraph (scan.Scan) gathers what these need. What
cannot be carried is said in ExportResult.notes, one line per material
(materials), light, world or camera, for Blender's report.
"""

import json
import os
from dataclasses import dataclass, field

from .camera import camera_args
from .exporter_fixes import bake_morph_targets, hide_emitters, place_by_depsgraph
from .gltf_doc import Gltf, has_faces
from .gltf_exporter import run_gltf_exporter
from .hair import write_hair, write_points
from .lights import write_lights
from .materials import material_notes
from .own_meshes import write_own_meshes
from .scan import Scan
from .world import world_args

GLTF_FILE = "scene.gltf"


@dataclass
class ExportResult:
    """What export_scene wrote and what the sertrace command line needs."""

    gltf: str  # the .gltf written (its .bin files and textures beside it)
    args: list = field(default_factory=list)  # sertrace flags: world and camera
    renderable: bool = False  # any face, strand or point visible to the render
    notes: list = field(default_factory=list)  # what could not be carried, one line each


class _Notes:
    """Notes in order, each line once."""

    def __init__(self):
        self.lines = []

    def add(self, line):
        if line not in self.lines:
            self.lines.append(line)


def export_scene(depsgraph, folder):
    """Write the evaluated scene of depsgraph into folder as GLTF_FILE (with
    its buffers, textures and, where the world has an image, world.ENV_FILE) and
    return an ExportResult. Changes nothing in bpy.data."""
    notes = _Notes()
    path = os.path.join(folder, GLTF_FILE)
    # Blender's Python gives no mesh data of an object in edit mode (its
    # arrays read empty): the exporter would fail on it, so it leaves them
    # to us, and we write their evaluated meshes.
    shown = {o.original.name for o in depsgraph.objects if o.original is not None}
    editing = {o.original.name for o in depsgraph.objects
               if o.type == "MESH" and o.original is not None and o.original.mode == "EDIT"}
    # The exporter walks all of the scene's objects; those the render's
    # depsgraph does not show (in a collection excluded from the view
    # layer, say) stay out.
    hidden = {o.name for o in depsgraph.scene.objects} - shown
    metaballs = {o.original.name for o in depsgraph.objects if o.type == "META" and o.original is not None}
    run_gltf_exporter(depsgraph, path, editing | hidden | metaballs)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    place_by_depsgraph(doc, depsgraph)
    out = Gltf(doc, folder)
    bake_morph_targets(out, depsgraph, notes)

    scan = Scan(depsgraph, notes, editing)
    scan.run()
    hide_emitters(doc, scan.hidden_self)
    renderable = has_faces(doc)
    renderable |= write_own_meshes(out, scan, notes)
    renderable |= write_hair(out, scan, notes)
    renderable |= write_points(out, scan, notes)
    write_lights(out, scan, notes)
    for mat in scan.surface_materials.values():
        for line in material_notes(mat):
            notes.add(line)

    args = []
    args += camera_args(out, depsgraph, notes)
    args += world_args(depsgraph, folder, notes)
    render = depsgraph.scene.render
    if render.film_transparent:
        notes.add("film: transparency is not carried: the world is rendered behind the scene")
    if render.use_motion_blur:
        notes.add("render: motion blur is not carried")

    out.finish()
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
    return ExportResult(gltf=path, args=args, renderable=renderable, notes=notes.lines)
