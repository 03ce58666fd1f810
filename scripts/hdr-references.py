#!/usr/bin/env python3
"""Makes the Ultra HDR (gain-map JPEG) test fixtures and their independent references.

Two encoders make the files, two decoders read them — none of them FilterGraph:

  uhdr/scene.hdr.npy           (not kept) the HDR scene: a 192x128 crop of samples/flower.jpg at
                               (600, 300), taken to linear light, its highlights boosted up to 8x
                               (factor 1 + 7 * clamp((Y - 0.3) / 0.5, 0, 1)^2 of its luminance Y)
  uhdr/libultrahdr.jpg         that scene encoded by libultrahdr (imagecodecs.ultrahdr_encode):
                               full-size RGB map, ISO 21496-1 + XMP metadata
  uhdr/vips.jpg                the scene saved by libvips 8.18 (pyvips uhdrsave,
                               gainmap_scale_factor=4): a quarter-size map
  uhdr/<name>.base.png         the base image as libvips's uhdrload decodes it (8-bit RGB)
  uhdr/<name>.map.png          the gain map as libvips decodes it (Image.get_gainmap())
  uhdr/<name>.json             libvips's gain-map fields (linear boosts, as libvips reports them)
  uhdr/<name>.ic.f16           imagecodecs.ultrahdr_decode's HDR rendition (linear RGB, full
                               headroom, float16 little-endian, rows of RGB; 1.0 = SDR white)
  uhdr/<name>.vips.f16         libvips's uhdr2scRGB rendition (the same layout)

Run from the repository root with the oracles' venv (scripts/install-hdr-oracles.sh):
  .venv-oracles/bin/python scripts/hdr-references.py
"""
import json
import os

import imagecodecs
import numpy as np
import pyvips

OUT = "Tests/TestSupport/Fixtures/uhdr"


def scene():
    im = pyvips.Image.new_from_file("samples/flower.jpg").crop(600, 300, 192, 128)
    a = im.numpy().astype(np.float32) / 255
    lin = np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4)
    y = lin @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    return lin * (1 + 7 * np.clip((y - 0.3) / 0.5, 0, 1) ** 2)[..., None]


def references(name):
    path = f"{OUT}/{name}.jpg"
    base = pyvips.Image.uhdrload(path)
    base.pngsave(f"{OUT}/{name}.base.png", keep="none")
    base.get_gainmap().pngsave(f"{OUT}/{name}.map.png", keep="none")
    fields = {f: base.get(f) for f in base.get_fields() if f.startswith("gainmap-") and f != "gainmap-data"}
    with open(f"{OUT}/{name}.json", "w") as f:
        json.dump(fields, f, indent=1, sort_keys=True)
    with open(path, "rb") as f:
        hdr = imagecodecs.ultrahdr_decode(f.read())[..., :3]
    hdr.astype("<f2").tofile(f"{OUT}/{name}.ic.f16")
    sc = base.uhdr2scRGB().numpy()[..., :3]
    sc.astype("<f2").tofile(f"{OUT}/{name}.vips.f16")


def main():
    os.makedirs(OUT, exist_ok=True)
    hdr = scene()
    rgba = np.dstack([hdr, np.ones(hdr.shape[:2], np.float32)]).astype(np.float16)
    with open(f"{OUT}/libultrahdr.jpg", "wb") as f:
        f.write(imagecodecs.ultrahdr_encode(rgba))
    h, w, _ = hdr.shape
    scrgb = pyvips.Image.new_from_memory(np.ascontiguousarray(hdr, np.float32).tobytes(), w, h, 3, "float").copy(interpretation="scrgb")
    scrgb.uhdrsave(f"{OUT}/vips.jpg", Q=90, gainmap_scale_factor=4)
    for name in ["libultrahdr", "vips"]:
        references(name)


if __name__ == "__main__":
    main()
