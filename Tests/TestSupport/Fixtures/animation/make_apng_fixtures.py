#!/usr/bin/python3
"""Writes the APNG fixtures (run from this folder; needs Pillow).

ops.png and hidden.png are written chunk by chunk so each frame's region, blend op, dispose op,
delay fraction and the place of the default image are exactly what the file says; pillow.png is
written by Pillow's APNG writer with its disposal and blend options.
"""
import struct, zlib
from PIL import Image

def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

def rows(pixels, w, h, channels):
    """Filter type 0 before each row of `pixels` (flat tuples of `channels` samples)."""
    out = bytearray()
    for y in range(h):
        out.append(0)
        for p in pixels[y * w:(y + 1) * w]:
            out += bytes(p[:channels])
    return zlib.compress(bytes(out), 9)

def apng(path, width, height, frames, loop, colour_type=6, extra=b"", hidden=None):
    """frames: dicts with x, y, w, h, pixels, delay (num, den), dispose, blend. `hidden` pixels
    make a default image that is not a frame."""
    channels = {6: 4, 3: 1}[colour_type]
    out = bytearray(b"\x89PNG\r\n\x1a\n")
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)) + extra
    out += chunk(b"acTL", struct.pack(">II", len(frames), loop))
    seq = 0
    if hidden is not None:
        out += chunk(b"IDAT", rows(hidden, width, height, channels))
    for i, f in enumerate(frames):
        out += chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, f["w"], f["h"], f["x"], f["y"], *f["delay"], f["dispose"], f["blend"]))
        seq += 1
        data = rows(f["pixels"], f["w"], f["h"], channels)
        if i == 0 and hidden is None:
            out += chunk(b"IDAT", data)
        else:
            for k in range(0, len(data), 40):  # several fdAT chunks per frame
                out += chunk(b"fdAT", struct.pack(">I", seq) + data[k:k + 40])
                seq += 1
    out += chunk(b"IEND", b"")
    open(path, "wb").write(out)

def rect(w, h, f):
    return [f(x, y) for y in range(h) for x in range(w)]

NONE, BACKGROUND, PREVIOUS = 0, 1, 2
SOURCE, OVER = 0, 1

# Every blend and dispose op, translucent pixels replacing (SOURCE) and binary alpha composed
# (OVER), a frame over a region cleared to the background, delays as fractions (0/0 is 0 s).
apng("ops.png", 20, 14, [
    dict(x=0, y=0, w=20, h=14, pixels=rect(20, 14, lambda x, y: (200, 30 + 10 * x, 40 + 12 * y, 255)), delay=(1, 10), dispose=NONE, blend=SOURCE),
    dict(x=4, y=2, w=8, h=6, pixels=rect(8, 6, lambda x, y: (20, 40, 230, 255 if (x + y) % 3 else 0)), delay=(50, 1000), dispose=BACKGROUND, blend=OVER),
    dict(x=8, y=4, w=10, h=8, pixels=rect(10, 8, lambda x, y: (30, 220, 60, 128 if y % 2 else 90)), delay=(0, 0), dispose=PREVIOUS, blend=SOURCE),
    dict(x=2, y=6, w=6, h=6, pixels=rect(6, 6, lambda x, y: (240, 220, 20, 0 if x == y else 255)), delay=(3, 100), dispose=NONE, blend=OVER),
    dict(x=6, y=0, w=12, h=5, pixels=rect(12, 5, lambda x, y: (200, 40, 210, 255 if x % 3 else 0)), delay=(7, 50), dispose=PREVIOUS, blend=OVER),
    dict(x=0, y=0, w=20, h=14, pixels=rect(20, 14, lambda x, y: (20, 210, 220, 0 if (x // 4 + y // 4) % 2 else 255)), delay=(1, 3), dispose=NONE, blend=OVER),
], loop=2)

# A palette with tRNS, a default image that is not a frame, a first frame smaller than the canvas
# disposed PREVIOUS (read as BACKGROUND on the first frame). The default image is transparent:
# Pillow 9 composes the first frame on it, where the specification and browsers start from a
# transparent canvas.
palette = [(0, 0, 0), (230, 30, 30), (30, 200, 40), (40, 60, 230), (240, 220, 20), (250, 250, 250)]
plte = chunk(b"PLTE", b"".join(bytes(c) for c in palette)) + chunk(b"tRNS", bytes([0]))
apng("hidden.png", 16, 10, [
    dict(x=3, y=2, w=8, h=5, pixels=rect(8, 5, lambda x, y: (1 + x % 3,)), delay=(8, 100), dispose=PREVIOUS, blend=SOURCE),
    dict(x=0, y=0, w=6, h=6, pixels=rect(6, 6, lambda x, y: (0 if x < 2 else 4,)), delay=(8, 100), dispose=NONE, blend=OVER),
    dict(x=9, y=3, w=7, h=7, pixels=rect(7, 7, lambda x, y: (5 - y % 2,)), delay=(8, 100), dispose=BACKGROUND, blend=SOURCE),
], loop=0, colour_type=3, extra=plte, hidden=rect(16, 10, lambda x, y: (0,)))

# Pillow's writer: it stores each frame's changed rectangle with the dispose and blend asked for.
frames = []
for i in range(4):
    im = Image.new("RGBA", (18, 12), (0, 0, 0, 0))
    im.paste((40 * i, 200, 255 - 50 * i, 255), (2 + 3 * i, 1 + i, 9 + 3 * i, 7 + 2 * i))
    frames.append(im)
frames[0].save("pillow.png", save_all=True, append_images=frames[1:], duration=[100, 40, 60, 80], loop=3,
               disposal=[0, 1, 2, 0], blend=[0, 1, 0, 1])
