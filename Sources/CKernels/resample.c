// resample.c — one pass of a separable resample (`fg_resample_rows`), used by FilterGraph's
// ScaleOperation (resample/Scale.swift); see include/ckernels.h.

#include "ckernels.h"

// No fused multiply-add, whatever the compiler's default: the kernels must round exactly as the
// Swift loops they replace.
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

/// Stores eight pixels (two per register) to `out`, pixel k at out + k·pixelFloats.
static inline AVX2 __attribute__((always_inline)) void store_pixels8(float *out, ptrdiff_t pixelFloats, __m256 a,
                                                                     __m256 b) {
  if (pixelFloats == 4) {
    _mm256_storeu_ps(out, a);
    _mm256_storeu_ps(out + 8, b);
    return;
  }
  _mm_storeu_ps(out, _mm256_castps256_ps128(a));
  _mm_storeu_ps(out + pixelFloats, _mm256_extractf128_ps(a, 1));
  _mm_storeu_ps(out + 2 * pixelFloats, _mm256_castps256_ps128(b));
  _mm_storeu_ps(out + 3 * pixelFloats, _mm256_extractf128_ps(b, 1));
}

/// `regs` registers (8·regs floats) of one output row of fg_resample_rows from `r`, the row's
/// first source row at this column, with its `n` weights `w`; the sums stay in registers across
/// the taps (eight independent sums hide the adds' latency).
static inline AVX2 __attribute__((always_inline)) void resample_block_avx2(
    const float *r, ptrdiff_t rowFloats, const float *w, ptrdiff_t n, float *out, ptrdiff_t pixelFloats, const int regs) {
  __m256 a[8];
  __m256 k = _mm256_set1_ps(w[0]);
  for (int q = 0; q < regs; q++) a[q] = _mm256_mul_ps(_mm256_loadu_ps(r + 8 * q), k);
  for (ptrdiff_t j = 1; j < n; j++) {
    r += rowFloats;
    k = _mm256_set1_ps(w[j]);
    for (int q = 0; q < regs; q++) a[q] = _mm256_add_ps(a[q], _mm256_mul_ps(_mm256_loadu_ps(r + 8 * q), k));
  }
  for (int q = 0; q + 1 < regs; q += 2) store_pixels8(out + 2 * q * pixelFloats, pixelFloats, a[q], a[q + 1]);
  if (regs % 2) {
    float *o = out + 2 * (regs - 1) * pixelFloats;
    _mm_storeu_ps(o, _mm256_castps256_ps128(a[regs - 1]));
    _mm_storeu_ps(o + pixelFloats, _mm256_extractf128_ps(a[regs - 1], 1));
  }
}

/// Floats [from, to) of one output row of fg_resample_rows (`to − from` a multiple of 8): `r0` is
/// the row's first source row, `w` its `n` weights, `out` the row's first pixel.
static inline AVX2 __attribute__((always_inline)) void resample_row_avx2(
    const float *r0, ptrdiff_t rowFloats, const float *w, ptrdiff_t n, size_t from, size_t to, float *out,
    ptrdiff_t pixelFloats) {
  size_t i = from;
  for (; i + 64 <= to; i += 64) resample_block_avx2(r0 + i, rowFloats, w, n, out + (ptrdiff_t)(i / 4) * pixelFloats, pixelFloats, 8);
  for (; i + 8 <= to; i += 8) resample_block_avx2(r0 + i, rowFloats, w, n, out + (ptrdiff_t)(i / 4) * pixelFloats, pixelFloats, 1);
}

/// fg_resample_rows for the floats [0, count rounded down to 8) of every row; returns that count.
static size_t AVX2 resample_rows_avx2(const float *src, ptrdiff_t rowFloats, size_t count, const ptrdiff_t *starts,
                                      const ptrdiff_t *taps, const float *weights, size_t stride, size_t outputs,
                                      float *dst, ptrdiff_t dstRowFloats, ptrdiff_t dstPixelFloats) {
  const size_t block = 256;  // floats: 64 pixels; a block of ~200 source rows is ~50 KB
  size_t end = count & ~(size_t)7;
  for (size_t from = 0; from < end; from += block) {
    size_t to = from + block < end ? from + block : end;
    for (size_t y = 0; y < outputs; y++) {
      float *out = dst + (ptrdiff_t)y * dstRowFloats;
      if (taps[y] <= 0) {
        for (size_t i = from; i < to; i++) out[(ptrdiff_t)(i / 4) * dstPixelFloats + (ptrdiff_t)(i % 4)] = 0;
        continue;
      }
      resample_row_avx2(src + starts[y] * rowFloats, rowFloats, weights + y * stride, taps[y], from, to, out,
                        dstPixelFloats);
    }
  }
  return end;
}

