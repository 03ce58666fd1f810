#!/usr/bin/env python3
"""Makes bench/inputs/anim-640x360.gif (git-ignored) for W12a, deterministically.

200 frames of 640x360 at 40 ms, looping forever, like a GIF made from a video clip: a smooth
random colour landscape (a seeded 12x8 field enlarged bicubically) panning 2 pixels a frame, with
twelve soft-edged shapes moving across it, each frame quantised by Pillow to its own 256 colours
(median cut, Floyd-Steinberg) and saved by Pillow (which stores only the rectangles that changed).
Needs python3 with NumPy and Pillow.

usage: bench/make-animation-input.py [OUT.gif]
"""
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

W, H, FRAMES = 640, 360, 200
here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "inputs", "anim-640x360.gif")
rng = np.random.default_rng(20261128)
field = (rng.random((8, 16, 3)) * 200 + 28).astype(np.uint8)
landscape = Image.fromarray(field, "RGB").resize((W + 2 * FRAMES, H), Image.Resampling.BICUBIC)
shapes = [(rng.integers(0, W), rng.integers(0, H), rng.integers(30, 160), rng.integers(30, 120),
           tuple(int(c) for c in rng.integers(0, 256, 3)), rng.integers(-4, 5), rng.integers(-3, 4),
           rng.random() < 0.5) for _ in range(12)]
frames = []
for k in range(FRAMES):
    frame = landscape.crop((2 * k, 0, 2 * k + W, H)).convert("RGBA")
    layer = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for x, y, w, h, colour, dx, dy, round_ in shapes:
        x0, y0 = (x + dx * k) % (W + w) - w, (y + dy * k) % (H + h) - h
        (draw.ellipse if round_ else draw.rectangle)([x0, y0, x0 + w, y0 + h], fill=colour + (200,))
    frame = Image.alpha_composite(frame, layer.filter(ImageFilter.GaussianBlur(1.5))).convert("RGB")
    frames.append(frame.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.FLOYDSTEINBERG))
os.makedirs(os.path.dirname(out), exist_ok=True)
frames[0].save(out + ".part.gif", save_all=True, append_images=frames[1:], duration=40, loop=0, optimize=False)
os.replace(out + ".part.gif", out)
print(f"make-animation-input: {out} ({os.path.getsize(out)} bytes)")
