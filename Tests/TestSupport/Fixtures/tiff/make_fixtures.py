#!/usr/bin/env python3
"""Makes the TIFF test fixtures (see NOTICE.md) with independent encoders: Pillow, libvips
(pyvips) and libtiff's tools (tiffcp, tiffset). The pixels are the patterns below, which the
tests compute again from their definition; nothing here depends on FilterGraph.

    python3 Tests/TestSupport/Fixtures/tiff/make_fixtures.py   (from the repository root)
"""
import io
import os
import shutil
import subprocess
import sys

import numpy as np
import pyvips
from PIL import Image

W, H = 45, 37
here = os.path.dirname(os.path.abspath(__file__))
os.chdir(here)


def grid(channels):
    y, x, c = np.meshgrid(np.arange(H), np.arange(W), np.arange(channels), indexing="ij")
    return x.astype(np.int64), y.astype(np.int64), c.astype(np.int64)


def p8(channels):
    """p8(x, y, c) = (7x + 13y + 29c + (x·y mod 7)) mod 256; an alpha channel (the last) is (11x + 5y) mod 256."""
    x, y, c = grid(channels)
    v = (7 * x + 13 * y + 29 * c + (x * y) % 7) % 256
    if channels in (2, 4):
        v[:, :, -1] = (11 * x[:, :, 0] + 5 * y[:, :, 0]) % 256
    return v.astype(np.uint8)


def p16(channels):
    """p16(x, y, c) = (2039x + 4093y + 8191c + 17·x·y) mod 65536; alpha (11x + 5y)·257 mod 65536."""
    x, y, c = grid(channels)
    v = (2039 * x + 4093 * y + 8191 * c + 17 * x * y) % 65536
    if channels in (2, 4):
        v[:, :, -1] = ((11 * x[:, :, 0] + 5 * y[:, :, 0]) * 257) % 65536
    return v.astype(np.uint16)


def pf(channels):
    """pf(x, y, c) = float32((7x + 13y + 29c) mod 1000 − 250) / float32(997): −0.25 … 0.75."""
    x, y, c = grid(channels)
    return (((7 * x + 13 * y + 29 * c) % 1000 - 250).astype(np.float32) / np.float32(997)).astype(np.float32)


def vips_save(array, path, **options):
    h, w, bands = array.shape
    fmt = {np.dtype(np.uint8): "uchar", np.dtype(np.uint16): "ushort", np.dtype(np.float32): "float"}[array.dtype]
    image = pyvips.Image.new_from_memory(np.ascontiguousarray(array).tobytes(), w, h, bands, fmt)
    if bands >= 3:
        image = image.copy(interpretation="rgb16" if fmt == "ushort" else "srgb")
    else:
        image = image.copy(interpretation="grey16" if fmt == "ushort" else "b-w")
    image.tiffsave(path, **options)


def run(*args):
    subprocess.run(args, check=True)


