#!/usr/bin/env python3
"""Makes Tests/TestSupport/Fixtures/text/colr-squares.ttf, the COLRv0 font the text tests draw.

usage: .venv-fonttools/bin/python scripts/make-colr-font.py [OUT]   (scripts/install-font-tools.sh
makes the venv)

The font has one colour glyph, mapped from "A" and from U+E000, of 1000 units a side (the em),
made of three layers drawn in order from a two-entry palette (CPAL) and one colour given as the
foreground:

  layer 0  red   #FF0000          the square (0, 0)-(1000, 1000)
  layer 1  blue  #0000FF          the inner square (250, 250)-(750, 750)
  layer 2  green #00FF00 at 50 %  the left strip (0, 0)-(250, 1000), over the red

so a renderer that draws COLR shows a red square with a blue middle and a left strip half red,
half green; one that ignores COLR draws the base glyph's outline (the whole square) in the text
colour. The font's ascent is 1000 units and its descent 0, so the square fills the line box. Its
advance is 1000 units. No outline is taken from another font: every contour is a rectangle made
here, so the file is ours to commit (CC0, as the fixtures' README says).
"""
import os
import sys

from fontTools.fontBuilder import FontBuilder
from fontTools.misc.timeTools import timestampFromString
from fontTools.pens.ttGlyphPen import TTGlyphPen

UPM = 1000


def rectangle(x0, y0, x1, y1):
    pen = TTGlyphPen(None)
    pen.moveTo((x0, y0))
    pen.lineTo((x0, y1))
    pen.lineTo((x1, y1))
    pen.lineTo((x1, y0))
    pen.closePath()
    return pen.glyph()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "..", "Tests", "TestSupport", "Fixtures", "text", "colr-squares.ttf")
    order = [".notdef", "square", "square.red", "square.blue", "square.green"]
    fb = FontBuilder(UPM, isTTF=True)
    fb.setupGlyphOrder(order)
    fb.setupCharacterMap({ord("A"): "square", 0xE000: "square"})
    fb.setupGlyf({
        ".notdef": rectangle(100, 0, 900, 1000),
        "square": rectangle(0, 0, 1000, 1000),
        "square.red": rectangle(0, 0, 1000, 1000),
        "square.blue": rectangle(250, 250, 750, 750),
        "square.green": rectangle(0, 0, 250, 1000),
    })
    # Each glyph's left side bearing is its xMin, as TrueType requires (FreeType places a glyph's
    # origin at xMin - lsb).
    glyf = fb.font["glyf"]
    fb.setupHorizontalMetrics({name: (UPM, glyf[name].xMin) for name in order})
    fb.setupHorizontalHeader(ascent=UPM, descent=0)
    fb.setupNameTable({"familyName": "FilterGraph COLR Squares", "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=UPM, sTypoDescender=0, sTypoLineGap=0, usWinAscent=UPM, usWinDescent=0)
    fb.setupPost()
    # Palette 0: red, blue, half-transparent green (CPAL colours are RGBA floats here).
    fb.setupCPAL([[(1, 0, 0, 1), (0, 0, 1, 1), (0, 1, 0, 0.5)]])
    fb.setupCOLR({"square": [("square.red", 0), ("square.blue", 1), ("square.green", 2)]}, version=0)
    # A fixed date, so the script remakes the committed file byte for byte.
    fb.updateHead(created=timestampFromString("Sat Nov 28 00:00:00 2026"), modified=timestampFromString("Sat Nov 28 00:00:00 2026"))
    fb.save(out)
    print(f"make-colr-font: wrote {os.path.normpath(out)} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main()
