#!/usr/bin/env python3
"""`fgrun --target ssimulacra2=N` checked against the oracle: for each corpus photo fitted to
800 px (its reference PNG written by fgrun), each codec and each target N, fgrun writes the file
and prints the score its own SSIMULACRA2 gave it; PyPI ssimulacra2 scores the file against the
reference again. Prints one line per file and a summary per codec: how many landed in N...N + 1
(by fgrun's score and by PyPI's), how many scored below N, the encodes, and the largest
difference between the two implementations.

  bench/.venv-bytes/bin/python bench/target-check.py [--fgrun PATH] [--corpus DIR] [--targets 60,70,80,90]
"""
import argparse
import os
import re
import subprocess
import tempfile

from ssimulacra2 import compute_ssimulacra2

CODECS = {"jpeg": ("jpg", []), "jpeg-small": ("jpg", ["--encoder", "small"]), "webp": ("webp", []), "avif": ("avif", [])}
CHOSEN = re.compile(r"ssimulacra2 ([0-9.]+) at quality (\d+), (\d+) bytes, (\d) encodes?")

parser = argparse.ArgumentParser()
parser.add_argument("--fgrun", default=os.environ.get("FGRUN", ".build/release/fgrun"))
parser.add_argument("--corpus", default="/work/shared/corpus/photos")
parser.add_argument("--targets", default="60,70,80,90")
parser.add_argument("--codecs", default=",".join(CODECS))
args = parser.parse_args()
targets = [float(t) for t in args.targets.split(",")]
photos = sorted(p for p in os.listdir(args.corpus) if p.endswith((".jpg", ".png")) and "alpha" not in p)
summary = {codec: {"files": 0, "landed": 0, "landed_pypi": 0, "below": 0, "encodes": 0, "difference": 0.0} for codec in args.codecs.split(",")}
with tempfile.TemporaryDirectory() as work:
    for photo in photos:
        reference = os.path.join(work, os.path.splitext(photo)[0] + ".png")
        subprocess.run([args.fgrun, "-e", "scale fit=800x800", os.path.join(args.corpus, photo), reference], check=True)
        for codec, total in summary.items():
            extension, flags = CODECS[codec]
            for goal in targets:
                out = os.path.join(work, "out." + extension)
                run = subprocess.run([args.fgrun, "-e", "input", reference, out, "--target", f"ssimulacra2={goal:g}"] + flags,
                                     check=True, capture_output=True, text=True)
                score, quality, size, encodes = CHOSEN.search(run.stderr).groups()
                score, pypi = float(score), compute_ssimulacra2(reference, out)
                assert int(size) == os.path.getsize(out)
                total["files"] += 1
                total["landed"] += goal <= score <= goal + 1
                total["landed_pypi"] += goal <= pypi <= goal + 1
                total["below"] += score < goal
                total["encodes"] += int(encodes)
                total["difference"] = max(total["difference"], abs(score - pypi))
                warning = " ".join(line for line in run.stderr.splitlines() if "warning" in line)
                print(f"{photo:24s} {codec:10s} N={goal:g}: fgrun {score:.2f}, PyPI {pypi:.2f}, quality {quality}, "
                      f"{size} bytes, {encodes} encodes {warning}", flush=True)
for codec, t in summary.items():
    print(f"{codec}: {t['landed']}/{t['files']} landed in N...N+1 by fgrun's score ({t['landed_pypi']} by PyPI's), "
          f"{t['below']} below N, {t['encodes'] / max(t['files'], 1):.2f} encodes per file, "
          f"largest |fgrun - PyPI| {t['difference']:.3f}")
