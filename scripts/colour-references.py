#!/usr/bin/env python3
"""Makes the colour-management test fixtures and their independent references.

The references are lcms2's own conversions through Pillow's ImageCms (not FilterGraph), so the
tests compare FilterGraph's colour management with an independent implementation:

  colour/rocket-adobergb.jpg      Adobe RGB (1998) camera JPEG (copied from the corpus, public domain)
  colour/chart-p3.png             a synthetic chart tagged with colour/DisplayP3.icc (FilterGraph's
                                  built-in Display P3 profile, extracted once from `fgrun --profile p3`
                                  output; only the profile's bytes come from FilterGraph)
  colour/<name>-srgb-<intent>.png each converted to sRGB by lcms2 (8-bit, no black-point
                                  compensation) for the relative and perceptual intents
                                  (the photo's as a 192x192 crop at (200, 100))

Run from the repository root: python3 scripts/colour-references.py   (needs Pillow and numpy;
`pip install pillow numpy`). The outputs are deterministic.
"""
import io
import os

import numpy as np
from PIL import Image, ImageCms

FIX = os.path.join("Tests", "TestSupport", "Fixtures", "colour")
CROP = (200, 100, 392, 292)  # left, top, right, bottom of the photo's reference crop
INTENTS = {"relative": ImageCms.Intent.RELATIVE_COLORIMETRIC, "perceptual": ImageCms.Intent.PERCEPTUAL}


def chart():
    """A 96x64 chart: hue ramps at full and half saturation, a gray ramp, saturated corners."""
    h, w = 64, 96
    y, x = np.mgrid[0:h, 0:w]
    hue = x / w * 6
    sector = np.floor(hue).astype(int) % 6
    f = hue - np.floor(hue)
    one, zero = np.ones_like(f), np.zeros_like(f)
    table = [(one, f, zero), (1 - f, one, zero), (zero, one, f), (zero, 1 - f, one), (f, zero, one), (one, zero, 1 - f)]
    rgb = np.zeros((h, w, 3))
    for s, (r, g, b) in enumerate(table):
        m = sector == s
        rgb[m] = np.stack([r[m], g[m], b[m]], axis=-1)
    sat = np.where(y < 24, 1.0, np.where(y < 48, 0.5, 0.0))[..., None]
    gray = (x / (w - 1))[..., None]
    rgb = np.where(y[..., None] < 48, rgb * sat + (1 - sat) * 0.8, gray)
    return Image.fromarray(np.round(rgb * 255).astype(np.uint8), "RGB")


def main():
    p3 = open(os.path.join(FIX, "DisplayP3.icc"), "rb").read()
    chart().save(os.path.join(FIX, "chart-p3.png"), icc_profile=p3)
    srgb = ImageCms.createProfile("sRGB")
    for name in ["rocket-adobergb.jpg", "chart-p3.png"]:
        image = Image.open(os.path.join(FIX, name)).convert("RGB")
        source = ImageCms.ImageCmsProfile(io.BytesIO(Image.open(os.path.join(FIX, name)).info["icc_profile"]))
        for label, intent in INTENTS.items():
            out = ImageCms.profileToProfile(image, source, srgb, renderingIntent=intent, outputMode="RGB")
            if name.endswith(".jpg"):
                out = out.crop(CROP)  # keeps the fixture small; the tests compare the same crop
            out.save(os.path.join(FIX, f"{os.path.splitext(name)[0]}-srgb-{label}.png"))


if __name__ == "__main__":
    main()
