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
                                  at (200, 100)); cmyk-swop.jpg for relative colorimetric only (its
                                  profile has one table: every intent gives the same picture)
  colour/cmyk-intents.jpg         cmyk-swop.jpg with its profile replaced by `intent_profile()`, a
                                  CMYK profile made here whose intents all differ
  colour/cmyk-intents-srgb-<intent>.png, ...-relative-bpc.png
                                  its conversions by lcms2 for the four intents, and relative
                                  colorimetric with black-point compensation

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


def intent_profile():
    """A CMYK profile whose perceptual, relative and saturation tables differ, whose relative black
    is not zero and whose paper is yellowish, so each intent, and black-point compensation, give a
    different picture. Made with lcms2 itself (through ctypes; Pillow cannot build LUT profiles):
    a version 2.1 input-class CMYK profile, XYZ connection space, one 5-point CLUT from CMYK to
    XYZ per intent (A2B0 perceptual, A2B1 relative, A2B2 saturation) of a subtractive model: the
    light (1 - C)(1 - K), (1 - M)(1 - K), (1 - Y)(1 - K) on the D50-adapted sRGB primaries; the
    relative table lifts black to 8 %, the saturation table moves colours 1.4x away from gray. The
    creation date is zeroed, so the bytes are the same on every run."""
    import ctypes
    import ctypes.util
    lc = ctypes.CDLL(ctypes.util.find_library("lcms2") or "liblcms2.so.2")
    ptr, u32 = ctypes.c_void_p, ctypes.c_uint32
    sampler_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_uint16), ctypes.POINTER(ctypes.c_uint16), ptr)
    for name, result, args in [
        ("cmsCreateProfilePlaceholder", ptr, [ptr]), ("cmsSetProfileVersion", None, [ptr, ctypes.c_double]),
        ("cmsSetDeviceClass", None, [ptr, u32]), ("cmsSetColorSpace", None, [ptr, u32]), ("cmsSetPCS", None, [ptr, u32]),
        ("cmsPipelineAlloc", ptr, [ptr, u32, u32]), ("cmsStageAllocCLut16bit", ptr, [ptr, u32, u32, u32, ptr]),
        ("cmsStageSampleCLut16bit", ctypes.c_int, [ptr, sampler_type, ptr, u32]),
        ("cmsPipelineInsertStage", ctypes.c_int, [ptr, ctypes.c_int, ptr]), ("cmsWriteTag", ctypes.c_int, [ptr, u32, ptr]),
        ("cmsMLUalloc", ptr, [ptr, u32]), ("cmsMLUsetASCII", ctypes.c_int, [ptr, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]),
        ("cmsSaveProfileToMem", ctypes.c_int, [ptr, ptr, ctypes.POINTER(u32)]),
    ]:
        getattr(lc, name).restype = result
        getattr(lc, name).argtypes = args

    def sig(text):
        return int.from_bytes(text.encode(), "big")

    primaries = [(0.4361, 0.3851, 0.1431), (0.2225, 0.7169, 0.0606), (0.0139, 0.0971, 0.7141)]

    def xyz(c, m, y, k, intent):
        light = [(1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)]
        if intent == 1:
            light = [0.08 + 0.92 * v for v in light]
        elif intent == 2:
            mean = sum(light) / 3
            light = [min(max(mean + 1.4 * (v - mean), 0), 1) for v in light]
        return [sum(row[i] * light[i] for i in range(3)) for row in primaries]

    profile = lc.cmsCreateProfilePlaceholder(None)
    lc.cmsSetProfileVersion(profile, 2.1)
    lc.cmsSetDeviceClass(profile, sig("scnr"))
    lc.cmsSetColorSpace(profile, sig("CMYK"))
    lc.cmsSetPCS(profile, sig("XYZ "))
    samplers = []
    for intent in range(3):
        def sample(inputs, outputs, cargo, intent=intent):
            for i, v in enumerate(xyz(*(inputs[j] / 65535 for j in range(4)), intent)):
                outputs[i] = max(0, min(65535, round(v * 32768)))  # u1Fixed15 XYZ
            return 1
        samplers.append(sampler_type(sample))
        stage = lc.cmsStageAllocCLut16bit(None, 5, 4, 3, None)
        lc.cmsStageSampleCLut16bit(stage, samplers[-1], None, 0)
        pipeline = lc.cmsPipelineAlloc(None, 4, 3)
        lc.cmsPipelineInsertStage(pipeline, 1, stage)
        lc.cmsWriteTag(profile, sig("A2B%d" % intent), pipeline)
    lc.cmsWriteTag(profile, sig("wtpt"), ctypes.byref((ctypes.c_double * 3)(0.92, 0.95, 0.74)))
    for tag, text in [("desc", b"FilterGraph test CMYK"), ("cprt", b"No copyright, use freely")]:
        mlu = lc.cmsMLUalloc(None, 1)
        lc.cmsMLUsetASCII(mlu, b"en", b"US", text)
        lc.cmsWriteTag(profile, sig(tag), mlu)
    size = u32(0)
    lc.cmsSaveProfileToMem(profile, None, ctypes.byref(size))
    buffer = ctypes.create_string_buffer(size.value)
    lc.cmsSaveProfileToMem(profile, buffer, ctypes.byref(size))
    data = bytearray(buffer.raw[:size.value])
    data[24:36] = bytes(12)
    return bytes(data)


def with_profile(jpeg, icc):
    """`jpeg` with its APP2 ICC segments replaced by one holding `icc`, where the first one was."""
    out, i, written = bytearray(jpeg[:2]), 2, False
    while jpeg[i] == 0xFF and jpeg[i + 1] != 0xDA:
        length = int.from_bytes(jpeg[i + 2:i + 4], "big")
        segment = jpeg[i:i + 2 + length]
        if jpeg[i + 1] != 0xE2 or segment[4:16] != b"ICC_PROFILE\0":
            out += segment
        elif not written:
            payload = b"ICC_PROFILE\0" + bytes([1, 1]) + icc
            out += b"\xff\xe2" + (len(payload) + 2).to_bytes(2, "big") + payload
            written = True
        i += 2 + length
    assert written
    return bytes(out + jpeg[i:])


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
    swop = open(os.path.join(FIX, "cmyk-swop.jpg"), "rb").read()
    with open(os.path.join(FIX, "cmyk-intents.jpg"), "wb") as f:
        f.write(with_profile(swop, intent_profile()))
    for name, conversions in [
        ("cmyk-swop", [("relative", False)]),
        ("cmyk-intents", [(label, False) for label in INTENTS] + [("relative", True)]),
    ]:
        cmyk = Image.open(os.path.join(FIX, name + ".jpg"))
        assert cmyk.mode == "CMYK" and cmyk.info.get("adobe")
        source = ImageCms.ImageCmsProfile(io.BytesIO(cmyk.info["icc_profile"]))
        for label, bpc in conversions:
            out = ImageCms.profileToProfile(
                cmyk, source, srgb, renderingIntent=INTENTS[label], outputMode="RGB",
                flags=ImageCms.Flags.BLACKPOINTCOMPENSATION if bpc else 0)
            out.save(os.path.join(FIX, f"{name}-srgb-{label}{'-bpc' if bpc else ''}.png"))

if __name__ == "__main__":
    main()
