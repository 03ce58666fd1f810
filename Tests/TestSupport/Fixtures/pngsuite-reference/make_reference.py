#!/usr/bin/env python3
"""Make reference.json: the expected decode of every valid PngSuite image.

Run once from this folder:  python3 make_reference.py
Needs Python 3 with numpy and Pillow (pip install pillow numpy).

The expected pixels are computed by a small PNG decoder written here (zlib + unfiltering + Adam7 +
sample unpacking) — independent of libpng — and transformed to the layout FilterGraph's
PNGDecoder produces:
  * palette -> RGB, or RGBA when the file has tRNS (palette entries without a tRNS value are opaque)
  * gray / RGB with a tRNS colour key -> gray+alpha / RGBA (alpha 0 where the key matches, else max)
  * 1/2/4-bit gray -> 8 bits by bit replication (libpng's png_set_expand_gray_1_2_4_to_8:
    v * 255 / (2^depth - 1), so 1 -> 255, 2-bit 1 -> 85, 4-bit 1 -> 17)
  * 16-bit samples stay 16-bit and are stored little-endian (the native order of the x86-64 and
    arm64 hosts the tests run on)
Every result is cross-checked against Pillow wherever Pillow can represent it (8-bit outputs
compare directly; 16-bit gray compares as I;16; other 16-bit outputs compare their high bytes
with Pillow's 8-bit decode). The JSON holds, per file: width, height, layout, bitDepth (of the
decoded samples) and sha256 of the packed pixel bytes (rows without padding).
"""
import hashlib
import json
import os
import struct
import sys
import zlib

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "..", "pngsuite")
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunks(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        yield kind, body
        pos += 12 + length
        if kind == b"IEND":
            break


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(raw, width, height, bits_per_pixel, pos):
    stride = (width * bits_per_pixel + 7) // 8
    bpp = max(1, bits_per_pixel // 8)
    prev = bytearray(stride)
    rows = []
    for _ in range(height):
        ftype = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif ftype == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 255
            elif ftype != 0:
                raise ValueError("bad filter type %d" % ftype)
        rows.append(bytes(line))
        prev = line
    return rows, pos


def unpack(row, width, channels, depth):
    if depth == 16:
        return np.frombuffer(row, dtype=">u2")[: width * channels].astype(np.uint32).reshape(width, channels)
    if depth == 8:
        return np.frombuffer(row, dtype=np.uint8)[: width * channels].astype(np.uint32).reshape(width, channels)
    bits = np.unpackbits(np.frombuffer(row, dtype=np.uint8))
    values = bits[: width * depth].reshape(width, depth)
    weights = 1 << np.arange(depth - 1, -1, -1)
    return (values * weights).sum(axis=1).astype(np.uint32).reshape(width, 1)


def decode(path):
    data = open(path, "rb").read()
    idat = b""
    plte = trns = None
    for kind, body in chunks(data):
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            plte = np.frombuffer(body, dtype=np.uint8).reshape(-1, 3).astype(np.uint32)
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    ch = CHANNELS[ctype]
    samples = np.zeros((height, width, ch), dtype=np.uint32)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    pos = 0
    for x0, y0, dx, dy in passes:
        pw = (width - x0 + dx - 1) // dx
        ph = (height - y0 + dy - 1) // dy
        if pw <= 0 or ph <= 0:
            continue
        rows, pos = unfilter(raw, pw, ph, ch * depth, pos)
        for j, row in enumerate(rows):
            samples[y0 + j * dy, x0::dx][:pw] = unpack(row, pw, ch, depth)

    out_depth = 16 if depth == 16 else 8
    top = (1 << out_depth) - 1
    if ctype == 3:
        rgb = plte[samples[:, :, 0]]
        if trns is not None:
            alpha_table = np.full(256, 255, dtype=np.uint32)
            alpha_table[: len(trns)] = np.frombuffer(trns, dtype=np.uint8)
            alpha = alpha_table[samples[:, :, 0]][:, :, None]
            out, layout = np.concatenate([rgb, alpha], axis=2), "rgba"
        else:
            out, layout = rgb, "rgb"
    elif ctype in (0, 2):
        key = None
        if trns is not None:
            key = np.array(struct.unpack(">" + "H" * ch, trns[: 2 * ch]), dtype=np.uint32)
        values = samples
        if ctype == 0 and depth < 8:
            values = samples * 255 // ((1 << depth) - 1)
        if key is not None:
            opaque = np.any(samples != key, axis=2)
            alpha = np.where(opaque, top, 0)[:, :, None].astype(np.uint32)
            out = np.concatenate([values, alpha], axis=2)
            layout = "grayAlpha" if ctype == 0 else "rgba"
        else:
            out, layout = values, ("gray" if ctype == 0 else "rgb")
    else:
        out, layout = samples, ("grayAlpha" if ctype == 4 else "rgba")
    dtype = "<u2" if out_depth == 16 else np.uint8
    return out.astype(dtype), layout, out_depth


def pillow_check(path, out, layout, depth):
    """Returns None when Pillow agrees, else a description of the difference."""
    im = Image.open(path)
    im.load()
    mode = {"gray": "L", "grayAlpha": "LA", "rgb": "RGB", "rgba": "RGBA"}[layout]
    if layout == "grayAlpha" and im.mode in ("L", "I;16") and "transparency" in im.info:
        # A gray colour key: Pillow keeps the key at the file's bit depth while its L values are
        # scaled to 8 bits, so build the alpha channel here instead of using convert("LA").
        gray = np.array(im).astype(np.uint32)
        key = im.info["transparency"]
        bits = int(os.path.basename(path)[6:8])
        if bits < 8:
            key = key * 255 // ((1 << bits) - 1)
        alpha = np.where(gray != key, (1 << depth) - 1, 0)
        theirs = np.stack([gray, alpha], axis=2)
        ours = out.astype(np.uint32)
    elif depth == 16 and layout == "gray" and im.mode.startswith("I"):
        theirs = np.array(im).astype(np.uint32)
        ours = out[:, :, 0].astype(np.uint32)
    else:
        theirs = np.array(im.convert(mode)).astype(np.uint32).reshape(out.shape)
        ours = out.astype(np.uint32) >> 8 if depth == 16 else out.astype(np.uint32)
    if np.array_equal(theirs, ours):
        return None
    return "%d of %d samples differ" % (int((theirs != ours).sum()), ours.size)


def main():
    names = sorted(n for n in os.listdir(SUITE) if n.endswith(".png") and not n.startswith("x"))
    reference, disagreements = {}, []
    for name in names:
        out, layout, depth = decode(os.path.join(SUITE, name))
        height, width = out.shape[:2]
        reference[name] = {
            "width": width,
            "height": height,
            "layout": layout,
            "bitDepth": depth,
            "sha256": hashlib.sha256(out.tobytes()).hexdigest(),
        }
        problem = pillow_check(os.path.join(SUITE, name), out, layout, depth)
        if problem:
            disagreements.append((name, problem))
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %d references" % len(reference))
    for name, problem in disagreements:
        print("Pillow disagrees on %s: %s" % (name, problem), file=sys.stderr)


if __name__ == "__main__":
    main()
