// ckernels.h — per-pixel loops that Swift cannot compile tightly enough.
//
// Kernels written with x86 intrinsics are compiled for AVX2 only (a function attribute, not a
// global flag), so the rest of the binary keeps the baseline instruction set. The row kernels
// `fg_linear8_row` and `fg_encoded8_row` return how many pixels they handled
// (whole groups; 0 without AVX2, see `fg_kernels_have_avx2`) and the caller's Swift loop finishes
// the row. `fg_resample_rows` and `fg_codes8_block` choose between their AVX2 and portable loops
// themselves (both give the same floats). `fg_affine_window` is portable C (clang's vector
// extensions) and is the only implementation of what it computes. No kernel allocates, keeps
// state or fails.
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

/// FilterGraph's ModulateOperation (color/Modulate.swift) in place on premultiplied
/// linear-light RGBA floats, eight pixels at a time; returns the number of pixels done (`count`
/// rounded down to a multiple of 8, or 0 without AVX2). `constants` holds 30 floats, each 3×3
/// matrix row-major: linear RGB → LMS (9), the affine step on cube-rooted LMS (9, then its
/// offset, 3), LMS → linear RGB (9). The floats equal the Swift loop's.
size_t fg_modulate(float *pixels, size_t count, const float *constants);

/// One pass of a separable resample (FilterGraph's ScaleOperation): `outputs` output rows of
/// `count` floats (count / 4 pixels), output row y being the weighted sum of the `taps[y]` source
/// rows from row `starts[y]` (row r at src + r·rowFloats), with weights w = weights + y·stride:
/// for i < count,
///   out_y[i] = (…((w[0]·r₀[i]) + w[1]·r₁[i]) + …) + w[n−1]·rₙ₋₁[i]   (0 when taps[y] is 0),
/// stored at dst + y·dstRowFloats + ⌊i/4⌋·dstPixelFloats + i mod 4. With dstPixelFloats = 4
/// output rows are contiguous pixels; other values store them transposed (a column of pixels per
/// output row), so that the other axis's pass is again a sum of contiguous rows.
/// Every product is rounded, then added in that order, with no fused multiply-add, so the AVX2
/// path (taken when the CPU has it) and the portable one give the same floats. The loop runs over
/// blocks of columns, every output row of a block before the next block, so the source rows a
/// block reads stay in the first-level cache. `dst` must not overlap `src`.
void fg_resample_rows(const float *src, ptrdiff_t rowFloats, size_t count, const ptrdiff_t *starts,
                      const ptrdiff_t *taps, const float *weights, size_t stride, size_t outputs, float *dst,
                      ptrdiff_t dstRowFloats, ptrdiff_t dstPixelFloats);

/// Part of fg_resample_rows for a band of source rows [rowLo, rowHi) (`src` is source row rowLo):
/// each output row's taps whose rows lie in the band are applied, continuing the sum already in
/// `dst` (tap 0 starts it), in the same order and rounding as fg_resample_rows. Calling it for
/// consecutive bands that cover every tap gives exactly fg_resample_rows's floats.
void fg_resample_rows_band(const float *src, ptrdiff_t rowFloats, size_t count, const ptrdiff_t *starts,
                           const ptrdiff_t *taps, const float *weights, size_t stride, size_t outputs, float *dst,
                           ptrdiff_t dstRowFloats, ptrdiff_t dstPixelFloats, ptrdiff_t rowLo, ptrdiff_t rowHi);

/// Float premultiplied RGBA pixels already in the output's encoding → 8-bit codes (FilterGraph's
/// `TileConversion.pack8`), eight pixels at a time; returns the number of pixels written (a
/// multiple of 8, leaving at least two pixels for the caller when channels is 3, or 0 without
/// AVX2), the caller finishes the row.
///
/// - dst: `count · channels` bytes; channels 3 = RGB, 4 = RGBA.
/// - straight: 1 to unpremultiply first (a ≠ 1: colours times 1/a, or 0 when a ≤ 0 or NaN).
/// Each value v becomes round-half-even(clamp(255·v, 0, 255)), NaN giving 0.
size_t fg_encoded8_row(const float *src, size_t count, uint8_t *dst, int channels, int straight);

