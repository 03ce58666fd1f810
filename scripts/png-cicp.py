#!/usr/bin/env python3
"""Writes a small 16-bit RGB PNG with a cICP chunk (PNG 3rd edition), from the standard library
only, for the PNG HDR tests: built chunk by chunk here, independently of the libpng FilterGraph reads with.

  png-cicp.py OUTPUT PRIMARIES TRANSFER    e.g. 9 16 (BT.2020, PQ) or 9 18 (HLG); matrix 0, full range

The picture is 32×16: signal levels rising from 0 to 1 left to right, times a colour per pair of rows
(grey, the primaries, the secondaries, orange; each channel 5 % … 100 % of the level), so a PQ file
spans 0 to 10000 cd/m² and a BT.2020 one holds colours outside BT.709.
"""
import struct
import sys
import zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def main(path, primaries, transfer):
    width, height = 32, 16
    colours = [(1, 1, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (0, 1, 1), (1, 0, 1), (1, 0.5, 0.2)]

    def pixel(x, y):
        level, colour = x / (width - 1), colours[y * len(colours) // height]
        return struct.pack(">HHH", *(round(65535 * level * (0.05 + 0.95 * c)) for c in colour))

    rows = b"".join(b"\x00" + b"".join(pixel(x, y) for x in range(width)) for y in range(height))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0))
    png += chunk(b"cICP", bytes([primaries, transfer, 0, 1])) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
