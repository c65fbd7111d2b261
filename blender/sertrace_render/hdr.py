"""Radiance .hdr files: writing RGBE, and telling whether a file is one
that sertrace reads."""

import numpy as np


def is_plain_radiance(path):
    """Whether a .hdr file is one sertrace reads: RGBE, -Y H +X W."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    if not (head.startswith(b"#?RADIANCE") or head.startswith(b"#?RGBE")):
        return False
    lines = head.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"FORMAT=") and line.strip() != b"FORMAT=32-bit_rle_rgbe":
            return False
        if line.strip() == b"" and i + 1 < len(lines):
            fields = lines[i + 1].split()
            return len(fields) == 4 and fields[0] == b"-Y" and fields[2] == b"+X"
    return False


def write_hdr(path, rgb):
    """Write rows-down float RGB (h, w, 3) as a Radiance .hdr: RGBE,
    run-length encoded scanlines (literal runs only) where the format
    allows them (widths 8 to 32767), else flat ones."""
    rgb = np.nan_to_num(np.asarray(rgb, np.float64), nan=0.0, posinf=6.5e4, neginf=0.0)
    rgb = np.clip(rgb, 0.0, None)
    h, w, _ = rgb.shape
    m = rgb.max(axis=2)
    mant, exp = np.frexp(m)
    scale = np.where(m > 1e-32, np.ldexp(1.0, 8 - exp), 0.0)
    rgbe = np.zeros((h, w, 4), np.uint8)
    rgbe[:, :, :3] = np.clip(np.floor(rgb * scale[:, :, None]), 0, 255).astype(np.uint8)
    rgbe[:, :, 3] = np.where(m > 1e-32, exp + 128, 0).astype(np.uint8)
    header = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n" % (h, w)
    if not 8 <= w <= 0x7FFF:
        body = rgbe.tobytes()
    else:
        # Each scanline: 2 2 w>>8 w&255, then each channel apart in
        # literal packets of up to 128 bytes (a count, then the bytes).
        starts = np.arange(0, w, 128)
        sizes = np.minimum(128, w - starts)
        seg = w + len(starts)  # one channel's bytes with its counts
        count_at = starts + np.arange(len(starts))  # where each count byte goes
        data_at = np.setdiff1d(np.arange(seg), count_at)
        line = np.zeros((h, 4 + 4 * seg), np.uint8)
        line[:, :4] = [2, 2, w >> 8, w & 255]
        for c in range(4):
            base = 4 + c * seg
            line[:, base + count_at] = sizes
            line[:, base + data_at] = rgbe[:, :, c]
        body = line.tobytes()
    with open(path, "wb") as f:
        f.write(header + body)
