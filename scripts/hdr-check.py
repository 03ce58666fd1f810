#!/usr/bin/env python3
"""Reads an Ultra HDR JPEG FilterGraph wrote with the independent decoders, for the round-trip tests.

  hdr-check.py INPUT OUTPUT    prints one JSON object (an INPUT ending in .avif or .png is a PQ AVIF
                               or PNG, read as such an OUTPUT below):
    input, output: libvips 8.18's gain-map fields of each file (uhdrload), with the base and map sizes
    psnr_ic:  PSNR (dB, over the reference's peak) of the output's HDR rendition as libultrahdr
              decodes it (imagecodecs.ultrahdr_decode, linear, full headroom) against the input's
              rendition decoded the same way and resized to the output's size in linear light
              (libvips resize, Lanczos 3); an OUTPUT ending in .tif is a float TIFF of the
              rendition itself (fgrun --hdr hdr), read as it is (output is then {}); one ending in
              .avif is the rendition as PQ (fgrun --hdr hdr to AVIF): decoded by libavif
              (imagecodecs.avif_decode), its nclx checked (BT.2020 primaries, PQ transfer), the
              signal taken through the ST 2084 EOTF, BT.2020 → BT.709 (BT.2087's inverse) and
              divided by 203 cd/m² (BT.2408's HDR reference white = the rendition's SDR white); one
              ending in .png is the rendition as a 16-bit PQ PNG (fgrun --hdr hdr to PNG), read by
              imagecodecs' PNG decoder with its cICP chunk checked (9, 16, 0, 1), the same way
Run with the oracles' venv (scripts/install-hdr-oracles.sh).
"""
import json
import sys

import imagecodecs
import numpy as np
import pyvips


def fields(path):
    im = pyvips.Image.uhdrload(path)
    out = {f: im.get(f) for f in im.get_fields() if f.startswith("gainmap-") and f != "gainmap-data"}
    gm = im.get_gainmap()
    out.update(width=im.width, height=im.height, map_width=gm.width, map_height=gm.height, map_bands=gm.bands)
    return out


def pq_rendition(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".png"):  # 16-bit, cICP chunk: primaries, transfer, matrix, full range
        at = data.find(b"cICP")
        assert at > 0 and data[at + 4:at + 8] == b"\x09\x10\x00\x01", "not a BT.2020 PQ full-range cICP chunk"
        decoded, depth = imagecodecs.png_decode(data), 16
    else:
        at = data.find(b"nclx")
        assert at > 0 and data[at + 4:at + 8] == b"\x00\x09\x00\x10", "not BT.2020 primaries with the PQ transfer"
        decoded = imagecodecs.avif_decode(data)
        pixi = data.find(b"pixi")  # version/flags, channel count, bits per channel
        depth = data[pixi + 9]
        assert pixi > 0 and depth in (10, 12), "no pixi box with a deep bit depth"
    s = np.power(decoded[..., :3].astype(np.float64) / (2 ** depth - 1), 1 / (2523 / 4096 * 128))
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    nits = 10000 * np.power(np.maximum(s - c1, 0) / (c2 - c3 * s), 1 / (2610 / 16384))
    to709 = np.linalg.inv(np.array([[0.6274, 0.3293, 0.0433], [0.0691, 0.9195, 0.0114], [0.0164, 0.0880, 0.8956]]))
    return ((nits @ to709.T) / 203).astype(np.float32)


def rendition(path):
    if path.endswith((".avif", ".png")):
        return pq_rendition(path)
    if path.endswith(".tif"):
        return pyvips.Image.new_from_file(path).numpy().astype(np.float32)
    with open(path, "rb") as f:
        return imagecodecs.ultrahdr_decode(f.read())[..., :3].astype(np.float32)


def main(src, dst):
    a, b = rendition(src), rendition(dst)
    if src.endswith((".avif", ".png")):
        # An Ultra HDR JPEG's base is sRGB: BT.2020 light outside BT.709 (negative components) cannot
        # be restored by its map, and FilterGraph clips it to 0 (HDRGainMap.swift): so does the reference.
        a = np.clip(a, 0, None)
    h, w, _ = a.shape
    im = pyvips.Image.new_from_memory(np.ascontiguousarray(a).tobytes(), w, h, 3, "float")
    ref = im.resize(b.shape[1] / w, vscale=b.shape[0] / h, kernel="lanczos3").numpy()[: b.shape[0], : b.shape[1]]
    mse = float(np.mean((ref - b) ** 2))
    peak = float(ref.max())
    output = {} if dst.endswith((".tif", ".avif", ".png")) else fields(dst)
    print(json.dumps({"input": fields(src) if src.endswith(".jpg") else {}, "output": output, "psnr_ic": 10 * np.log10(peak * peak / mse)}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
