#!/usr/bin/env python3
"""Reads an Ultra HDR JPEG FilterGraph wrote with the independent decoders, for the round-trip tests.

  hdr-check.py INPUT OUTPUT [POWER | levels=WHITE,GAMMA,OUT_WHITE | exposure=EV]
                               prints one JSON object (an INPUT ending in .avif or .png is a PQ AVIF
                               or PNG, read as such an OUTPUT below; POWER raises the input's
                               rendition, in SDR-white units, to that power before it is resized:
                               the HDR light of a gamma edit, c^(1/γ) on the light; levels=… applies
                               levels with black points 0 on the sRGB-encoded rendition instead,
                               OUT_WHITE · (c / WHITE)^(1/GAMMA), the sRGB curve extended above 1
                               by its own formula; exposure=EV multiplies the rendition by 2^EV,
                               exposure applied to the HDR light; invert=H inverts the rendition
                               over the headroom H, H · dec(1 − enc(clip(c / H, 0, 1))) with the
                               sRGB curve, invert applied to the HDR picture on its display;
                               blur=SIGMA blurs the rendition in linear light, libvips gaussblur
                               with min_ampl 0.001 and edges extended, as fgrun's blur;
                               convolve=H:V1,…,V9 convolves the rendition over the headroom H
                               with a 3×3 kernel (divided by its sum, or 1 when that is 0) on
                               sRGB-encoded values, edges extended, clipped to 0…1, as fgrun's
                               convolve applied to the HDR picture on its display;
                               curves=X:Y,… is a rising tone curve carried (the SDR look with the
                               photo's highlights kept): (f(B) + o)·(c + o′)/(B + o) − o′, B the
                               input's SDR base as libultrahdr decodes it (sRGB, linearised), o
                               and o′ its SDR and HDR offsets as libvips reads them, f the curve
                               on sRGB-encoded values; curves-over=H/X:Y,… applies the curve over the
                               headroom H instead, H · dec(f(enc(clip(c / H, 0, 1)))), a falling
                               curve rerendered; f is Fritsch–Carlson's monotone cubic through the
                               points, flat outside them, as docs/Filters.md defines fgrun's;
                               blend=OVERLAY,X,Y,W,H,OPACITY places the rendition of the Ultra HDR
                               file OVERLAY, resized to W×H in linear light (libvips resize,
                               Lanczos 3), at (X, Y) over the input's rendition, blended `over`
                               by OPACITY in linear light: the blend of the two HDR renditions;
                               psnr_region is then the PSNR within that rectangle, over its own
                               peak; an INPUT JPEG without a gain map is SDR content, its
                               rendition its own sRGB-decoded light):
    input, output: libvips 8.18's gain-map fields of each file (uhdrload: libultrahdr, which reads
              the ISO 21496-1 block first), with the base and map sizes, and "xmp": the gain map's
              hdrgm:GainMapMax and hdrgm:HDRCapacityMax (log2) as its XMP packet writes them
              (single-value attributes, read by a regular expression)
    psnr_ic:  PSNR (dB, over the reference's peak) of the output's HDR rendition as libultrahdr
              decodes it (imagecodecs.ultrahdr_decode, linear, full headroom) against the input's
              rendition decoded the same way and resized to the output's size in linear light
              (libvips resize, Lanczos 3); an OUTPUT ending in .tif is a float TIFF of the
              rendition itself (fgrun --hdr hdr), read as it is (output is then {}); one ending in
              .avif is the rendition as PQ (fgrun --hdr hdr to AVIF): decoded by libavif
              (imagecodecs.avif_decode), its nclx checked (BT.2020 primaries, PQ transfer), the
              signal taken through the ST 2084 EOTF, BT.2020 → BT.709 (BT.2087's inverse) and
              divided by 203 cd/m² (BT.2408's HDR reference white = the rendition's SDR white); one
              ending in .png is the rendition as a 16-bit PQ PNG (fgrun --hdr hdr to PNG), read by
              imagecodecs' PNG decoder with its cICP chunk checked (9, 16, 0, 1), the same way; one
              ending in .heic is the rendition as a 10- or 12-bit HEIC, decoded by heif-convert
              (libheif's example tool over libde265, not the x265 that encoded it) to a 16-bit
              PNG whose samples it shifts left to 16 bits, its nclx and pixi boxes checked as the
              AVIF's, the same way (output holds "nclx": the colr box's primaries, transfer,
              matrix and full-range flag, for both formats); a
              transfer of 18 (HLG, both formats) is taken through BT.2100's HLG inverse OETF and
              the OOTF of a 1000 cd/m² display (black 0, γ 1.2) instead of the ST 2084 EOTF;
              for both, output holds "light": the mastering display and content light levels the
              file declares (PNG mDCv and cLLi, PNG 3rd edition 11.3.2.7–8; HEIF mdcv and clli
              boxes, ISO/IEC 23008-2 D.3.28 and D.3.35 orders and units; absent: null) and MaxCLL and
              MaxFALL computed from the decoded pixels (CTA-861.3: the largest and the mean max(R, G,
              B) in cd/m², BT.2020)
Run with the oracles' venv (scripts/install-hdr-oracles.sh).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import imagecodecs
import numpy as np
import pyvips


def fields(path):
    if not is_ultra_hdr(path):
        im = pyvips.Image.new_from_file(path)
        return {"width": im.width, "height": im.height}
    im = pyvips.Image.uhdrload(path)
    out = {f: im.get(f) for f in im.get_fields() if f.startswith("gainmap-") and f != "gainmap-data"}
    gm = im.get_gainmap()
    out.update(width=im.width, height=im.height, map_width=gm.width, map_height=gm.height, map_bands=gm.bands)
    with open(path, "rb") as f:
        data = f.read()
    out["xmp"] = {name: float(m.group(1)) for name in ("GainMapMax", "HDRCapacityMax")
                  for m in [re.search(rb'hdrgm:' + name.encode() + rb'="([^"]+)"', data)] if m}
    return out


def declared_light(data, png):
    """The mastering display (red, green, blue, white x, y; max, min cd/m²) and MaxCLL, MaxFALL (cd/m²)."""
    out = {}
    at = data.find(b"mDCv" if png else b"mdcv")
    if at > 0:
        xy = [int.from_bytes(data[at + 4 + 2 * i:at + 6 + 2 * i], "big") * 0.00002 for i in range(8)]
        if not png:  # green, blue, red, white
            xy = xy[4:6] + xy[0:4] + xy[6:8]
        lum = [int.from_bytes(data[at + 20 + 4 * i:at + 24 + 4 * i], "big") * 0.0001 for i in range(2)]
        out["mastering"] = xy + lum
    at = data.find(b"cLLi" if png else b"clli")
    if at > 0:
        if png:
            out["max_cll"], out["max_fall"] = (int.from_bytes(data[at + 4 + 4 * i:at + 8 + 4 * i], "big") * 0.0001 for i in range(2))
        else:
            out["max_cll"], out["max_fall"] = (int.from_bytes(data[at + 4 + 2 * i:at + 6 + 2 * i], "big") for i in range(2))
    return out


LIGHT = {}
NCLX = {}


def heif_convert(path, depth):
    """The samples of a 10- or 12-bit HEIC as heif-convert decodes them (its 16-bit PNG holds each
    sample shifted left to 16 bits)."""
    with tempfile.TemporaryDirectory() as folder:
        png = os.path.join(folder, "decoded.png")
        subprocess.run(["heif-convert", path, png], check=True, capture_output=True)
        with open(png, "rb") as f:
            decoded = imagecodecs.png_decode(f.read())
    assert decoded.dtype == np.uint16, "heif-convert wrote an 8-bit PNG"
    return decoded >> (16 - depth)


def pq_rendition(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".png"):  # 16-bit, cICP chunk: primaries, transfer, matrix, full range
        at = data.find(b"cICP")
        assert at > 0 and data[at + 4] == 9 and data[at + 6:at + 8] == b"\x00\x01", "not a BT.2020 full-range cICP chunk"
        transfer = data[at + 5]
        decoded, depth = imagecodecs.png_decode(data), 16
    else:  # the colr box of type nclx (ISO/IEC 23008-12 6.5.5, ISO/IEC 14496-12 12.1.5)
        at = data.find(b"colrnclx") + 4
        assert at > 4, "no nclx colr box"
        primaries, transfer, matrix = (int.from_bytes(data[at + 4 + 2 * i:at + 6 + 2 * i], "big") for i in range(3))
        NCLX[path] = [primaries, transfer, matrix, data[at + 10] >> 7]
        assert primaries == 9, "not BT.2020 primaries"
        pixi = data.find(b"pixi")  # version/flags, channel count, bits per channel
        depth = data[pixi + 9]
        assert pixi > 0 and depth in (10, 12), "no pixi box with a deep bit depth"
        decoded = heif_convert(path, depth) if path.endswith(".heic") else imagecodecs.avif_decode(data)
    assert transfer in (16, 18), f"transfer {transfer} is neither PQ (16) nor HLG (18)"
    s = decoded[..., :3].astype(np.float64) / (2 ** depth - 1)
    if transfer == 16:  # SMPTE ST 2084 EOTF
        s = np.power(s, 1 / (2523 / 4096 * 128))
        c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
        nits = 10000 * np.power(np.maximum(s - c1, 0) / (c2 - c3 * s), 1 / (2610 / 16384))
    else:  # BT.2100 HLG: inverse OETF, then the OOTF of a 1000 cd/m² display (black 0, gamma 1.2)
        a = 0.17883277
        b, c = 1 - 4 * a, 0.5 - a * np.log(4 * a)
        e = np.where(s <= 0.5, s * s / 3, (np.exp((s - c) / a) + b) / 12)
        ys = e @ np.array([0.2627, 0.6780, 0.0593])
        nits = 1000 * np.power(ys, 0.2)[..., None] * e
    brightest = nits.max(axis=2)
    LIGHT[path] = dict(declared_light(data, path.endswith(".png")), max_cll_pixels=float(brightest.max()), max_fall_pixels=float(brightest.mean()))
    to709 = np.linalg.inv(np.array([[0.6274, 0.3293, 0.0433], [0.0691, 0.9195, 0.0114], [0.0164, 0.0880, 0.8956]]))
    return ((nits @ to709.T) / 203).astype(np.float32)


def rendition(path):
    if path.endswith((".avif", ".heic", ".png")):
        return pq_rendition(path)
    if path.endswith(".tif"):
        return pyvips.Image.new_from_file(path).numpy().astype(np.float32)
    with open(path, "rb") as f:
        data = f.read()
    if not is_ultra_hdr(path):
        # An SDR JPEG (no gain map): its own light, sRGB decoded, SDR white 1 as in libultrahdr's.
        return srgb_decode(imagecodecs.jpeg8_decode(data)[..., :3] / 255.0).astype(np.float32)
    return imagecodecs.ultrahdr_decode(data)[..., :3].astype(np.float32)


def is_ultra_hdr(path):
    """Whether the JPEG at path declares a gain map: Adobe's hdrgm XMP or an ISO 21496-1 block."""
    with open(path, "rb") as f:
        data = f.read()
    return b"hdrgm:" in data or b"urn:iso:std:iso:ts:21496:-1" in data


