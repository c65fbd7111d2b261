"""The camera: glTF cameras named after their nodes, the active one added
where the exporter leaves it out, and its depth of field as sertrace
flags."""

import json
import math

import numpy as np

from .gltf_doc import TO_GLTF, node_rotation


def camera_args(out, depsgraph, notes):
    """Give every glTF camera the name of its node (the object's, unique),
    add the active camera where the exporter left it out (hidden from the
    render, as Cycles still renders through it), and return --camera with
    its depth-of-field flags."""
    doc = out.doc
    cams = doc.get("cameras", [])
    nodes = doc.get("nodes", [])
    scene = depsgraph.scene
    obj = scene.camera
    if obj is None:
        notes.add("camera: the scene has no active camera: sertrace frames the scene itself")
        return []
    # One glTF camera per node, named after it.
    seen = {}
    for node in nodes:
        if "camera" in node:
            src = cams[node["camera"]]
            if node["camera"] in seen:
                cams.append(json.loads(json.dumps(src)))
                node["camera"] = len(cams) - 1
            seen[node["camera"]] = True
            cams[node["camera"]]["name"] = node.get("name", cams[node["camera"]].get("name", "camera"))
    name = _camera_name(obj.name)
    target = [n for n in nodes if "camera" in n and n.get("name") == obj.name]
    cam_eval = obj.evaluated_get(depsgraph)
    data = cam_eval.data
    if target:
        cams[target[0]["camera"]]["name"] = name
    else:
        cams.append(_gltf_camera(data, scene.render, name))
        doc["cameras"] = cams
        m = np.array(cam_eval.matrix_world, np.float64)
        out.root_node({"name": obj.name, "camera": len(cams) - 1, "translation": [float(v) for v in TO_GLTF @ m[:3, 3]],
                       "rotation": node_rotation(m)})
    for other in cams:  # the active camera's name must select it alone
        if other is not (cams[target[0]["camera"]] if target else cams[-1]) and other.get("name") == name:
            other["name"] = name + " (another)"
    args = ["--camera", name]
    say = lambda what: notes.add("camera '%s': %s" % (obj.name, what))
    if data.type == "PANO":
        say("panoramic cameras are not carried: rendered as a perspective one")
    if data.shift_x != 0 or data.shift_y != 0:
        say("lens shift is not carried")
    if data.dof.use_dof:
        fstop = max(data.dof.aperture_fstop, 1e-5)
        if data.type == "ORTHO":
            radius = 1.0 / (2.0 * fstop)  # as Cycles
        else:
            radius = data.lens / 1000.0 / (2.0 * fstop)
        focus = data.dof.focus_distance
        if data.dof.focus_object is not None:
            target_obj = data.dof.focus_object.evaluated_get(depsgraph)
            cm = np.array(cam_eval.matrix_world, np.float64)
            tm = np.array(target_obj.matrix_world, np.float64)
            view = cm[:3, 2] / np.linalg.norm(cm[:3, 2])
            focus = abs(float(np.dot(view, cm[:3, 3] - tm[:3, 3])))
            if getattr(data.dof, "focus_subtarget", ""):
                say("the focus bone is not carried: the focus object's origin is used")
        args += ["--aperture-radius", "%.9g" % radius, "--focus-distance", "%.9g" % focus]
        if data.dof.aperture_blades >= 3:
            say("the aperture's blades are not carried (a round aperture)")
        if abs(data.dof.aperture_ratio - 1) > 1e-6:
            say("the aperture's ratio is not carried")
    return args


def _camera_name(name):
    """A camera name sertrace takes as a name: one of digits alone would
    be taken as an index."""
    return "camera " + name if name.strip().isdigit() else name


def _gltf_camera(data, render, name):
    """A glTF camera for Blender camera data, as the exporter writes one."""
    width = render.pixel_aspect_x * render.resolution_x
    height = render.pixel_aspect_y * render.resolution_y
    aspect = width / height
    if data.type == "ORTHO":
        square = max(width, height)
        return {"name": name, "type": "orthographic", "orthographic": {
            "xmag": data.ortho_scale * width / square / 2, "ymag": data.ortho_scale * height / square / 2,
            "znear": data.clip_start, "zfar": data.clip_end}}
    fit = data.sensor_fit
    if (width >= height and fit != "VERTICAL") or (width < height and fit == "HORIZONTAL"):
        yfov = 2.0 * math.atan(math.tan(data.angle * 0.5) / aspect)
    else:
        yfov = data.angle
    return {"name": name, "type": "perspective", "perspective": {
        "aspectRatio": aspect, "yfov": yfov, "znear": data.clip_start, "zfar": data.clip_end}}
