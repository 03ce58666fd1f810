#!/usr/bin/env python3
"""Where W1's fgrun-vs-libvips difference comes from: both thumbnails against an exact evaluation.

usage: python3 bench/resample_check.py INPUT.jpg FGRUN.png VIPS.png [WxH box, default 800x800]

FGRUN.png and VIPS.png are the lossless variant of W1 (compare.py writes them as
OUT/W1-lossless-fgrun.png and OUT/W1-lossless-vips.png). Both tools decode the JPEG at 1/2 size
inside the IDCT (libjpeg scale 1/2; fgrun's and libvips's decodes are the same values as
`djpeg -scale 1/2`), then resample the rest (3.75x for 6000x4000 -> 800x533) with Lanczos3 on
the stored sRGB values. This script decodes the same 1/2-size image (pyvips, jpegload shrink=2),
evaluates the textbook definition in float64 with ONE final rounding:

    output pixel x (centre x + 1/2) sits at input position u = (x + 1/2)*r - 1/2 + c,
    out(x) = sum_i L3((i - u)/s) in(i) / sum_i L3((i - u)/s),  s = max(r, 1) (antialiasing),
    L3(t) = sinc(t) sinc(t/3) for |t| < 3, edge pixels repeated,

under the two coordinate conventions the tools use, and prints PSNRs:

  edges    r = in/out on each axis, c = 0: the output's extent maps onto the input's exactly
           (fgrun's definition in Sources/FilterGraph/resample/Scale.swift; also Pillow,
           ImageMagick, GraphicsMagick, OpenCV);
  uniform  one factor for both axes (r = 3000/800 = 3.75, libvips's vips_thumbnail/vips_resize),
           the rows it does not cover (2000 - 533*3.75 = 1.25) split evenly above and below:
           c = (in - out*r)/2.

It also encodes the "uniform" evaluation as JPEG Q85 (pyvips, the same encoder settings as W1)
and compares it with VIPS.png's JPEG: the best any resampler could score against libvips's JPEG
without reproducing its pixels bit for bit. PSNR as bench/psnr.py: 8-bit RGB values as stored.
"""
import math
import os
import sys
import tempfile

import numpy as np


def lanczos3(t):
    t = np.abs(t)
    return np.where(t < 3, np.sinc(t) * np.sinc(t / 3), 0.0)


def axis_taps(in_size, out_size, r, c):
    """One axis's taps: (out_size, n) input indices (edges repeated) and normalised weights."""
    s = max(r, 1.0)
    n = 2 * math.ceil(3 * s) + 2
    idx = np.zeros((out_size, n), dtype=np.int64)
    wts = np.zeros((out_size, n))
    for x in range(out_size):
        u = (x + 0.5) * r - 0.5 + c
        i = np.arange(math.floor(u - 3 * s) + 1, math.floor(u - 3 * s) + 1 + n)
        w = lanczos3((i - u) / s)  # zero beyond the support
        idx[x], wts[x] = np.clip(i, 0, in_size - 1), w / w.sum()
    return idx, wts


def resample(a, ty, tx):
    """Separable: rows (ty) then columns (tx), float64, no intermediate rounding."""
    (iy, wy), (ix, wx) = ty, tx
    t = sum(wy[:, j, None, None] * a[iy[:, j]] for j in range(iy.shape[1]))
    return sum(wx[None, :, j, None] * t[:, ix[:, j]] for j in range(ix.shape[1]))


def to8(a):
    return np.clip(np.floor(a + 0.5), 0, 255).astype(np.uint8)


def psnr(a, b):
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def main():
    import pyvips
    from PIL import Image

    inp, fg_path, vips_path = sys.argv[1:4]
    box = [int(v) for v in (sys.argv[4] if len(sys.argv) > 4 else "800x800").split("x")]
    fg = np.asarray(Image.open(fg_path).convert("RGB"))
    vp = np.asarray(Image.open(vips_path).convert("RGB"))
    oh, ow = fg.shape[:2]
    full = pyvips.Image.new_from_file(inp)
    factor = min(box[0] / full.width, box[1] / full.height)
    shrink = next((d for d in (8, 4, 2) if full.width // d >= 2 * ow and full.height // d >= 2 * oh), 1)
    # Same 1/shrink decode as both tools (libvips: factor 2 for a 7.5x reduction).
    small = pyvips.Image.jpegload(inp, shrink=shrink)
    a = np.ndarray(buffer=small.write_to_memory(), dtype=np.uint8,
                   shape=(small.height, small.width, small.bands)).astype(np.float64)
    h, w = a.shape[:2]
    edges = resample(a, axis_taps(h, oh, h / oh, 0.0), axis_taps(w, ow, w / ow, 0.0))
    r = 1 / (factor * shrink)  # libvips: one factor from the box and the decoded width
    uniform = resample(a, axis_taps(h, oh, r, (h - oh * r) / 2), axis_taps(w, ow, r, (w - ow * r) / 2))
    e8, u8 = to8(edges), to8(uniform)

    def row(name, x):
        return f"| {name} | {psnr(x, e8):.2f} | {psnr(x, u8):.2f} | {psnr(x, vp if x is not vp else fg):.2f} |"

    print(f"decoded at 1/{shrink}: {w}x{h}; output {ow}x{oh}; edges r = {w / ow:.5f} x {h / oh:.5f}, "
          f"uniform r = {r:.5f} (rows offset {(h - oh * r) / 2:+.3f})")
    print("")
    print("| PSNR dB | vs exact, edges | vs exact, uniform | vs the other tool |")
    print("| --- | ---: | ---: | ---: |")
    print(row("fgrun", fg))
    print(row("libvips", vp))
    print(f"| exact, uniform | {psnr(u8, e8):.2f} | inf | {psnr(u8, vp):.2f} (vs libvips) |")
    with tempfile.TemporaryDirectory() as d:
        jp = [os.path.join(d, n) for n in ("u.jpg", "v.jpg")]
        for arr, path in ((u8, jp[0]), (vp, jp[1])):
            pyvips.Image.new_from_memory(np.ascontiguousarray(arr).tobytes(), ow, oh, 3, "uchar").jpegsave(
                path, Q=85, strip=True)
        uj, vj = (np.asarray(Image.open(p).convert("RGB")) for p in jp)
        print("")
        print(f"JPEG Q85 of 'exact, uniform' vs JPEG Q85 of libvips's pixels: {psnr(uj, vj):.2f} dB")


if __name__ == "__main__":
    main()
