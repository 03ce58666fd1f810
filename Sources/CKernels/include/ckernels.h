// ckernels.h — per-pixel loops that Swift cannot vectorise well, written with x86 intrinsics.
//
// Each kernel is compiled for AVX2 only (a function attribute, not a global flag), so the rest of
// the binary keeps the baseline instruction set; callers ask `fg_kernels_have_avx2` first and fall
// back to their Swift loop. The kernels return how many pixels they handled (whole groups of
// eight); the caller finishes the row. No kernel allocates, keeps state or fails.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when the CPU runs AVX2 (and the kernels below do work), else 0. Cheap after the first call.
int fg_kernels_have_avx2(void);

/// Linear-light float premultiplied RGBA pixels → 8-bit sRGB codes (FilterGraph's
/// `TileConversion.storeLinear8`), eight pixels at a time; returns the number of pixels written
/// (`count` rounded down to a multiple of 8, or 0 without AVX2).
///
/// - src: `count` pixels of four floats (R, G, B, A), premultiplied, linear light.
/// - dst: `count · channels` bytes; channels 1 = gray (R's code), 2 = gray + alpha, 3 = RGB,
///   4 = RGBA. Alpha is written as round(255·clamp(a, 0, 1)), the colour channels as codes of
///   the unpremultiplied value (a ≠ 1: times 1/a, or 0 when a ≤ 0 or NaN), clamped to 0…1.
/// - table: 1665 entries indexed by (max(bits, 0x39000000) − 0x39000000) >> 16 of the clamped
///   value's bit pattern; entry = code << 17 | t, where t (≤ 0x10000) is the low 16 bits of the
///   next rounding threshold if it lies inside that segment, else 0x10000. The code is the
///   entry's code plus 1 when the value's low 16 bits are ≥ t.
size_t fg_linear8_row(const float *src, size_t count, uint8_t *dst, int channels, const uint32_t *table);

#ifdef __cplusplus
}
#endif
