#!/usr/bin/env python3
"""Makes the metadata test fixtures (Tests/TestSupport/Fixtures/metadata/), independently of
FilterGraph: pixels by numpy and Pillow, the EXIF block built here byte by byte (TIFF structure
with IFD0, an Exif IFD and an IFD1 thumbnail), XMP, IPTC (APP13) and COM segments spliced in
after the JFIF header.

  orient-N.jpg     N = 1…8: a 48x32 (upright) picture of four flat coloured quadrants stored
                   turned so that EXIF Orientation N shows it upright; Make "FilterGraph Test
                   Camera", Model "Model 8", DateTimeOriginal "2021:06:15 10:20:30",
                   PixelXDimension/PixelYDimension of the stored size, an IFD1 JPEG thumbnail
                   (16x16 magenta); an XMP packet, an IPTC record (byline), a comment.
  upright.png      the upright picture (what every orient-N.jpg must show).
  xmp.xml          the XMP packet the JPEGs carry (bytes compared after round trips).

Run from the repository root: python3 scripts/metadata-fixtures.py   (needs Pillow and numpy).
"""
import io
import os
import struct

import numpy as np
from PIL import Image

FIX = os.path.join("Tests", "TestSupport", "Fixtures", "metadata")
MAKE, MODEL, TIME = b"FilterGraph Test Camera\0", b"Model 8\0", b"2021:06:15 10:20:30\0"
XMP = (b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
       b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">'
       b'<dc:rights><rdf:Alt><rdf:li xml:lang="x-default">CC0 test fixture</rdf:li></rdf:Alt></dc:rights>'
       b'</rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>')
IPTC = b"\x1c\x02\x00\x00\x02\x00\x04" + b"\x1c\x02\x50\x00\x0bTest Author"  # record version, byline
COMMENT = b"FilterGraph metadata fixture"


def upright():
    """48 wide, 32 high: red top-left, green top-right, blue bottom-left, white bottom-right."""
    a = np.zeros((32, 48, 3), np.uint8)
    a[:16, :24] = (220, 30, 30)
    a[:16, 24:] = (30, 200, 40)
    a[16:, :24] = (30, 40, 210)
    a[16:, 24:] = (240, 240, 240)
    return a


def stored(a, n):
    """The stored pixels that orientation n shows as `a` (the inverse of the display transform)."""
    return {
        1: lambda x: x,
        2: lambda x: x[:, ::-1],
        3: lambda x: x[::-1, ::-1],
        4: lambda x: x[::-1, :],
        5: lambda x: x.transpose(1, 0, 2),
        6: lambda x: np.rot90(x, 1),    # shown turned 90° clockwise
        7: lambda x: x[::-1, ::-1].transpose(1, 0, 2),  # transverse
        8: lambda x: np.rot90(x, -1),   # shown turned 90° counter-clockwise
    }[n](a)


def exif_block(n, width, height):
    """A big-endian TIFF structure: IFD0 (Make, Model, Orientation, Exif IFD pointer), Exif IFD
    (DateTimeOriginal, PixelXDimension, PixelYDimension), IFD1 (JPEG thumbnail), then the data."""
    thumb = io.BytesIO()
    Image.new("RGB", (16, 16), (255, 0, 255)).save(thumb, "JPEG", quality=50)
    thumb = thumb.getvalue()

    def ifd(entries, data_at, next_ifd):
        """entries: (tag, type, count, bytes); values over 4 bytes go to data_at onwards."""
        head = struct.pack(">H", len(entries))
        data = b""
        for tag, typ, count, value in entries:
            if len(value) <= 4:
                head += struct.pack(">HHI", tag, typ, count) + value.ljust(4, b"\0")
            else:
                head += struct.pack(">HHII", tag, typ, count, data_at + len(data))
                data += value + (b"\0" if len(value) % 2 else b"")
        return head + struct.pack(">I", next_ifd), data

    ifd0_at = 8
    n0 = 4
    ifd0_size = 2 + n0 * 12 + 4
    ifd0_data_at = ifd0_at + ifd0_size
    ifd0_data_len = len(MAKE) + len(MODEL) + (len(MAKE) % 2) + (len(MODEL) % 2)
    exif_at = ifd0_data_at + ifd0_data_len
    exif_size = 2 + 3 * 12 + 4
    exif_data_at = exif_at + exif_size
    ifd1_at = exif_data_at + len(TIME) + len(TIME) % 2
    ifd1_size = 2 + 3 * 12 + 4
    thumb_at = ifd1_at + ifd1_size
    ifd0, d0 = ifd([(0x010F, 2, len(MAKE), MAKE), (0x0110, 2, len(MODEL), MODEL),
                    (0x0112, 3, 1, struct.pack(">H", n)), (0x8769, 4, 1, struct.pack(">I", exif_at))],
                   ifd0_data_at, ifd1_at)
    ex, dx = ifd([(0x9003, 2, len(TIME), TIME), (0xA002, 4, 1, struct.pack(">I", width)),
                  (0xA003, 4, 1, struct.pack(">I", height))], exif_data_at, 0)
    i1, _ = ifd([(0x0103, 3, 1, struct.pack(">H", 6)), (0x0201, 4, 1, struct.pack(">I", thumb_at)),
                 (0x0202, 4, 1, struct.pack(">I", len(thumb)))], thumb_at, 0)
    block = b"MM\0\x2a" + struct.pack(">I", ifd0_at) + ifd0 + d0 + ex + dx + i1 + thumb
    assert len(b"MM\0\x2a" + struct.pack(">I", ifd0_at) + ifd0 + d0) == exif_at
    assert len(block) == thumb_at + len(thumb)
    return block


def segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def with_segments(jpeg, segments):
    """`jpeg` with `segments` inserted after SOI and its APP0 (JFIF) segment."""
    assert jpeg[:4] == b"\xff\xd8\xff\xe0"
    app0_end = 4 + struct.unpack(">H", jpeg[4:6])[0]
    return jpeg[:app0_end] + b"".join(segments) + jpeg[app0_end:]


def main():
    os.makedirs(FIX, exist_ok=True)
    a = upright()
    Image.fromarray(a).save(os.path.join(FIX, "upright.png"))
    open(os.path.join(FIX, "xmp.xml"), "wb").write(XMP)
    resources = b"8BIM\x04\x04\0\0" + struct.pack(">I", len(IPTC)) + IPTC + (b"\0" if len(IPTC) % 2 else b"")
    for n in range(1, 9):
        s = np.ascontiguousarray(stored(a, n))
        buf = io.BytesIO()
        Image.fromarray(s).save(buf, "JPEG", quality=95, subsampling=0)
        h, w = s.shape[:2]
        jpeg = with_segments(buf.getvalue(), [
            segment(0xE1, b"Exif\0\0" + exif_block(n, w, h)),
            segment(0xE1, b"http://ns.adobe.com/xap/1.0/\0" + XMP),
            segment(0xED, b"Photoshop 3.0\0" + resources),
            segment(0xFE, COMMENT),
        ])
        open(os.path.join(FIX, "orient-%d.jpg" % n), "wb").write(jpeg)
        # Check with Pillow: the orientation, and that exif_transpose shows the upright picture.
        im = Image.open(io.BytesIO(jpeg))
        assert im.getexif()[0x0112] == n
        from PIL import ImageOps
        shown = np.asarray(ImageOps.exif_transpose(im)).astype(int)
        assert shown.shape == a.shape and np.abs(shown - a).mean() < 3, n


if __name__ == "__main__":
    main()
