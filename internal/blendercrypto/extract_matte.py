# Extracts a Cryptomatte matte from an OpenEXR file with Blender's own
# compositor (the Cryptomatte node, source Image), headless:
#
#   blender -b --factory-startup --python extract_matte.py -- \
#       --exr IN.exr --layer CryptoObject --names "name1,name2" --out OUT.exr
#
# It builds a fresh scene whose compositor tree is
#
#   Cryptomatte (source Image: IN.exr, layer_name, matte_id "name1,name2")
#       Matte -> Composite
#
# and renders it: a tree without a Render Layers node makes Blender skip
# rendering the 3D scene, so only the compositor runs. The matte is written
# as a float32 RGB EXR (R = G = B = the matte; channels B, G, R in the
# file) of the input's data window's size at OUT.exr, rows in the input's
# orientation. (Blender 3.4 writes colour_mode BW as RGBA, so RGB it is.)
#
# --layer is the Cryptomatte layer's name as the file's
# cryptomatte/<key>/name attribute gives it ("CryptoObject"), or, where
# Blender prefixed it with a view layer's name ("ViewLayer.CryptoObject"),
# the part after the last dot, when only one layer ends so.
#
# Blender itself never fails on a bad layer or name: it falls back to the
# file's first Cryptomatte layer, and a name it cannot find (or passes it
# cannot find) gives an all-zero matte. So this script checks first, from
# the file's header (which it parses itself, as Blender's Python API does
# not expose an image's metadata), and fails with one line on stderr and
# exit status 1 when:
#   - the file has no Cryptomatte layer of that name,
#   - Blender's node would find no channels for that layer: it reads
#     <name>NN.{R,G,B,A} (the layer's name with the rank pair's digits
#     appended, NN = 00, 01, ...), but only in the first of Blender's
#     layers (all of a channel name's tokens before the last two; "" for
#     "R" or "CryptoObject00.R") whose name starts <name>: a file with a
#     plain "R" and channels "ViewLayer.CryptoObject00.R" gives an empty
#     matte,
#   - the layer has no manifest, or a name is not in it,
#   - one of those channels is not 32-bit float (half IDs are not IDs),
#   - a name's ID in the manifest is not the one Blender computes from the
#     name (MurmurHash3_32 of the name, exponent kept off 0 and 255): the
#     node selects by that hash, never by the manifest, so such a name
#     would give an empty matte.
import argparse
import json
import os
import struct
import sys

PROG = "extract_matte.py"


class Failure(Exception):
    pass


def read_exr_headers(path):
    """The headers of an OpenEXR file (one per part): dicts from attribute
    name to (type, raw bytes)."""
    with open(path, "rb") as f:
        data = f.read(1 << 20)  # the headers open the file: 1 MiB holds most
        while True:
            try:
                return parse_headers(data)
            except (IndexError, ValueError, struct.error):  # ran off the end of data
                more = f.read(max(len(data), 1 << 22))
                if not more:
                    raise Failure("%s: not an OpenEXR file, or a truncated one" % path)
                data += more


def parse_headers(data):
    if data[:4] != b"\x76\x2f\x31\x01":
        raise Failure("not an OpenEXR file")
    version = struct.unpack_from("<I", data, 4)[0]
    multipart = bool(version & 0x1000)
    pos = 8
    headers = []
    while True:
        h = {}
        while True:
            end = data.index(b"\0", pos)
            name = data[pos:end].decode("latin-1")
            pos = end + 1
            if not name:
                break
            end = data.index(b"\0", pos)
            typ = data[pos:end].decode("latin-1")
            pos = end + 1
            (size,) = struct.unpack_from("<i", data, pos)
            pos += 4
            if size < 0:
                raise Failure("a damaged OpenEXR header (attribute %r)" % name)
            if pos + size > len(data):
                raise IndexError
            h[name] = (typ, data[pos:pos + size])
            pos += size
        if not h:
            if not multipart:
                raise Failure("an OpenEXR header without attributes")
            break  # the empty header that ends a multi-part file's headers
        headers.append(h)
        if not multipart:
            break
        if pos >= len(data):
            raise IndexError
        if data[pos] == 0:
            break
    return headers


PIXEL_TYPES = {0: "uint", 1: "half", 2: "float"}


def channels_of(header):
    """{channel name: pixel type ("uint", "half", "float")}."""
    typ, raw = header.get("channels", ("", b""))
    channels, pos = {}, 0
    while pos < len(raw) and raw[pos] != 0:
        end = raw.index(b"\0", pos)
        (ptype,) = struct.unpack_from("<i", raw, end + 1)
        channels[raw[pos:end].decode("utf-8", "replace")] = PIXEL_TYPES.get(ptype, str(ptype))
        pos = end + 1 + 16  # pixel type, pLinear + reserved, x and y sampling
    return channels


