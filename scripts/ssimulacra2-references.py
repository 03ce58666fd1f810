#!/usr/bin/env python3
"""Makes the SSIMULACRA2 test fixtures and their scores by the PyPI `ssimulacra2` (the oracle).

  ssimulacra2/<photo>.jpg            the reference: a corpus photo reduced by Pillow (Lanczos) to
                                     512 pixels wide, its central 256x256 (six scales, as the
                                     metric needs at least 8 pixels at 1/32), stored as a quality 95
                                     4:4:4 JPEG: the reference is that file's decoded pixels
                                     (rocket.jpg: public domain; kodim23.png: Kodak test image,
                                     free to use)
  ssimulacra2/<photo>-q<Q>.jpg       those pixels encoded by Pillow's libjpeg-turbo at quality Q
                                     (4:2:0); libjpeg-turbo's decoder gives the oracle (Pillow) and
                                     the test (FilterGraph) the same pixels
  ssimulacra2/<photo>-blur.jpg       those pixels blurred (Gaussian, radius 1.2), quality 95 4:4:4
  ssimulacra2/scores.json            {"<distorted>.jpg": score} by ssimulacra2.compute_ssimulacra2

Run from the repository root with the benchmark venv (bench/install-bytes.sh):
  bench/.venv-bytes/bin/python scripts/ssimulacra2-references.py [CORPUS]
"""
import io
import json
import os
import sys

from PIL import Image, ImageFilter
from ssimulacra2 import compute_ssimulacra2

corpus = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpus/photos"
out = "Tests/TestSupport/Fixtures/ssimulacra2"
os.makedirs(out, exist_ok=True)
scores = {}
for name in ["rocket.jpg", "kodim23.png"]:
    image = Image.open(os.path.join(corpus, name)).convert("RGB")
    image = image.resize((512, round(512 * image.height / image.width)), Image.LANCZOS)
    left, top = (image.width - 256) // 2, (image.height - 256) // 2
    image = image.crop((left, top, left + 256, top + 256))
    stem = os.path.splitext(name)[0]
    reference = os.path.join(out, stem + ".jpg")
    image.save(reference, "JPEG", quality=95, subsampling=0)
    image = Image.open(reference).convert("RGB")
    distorted = []
    for quality in [20, 50, 85]:
        path = os.path.join(out, f"{stem}-q{quality}.jpg")
        image.save(path, "JPEG", quality=quality, subsampling=2)
        distorted.append(path)
    path = os.path.join(out, f"{stem}-blur.jpg")
    image.filter(ImageFilter.GaussianBlur(1.2)).save(path, "JPEG", quality=95, subsampling=0)
    distorted.append(path)
    for path in distorted:
        scores[os.path.basename(path)] = round(compute_ssimulacra2(reference, path), 4)
with open(os.path.join(out, "scores.json"), "w") as handle:
    json.dump(scores, handle, indent=1, sort_keys=True)
    handle.write("\n")
print(json.dumps(scores, indent=1, sort_keys=True))
