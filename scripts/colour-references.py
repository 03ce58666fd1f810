#!/usr/bin/env python3
"""Makes the colour-management test fixtures and their independent references.

The references are lcms2's own conversions through Pillow's ImageCms (not FilterGraph), so the
tests compare FilterGraph's colour management with an independent implementation:

  colour/rocket-adobergb.jpg      Adobe RGB (1998) camera JPEG (copied from the corpus, public domain)
  colour/chart-p3.png             a synthetic chart tagged with colour/DisplayP3.icc (FilterGraph's
                                  built-in Display P3 profile, extracted once from `fgrun --profile p3`
                                  output; only the profile's bytes come from FilterGraph)
  colour/ring-p3.png,             libjxl testdata's wide-gamut test charts (external/wide-gamut-tests,
  colour/ring-rec2020.png         P3-sRGB-color-ring.png and R2020-sRGB-color-ring.png, Apache 2.0):
                                  every 8th pixel of each row and column (125x125, the stored values
                                  unchanged, the constant alpha dropped), with the original profile
  colour/cmyk-swop.jpg            libjxl testdata's jxl/flower/flower_small.cmyk.jpg (an Adobe CMYK
                                  JPEG, CC BY 4.0) cropped losslessly by jpegtran to 256x256 at
                                  (128, 144), with Compact-ICC-Profiles' CGATS001Compat-v2-micro.icc
                                  (a SWOP-like CMYK profile, CC0) inserted as an APP2 segment
  colour/<name>-srgb-<intent>.png each converted to sRGB by lcms2 (8-bit, no black-point
                                  compensation) for the four intents (the photo's as a 192x192 crop
                                  at (200, 100)); the CMYK file for relative colorimetric with
                                  black-point compensation only, the one conversion CMYK sources get

Run from the repository root: python3 scripts/colour-references.py [LIBJXL_TESTDATA]
(needs Pillow and numpy: `pip install pillow numpy`). With the path of a libjxl/testdata checkout
(commit 73695d3036) it also remakes the charts and the CMYK file from it (needs `jpegtran`);
without, it uses the committed ones. The outputs are deterministic.
"""
import io
import os
import subprocess
import sys

import numpy as np
from PIL import Image, ImageCms

FIX = os.path.join("Tests", "TestSupport", "Fixtures", "colour")
CROP = (200, 100, 392, 292)  # left, top, right, bottom of the photo's reference crop
INTENTS = {
    "relative": ImageCms.Intent.RELATIVE_COLORIMETRIC,
    "perceptual": ImageCms.Intent.PERCEPTUAL,
    "saturation": ImageCms.Intent.SATURATION,
    "absolute": ImageCms.Intent.ABSOLUTE_COLORIMETRIC,
}
RGB_SOURCES = ["rocket-adobergb.jpg", "chart-p3.png", "ring-p3.png", "ring-rec2020.png"]


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


def from_testdata(testdata):
    """Remakes the reduced wide-gamut charts and the CMYK JPEG from a libjxl/testdata checkout."""
    charts = os.path.join(testdata, "external", "wide-gamut-tests")
    for source, name in [("P3-sRGB-color-ring.png", "ring-p3.png"), ("R2020-sRGB-color-ring.png", "ring-rec2020.png")]:
        image = Image.open(os.path.join(charts, source))
        profile = image.info["icc_profile"]
        pixels = np.asarray(image.convert("RGBA"))
        assert (pixels[..., 3] == 255).all()
        Image.fromarray(np.ascontiguousarray(pixels[::8, ::8, :3]), "RGB").save(os.path.join(FIX, name), icc_profile=profile)
    cropped = subprocess.run(
        ["jpegtran", "-copy", "all", "-crop", "256x256+128+144", os.path.join(testdata, "jxl", "flower", "flower_small.cmyk.jpg")],
        check=True, capture_output=True).stdout
    icc = open(os.path.join(testdata, "external", "Compact-ICC-Profiles", "profiles", "CGATS001Compat-v2-micro.icc"), "rb").read()
    payload = b"ICC_PROFILE\0" + bytes([1, 1]) + icc
    app2 = b"\xff\xe2" + (len(payload) + 2).to_bytes(2, "big") + payload
    after_app0 = 4 + int.from_bytes(cropped[4:6], "big") if cropped[2:4] == b"\xff\xe0" else 2
    with open(os.path.join(FIX, "cmyk-swop.jpg"), "wb") as f:
        f.write(cropped[:after_app0] + app2 + cropped[after_app0:])


def main():
    if len(sys.argv) > 1:
        from_testdata(sys.argv[1])
    p3 = open(os.path.join(FIX, "DisplayP3.icc"), "rb").read()
    chart().save(os.path.join(FIX, "chart-p3.png"), icc_profile=p3)
    srgb = ImageCms.createProfile("sRGB")
    for name in RGB_SOURCES:
        image = Image.open(os.path.join(FIX, name)).convert("RGB")
        source = ImageCms.ImageCmsProfile(io.BytesIO(Image.open(os.path.join(FIX, name)).info["icc_profile"]))
        for label, intent in INTENTS.items():
            out = ImageCms.profileToProfile(image, source, srgb, renderingIntent=intent, outputMode="RGB")
            if name.endswith(".jpg"):
                out = out.crop(CROP)  # keeps the fixture small; the tests compare the same crop
            out.save(os.path.join(FIX, f"{os.path.splitext(name)[0]}-srgb-{label}.png"))
    # Pillow reads Adobe CMYK JPEGs as ink amounts (it turns the inverted values back).
    cmyk = Image.open(os.path.join(FIX, "cmyk-swop.jpg"))
    assert cmyk.mode == "CMYK" and cmyk.info.get("adobe")
    source = ImageCms.ImageCmsProfile(io.BytesIO(cmyk.info["icc_profile"]))
    out = ImageCms.profileToProfile(
        cmyk, source, srgb, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, outputMode="RGB",
        flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
    out.save(os.path.join(FIX, "cmyk-swop-srgb-relative-bpc.png"))


if __name__ == "__main__":
    main()