def data_window(header):
    typ, raw = header["dataWindow"]
    x0, y0, x1, y1 = struct.unpack("<4i", raw)
    return x0, y0, x1, y1


def cryptomatte_layers(header):
    """{key: {"name": ..., "manifest": ..., ...}} from the header's
    cryptomatte/<key>/<field> string attributes."""
    layers = {}
    for attr, (typ, raw) in header.items():
        parts = attr.split("/")
        if len(parts) != 3 or parts[0] != "cryptomatte" or typ != "string":
            continue
        layers.setdefault(parts[1], {})[parts[2]] = raw.decode("utf-8", "replace")
    return layers


def id_float_bits(hash32):
    """The Cryptomatte ID float's bits of a 32-bit name hash: its exponent
    kept within [1, 254] (Blender's BKE_cryptomatte_hash_to_float)."""
    exp = (hash32 >> 23) & 0xFF
    exp = min(max(exp, 1), 254)
    return (hash32 & 0x807FFFFF) | (exp << 23)


def float_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def blender_layers(channels):
    """The layers Blender 3.4's multilayer reading makes of the channels, in
    its order (of first appearance in the file's sorted channel list):
    [(layer, {pass: set of channel letters})]. A channel name is
    [layer.]pass.channel, the layer all tokens before the last two; a
    one-letter name is the layer "" pass "Combined"."""
    layers = {}
    for ch in sorted(channels):
        if len(ch) == 1:
            layer, pas, letter = "", "Combined", ch
        else:
            parts = ch.split(".")
            if len(parts) < 2 or not parts[-1] or not parts[-2]:
                continue  # Blender skips it ("bad channel name")
            layer, pas, letter = ".".join(parts[:-2]), parts[-2], parts[-1]
        layers.setdefault(layer, {}).setdefault(pas, set()).add(letter.upper())
    return list(layers.items())


def node_passes(channels, prefix):
    """The passes Blender's Cryptomatte node (source Image) reads for the
    layer name prefix: those of the first layer whose name starts prefix,
    whose "layer.pass" (or "pass" in the layer "") starts with prefix and is
    not prefix itself (COM_CryptomatteNode.cc). Also the layer."""
    for layer, passes in blender_layers(channels):
        if not prefix.startswith(layer):
            continue
        found = {}
        for pas, letters in passes.items():
            combined = layer + "." + pas if layer else pas
            if combined != prefix and combined.startswith(prefix):
                found[pas] = letters
        return layer, found
    return None, {}