def srgb_encode(x):
    x = np.clip(x, 0, None)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def srgb_decode(c):
    c = np.clip(c, 0, None)
    return np.where(c <= 0.04045, c / 12.92, np.power((c + 0.055) / 1.055, 2.4))


def curve(points):
    """Fritsch–Carlson's monotone cubic through the X:Y points (Fritsch & Carlson 1980, SIAM J.
    Numer. Anal. 17), flat outside them: a function of a numpy array."""
    x, y = (np.array(v, dtype=np.float64) for v in zip(*((float(a) for a in p.split(":")) for p in points.split(","))))
    h = np.diff(x)
    d = np.diff(y) / h
    m = np.concatenate([[d[0]], np.where(d[:-1] * d[1:] > 0, (d[:-1] + d[1:]) / 2, 0), [d[-1]]])
    for k in range(len(d)):
        if d[k] == 0:
            m[k] = m[k + 1] = 0
            continue
        alpha, beta = m[k] / d[k], m[k + 1] / d[k]
        if alpha * alpha + beta * beta > 9:
            tau = 3 / np.hypot(alpha, beta)
            m[k], m[k + 1] = tau * alpha * d[k], tau * beta * d[k]

    def f(c):
        k = np.clip(np.searchsorted(x, c, side="right") - 1, 0, len(h) - 1)
        t = np.clip((c - x[k]) / h[k], 0, 1)
        t2, t3 = t * t, t * t * t
        v = (2 * t3 - 3 * t2 + 1) * y[k] + (t3 - 2 * t2 + t) * h[k] * m[k] + (3 * t2 - 2 * t3) * y[k + 1] + (t3 - t2) * h[k] * m[k + 1]
        return np.where(c <= x[0], y[0], np.where(c >= x[-1], y[-1], v))
    return f


