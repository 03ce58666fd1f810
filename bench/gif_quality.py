#!/usr/bin/env python3
"""W12a's quality table: GIF quality at equal file size, fgrun against libvips, gifsicle and ImageMagick.

usage: python3 bench/gif_quality.py FGRUN [INPUT.gif] [OUTDIR]

The input (default bench/inputs/anim-640x360.gif, bench/make-animation-input.py) is fitted into
320x320 by each tool: `vipsthumbnail IN[n=-1] -s 320x320` (cgif, libimagequant), `gifsicle
--resize-fit 320x320 --colors 256 -O3`, and ImageMagick 6's `convert IN -coalesce -resize 320x320
-layers optimize` (each frame quantised to its own table, then frame differences with transparency;
/usr/bin/convert itself, not a wrapper earlier on PATH). For each peer's output size S, fgrun (bench/recipes/
W12a.txt) is run three ways, each setting chosen by bisection until its file is within ±2 % of S (or
nearest S when no setting reaches it): Floyd-Steinberg with --colors; 256 colours without dithering
with --lossy (the frame-difference tolerance); 256 colours with Floyd-Steinberg at --dither-amount
(0…1, in steps of 0.01). Quality is the PSNR of each decoded frame (Pillow's ImageSequence, frames composed as
shown) against the same frame of the input resized by Pillow (LANCZOS, unquantised: a reference
that is none of the tools' own resampler), RGB, 8-bit; the table gives the size, the median and
the minimum over the frames. Needs python3 with NumPy and Pillow.
"""
import os
import subprocess
import sys

import numpy as np
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))
fgrun = sys.argv[1]
inp = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "inputs", "anim-640x360.gif")
out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "out")
os.makedirs(out, exist_ok=True)


def frames(path, size=None):
    im = Image.open(path)
    for k in range(getattr(im, "n_frames", 1)):
        im.seek(k)
        f = im.convert("RGB")
        yield np.asarray(f.resize(size, Image.Resampling.LANCZOS) if size else f, dtype=np.float64)


src = Image.open(inp)
scale = min(320 / src.width, 320 / src.height)
reference = list(frames(inp, (round(src.width * scale), round(src.height * scale))))


def quality(path):
    values = []
    for a, b in zip(frames(path), reference):
        mse = float(np.mean((a - b) ** 2)) if a.shape == b.shape else float("nan")
        values.append(10 * np.log10(255 ** 2 / mse) if mse else float("inf"))
    return os.path.getsize(path), len(values), float(np.median(values)), float(np.min(values))


def run_fgrun(colors, dither="floyd-steinberg", lossy=0, amount=100):
    """fgrun's file for these settings (`amount` is --dither-amount in hundredths)."""
    path = os.path.join(out, f"W12a-fgrun-c{colors}-{dither}-a{amount}-l{lossy}.gif")
    if not os.path.exists(path):
        subprocess.run([fgrun, "--colors", str(colors), "--dither", dither, "--dither-amount", f"{amount / 100:g}",
                        "--lossy", str(lossy), os.path.join(here, "recipes", "W12a.txt"), inp, path], check=True)
    return path


def bisect(size, run, lo, hi, start, larger_is_smaller):
    """The setting in lo...hi whose file from `run` is nearest `size` (stops within 2 %)."""
    best, value = None, start
    for _ in range(9):
        fsize = os.path.getsize(run(value))
        if best is None or abs(fsize / size - 1) < abs(best[1] / size - 1):
            best = (value, fsize)
        if abs(fsize / size - 1) <= 0.02:
            break
        if (fsize > size) != larger_is_smaller:
            hi = value - 1
        else:
            lo = value + 1
        if lo > hi:
            break
        value = (lo + hi) // 2
    return best[0]


peers = [("libvips vipsthumbnail [n=-1]", os.path.join(out, "W12a-q-vips.gif"),
          ["vipsthumbnail", f"{inp}[n=-1]", "-s", "320x320", "-o", os.path.join(out, "W12a-q-vips.gif")]),
         ("gifsicle --colors 256 -O3", os.path.join(out, "W12a-q-gifsicle-O3.gif"),
          ["gifsicle", "--resize-fit", "320x320", "--colors", "256", "-O3", inp, "-o",
           os.path.join(out, "W12a-q-gifsicle-O3.gif")]),
         ("ImageMagick convert -coalesce -resize -layers optimize", os.path.join(out, "W12a-q-magick.gif"),
          ["/usr/bin/convert", inp, "-coalesce", "-resize", "320x320", "-layers", "optimize",
           os.path.join(out, "W12a-q-magick.gif")])]
rows = ["| tool | settings | size KB | frames | median PSNR dB | min PSNR dB |", "| --- | --- | ---: | ---: | ---: | ---: |"]
for name, path, argv in peers:
    if not os.path.exists(path):
        subprocess.run(argv, check=True)
    size, n, med, low = quality(path)
    rows.append(f"| {name} | | {size / 1024:.0f} | {n} | {med:.2f} | {low:.2f} |")
    colors = bisect(size, run_fgrun, 2, 256, 256, False)
    fsize, n, med, low = quality(run_fgrun(colors))
    rows.append(f"| fgrun at {name}'s size ({100 * (fsize / size - 1):+.1f} %) | --colors {colors} | "
                f"{fsize / 1024:.0f} | {n} | {med:.2f} | {low:.2f} |")
    lossy = bisect(size, lambda v: run_fgrun(256, "none", v), 0, 96, 0, True)
    fsize, n, med, low = quality(run_fgrun(256, "none", lossy))
    rows.append(f"| fgrun at {name}'s size ({100 * (fsize / size - 1):+.1f} %) | --dither none --lossy {lossy} | "
                f"{fsize / 1024:.0f} | {n} | {med:.2f} | {low:.2f} |")
    # The amount's files grow with it: bisected only when S lies between amount 0's and 1's.
    ends = [os.path.getsize(run_fgrun(256, "floyd-steinberg", 0, v)) for v in (0, 100)]
    amount = 0 if size <= ends[0] else 100 if size >= ends[1] else \
        bisect(size, lambda v: run_fgrun(256, "floyd-steinberg", 0, v), 0, 100, 100, False)
    fsize, n, med, low = quality(run_fgrun(256, "floyd-steinberg", 0, amount))
    rows.append(f"| fgrun at {name}'s size ({100 * (fsize / size - 1):+.1f} %) | --dither-amount {amount / 100:g} | "
                f"{fsize / 1024:.0f} | {n} | {med:.2f} | {low:.2f} |")
for dither in ("floyd-steinberg", "none", "ordered"):
    size, n, med, low = quality(run_fgrun(256, dither))
    rows.append(f"| fgrun | --colors 256 --dither {dither} | {size / 1024:.0f} | {n} | {med:.2f} | {low:.2f} |")
print("\n".join(rows))
