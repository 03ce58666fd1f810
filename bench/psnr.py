"""PSNR between two image files: python3 bench/psnr.py A B  ->  prints "41.23" (dB), "inf" or a reason.

Colour handling: both files are decoded by Pillow to 8-bit values exactly as stored (no colour
management, no ICC conversion: every workload writes sRGB). Two gray files are compared on their
one channel; a gray file and a colour file after turning the gray one into RGB (the value repeated
in R, G, B); alpha is dropped
(the benchmark's outputs are opaque). PSNR = 10 log10(255^2 / MSE), MSE over every sample of every
channel. Images of different sizes are not compared. Animations (GIF, WebP) are compared frame by
frame (Pillow's ImageSequence, each frame composed as shown): the median of the frames' PSNRs.
"""
import math
import sys

import numpy as np
from PIL import Image


def load(path):
    im = Image.open(path)
    im.load()
    if im.mode in ("I;16", "I;16B", "I"):
        im = im.point(lambda v: v / 257).convert("L")
    if im.mode in ("RGBA", "LA", "P", "CMYK", "YCbCr"):
        im = im.convert("RGB" if im.mode != "LA" else "L")
    return im


def frames(path):
    """Every frame of an animation (Pillow's ImageSequence), or the one image."""
    im = Image.open(path)
    for k in range(getattr(im, "n_frames", 1)):
        im.seek(k)
        yield load_frame(im)


def load_frame(im):
    im.load()
    return im.convert("RGB") if im.mode != "L" else im


def psnr(a_path, b_path):
    if getattr(Image.open(a_path), "n_frames", 1) > 1 or getattr(Image.open(b_path), "n_frames", 1) > 1:
        return animation_psnr(a_path, b_path)
    a, b = load(a_path), load(b_path)
    if a.size != b.size:
        return None, f"sizes differ: {a.size[0]}x{a.size[1]} vs {b.size[0]}x{b.size[1]}"
    if a.mode != b.mode:
        a, b = a.convert("RGB"), b.convert("RGB")
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    mse = float(np.mean((x - y) ** 2))
    return (math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)), None


def animation_psnr(a_path, b_path):
    """The median of the frames' PSNRs (frame k of one file against frame k of the other)."""
    values = []
    for a, b in zip(frames(a_path), frames(b_path)):
        if a.size != b.size:
            return None, f"frame sizes differ: {a.size[0]}x{a.size[1]} vs {b.size[0]}x{b.size[1]}"
        x, y = np.asarray(a.convert("RGB"), dtype=np.float64), np.asarray(b.convert("RGB"), dtype=np.float64)
        mse = float(np.mean((x - y) ** 2))
        values.append(math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse))
    return (float(np.median(values)) if values else None), (None if values else "no frames")


if __name__ == "__main__":
    value, reason = psnr(sys.argv[1], sys.argv[2])
    print(reason if value is None else ("inf" if math.isinf(value) else f"{value:.2f}"))
