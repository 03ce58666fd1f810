#!/usr/bin/env python3
"""The priors of `--target` (Sources/FilterGraph/Render/QualityTarget.swift): for each codec, the
median SSIMULACRA2 (PyPI ssimulacra2, the oracle) of the corpus photos fitted to 800 px and
written by fgrun at each quality of QUALITIES.

  bench/.venv-bytes/bin/python bench/target-prior.py [--fgrun PATH] [--corpus DIR]

Prints one line per codec: `codec: [(quality, score), ...]`, the table QualityTarget.prior holds.
"""
import argparse
import os
import statistics
import subprocess
import tempfile

from ssimulacra2 import compute_ssimulacra2

QUALITIES = [10, 30, 50, 70, 80, 90, 95, 100]
CODECS = {
    "jpeg-fast": ("jpg", []),
    "jpeg-small": ("jpg", ["--encoder", "small"]),
    "webp": ("webp", []),
    "avif": ("avif", []),
}

parser = argparse.ArgumentParser()
parser.add_argument("--fgrun", default=os.environ.get("FGRUN", ".build/release/fgrun"))
parser.add_argument("--corpus", default="/work/shared/corpus/photos")
args = parser.parse_args()
photos = sorted(p for p in os.listdir(args.corpus) if p.endswith((".jpg", ".png")) and "alpha" not in p)
with tempfile.TemporaryDirectory() as work:
    scores = {codec: {q: [] for q in QUALITIES} for codec in CODECS}
    for photo in photos:
        reference = os.path.join(work, "reference.png")
        subprocess.run([args.fgrun, "-e", "scale fit=800x800", os.path.join(args.corpus, photo), reference], check=True)
        for codec, (extension, flags) in CODECS.items():
            for quality in QUALITIES:
                out = os.path.join(work, "out." + extension)
                subprocess.run([args.fgrun, "-e", "scale fit=800x800", reference, out, "--quality", str(quality)] + flags, check=True)
                scores[codec][quality].append(compute_ssimulacra2(reference, out))
        print("done", photo, flush=True)
    for codec in CODECS:
        points = ", ".join(f"({q}, {statistics.median(scores[codec][q]):.1f})" for q in QUALITIES)
        print(f"{codec}: [{points}]", flush=True)