#else

static size_t resample_rows_avx2(const float *src, ptrdiff_t rowFloats, size_t count, const ptrdiff_t *starts,
                                 const ptrdiff_t *taps, const float *weights, size_t stride, size_t outputs, float *dst,
                                 ptrdiff_t dstRowFloats, ptrdiff_t dstPixelFloats) {
  (void)src; (void)rowFloats; (void)count; (void)starts; (void)taps; (void)weights; (void)stride; (void)outputs;
  (void)dst; (void)dstRowFloats; (void)dstPixelFloats;
  return 0;
}

#endif

void fg_resample_rows(const float *src, ptrdiff_t rowFloats, size_t count, const ptrdiff_t *starts,
                      const ptrdiff_t *taps, const float *weights, size_t stride, size_t outputs, float *dst,
                      ptrdiff_t dstRowFloats, ptrdiff_t dstPixelFloats) {
  size_t done = fg_kernels_have_avx2() ? resample_rows_avx2(src, rowFloats, count, starts, taps, weights, stride,
                                                            outputs, dst, dstRowFloats, dstPixelFloats)
                                       : 0;
  // The rest of each row (all of it without AVX2) in blocks of 64 summed in a local array, whose
  // inner loop the compiler vectorises; same order of operations as above.
  float acc[64];
  for (size_t y = 0; y < outputs; y++) {
    const float *w = weights + y * stride;
    float *out = dst + (ptrdiff_t)y * dstRowFloats;
    for (size_t i = done; i < count;) {
      size_t n = count - i < 64 ? count - i : 64;
      if (taps[y] <= 0) {
        for (size_t k = 0; k < n; k++) acc[k] = 0;
      } else {
        const float *r = src + starts[y] * rowFloats + i;
        for (size_t k = 0; k < n; k++) acc[k] = r[k] * w[0];
        for (ptrdiff_t j = 1; j < taps[y]; j++) {
          r += rowFloats;
          const float wj = w[j];
          for (size_t k = 0; k < n; k++) acc[k] = acc[k] + r[k] * wj;
        }
      }
      for (size_t k = 0; k < n; k++) out[(ptrdiff_t)((i + k) / 4) * dstPixelFloats + (ptrdiff_t)((i + k) % 4)] = acc[k];
      i += n;
    }
  }
}

void fg_resample_rows_band(const float *src, ptrdiff_t rowFloats, size_t count, const ptrdiff_t *starts,
                           const ptrdiff_t *taps, const float *weights, size_t stride, size_t outputs, float *dst,
                           ptrdiff_t dstRowFloats, ptrdiff_t dstPixelFloats, ptrdiff_t rowLo, ptrdiff_t rowHi) {
  // Blocks of 256 floats, every output row of a block before the next, so the block of each output
  // row stays in the first-level cache across its taps (as in fg_resample_rows).
  const size_t block = dstPixelFloats == 4 ? 256 : count;
  for (size_t from = 0; from < count; from += block) {
    const size_t to = from + block < count ? from + block : count;
    for (size_t y = 0; y < outputs; y++) {
      const float *w = weights + y * stride;
      float *out = dst + (ptrdiff_t)y * dstRowFloats;
      if (taps[y] <= 0) {
        // An output with no taps is 0; the band holding the row its taps would start at writes it.
        if (starts[y] >= rowLo && starts[y] < rowHi)
          for (size_t i = from; i < to; i++) out[(ptrdiff_t)(i / 4) * dstPixelFloats + (ptrdiff_t)(i % 4)] = 0;
        continue;
      }
      ptrdiff_t first = starts[y] > rowLo ? starts[y] : rowLo;
      ptrdiff_t end = starts[y] + taps[y] < rowHi ? starts[y] + taps[y] : rowHi;
      for (ptrdiff_t row = first; row < end; row++) {
        const ptrdiff_t j = row - starts[y];
        const float *r = src + (row - rowLo) * rowFloats;
        const float wj = w[j];
        if (dstPixelFloats == 4) {
          // Contiguous output rows: loops the compiler vectorises.
          if (j == 0) {
            for (size_t i = from; i < to; i++) out[i] = r[i] * wj;
          } else {
            for (size_t i = from; i < to; i++) out[i] = out[i] + r[i] * wj;
          }
        } else if (j == 0) {
          for (size_t i = from; i < to; i++) out[(ptrdiff_t)(i / 4) * dstPixelFloats + (ptrdiff_t)(i % 4)] = r[i] * wj;
        } else {
          for (size_t i = from; i < to; i++) {
            float *o = out + (ptrdiff_t)(i / 4) * dstPixelFloats + (ptrdiff_t)(i % 4);
            *o = *o + r[i] * wj;
          }
        }
      }
    }
  }
}
