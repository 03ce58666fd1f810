#!/usr/bin/python3
"""Writes the animation fixtures (run from this folder; needs webpmux and img2webp from Debian's `webp`).

GIFs are written byte by byte so every disposal method, offset, local palette, interlace and
transparency case is exactly what the file says; the LZW data is "uncompressed" (a clear code
before the code width would grow), which every decoder reads. Animated WebPs are assembled with
webpmux from still frames so each frame's offset, dispose and blend flags are chosen.
"""
import struct, subprocess, os
from PIL import Image

def lzw(indices, min_size):
    clear, eoi = 1 << min_size, (1 << min_size) + 1
    width = min_size + 1
    codes, run = [clear], 0
    for i in indices:
        if run == (1 << min_size) - 2:
            codes.append(clear)
            run = 0
        codes.append(i)
        run += 1
    codes.append(eoi)
    bits, n, out = 0, 0, bytearray()
    for c in codes:
        bits |= c << n
        n += width
        while n >= 8:
            out.append(bits & 255)
            bits >>= 8
            n -= 8
    if n:
        out.append(bits & 255)
    blocks = bytearray([min_size])
    for k in range(0, len(out), 255):
        chunk = out[k:k + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b"\x00")

def palette_bytes(colours, size_bits):
    colours = colours + [(0, 0, 0)] * ((1 << size_bits) - len(colours))
    return b"".join(bytes(c) for c in colours)

def gif(path, width, height, global_palette, frames, loop=None):
    """frames: dicts with x, y, w, h, pixels (row-major indices), disposal, delay, transparent
    (index or None), palette (local, optional), interlace."""
    out = bytearray(b"GIF89a" + struct.pack("<HH", width, height))
    out += bytes([0x80 | 0x70 | 2, 0, 0]) + palette_bytes(global_palette, 3)
    if loop is not None:
        out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\x00"
    for f in frames:
        t = f.get("transparent")
        packed = (f.get("disposal", 0) << 2) | (1 if t is not None else 0)
        out += b"\x21\xf9\x04" + bytes([packed]) + struct.pack("<H", f.get("delay", 0)) + bytes([t or 0, 0])
        flags = 0x40 if f.get("interlace") else 0
        local = f.get("palette")
        if local:
            flags |= 0x80 | 2
        out += b"\x2c" + struct.pack("<HHHH", f["x"], f["y"], f["w"], f["h"]) + bytes([flags])
        if local:
            out += palette_bytes(local, 3)
        rows = [f["pixels"][r * f["w"]:(r + 1) * f["w"]] for r in range(f["h"])]
        if f.get("interlace"):
            order = list(range(0, f["h"], 8)) + list(range(4, f["h"], 8)) + list(range(2, f["h"], 4)) + list(range(1, f["h"], 2))
            rows = [rows[r] for r in order]
        out += lzw([i for row in rows for i in row], 3)
    out += b"\x3b"
    open(path, "wb").write(out)

def rect(w, h, f):
    return [f(x, y) for y in range(h) for x in range(w)]

palette = [(0, 0, 0), (230, 30, 30), (30, 200, 40), (40, 60, 230), (240, 220, 20), (200, 40, 210), (20, 210, 220), (250, 250, 250)]

# Every disposal method, transparency, a local palette, interlace, a frame reaching past the screen.
gif("disposal.gif", 24, 16, palette, [
    dict(x=0, y=0, w=24, h=16, pixels=rect(24, 16, lambda x, y: 1 + (x + y) % 7), disposal=1, delay=10),
    dict(x=4, y=3, w=8, h=6, pixels=rect(8, 6, lambda x, y: 0 if (x + y) % 3 == 0 else 2), disposal=2, delay=5, transparent=0),
    dict(x=10, y=5, w=10, h=9, pixels=rect(10, 9, lambda x, y: 3 + (x * y) % 4), disposal=3, delay=0, interlace=True,
         palette=[(10, 10, 10), (90, 20, 20), (20, 90, 20), (120, 120, 20), (20, 120, 120), (140, 40, 140), (60, 60, 60), (180, 180, 180)]),
    dict(x=2, y=2, w=6, h=6, pixels=rect(6, 6, lambda x, y: 0 if x == y else 4), disposal=1, delay=20, transparent=0),
    dict(x=20, y=12, w=8, h=8, pixels=rect(8, 8, lambda x, y: 5 + (x % 2)), disposal=0, delay=7),
], loop=3)

# A first frame smaller than the screen with the background disposed, then frames on a transparent screen.
gif("background.gif", 16, 10, palette, [
    dict(x=4, y=2, w=8, h=5, pixels=rect(8, 5, lambda x, y: 1 + x % 3), disposal=2, delay=8, transparent=0),
    dict(x=0, y=0, w=6, h=6, pixels=rect(6, 6, lambda x, y: 0 if x < 2 else 6), disposal=2, delay=8, transparent=0),
    dict(x=9, y=3, w=7, h=7, pixels=rect(7, 7, lambda x, y: 7 - y % 2), disposal=1, delay=8, transparent=0),
], loop=0)

# Animated WebP: three stills muxed with chosen offsets, dispose and blend.
def webp_frame(name, size, colour_of):
    im = Image.new("RGBA", size)
    im.putdata([colour_of(x, y) for y in range(size[1]) for x in range(size[0])])
    im.save(name, lossless=True)

webp_frame("w1.webp", (20, 14), lambda x, y: (200, 30 + 10 * x, 40, 255))
webp_frame("w2.webp", (8, 6), lambda x, y: (20, 40, 230, 128 if x < 4 else 0))
webp_frame("w3.webp", (10, 8), lambda x, y: (30, 220, 60, 255 if y % 2 else 90))
subprocess.run(["webpmux", "-frame", "w1.webp", "+100+0+0+1-b", "-frame", "w2.webp", "+50+4+2+0+b",
                "-frame", "w3.webp", "+70+8+4+1-b", "-frame", "w2.webp", "+30+10+6+0+b",
                "-loop", "2", "-bgcolor", "0,0,0,0", "-o", "blend.webp"], check=True)
for n in ("w1", "w2", "w3"):
    os.remove(n + ".webp")