# Pillow: 8-bit layouts and compressions.
Image.fromarray(p8(1)[:, :, 0], "L").save("gray8.tif")
Image.fromarray(p8(3), "RGB").save("rgb8-lzw.tif", compression="tiff_lzw")
Image.fromarray(p8(3), "RGB").save("rgb8-packbits.tif", compression="packbits")
Image.fromarray(p8(4), "RGBA").save("rgba8-deflate.tif", compression="tiff_adobe_deflate")
Image.fromarray(p8(2), "LA").save("graya8.tif")
Image.fromarray(p8(4), "CMYK").save("cmyk8.tif", compression="tiff_lzw")
# Palette: the colour of index i is p8 at (i mod 45, i div 45); pixel (x, y) has index (x + 3y) mod 256.
x, y, _ = grid(1)
indices = ((x[:, :, 0] + 3 * y[:, :, 0]) % 256).astype(np.uint8)
palette_image = Image.fromarray(indices, "P")
colours = [int(v) for i in range(256) for v in p8(3)[i // W % H, i % W]]
palette_image.putpalette(colours)
palette_image.save("palette8.tif", compression="tiff_lzw")
# Bilevel, CCITT group 4 (1 bit, MinIsWhite): pixel (x, y) is white when (x + y) mod 3 = 0.
Image.fromarray(((x[:, :, 0] + y[:, :, 0]) % 3 == 0).astype(np.uint8) * 255, "L").convert("1").save(
    "bilevel-g4.tif", compression="group4")
# JPEG inside TIFF (YCbCr), and Pillow's decode of it as the reference.
Image.fromarray(p8(3), "RGB").save("rgb8-jpeg.tif", compression="jpeg", quality=90)
Image.open("rgb8-jpeg.tif").convert("RGB").save("rgb8-jpeg.pillow.png")
# An ICC profile (the WebP fixtures' lcms2 sRGB profile).
icc = open("../webp/metadata.icc", "rb").read()
Image.fromarray(p8(3), "RGB").save("rgb8-icc.tif", icc_profile=icc)
# Metadata: ImageDescription, Make, Model, an EXIF directory (DateTimeOriginal, ExposureTime) and XMP.
from PIL import TiffImagePlugin
tags = TiffImagePlugin.ImageFileDirectory_v2()
tags[270] = "a TIFF comment"
tags[271] = "FilterGraph Test Camera"
tags[272] = "Model 9"
tags[34665] = {36867: "2026:11:24 08:00:00", 33434: 0.004}
tags[700] = open("../metadata/xmp.xml", "rb").read()
Image.fromarray(p8(3), "RGB").save("metadata.tif", tiffinfo=tags)
# Three pages of different sizes and layouts.
pages = [Image.fromarray(p8(3), "RGB"), Image.fromarray(p8(1)[:20, :30, 0], "L"), Image.fromarray(p8(4)[:10, :12], "RGBA")]
pages[0].save("multipage.tif", save_all=True, append_images=pages[1:], compression="tiff_lzw")

# CMYK with a CMYK profile: Little CMS's testbed/test1.icc (MIT licence; path in LCMS_TEST1_ICC),
# and Pillow's lcms2 conversions of it to sRGB (relative colorimetric with black-point compensation,
# and without: cmyk8-icc.pillow-nobpc.png, made from the committed TIFF when LCMS_TEST1_ICC is unset).
if os.environ.get("LCMS_TEST1_ICC"):
    cmyk_icc = open(os.environ["LCMS_TEST1_ICC"], "rb").read()
    Image.fromarray(p8(4), "CMYK").save("cmyk8-icc.tif", compression="tiff_lzw", icc_profile=cmyk_icc)
from PIL import ImageCms
cmyk_page = Image.open("cmyk8-icc.tif")
for flags, name in [(ImageCms.Flags.BLACKPOINTCOMPENSATION, "cmyk8-icc.pillow.png"), (0, "cmyk8-icc.pillow-nobpc.png")]:
    transform = ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(cmyk_page.info["icc_profile"])),
                                        ImageCms.createProfile("sRGB"), "CMYK", "RGB", renderingIntent=1, flags=flags)
    ImageCms.applyTransform(cmyk_page, transform).save(name)

# libvips: 16-bit and float, strips and tiles, predictors; associated alpha.
vips_save(p16(3), "rgb16-lzw.tif", compression="lzw", predictor="horizontal")
vips_save(p16(3), "rgb16-deflate-tiled.tif", compression="deflate", predictor="horizontal", tile=True, tile_width=16,
          tile_height=16)
vips_save(p16(1), "gray16.tif", compression="none")
vips_save(p16(4), "rgba16.tif", compression="lzw")
vips_save(pf(3), "rgbf-deflate.tif", compression="deflate", predictor="float")
vips_save(pf(1), "grayf-tiled.tif", compression="lzw", predictor="float", tile=True, tile_width=16, tile_height=16)
vips_save(p8(3), "rgb8-deflate-tiled.tif", compression="deflate", tile=True, tile_width=16, tile_height=16)
# Associated alpha: p8 RGBA premultiplied, colour round(c·a / 255), stored with ExtraSamples = 1.
rgba = p8(4).astype(np.int64)
premultiplied = rgba.copy()
premultiplied[:, :, :3] = (rgba[:, :, :3] * rgba[:, :, 3:4] + 127) // 255
Image.fromarray(premultiplied.astype(np.uint8), "RGBA").save("rgba8-associated.tif")
run("tiffset", "-s", "338", "1", "1", "rgba8-associated.tif")

# libtiff's tools: planar configuration, orientation, an absurd size.
run("tiffcp", "-p", "separate", "-c", "lzw", "rgb8-lzw.tif", "rgb8-separate.tif")
run("tiffcp", "-p", "separate", "-c", "none", "rgba8-deflate.tif", "rgba8-separate.tif")
run("tiffcp", "-c", "jpeg:90", "-r", "16", "rgb8-lzw.tif", "rgb8-jpeg-ycbcr.tif")
pyvips.Image.new_from_file("rgb8-jpeg-ycbcr.tif").pngsave("rgb8-jpeg-ycbcr.vips.png")
shutil.copy("rgb8-lzw.tif", "rgb8-orientation6.tif")
run("tiffset", "-s", "274", "6", "rgb8-orientation6.tif")
shutil.copy("gray8.tif", "gray8-miniswhite.tif")
run("tiffset", "-s", "262", "0", "gray8-miniswhite.tif")
shutil.copy("gray8.tif", "absurd-size.tif")
run("tiffset", "-s", "256", "1000000", "absurd-size.tif")
run("tiffset", "-s", "257", "1000000", "absurd-size.tif")
print("made", len([f for f in os.listdir(".") if f.endswith(".tif")]), "TIFF fixtures", file=sys.stderr)
