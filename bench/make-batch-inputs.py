#!/usr/bin/env python3
"""bench/make-batch-inputs.py [--force] [--from DIR] [OUT_DIR] -- W10's inputs: 100 photos of 12-24 MP.

Made deterministically from the two photos photo-24mp.jpg and photo-12mp.jpg in DIR (default
../shared/bench/inputs beside the checkout; bench/compare.sh passes the folder of its input
photo; when DIR has no photo-12mp.jpg, its photo-24mp.jpg is used for both) into OUT_DIR (default
bench/inputs/w10, git-ignored), once: a stamp file holds a hash of this script and of the source
photos, and the files are made again only when it changes (or with --force).

File i (w10-000.jpg … w10-099.jpg) is drawn with Python's random.Random(20261124 + i):
  - the source: the 24 MP photo (6 files in 10) or the 12 MP one;
  - a size of uniformly 12-24 megapixels in an aspect ratio from 3:2, 4:3, 16:9, 5:4 and 1:1,
    portrait (the crop turned 90 degrees) 3 times in 10;
  - the source rescaled (bicubic) by the smallest factor that holds that crop times 1.00-1.15
    (so 12 MP sources are enlarged, and the 24 MP one is enlarged or kept), then a crop at a
    random position, a horizontal flip half of the time;
  - saved by Pillow as a baseline JPEG, quality 85, 90, 92 or 95, chroma 4:2:0 (3 in 4) or
    4:2:2, no metadata: a camera-like mix of sizes, orientations and encodings.
The same Pillow (libjpeg-turbo) gives the same bytes. Needs Pillow.
"""
import hashlib
import math
import os
import random
import sys

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COUNT = 100
SEED = 20261124


def sources(folder):
    """The 24 MP and 12 MP photos in folder (the 24 MP one for both when there is no 12 MP one)."""
    big, small = os.path.join(folder, "photo-24mp.jpg"), os.path.join(folder, "photo-12mp.jpg")
    if not os.path.exists(big):
        sys.exit(f"make-batch-inputs: no {big} (bench/make-inputs.sh makes bench/inputs/photo-24mp.jpg)")
    return big, small if os.path.exists(small) else big


def stamp_of(paths):
    digest = hashlib.sha256(open(os.path.abspath(__file__), "rb").read())
    for p in paths:
        st = os.stat(p)
        digest.update(f"{os.path.basename(p)} {st.st_size} {int(st.st_mtime)}".encode())
    return digest.hexdigest()


def make(out, folder):
    big_path, small_path = sources(folder)
    stamp = stamp_of([big_path, small_path])
    stamp_file = os.path.join(out, ".stamp")
    names = [os.path.join(out, f"w10-{i:03d}.jpg") for i in range(COUNT)]
    if "--force" not in sys.argv and os.path.exists(stamp_file) and open(stamp_file).read() == stamp \
            and all(os.path.exists(n) for n in names):
        return names
    os.makedirs(out, exist_ok=True)
    if os.path.exists(stamp_file):
        os.remove(stamp_file)
    photos = {"big": Image.open(big_path).convert("RGB"), "small": Image.open(small_path).convert("RGB")}
    total = 0
    for i, name in enumerate(names):
        r = random.Random(SEED + i)
        src = photos["big" if r.random() < 0.6 else "small"]
        megapixels = r.uniform(12, 24)
        aspect = r.choice([3 / 2, 4 / 3, 16 / 9, 5 / 4, 1.0])
        portrait = r.random() < 0.3
        w = round(math.sqrt(megapixels * 1e6 * aspect))
        h = round(megapixels * 1e6 / w)
        sw, sh = src.size
        factor = max(w / sw, h / sh) * r.uniform(1.0, 1.15)
        scaled = src
        if abs(factor - 1) > 1e-3:
            scaled = src.resize((max(w, math.ceil(sw * factor)), max(h, math.ceil(sh * factor))), Image.Resampling.BICUBIC)
        x = r.randint(0, scaled.size[0] - w)
        y = r.randint(0, scaled.size[1] - h)
        image = scaled.crop((x, y, x + w, y + h))
        if r.random() < 0.5:
            image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        if portrait:
            image = image.transpose(Image.Transpose.ROTATE_90)
        quality = r.choice([85, 90, 92, 95])
        subsampling = 2 if r.random() < 0.75 else 1
        image.save(name + ".part", "JPEG", quality=quality, subsampling=subsampling, optimize=False)
        os.replace(name + ".part", name)
        total += os.path.getsize(name)
        print(f"make-batch-inputs: {os.path.basename(name)} {image.size[0]}x{image.size[1]} "
              f"({image.size[0] * image.size[1] / 1e6:.1f} MP) Q{quality} {'4:2:0' if subsampling == 2 else '4:2:2'}",
              file=sys.stderr, flush=True)
    with open(stamp_file, "w") as f:
        f.write(stamp)
    print(f"make-batch-inputs: {COUNT} files, {total / 1e6:.0f} MB in {out}", file=sys.stderr)
    return names


def main():
    args = [a for a in sys.argv[1:] if a != "--force"]
    folder = os.path.normpath(os.path.join(ROOT, "..", "shared", "bench", "inputs"))
    if args[:1] == ["--from"]:
        folder, args = args[1], args[2:]
    out = os.path.abspath(args[0] if args else os.path.join(HERE, "inputs", "w10"))
    make(out, folder)


if __name__ == "__main__":
    main()
