#!/usr/bin/env bash
# bench/make-inputs.sh -- makes bench/inputs/photo-24mp.jpg (git-ignored), deterministically.
#
#   bench/make-inputs.sh           # make it when missing
#   bench/make-inputs.sh --force   # make it again
#
# A synthetic 6000x4000 "photo": a smooth random landscape of colour (a seeded 48x32 random
# field enlarged with bicubic interpolation), soft-edged shapes (seeded ellipses and rectangles,
# blurred), and camera-like noise (luma sigma 4 shared by the three bands + sigma 2 per band),
# saved as a baseline JPEG, Q90, 4:2:0, standard Huffman tables (Pillow's libjpeg-turbo), so it
# compresses about like a camera JPEG. Needs python3 with NumPy and Pillow (the peers need them
# too). The same NumPy and Pillow versions give the same bytes; others give the same picture
# within rounding.
#
# bench/compare.sh uses ../shared/bench/inputs/photo-24mp.jpg beside the checkout instead when
# that exists (the organisation's shared benchmark input, a real photograph made the same size).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
out=inputs/photo-24mp.jpg
[ "${1:-}" != --force ] && [ -s "$out" ] && { echo "make-inputs: $out exists"; exit 0; }
mkdir -p inputs
"${PYTHON:-python3}" - "$out" <<'PY'
import sys
import numpy as np
from PIL import Image, ImageDraw, ImageFilter

W, H = 6000, 4000
rng = np.random.default_rng(20261122)

# 1. smooth colour field
field = (rng.random((32, 48, 3)) * 200 + 28).astype(np.uint8)
base = Image.fromarray(field, "RGB").resize((W, H), Image.Resampling.BICUBIC)

# 2. soft-edged shapes
shapes = Image.new("RGBA", (W, H), (0, 0, 0, 0))
draw = ImageDraw.Draw(shapes)
for _ in range(400):
    x, y = int(rng.integers(-300, W)), int(rng.integers(-300, H))
    w, h = int(rng.integers(20, 900)), int(rng.integers(20, 700))
    colour = tuple(int(c) for c in rng.integers(0, 256, 3)) + (int(rng.integers(60, 220)),)
    (draw.ellipse if rng.random() < 0.5 else draw.rectangle)([x, y, x + w, y + h], fill=colour)
shapes = shapes.filter(ImageFilter.GaussianBlur(1.5))
base.paste(shapes, (0, 0), shapes)

# 3. camera-like noise
a = np.asarray(base, dtype=np.float32)
a += rng.normal(0, 4, (H, W, 1)).astype(np.float32)
a += rng.normal(0, 2, (H, W, 3)).astype(np.float32)
img = Image.fromarray(np.clip(np.rint(a), 0, 255).astype(np.uint8), "RGB")
img.save(sys.argv[1] + ".part.jpg", quality=90, subsampling=2, optimize=False)
PY
mv "$out.part.jpg" "$out"
echo "make-inputs: $out ($(stat -c %s "$out") bytes, sha256 $(sha256sum "$out" | cut -c1-16)…)"
