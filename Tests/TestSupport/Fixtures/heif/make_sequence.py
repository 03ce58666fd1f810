#!/usr/bin/python3
"""Writes sequence.avif: a 16x8 AVIF image sequence of three frames (brand `avis`, a `moov` track
and a still primary item), through Debian's libavif 0.11 (libavif15, BSD-2-Clause) by ctypes, as
no command-line tool here writes sequences. Run from this folder."""
import ctypes

lib = ctypes.CDLL("libavif.so.15")
lib.avifImageCreate.restype = ctypes.c_void_p
lib.avifImageCreate.argtypes = [ctypes.c_uint32] * 3 + [ctypes.c_int]
lib.avifEncoderCreate.restype = ctypes.c_void_p
lib.avifRGBImageSetDefaults.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.avifRGBImageAllocatePixels.argtypes = [ctypes.c_void_p]
lib.avifImageRGBToYUV.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.avifEncoderAddImage.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32]
lib.avifEncoderFinish.argtypes = [ctypes.c_void_p, ctypes.c_void_p]


class RWData(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]


W, H = 16, 8
encoder = lib.avifEncoderCreate()
(ctypes.c_int * 3).from_address(encoder)[2] = 10  # avifEncoder.speed: fastest
for k in range(3):
    image = lib.avifImageCreate(W, H, 8, 1)  # 8-bit 4:4:4
    rgb = ctypes.create_string_buffer(256)  # avifRGBImage (0.11: ten 32-bit fields, pixels, rowBytes)
    lib.avifRGBImageSetDefaults(rgb, image)
    lib.avifRGBImageAllocatePixels(rgb)
    pixels, row_bytes = ctypes.c_void_p.from_buffer(rgb, 40).value, ctypes.c_uint32.from_buffer(rgb, 48).value
    assert row_bytes == W * 4, "avifRGBImage layout differs from libavif 0.11's"
    samples = (ctypes.c_uint8 * (row_bytes * H)).from_address(pixels)
    for y in range(H):
        for x in range(W):
            samples[y * row_bytes + 4 * x:y * row_bytes + 4 * x + 4] = [(x * 16 + k * 80) % 256, y * 30, 60 * k, 255]
    assert lib.avifImageRGBToYUV(image, rgb) == 0
    assert lib.avifEncoderAddImage(encoder, image, 1, 0) == 0
out = RWData()
assert lib.avifEncoderFinish(encoder, ctypes.byref(out)) == 0
open("sequence.avif", "wb").write(ctypes.string_at(out.data, out.size))
