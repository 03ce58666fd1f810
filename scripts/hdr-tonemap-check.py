#!/usr/bin/env python3
"""The HDR → SDR tone-mapping tests' reference: a PQ or HLG AVIF made with heif-enc, and the SDR
image it should become computed independently of FilterGraph (numpy over libavif's decode).

  hdr-tonemap-check.py make pq|hlg OUT.avif [PEAK [MAXCLL [MASTERING]]]
      writes a 96×64 test pattern (grey ramps and saturated BT.2020 colours from 0 to PEAK cd/m²,
      default 4000; a PNG gets a cLLi chunk declaring MAXCLL cd/m² when given and not "-", and an
      mDCv chunk declaring a BT.2020 D65 mastering display of MASTERING cd/m² when given)
      as a 16-bit PNG and encodes it with heif-enc: 10-bit 4:2:2 (libaom in libheif 1.15 writes
      10-bit at 4:2:2 only), nclx BT.2020 primaries, BT.601 matrix, full range, transfer 16 (PQ)
      or 18 (HLG); OUT.png instead writes the 16-bit pattern itself as a PNG with a cICP chunk
      (9, 16 or 18, 0, 1) after IHDR
  hdr-tonemap-check.py check IN.avif|IN.png OUT.png
      decodes IN.avif with imagecodecs (libavif, not libheif), or IN.png (a 16-bit PNG whose cICP
      chunk says BT.2020 and PQ or HLG, scripts/png-cicp.py) with imagecodecs' PNG decoder, tone-maps it by ITU-R BT.2446
      method A (L_HDR → 100 cd/m², L_HDR the content's peak: a PNG's cLLi MaxCLL when it is in
      (0, 10000], else the largest component of the decoded light; kept within [406, 10000]) and
      gamut-maps BT.2020 → BT.709 by desaturation at constant luminance, all written out below from
      the published formulas, and prints {"psnr": dB, "peak": L_HDR} of OUT.png (FilterGraph's
      16-bit sRGB output) against that
Run with the oracles' venv (scripts/install-hdr-oracles.sh).
"""
import json
import os
import subprocess
import sys
import tempfile
import zlib

import imagecodecs
import numpy as np

# SMPTE ST 2084
M1, M2 = 2610 / 16384, 2523 / 4096 * 128
C1, C2, C3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
# BT.2100 HLG
HA = 0.17883277
HB, HC = 1 - 4 * HA, 0.5 - HA * np.log(4 * HA)


def pq_eotf(e):
    p = np.power(np.clip(e, 0, 1), 1 / M2)
    return 10000 * np.power(np.maximum(p - C1, 0) / (C2 - C3 * p), 1 / M1)


def pq_inverse(f):
    y = np.power(np.clip(f / 10000, 0, 1), M1)
    return np.power((C1 + C2 * y) / (1 + C3 * y), M2)


def hlg_inverse_oetf(e):
    e = np.clip(e, 0, 1)
    return np.where(e <= 0.5, e * e / 3, (np.exp((e - HC) / HA) + HB) / 12)


def hlg_oetf(x):
    x = np.clip(x, 0, 1)
    return np.where(x <= 1 / 12, np.sqrt(3 * x), HA * np.log(np.maximum(12 * x - HB, 1e-12)) + HC)