def main(argv):
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("--exr", required=True)
    ap.add_argument("--layer", required=True)
    ap.add_argument("--names", required=True, help="comma-separated names")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    names = args.names.split(",")
    for n in names:
        # matte_id splits at commas, trims spaces and reads <float> as an ID.
        if not n or n.startswith("<") or n != n.strip(" "):
            raise Failure("name %r cannot be given to the node's matte_id" % n)

    exr = os.path.abspath(args.exr)
    out = os.path.abspath(args.out)
    if not os.path.isfile(exr):
        raise Failure("%s: no such file" % exr)
    headers = read_exr_headers(exr)
    # Blender reads the metadata of the first part only.
    head = headers[0]
    layers = cryptomatte_layers(head)
    layer_names = sorted(l.get("name", "") for l in layers.values())
    if not layers:
        elsewhere = any(cryptomatte_layers(h) for h in headers[1:])
        raise Failure("%s has no Cryptomatte layer (no cryptomatte/<key>/name attributes)%s" % (
            exr, " in its first part's header, the only one Blender reads" if elsewhere else ""))
    found = [(k, l) for k, l in layers.items() if l.get("name") == args.layer]
    if not found:
        found = [(k, l) for k, l in layers.items() if l.get("name", "").endswith("." + args.layer)]
    if len(found) != 1:
        what = "no" if not found else "more than one"
        raise Failure("%s has %s Cryptomatte layer %r (it has %s)" % (exr, what, args.layer, ", ".join(layer_names)))
    key, layer = found[0]
    full_name = layer["name"]

    channels = {}
    for h in headers:
        channels.update(channels_of(h))
    read_layer, passes = node_passes(channels, full_name)
    if not passes:
        if read_layer is None:
            why = "no channels %s00.R ..." % full_name
        else:  # e.g. plain R, G, B (layer "") with view-layer-prefixed Cryptomatte channels
            why = "Blender's node reads the layer %r (the first whose name starts %r) and it has no passes %s00 ..." % (
                read_layer, full_name, full_name[len(read_layer) + 1 if read_layer else 0:])
        raise Failure("%s: Cryptomatte layer %r: %s; Blender's matte would be empty" % (exr, full_name, why))
    for pas, letters in sorted(passes.items()):
        if letters != {"R", "G", "B", "A"}:
            raise Failure("%s: pass %r of Cryptomatte layer %r has channels %s, not R, G, B, A" % (
                exr, pas, full_name, ",".join(sorted(letters))))
    for ch, ptype in sorted(channels.items()):
        layer_pass = ch.rsplit(".", 1)[0]
        pas = layer_pass[len(read_layer) + 1:] if read_layer else layer_pass
        if pas in passes and ptype != "float":
            raise Failure("%s: channel %s is %s, not float: IDs need all 32 bits" % (exr, ch, ptype))

    if "manifest" not in layer:
        raise Failure("%s: Cryptomatte layer %r has no manifest (cryptomatte/%s/manifest)" % (exr, full_name, key))
    try:
        manifest = json.loads(layer["manifest"])
    except ValueError as e:
        raise Failure("%s: Cryptomatte layer %r: manifest is not JSON: %s" % (exr, full_name, e))
    missing = [n for n in names if n not in manifest]
    if missing:
        raise Failure("%s: Cryptomatte layer %r has no %s (it has %s)" % (
            exr, full_name, ", ".join(map(repr, missing)), ", ".join(map(repr, sorted(manifest)))))

    x0, y0, x1, y1 = data_window(head)
    width, height = x1 - x0 + 1, y1 - y0 + 1

    import bpy

    img = bpy.data.images.load(exr, check_existing=False)
    scene = bpy.data.scenes.new("cryptomatte")
    scene.use_nodes = True
    tree = scene.node_tree
    for n in list(tree.nodes):
        tree.nodes.remove(n)
    node = tree.nodes.new("CompositorNodeCryptomatteV2")
    node.source = "IMAGE"
    node.image = img
    node.layer_name  # reading the layers loads the image, and sets its type
    if img.type != "MULTILAYER":
        raise Failure("%s: Blender does not read it as a multilayer image (type %s)" % (exr, img.type))
    try:
        node.layer_name = full_name
    except TypeError as e:  # the enum of the layers Blender found
        raise Failure("%s: Blender does not offer Cryptomatte layer %r: %s" % (exr, full_name, e))
    node.matte_id = ",".join(names)
    if len(node.entries) != len(names):
        raise Failure("matte_id %r gave %d entries, not %d" % (node.matte_id, len(node.entries), len(names)))
    for name, entry in zip(names, node.entries):  # entry.name is cut at 63 bytes
        try:
            want = id_float_bits(int(manifest[name], 16))
        except (TypeError, ValueError):
            raise Failure("%s: %r's hash in the manifest, %r, is not hex" % (exr, name, manifest[name]))
        got = float_bits(entry.encoded_hash)
        if got != want:
            raise Failure("%s: %r has ID %08x in the manifest (%s) but Blender hashes the name to %08x" % (
                exr, name, want, manifest[name], got))

    comp = tree.nodes.new("CompositorNodeComposite")
    comp.use_alpha = False
    tree.links.new(node.outputs["Matte"], comp.inputs["Image"])

    r = scene.render
    r.resolution_x, r.resolution_y, r.resolution_percentage = width, height, 100
    r.pixel_aspect_x = r.pixel_aspect_y = 1
    r.use_border = False
    r.use_compositing = True
    r.use_sequencer = False
    r.use_stamp = False
    r.use_file_extension = False
    r.threads_mode = "FIXED"
    r.threads = 1
    s = r.image_settings
    s.file_format = "OPEN_EXR"
    s.color_mode = "RGB"
    s.color_depth = "32"
    s.exr_codec = "ZIP"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.view_settings.exposure = 0
    scene.view_settings.gamma = 1
    scene.display_settings.display_device = "sRGB"
    r.filepath = out

    if os.path.exists(out):
        os.remove(out)
    bpy.ops.render.render(write_still=True, scene=scene.name)
    if not os.path.isfile(out):
        raise Failure("Blender wrote no %s" % out)


if __name__ == "__main__":
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    try:
        main(argv)
    except Failure as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)  # Blender ignores a script's SystemExit in -b --python
    except SystemExit as e:  # argparse
        sys.stderr.flush()
        os._exit(e.code if isinstance(e.code, int) else 2)
    except BaseException as e:
        print("%s: %s: %s" % (PROG, type(e).__name__, e), file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
