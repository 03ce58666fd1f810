#!/usr/bin/env python3
"""Measures how an Ultra HDR JPEG renders on an HDR screen inside and outside a rectangle, for the
test of SDR overlays (GainMapOverlayTests).

  hdr-overlay-check.py FILE X Y W H    prints one JSON object:
    inside, outside: the median over the pixels of the ratio of the HDR rendition to the SDR base,
                     both in linear light — libvips 8.18's uhdr2scRGB of uhdrload (scRGB, 1 = SDR
                     white) over the base's sRGB codes through the sRGB curve — inside the rectangle
                     (X, Y, W, H in base pixels) and outside it
Run with the oracles' venv (scripts/install-hdr-oracles.sh).
"""
import json
import sys

import numpy as np
import pyvips


def main(path, x, y, w, h):
    base = pyvips.Image.uhdrload(path)
    hdr = base.uhdr2scRGB().numpy()[..., :3].astype(np.float64)
    s = base.numpy()[..., :3].astype(np.float64) / 255
    sdr = np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)
    ratio = (hdr / np.maximum(sdr, 1e-4)).mean(axis=2)
    inside = np.zeros(ratio.shape, bool)
    inside[y:y + h, x:x + w] = True
    print(json.dumps({"inside": float(np.median(ratio[inside])), "outside": float(np.median(ratio[~inside]))}))


if __name__ == "__main__":
    main(sys.argv[1], *map(int, sys.argv[2:6]))