def pattern(peak=4000.0):
    """Display light in cd/m², BT.2020 primaries, 64×96×3, brightest component `peak`."""
    h, w = 64, 96
    level = np.geomspace(0.05, peak, w)[None, :, None]
    colours = np.array([[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 0.5, 0.2]])
    rows = colours[(np.arange(h) * len(colours)) // h][:, None, :]
    return level * (0.05 + 0.95 * rows)


def chunk(name, payload):
    body = name + payload
    return len(payload).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")


def make(transfer, out, peak=4000.0, max_cll=None, mastering=None):
    light = pattern(peak)
    if transfer == "pq":
        signal = pq_inverse(light)
    else:  # HLG: invert the OOTF (Lw 1000, gamma 1.2) and the OETF
        y = 0.2627 * light[..., 0] + 0.6780 * light[..., 1] + 0.0593 * light[..., 2]
        ys = np.power(np.clip(y / 1000, 1e-9, 1), 1 / 1.2)
        scene = np.clip(light / 1000 * (ys / np.maximum(y / 1000, 1e-9))[..., None], 0, 1)
        signal = hlg_oetf(scene)
    codes = np.round(np.clip(signal, 0, 1) * 65535).astype(np.uint16)
    code = {"pq": "16", "hlg": "18"}[transfer]
    if out.endswith(".png"):
        png = imagecodecs.png_encode(codes)
        chunks = chunk(b"cICP", bytes([9, int(code), 0, 1]))
        if max_cll is not None:  # MaxCLL, MaxFALL in 0.0001 cd/m²
            chunks += chunk(b"cLLi", int(round(max_cll * 10000)).to_bytes(4, "big") + (0).to_bytes(4, "big"))
        if mastering is not None:  # BT.2020 R, G, B and D65 in 0.00002; max, min luminance in 0.0001 cd/m²
            xy = [0.708, 0.292, 0.170, 0.797, 0.131, 0.046, 0.3127, 0.3290]
            chunks += chunk(b"mDCv", b"".join(int(round(v / 0.00002)).to_bytes(2, "big") for v in xy)
                            + int(round(mastering * 10000)).to_bytes(4, "big") + (50).to_bytes(4, "big"))
        with open(out, "wb") as f:
            f.write(png[:33] + chunks + png[33:])  # signature (8) and IHDR (25), then cICP (and cLLi, mDCv)
        return
    with tempfile.TemporaryDirectory() as folder:
        png = os.path.join(folder, "in.png")
        with open(png, "wb") as f:
            f.write(imagecodecs.png_encode(codes))
        subprocess.run(["heif-enc", "-b", "10", "-q", "95", "-p", "chroma=422", "-o", out, png], check=True,
                       capture_output=True)
    # heif-enc 1.15 writes nclx 2/2/6 (unspecified primaries and transfer, BT.601 matrix) whatever
    # its --colour_primaries/--transfer_characteristic say: set primaries 9 (BT.2020) and the
    # transfer in the colr box (the AV1 sequence header leaves them unspecified; the matrix the
    # YCbCr was encoded with is kept).
    with open(out, "rb") as f:
        data = f.read()
    box = b"nclx\x00\x02\x00\x02\x00\x06\x80"
    assert data.count(box) == 1, "heif-enc's nclx box not found"
    with open(out, "wb") as f:
        f.write(data.replace(box, b"nclx\x00\x09\x00" + bytes([int(code)]) + b"\x00\x06\x80"))


def bt2446a(rgb, peak):
    """BT.2446-1 method A: HDR display light (cd/m², BT.2020) → SDR linear light (BT.2020, 0…1)
    for content whose peak is `peak` cd/m² (L_HDR)."""
    e = np.power(np.clip(rgb, 0, peak) / peak, 1 / 2.4)
    y = 0.2627 * e[..., 0] + 0.6780 * e[..., 1] + 0.0593 * e[..., 2]
    rho_hdr = 1 + 32 * (peak / 10000) ** (1 / 2.4)
    rho_sdr = 1 + 32 * (100 / 10000) ** (1 / 2.4)
    yp = np.log(1 + (rho_hdr - 1) * y) / np.log(rho_hdr)
    yc = np.where(yp <= 0.7399, 1.0770 * yp, np.where(yp < 0.9909, -1.1510 * yp ** 2 + 2.7811 * yp - 0.6302, 0.5 * yp + 0.5))
    ysdr = (np.power(rho_sdr, yc) - 1) / (rho_sdr - 1)
    f = np.where(y > 0, ysdr / (1.1 * np.maximum(y, 1e-12)), 0)
    cb = (e[..., 2] - y) / 1.8814 * f
    cr = (e[..., 0] - y) / 1.4746 * f
    yt = ysdr - np.maximum(0.1 * cr, 0)
    r = yt + 1.4746 * cr
    b = yt + 1.8814 * cb
    g = yt - 0.16455 * cb - 0.57135 * cr
    return np.power(np.clip(np.stack([r, g, b], -1), 0, 1), 2.4)


def to_bt709(rgb2020):
    m = np.array([[1.6605, -0.5876, -0.0728], [-0.1246, 1.1329, -0.0083], [-0.0182, -0.1006, 1.1187]])
    c = rgb2020 @ m.T
    y = np.clip(c @ np.array([0.2126, 0.7152, 0.0722]), 0, 1)[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        t_low = np.where(c < 0, y / (y - c), 1)
        t_high = np.where(c > 1, (1 - y) / (c - y), 1)
    t = np.minimum(np.nan_to_num(t_low, nan=1).min(-1), np.nan_to_num(t_high, nan=1).min(-1))[..., None]
    return np.clip(y + np.minimum(t, 1) * (c - y), 0, 1)


def srgb(l):
    return np.where(l <= 0.0031308, 12.92 * l, 1.055 * np.power(l, 1 / 2.4) - 0.055)


def signal_and_transfer(path):
    """The R'G'B' signal (0…1) of an HDR AVIF or PNG, its H.273 transfer code (BT.2020 primaries)
    and the MaxCLL its cLLi chunk declares (cd/m², None without one)."""
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".png"):
        at = data.find(b"cICP")
        assert at > 0 and data[at + 4] == 9 and data[at + 6:at + 8] == b"\x00\x01", "no cICP chunk for BT.2020 RGB, full range"
        cll = data.find(b"cLLi")
        max_cll = int.from_bytes(data[cll + 4:cll + 8], "big") / 10000 if cll > 0 else None
        return imagecodecs.png_decode(data).astype(np.float64)[..., :3] / 65535, data[at + 5], max_cll
    transfer = 18 if b"nclx\x00\x09\x00\x12" in data else 16
    return imagecodecs.avif_decode(data).astype(np.float64)[..., :3] / 1023, transfer, None


def check(source, png):
    signal, transfer, max_cll = signal_and_transfer(source)
    if transfer == 18:  # HLG
        scene = hlg_inverse_oetf(signal)
        ys = scene @ np.array([0.2627, 0.6780, 0.0593])
        light = 1000 * np.power(np.maximum(ys, 1e-12), 0.2)[..., None] * scene
    else:
        light = pq_eotf(signal)
    peak = max_cll if max_cll is not None and 0 < max_cll <= 10000 else float(light.max())
    peak = min(max(peak, 406.0), 10000.0)
    expected = srgb(to_bt709(bt2446a(light, peak)))
    with open(png, "rb") as f:
        ours = imagecodecs.png_decode(f.read()).astype(np.float64)[..., :3] / 65535
    mse = float(np.mean((ours - expected) ** 2))
    print(json.dumps({"psnr": 99.0 if mse == 0 else 10 * np.log10(1 / mse), "max_error": float(np.abs(ours - expected).max()),
                      "peak": peak}))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], *[None if v == "-" else float(v) for v in sys.argv[4:7]])
    else:
        check(sys.argv[2], sys.argv[3])
