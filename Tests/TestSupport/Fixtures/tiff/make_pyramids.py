#!/usr/bin/env python3
"""Makes the pyramidal TIFF fixtures (see NOTICE.md) with libvips (pyvips) and its references:
libvips's own decode of every level, saved as PNG. Nothing here depends on FilterGraph.

    python3 Tests/TestSupport/Fixtures/tiff/make_pyramids.py   (from the repository root)
"""
import os

import numpy as np
import pyvips

W, H = 320, 241
here = os.path.dirname(os.path.abspath(__file__))
os.chdir(here)

# ps(x, y, c) = round(128 + 70·sin(x/23 + c)·cos(y/31 − c) + 40·sin((x + 2y)/57 + 2c)), clipped to 0…255:
# smooth enough that a reduced level resampled is close to the full image resampled.
y, x = np.mgrid[0:H, 0:W].astype(np.float64)
planes = [128 + 70 * np.sin(x / 23 + c) * np.cos(y / 31 - c) + 40 * np.sin((x + 2 * y) / 57 + 2 * c) for c in range(3)]
pixels = np.clip(np.stack(planes, -1).round(), 0, 255).astype(np.uint8)
image = pyvips.Image.new_from_memory(pixels.tobytes(), W, H, 3, "uchar").copy(interpretation="srgb")

tiles = dict(tile=True, tile_width=32, tile_height=32, pyramid=True)
files = {
    "pyramid-chain.tif": dict(compression="deflate", predictor="horizontal"),  # levels in the main IFD chain
    "pyramid-subifd.tif": dict(compression="deflate", predictor="horizontal", subifd=True),  # levels as SubIFDs of page 0
    "pyramid-jpeg.tif": dict(compression="jpeg", Q=90),  # JPEG tiles, levels in the main chain
}
# BigTIFF, levels in the main chain: the same pixels as pyramid-chain.tif, whose references serve.
image.tiffsave("pyramid-bigtiff.tif", **tiles, compression="deflate", predictor="horizontal", bigtiff=True)
for name, options in files.items():
    image.tiffsave(name, **tiles, **options)
    subifd = options.get("subifd", False)
    levels = pyvips.Image.new_from_file(name).get("n-subifds") if subifd else pyvips.Image.new_from_file(name).get("n-pages") - 1
    for level in range(1, levels + 1):
        decoded = pyvips.Image.tiffload(name, subifd=level - 1) if subifd else pyvips.Image.tiffload(name, page=level)
        decoded.pngsave(name.replace(".tif", f".level{level}.vips.png"), compression=9)
