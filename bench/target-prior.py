#!/usr/bin/env python3
"""The priors of `--target` (Sources/FilterGraph/Render/QualityTarget.swift): for each codec, the
median SSIMULACRA2 (PyPI ssimulacra2, the oracle) of the corpus photos (without alpha) fitted to
800 px and written by fgrun at each of QUALITIES.

  bench/.venv-bytes/bin/python bench/target-prior.py [--fgrun PATH] [--corpus DIR] [--codecs webp,avif]

Prints each photo's scores as it goes, then one line per codec: `codec: [(quality, score), ...]`,
the table QualityTarget.prior holds.
"""
import argparse
import os
import statistics
import subprocess
import tempfile

from ssimulacra2 import compute_ssimulacra2

QUALITIES = [10, 30, 50, 60, 70, 80, 90, 95, 100]
CODECS = {
    "webp": ("webp", []),
    "avif": ("avif", []),
    "jpeg-fast": ("jpg", []),
    "jpeg-small": ("jpg", ["--encoder", "small"]),
}

parser = argparse.ArgumentParser()
parser.add_argument("--fgrun", default=os.environ.get("FGRUN", ".build/release/fgrun"))
parser.add_argument("--corpus", default="/work/shared/corpus/photos")
parser.add_argument("--codecs", default=",".join(CODECS))
args = parser.parse_args()
codecs = args.codecs.split(",")
photos = sorted(p for p in os.listdir(args.corpus) if p.endswith((".jpg", ".png")) and "alpha" not in p)
with tempfile.TemporaryDirectory() as work:
    for photo in photos:
        stem = os.path.splitext(photo)[0]
        subprocess.run([args.fgrun, "-e", "scale fit=800x800", os.path.join(args.corpus, photo), os.path.join(work, stem + ".png")], check=True)
    for codec in codecs:
        extension, flags = CODECS[codec]
        scores = {q: [] for q in QUALITIES}
        for photo in photos:
            reference = os.path.join(work, os.path.splitext(photo)[0] + ".png")
            for quality in QUALITIES:
                out = os.path.join(work, "out." + extension)
                subprocess.run([args.fgrun, "-e", "input", reference, out, "--quality", str(quality)] + flags, check=True)
                scores[quality].append(compute_ssimulacra2(reference, out))
            print(codec, photo, " ".join(f"{q}:{scores[q][-1]:.1f}" for q in QUALITIES), flush=True)
        points = ", ".join(f"({q}, {statistics.median(scores[q]):.1f})" for q in QUALITIES)
        print(f"{codec}: [{points}]", flush=True)
