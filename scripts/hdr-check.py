#!/usr/bin/env python3
"""Reads an Ultra HDR JPEG FilterGraph wrote with the independent decoders, for the round-trip tests.

  hdr-check.py INPUT OUTPUT    prints one JSON object:
    input, output: libvips 8.18's gain-map fields of each file (uhdrload), with the base and map sizes
    psnr_ic:  PSNR (dB, over the reference's peak) of the output's HDR rendition as libultrahdr
              decodes it (imagecodecs.ultrahdr_decode, linear, full headroom) against the input's
              rendition decoded the same way and resized to the output's size in linear light
              (libvips resize, Lanczos 3); an OUTPUT ending in .tif is a float TIFF of the
              rendition itself (fgrun --hdr hdr), read as it is (output is then {})
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


def rendition(path):
    if path.endswith(".tif"):
        return pyvips.Image.new_from_file(path).numpy().astype(np.float32)
    with open(path, "rb") as f:
        return imagecodecs.ultrahdr_decode(f.read())[..., :3].astype(np.float32)


def main(src, dst):
    a, b = rendition(src), rendition(dst)
    h, w, _ = a.shape
    im = pyvips.Image.new_from_memory(np.ascontiguousarray(a).tobytes(), w, h, 3, "float")
    ref = im.resize(b.shape[1] / w, vscale=b.shape[0] / h, kernel="lanczos3").numpy()[: b.shape[0], : b.shape[1]]
    mse = float(np.mean((ref - b) ** 2))
    peak = float(ref.max())
    output = {} if dst.endswith(".tif") else fields(dst)
    print(json.dumps({"input": fields(src), "output": output, "psnr_ic": 10 * np.log10(peak * peak / mse)}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