def per_channel(value):
    return np.array(value if isinstance(value, list) else [value] * 3, dtype=np.float64)


def resized(a, width, height):
    """`a` resized to width × height in linear light (libvips resize, Lanczos 3)."""
    h, w, _ = a.shape
    im = pyvips.Image.new_from_memory(np.ascontiguousarray(a).tobytes(), w, h, 3, "float")
    return im.resize(width / w, vscale=height / h, kernel="lanczos3").numpy()[:height, :width]


def main(src, dst, edit="1"):
    a, b = rendition(src), rendition(dst)
    region = None
    if edit.startswith("levels="):
        white, gamma, out_white = (float(v) for v in edit[len("levels="):].split(","))
        a = srgb_decode(out_white * np.power(srgb_encode(a) / white, 1 / gamma)).astype(np.float32)
    elif edit.startswith("invert="):
        h = float(edit[len("invert="):])
        a = (h * srgb_decode(1 - srgb_encode(np.clip(a / h, 0, 1)))).astype(np.float32)
    elif edit.startswith("convolve="):
        h, values = edit[len("convolve="):].split(":")
        k = np.array([float(v) for v in values.split(",")]).reshape(3, 3)
        k /= k.sum() if k.sum() != 0 else 1
        e = np.pad(srgb_encode(np.clip(a / float(h), 0, 1)), ((1, 1), (1, 1), (0, 0)), mode="edge")
        rows, cols = a.shape[:2]
        c = sum(k[j, i] * e[j:j + rows, i:i + cols] for j in range(3) for i in range(3))
        a = (float(h) * srgb_decode(np.clip(c, 0, 1))).astype(np.float32)
    elif edit.startswith("curves-over="):
        h, points = edit[len("curves-over="):].split("/", 1)
        f = curve(points)
        a = (float(h) * srgb_decode(np.clip(f(srgb_encode(np.clip(a / float(h), 0, 1))), 0, 1))).astype(np.float32)
    elif edit.startswith("curves="):
        f = curve(edit[len("curves="):])
        info = fields(src)
        o, o2 = per_channel(info["gainmap-offset-sdr"]), per_channel(info["gainmap-offset-hdr"])
        with open(src, "rb") as file:
            base = imagecodecs.ultrahdr_decode(file.read(), dtype=np.uint8)[..., :3] / 255.0
        sdr, edited = srgb_decode(base), srgb_decode(np.clip(f(base), 0, 1))
        a = ((edited + o) * (a + o2) / (sdr + o) - o2).astype(np.float32)
    elif edit.startswith("blend="):
        overlay, *numbers = edit[len("blend="):].split(",")
        x, y, w, h = (int(v) for v in numbers[:4])
        opacity = float(numbers[4])
        placed = resized(rendition(overlay), w, h)
        a = a.copy()
        a[y:y + h, x:x + w] = opacity * placed + (1 - opacity) * a[y:y + h, x:x + w]
        region = (x, y, w, h)
    elif edit.startswith("blur="):
        h, w, _ = a.shape
        im = pyvips.Image.new_from_memory(np.ascontiguousarray(a).tobytes(), w, h, 3, "float")
        a = im.gaussblur(float(edit[len("blur="):]), min_ampl=0.001, precision="float").numpy().astype(np.float32)
    elif edit.startswith("exposure="):
        a = a * np.float32(2 ** float(edit[len("exposure="):]))
    elif float(edit) != 1.0:
        a = np.power(np.clip(a, 0, None), float(edit))
    if src.endswith((".avif", ".png")):
        # An Ultra HDR JPEG's base is sRGB: BT.2020 light outside BT.709 (negative components) cannot
        # be restored by its map, and FilterGraph clips it to 0 (HDRGainMap.swift): so does the reference.
        a = np.clip(a, 0, None)
    ref = resized(a, b.shape[1], b.shape[0])
    mse = float(np.mean((ref - b) ** 2))
    peak = float(ref.max())
    output = {"light": LIGHT[dst]} if dst in LIGHT else {} if dst.endswith(".tif") else fields(dst)
    if dst in NCLX:
        output["nclx"] = NCLX[dst]
    result = {"input": fields(src) if src.endswith(".jpg") else {}, "output": output, "psnr_ic": 10 * np.log10(peak * peak / mse)}
    if region:
        x, y, w, h = region
        r, o = ref[y:y + h, x:x + w], b[y:y + h, x:x + w]
        result["psnr_region"] = 10 * np.log10(float(r.max()) ** 2 / float(np.mean((r - o) ** 2)))
    print(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:4])
