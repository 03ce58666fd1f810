#!/usr/bin/env python3
"""bench/make-rgba-input.py PHOTO.jpg OUT.png -- W8's input: the photo as an RGBA PNG.

The alpha channel is a smooth diagonal ramp from 128 to 255 (every pixel partly or fully opaque,
so the colour matters everywhere), saved by Pillow at its default zlib level (6): a PNG as a
typical tool writes it. Needs Pillow and NumPy.
"""
import sys

import numpy as np
from PIL import Image

photo = Image.open(sys.argv[1]).convert("RGB")
w, h = photo.size
ramp = np.add.outer(np.arange(h) / max(h - 1, 1), np.arange(w) / max(w - 1, 1)) / 2
alpha = Image.fromarray((128 + ramp * 127).round().astype(np.uint8), "L")
photo.putalpha(alpha)
photo.save(sys.argv[2])
