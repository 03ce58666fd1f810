#!/usr/bin/env python3
"""Writes a small 16-bit RGB PNG with a cICP chunk (PNG 3rd edition), from the standard library
only, for the PNG HDR tests: built chunk by chunk here, independently of the libpng FilterGraph reads with.

  png-cicp.py OUTPUT PRIMARIES TRANSFER    e.g. 9 16 (BT.2020, PQ) or 9 18 (HLG); matrix 0, full range
"""
import struct
import sys
import zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def main(path, primaries, transfer):
    width, height = 4, 2
    rows = b"".join(b"\x00" + b"".join(struct.pack(">HHH", 1000 * x, 20000 + 5000 * y, 40000) for x in range(width)) for y in range(height))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0))
    png += chunk(b"cICP", bytes([primaries, transfer, 0, 1])) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
