#!/usr/bin/env python3
"""Draws the two small images the recipes use; run from anywhere: python3 make_assets.py

  logo.png  96×48 RGBA: a white rounded tag with a dark "play" triangle and three bars, for
            watermark.txt. Original artwork (drawn here from shapes, no fonts), CC0.
  icon.png  64×64 RGBA: a black 5-point star on transparency with anti-aliased edges, for
            icon-tint.txt (a "template" icon: one colour, the shape in the alpha). CC0.

Shapes are drawn at 4× and reduced with a box filter so the edges carry partial alpha, which is
what the icon recipe's test checks is kept exactly.
"""
import math
import os

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
S = 4  # supersampling factor


def logo():
    w, h = 96, 48
    big = Image.new("RGBA", (w * S, h * S), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    d.rounded_rectangle([0, 0, w * S - 1, h * S - 1], radius=10 * S, fill=(255, 255, 255, 220))
    d.polygon([(10 * S, 10 * S), (10 * S, 38 * S), (34 * S, 24 * S)], fill=(32, 40, 56, 255))
    for i, bar in enumerate((44, 30, 18)):
        y = (11 + i * 10) * S
        d.rectangle([42 * S, y, (42 + bar) * S, y + 6 * S], fill=(255, 128, 0, 255))
    return big.resize((w, h), Image.Resampling.BOX)


def icon():
    n = 64
    big = Image.new("RGBA", (n * S, n * S), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    cx = cy = n * S / 2
    outer, inner = 30 * S, 12 * S
    points = []
    for k in range(10):
        r = outer if k % 2 == 0 else inner
        a = -math.pi / 2 + k * math.pi / 5
        points.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    d.polygon(points, fill=(0, 0, 0, 255))
    return big.resize((n, n), Image.Resampling.BOX)


if __name__ == "__main__":
    logo().save(os.path.join(HERE, "logo.png"), optimize=True)
    icon().save(os.path.join(HERE, "icon.png"), optimize=True)
