#!/usr/bin/env python3
"""The hostile files of issue #28, built byte by byte (standard library only), for
bench/hostile-replay.sh:

  gif-screen.gif   35 bytes: a GIF whose logical screen is 16383 x 16383, one 1x1 frame (finding 9)
  float-strip.tif  about 131 KB: a 16383 x 16383 one-channel 32-bit float TIFF whose 16,383 strip
                   offsets all point to one deflated row of zeros (finding 9)
  big-gray.png     about 260 KB: a 16383 x 16383 8-bit gray PNG of zeros (finding 2)
  xmp.png          a 64 x 64 RGB PNG with a 2.3 MB XMP packet in an iTXt chunk (finding 8)
  shared.txt       nK = blend nK-1 nK-2 for K = 2..40 (finding 1)

Usage: make-hostile-inputs.py FOLDER
"""
import struct
import sys
import zlib
from pathlib import Path


def chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png(width: int, height: int, color_type: int, row_bytes: int, extra: bytes = b"") -> bytes:
    compressor = zlib.compressobj(9)
    row = b"\0" * (row_bytes + 1)  # filter byte 0 and the samples
    parts = [compressor.compress(row) for _ in range(height)]
    parts.append(compressor.flush())
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra + chunk(b"IDAT", b"".join(parts))
            + chunk(b"IEND", b""))


def gif_screen() -> bytes:
    # Header, a 16383 x 16383 screen without a global table, one 1x1 image with a 2-entry local
    # table and the LZW codes clear, 0, end; the trailer. 35 bytes.
    data = b"GIF89a" + struct.pack("<HHBBB", 16383, 16383, 0, 0, 0)
    data += b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0x80) + b"\0\0\0\xff\xff\xff"
    data += b"\x02\x02\x44\x01\x00" + b"\x3b"
    return data


def float_tiff() -> bytes:
    side = 16383
    row = zlib.compress(b"\0" * (side * 4), 9)
    entries = []  # (tag, type, count, value or bytes)
    offsets_at = 8 + len(row)
    counts_at = offsets_at + 4 * side
    entries = [
        (256, 4, 1, side), (257, 4, 1, side), (258, 3, 1, 32), (259, 3, 1, 8), (262, 3, 1, 1),
        (273, 4, side, offsets_at), (277, 3, 1, 1), (278, 4, 1, 1), (279, 4, side, counts_at),
        (284, 3, 1, 1), (339, 3, 1, 3),
    ]
    ifd_at = counts_at + 4 * side
    data = b"II*\0" + struct.pack("<I", ifd_at) + row
    data += struct.pack("<I", 8) * side + struct.pack("<I", len(row)) * side
    data += struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        packed = struct.pack("<HI", value, 0)[:4] if kind == 3 and count == 1 else struct.pack("<I", value)
        data += struct.pack("<HHI", tag, kind, count) + packed
    return data + struct.pack("<I", 0)


def xmp_png() -> bytes:
    body = b"<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
    body += b"<!--" + b"photoshop:History " * (2_300_000 // 18) + b"-->" + b"</rdf:RDF></x:xmpmeta>"
    itxt = chunk(b"iTXt", b"XML:com.adobe.xmp\0\0\0\0\0" + body)
    return png(64, 64, 2, 64 * 3, itxt)


def shared_recipe() -> str:
    lines = ["n0 = input", "n1 = blur sigma=0.5 of=n0"]
    lines += [f"n{k} = blend mode=screen n{k - 1} n{k - 2} opacity=0.5" for k in range(2, 41)]
    return "\n".join(lines) + "\n"


def main() -> None:
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "gif-screen.gif").write_bytes(gif_screen())
    (folder / "float-strip.tif").write_bytes(float_tiff())
    (folder / "big-gray.png").write_bytes(png(16383, 16383, 0, 16383))
    (folder / "xmp.png").write_bytes(xmp_png())
    (folder / "shared.txt").write_text(shared_recipe())
    for f in sorted(folder.iterdir()):
        print(f"{f.name}: {f.stat().st_size} bytes")


if __name__ == "__main__":
    main()
