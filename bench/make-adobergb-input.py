#!/usr/bin/env python3
"""bench/make-adobergb-input.py SRC OUT -- the W1a input: SRC (an sRGB JPEG) converted to Adobe RGB.

lcms2 (through Pillow's ImageCms) converts the pixels from sRGB to Adobe RGB (1998), relative
colorimetric, and the result is saved as a baseline JPEG, Q90, 4:2:0, with the Adobe RGB profile
embedded (taken from Tests/TestSupport/Fixtures/colour/rocket-adobergb.jpg). The same Pillow gives
the same bytes.
"""
import io
import os
import sys

from PIL import Image, ImageCms

src, out = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
adobe = Image.open(os.path.join(root, "Tests", "TestSupport", "Fixtures", "colour", "rocket-adobergb.jpg")).info["icc_profile"]
image = Image.open(src).convert("RGB")
converted = ImageCms.profileToProfile(
    image, ImageCms.createProfile("sRGB"), ImageCms.ImageCmsProfile(io.BytesIO(adobe)),
    renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, outputMode="RGB")
os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
converted.save(out, quality=90, subsampling="4:2:0", icc_profile=adobe)
