"""Reading the PFM images sertrace writes (linear float32, rows bottom to
top: the order of Blender's render passes)."""

import numpy


def read(path):
    """The image at path as a float32 array of shape (height, width, 3)
    (or 1 channel), bottom row first."""
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:  # "PF" or "Pf", width, height, scale, whitespace-separated
        while data[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while end < len(data) and not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end].decode("ascii"))
        pos = end
    pos += 1  # the single whitespace after the scale
    kind, width, height, scale = fields[0], int(fields[1]), int(fields[2]), float(fields[3])
    channels = {"PF": 3, "Pf": 1}.get(kind)
    if channels is None or width < 1 or height < 1:
        raise ValueError("%s: not a PFM image" % path)
    dtype = "<f4" if scale < 0 else ">f4"
    pix = numpy.frombuffer(data, dtype, width * height * channels, pos)
    return pix.astype(numpy.float32).reshape(height, width, channels)


def write(path, image):
    """image (height, width, 3 or 1), bottom row first, as a little-endian
    PFM (colour, or grey for one channel)."""
    h, w = image.shape[:2]
    grey = image.ndim == 2 or image.shape[2] == 1
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n-1.0\n" % (b"Pf" if grey else b"PF", w, h))
        f.write(numpy.ascontiguousarray(image.reshape(h, w, -1)[..., :1 if grey else 3], "<f4").tobytes())
