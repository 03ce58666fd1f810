#!/usr/bin/env python3
"""bench/make-tiff16-input.py PHOTO.jpg OUT.tif -- W9's input: the photo as a 16-bit RGB TIFF.

Each 8-bit value v becomes 256·v + n, where n is seeded Gaussian noise (mean 128, sigma 8,
clipped to 0…255): a 16-bit master whose low bits carry information, as a scan or a raw
development has, rather than v·257's exactly predictable ones. Saved by libvips (pyvips) with LZW
and horizontal prediction, in strips: a TIFF as scanners and raw developers write it.
"""
import sys

import pyvips

photo = pyvips.Image.new_from_file(sys.argv[1]).colourspace("srgb")
bands = [pyvips.Image.gaussnoise(photo.width, photo.height, mean=128, sigma=8, seed=9 + b) for b in range(photo.bands)]
low = bands[0].bandjoin(bands[1:]).cast("uchar")  # cast clips to 0…255
high = photo.cast("ushort") * 256 + low.cast("ushort")
high.cast("ushort").copy(interpretation="rgb16").tiffsave(sys.argv[2], compression="lzw", predictor="horizontal")