/// 8-bit codes of a block of rows → float RGBA pixels: pixels [x, x + count) of each of
/// `rowCount` rows (rows[r] is row r's pixel 0) to dst + r·dstRowFloats. Without a `table`, each
/// value is code / 255 correctly rounded (AVX2 groups of four pixels, then float division); with
/// one (256 floats), colour channels are table[code] and alpha stays code / 255. Gray is copied
/// to R, G and B; a missing alpha is 1.
void fg_codes8_block(const uint8_t *const *rows, size_t rowCount, size_t x, size_t count, int channels,
                     const float *table, float *dst, ptrdiff_t dstRowFloats);

/// One tile's constants for `fg_affine_window` (FilterGraph's AffineOperation; Affine.swift
/// defines the sum).
typedef struct {
  /// The input tile: float premultiplied RGBA, pixel (i, j) of the image at
  /// tile + (j − originY)·rowFloats + 4·(i − originX).
  const float *tile;
  ptrdiff_t rowFloats;
  ptrdiff_t originX, originY;
  /// The inverse map: the output point (x, y) samples (a·x + b·y + tx, c·x + d·y + ty).
  double a, b, tx, c, d, ty;
  /// The kernel's reach in input pixels, and whole numbers making u − rx, v − ry positive.
  double rx, ry, liftX, liftY;
  /// The window's size: ⌈2·rx⌉ × ⌈2·ry⌉ taps.
  ptrdiff_t tapsX, tapsY;
  /// 1 / the kernel's stretch per axis.
  float invSX, invSY;
  /// 1: the triangle k(t) = max(0, 1 − t); 0: `table`, k sampled every 1/1024, interpolated.
  int linear;
  const float *table;
  ptrdiff_t tableCount;
  /// What a pixel whose weights sum to 0 shows (premultiplied RGBA).
  float background[4];
  /// Scratch for one pixel's weights: tapsX and tapsY floats.
  float *wx, *wy;
} fg_affine_params;

/// Output pixels `column` … `column + count − 1` of the output row centred at `cy`, by the window
/// of taps from (⌊u − rx⌋ + 1, ⌊v − ry⌋ + 1), which the caller has checked lies inside the tile:
/// Σ k·k·in / Σ k·k with alpha clipped to 0…1 (0 everywhere when alpha ≤ 0), written as `count`
/// premultiplied RGBA float pixels to `out`. A triangle kernel with a 2 × 2 window is two linear
/// interpolations (its weights 1 − f and f sum to 1).
void fg_affine_window(const fg_affine_params *p, ptrdiff_t column, ptrdiff_t count, double cy, float *out);

/// SSIMULACRA2's per-pixel steps (FilterGraph's statistics/SSIMULACRA2.swift defines them), on
/// planes of `width · height` floats, row-major. None allocates.
///
/// fg_ssim2_linear: `count` float pixels of `channels` (3: RGB; 4: straight RGBA, blended onto
/// the encoded gray `background` first) in sRGB-encoded 0…1 (clamped) → linear R, G, B planes.
void fg_ssim2_linear(const float *src, size_t count, int channels, float background, float *r, float *g, float *b);
/// fg_ssim2_linear of `count` 8-bit pixels of `channels` 1 (gray), 2 (gray, alpha), 3 (RGB) or
/// 4 (RGBA), straight alpha; `background` is used when there is alpha.
void fg_ssim2_linear8(const uint8_t *src, size_t count, int channels, float background, float *r, float *g, float *b);
/// Linear RGB planes → positive XYB planes (`count` values each).
void fg_ssim2_xyb(const float *r, const float *g, const float *b, float *x, float *y, float *bb, size_t count);
/// 2 × 2 block means of a plane into one of ⌈width/2⌉ × ⌈height/2⌉ (a last odd row or column
/// averages the pixels it has).
void fg_ssim2_halve(const float *src, size_t width, size_t height, float *dst);
/// out = a · b, `count` values.
void fg_ssim2_product(const float *a, const float *b, size_t count, float *out);
/// The 11-tap Gaussian of σ = 1.5 (`taps`, normalised), zero left and right of the plane,
/// mirrored above and below it; `scratch` holds one plane.
void fg_ssim2_blur(const float *src, size_t width, size_t height, const float *taps, float *scratch, float *dst);
/// Adds the six per-pixel sums of one channel over `count` pixels to `sums`: d, d⁴ (ssim),
/// artifact, artifact⁴, detail lost, detail lost⁴.
void fg_ssim2_sums(const float *i1, const float *mu1, const float *s11, const float *i2, const float *mu2,
                   const float *s22, const float *s12, size_t count, double sums[6]);

#ifdef __cplusplus
}
#endif
