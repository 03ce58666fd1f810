#!/usr/bin/env python3
"""W12b's and W12c's quality table: animated WebP size and per-frame PSNR, fgrun against libvips.

usage: python3 bench/webp_anim_quality.py FILE.webp... [--workload W12b|W12c] [--input IN]

Each animated WebP given (fgrun's, libvips's: bench/compare.py's outputs) is decoded frame by
frame (Pillow's ImageSequence, each frame composed as shown, RGB) and compared with the same frame
of the input made the workload's way by Pillow — W12b: fitted into 320x320; W12c: the central
480x270 cropped, then fitted — with LANCZOS (a reference that is none of the tools' own
resamplers). The table gives the file size, the frames, and the median and minimum PSNR (dB)
over the frames. Needs python3 with NumPy and Pillow.
"""
import argparse
import os

import numpy as np
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))
inputs = {"W12b": os.path.join(here, "inputs", "anim-640x360.gif"),
          "W12c": os.path.join(here, "inputs", "anim-640x360-100.webp")}


def frames(path, workload=None):
    """Every frame of `path` as float RGB; made the workload's way when `workload` is given."""
    im = Image.open(path)
    for k in range(getattr(im, "n_frames", 1)):
        im.seek(k)
        f = im.convert("RGB")
        if workload == "W12c":
            left, top = (f.width - 480) // 2, (f.height - 270) // 2
            f = f.crop((left, top, left + 480, top + 270))
        if workload:
            scale = min(320 / f.width, 320 / f.height)
            f = f.resize((round(f.width * scale), round(f.height * scale)), Image.Resampling.LANCZOS)
        yield np.asarray(f, dtype=np.float64)


def psnr(a, b):
    if a.shape != b.shape:
        return float("nan")
    mse = float(np.mean((a - b) ** 2))
    return 10 * np.log10(255 ** 2 / mse) if mse else float("inf")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--workload", default="W12b", choices=sorted(inputs))
    parser.add_argument("--input")
    args = parser.parse_args()
    reference = list(frames(args.input or inputs[args.workload], args.workload))
    print("| file | size KB | frames | median PSNR dB | min PSNR dB |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for path in args.files:
        values = [psnr(a, b) for a, b in zip(frames(path), reference)]
        print(f"| {os.path.basename(path)} | {os.path.getsize(path) / 1024:.1f} | {len(values)} | "
              f"{np.median(values):.2f} | {np.min(values):.2f} |")


if __name__ == "__main__":
    main()
