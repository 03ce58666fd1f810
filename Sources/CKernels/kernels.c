// kernels.c — see include/ckernels.h.

#include "ckernels.h"

// No fused multiply-add, whatever the compiler's default: the kernels must round exactly as the
// Swift loops they replace.
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

int fg_kernels_have_avx2(void) {
  // Workers ask at once on a render's first tiles: the answer is cached atomically (racing
  // first callers compute and store the same value).
  static int cached = -1;
  int answer = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (answer < 0) {
    __builtin_cpu_init();
    answer = __builtin_cpu_supports("avx2") ? 1 : 0;
    __atomic_store_n(&cached, answer, __ATOMIC_RELAXED);
  }
  return answer;
}

#define AVX2 __attribute__((target("avx2")))

/// Codes of eight clamped-to-be values (any floats: clamped here), as 32-bit lanes.
static inline AVX2 __m256i codes8(__m256 v, const uint32_t *table) {
  // max(v, 0) returns 0 for NaN (the second operand), min(·, 1) then clamps above.
  __m256 x = _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(1.0f));
  const __m256i low = _mm256_set1_epi32(0x39000000);
  __m256i b = _mm256_max_epu32(_mm256_castps_si256(x), low);
  __m256i i = _mm256_srli_epi32(_mm256_sub_epi32(b, low), 16);
  __m256i e = _mm256_i32gather_epi32((const int *)table, i, 4);
  __m256i t = _mm256_and_si256(e, _mm256_set1_epi32(0x1FFFF));
  __m256i m = _mm256_and_si256(b, _mm256_set1_epi32(0xFFFF));
  __m256i below = _mm256_cmpgt_epi32(t, m);  // -1 where the value is under the threshold
  return _mm256_add_epi32(_mm256_srli_epi32(e, 17), _mm256_add_epi32(below, _mm256_set1_epi32(1)));
}

size_t AVX2 fg_linear8_row_avx2(const float *src, size_t count, uint8_t *dst, int channels, const uint32_t *table) {
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  // Lanes come out of the transpose as pixels 0 2 4 6 1 3 5 7; this puts them back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  size_t n = count & ~(size_t)7;
  for (size_t x = 0; x < n; x += 8) {
    const float *s = src + 4 * x;
    __m256 m0 = _mm256_loadu_ps(s), m1 = _mm256_loadu_ps(s + 8);
    __m256 m2 = _mm256_loadu_ps(s + 16), m3 = _mm256_loadu_ps(s + 24);
    __m256 t0 = _mm256_unpacklo_ps(m0, m1), t1 = _mm256_unpackhi_ps(m0, m1);
    __m256 t2 = _mm256_unpacklo_ps(m2, m3), t3 = _mm256_unpackhi_ps(m2, m3);
    __m256 r = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
    __m256 g = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
    __m256 bl = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
    __m256 a = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
    __m256 opaque = _mm256_cmp_ps(a, one, _CMP_EQ_OQ);
    __m256i alpha = _mm256_set1_epi32(255);
    if (_mm256_movemask_ps(opaque) != 0xFF) {
      // a ≠ 1: times 1/a when a > 0, else times 0 (NaN stays NaN and codes to 0, as in Swift).
      __m256 inv = _mm256_and_ps(_mm256_div_ps(one, a), _mm256_cmp_ps(a, zero, _CMP_GT_OQ));
      __m256 k = _mm256_blendv_ps(inv, one, opaque);
      r = _mm256_mul_ps(r, k);
      g = _mm256_mul_ps(g, k);
      bl = _mm256_mul_ps(bl, k);
      // round(255·clamp(a)) by adding 1.5·2²³ (TileConversion.quantized).
      __m256 q = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(a, _mm256_set1_ps(255.0f)), zero), _mm256_set1_ps(255.0f));
      alpha = _mm256_and_si256(_mm256_castps_si256(_mm256_add_ps(q, _mm256_set1_ps(12582912.0f))), _mm256_set1_epi32(0xFF));
    }
    __m256i cr = codes8(r, table);
    uint8_t *d = dst + (size_t)channels * x;
    if (channels <= 2) {
      __m256i v = channels == 2 ? _mm256_or_si256(cr, _mm256_slli_epi32(alpha, 8)) : cr;
      v = _mm256_permutevar8x32_epi32(v, order);
      __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
      if (channels == 2) {
        _mm_storeu_si128((__m128i *)d, w);
      } else {
        _mm_storel_epi64((__m128i *)d, _mm_packus_epi16(w, w));
      }
      continue;
    }
    __m256i cg = codes8(g, table), cb = codes8(bl, table);
    __m256i v = _mm256_or_si256(_mm256_or_si256(cr, _mm256_slli_epi32(cg, 8)), _mm256_slli_epi32(cb, 16));
    if (channels == 4) {
      v = _mm256_or_si256(v, _mm256_slli_epi32(alpha, 24));
      _mm256_storeu_si256((__m256i *)d, _mm256_permutevar8x32_epi32(v, order));
    } else {
      // Drop every fourth byte: 16 bytes → 12 in each half, then 24 bytes out.
      const __m256i squeeze = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                               0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
      v = _mm256_permutevar8x32_epi32(v, order);
      v = _mm256_shuffle_epi8(v, squeeze);
      __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
      _mm_storel_epi64((__m128i *)d, lo);
      uint32_t w = (uint32_t)_mm_extract_epi32(lo, 2);
      __builtin_memcpy(d + 8, &w, 4);
      _mm_storel_epi64((__m128i *)(d + 12), hi);
      w = (uint32_t)_mm_extract_epi32(hi, 2);
      __builtin_memcpy(d + 20, &w, 4);
    }
  }
  return n;
}

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

/// Two pixels → their codes as dwords: unpremultiplied when `straight`, times 255, clamped,
/// rounded to nearest even (the default rounding of the conversion).
static inline AVX2 __m256i encoded8_codes(__m256 v, int straight) {
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  if (straight) {
    __m256 a = _mm256_permute_ps(v, 0xFF);
    __m256 opaque = _mm256_cmp_ps(a, one, _CMP_EQ_OQ);
    if (_mm256_movemask_ps(opaque) != 0xFF) {
      __m256 inv = _mm256_and_ps(_mm256_div_ps(one, a), _mm256_cmp_ps(a, zero, _CMP_GT_OQ));
      __m256 k = _mm256_blendv_ps(inv, one, opaque);
      v = _mm256_blend_ps(_mm256_mul_ps(v, k), v, 0x88);  // alpha lanes keep their value
    }
  }
  __m256 s = _mm256_mul_ps(v, _mm256_set1_ps(255.0f));
  s = _mm256_and_ps(s, _mm256_cmp_ps(s, zero, _CMP_GT_OQ));  // ≤ 0 and NaN → 0
  s = _mm256_min_ps(s, _mm256_set1_ps(255.0f));
  return _mm256_cvtps_epi32(s);
}

static size_t AVX2 fg_encoded8_row_avx2(const float *src, size_t count, uint8_t *dst, int channels, int straight) {
  if (channels != 3 && channels != 4) return 0;
  // Packing works within 128-bit lanes: the bytes come out as pixels 0 2 4 6 | 1 3 5 7.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i rgb = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -128, -128, -128, -128, 0, 1, 2, 4, 5, 6,
                                       8, 9, 10, 12, 13, 14, -128, -128, -128, -128);
  // RGB writes 16 bytes from each group's 12th byte: two more pixels must follow.
  size_t x = 0;
  for (; x + (channels == 3 ? 10 : 8) <= count; x += 8) {
    const float *s = src + 4 * x;
    __m256i c0 = encoded8_codes(_mm256_loadu_ps(s), straight), c1 = encoded8_codes(_mm256_loadu_ps(s + 8), straight);
    __m256i c2 = encoded8_codes(_mm256_loadu_ps(s + 16), straight), c3 = encoded8_codes(_mm256_loadu_ps(s + 24), straight);
    __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(c0, c1), _mm256_packus_epi32(c2, c3));
    b = _mm256_permutevar8x32_epi32(b, order);
    if (channels == 4) {
      _mm256_storeu_si256((__m256i *)(dst + 4 * x), b);
    } else {
      b = _mm256_shuffle_epi8(b, rgb);
      _mm_storeu_si128((__m128i *)(dst + 3 * x), _mm256_castsi256_si128(b));
      _mm_storeu_si128((__m128i *)(dst + 3 * x + 12), _mm256_extracti128_si256(b, 1));
    }
  }
  return x;
}

size_t fg_encoded8_row(const float *src, size_t count, uint8_t *dst, int channels, int straight) {
  if (!fg_kernels_have_avx2()) return 0;
  return fg_encoded8_row_avx2(src, count, dst, channels, straight);
}

/// Eight codes (0…255, as dwords) → code / 255 correctly rounded, in float arithmetic alone:
/// 1/255 = H + L with H = 0x1.01p-8 (9 significant bits, so code·H is exact) and L the float
/// nearest the rest; code·L is tiny and nearly exact, so code·H + code·L is rounded once, from a
/// value far closer to code / 255 than code / 255 ever is to a rounding boundary (its binary
/// expansion repeats with period 8). Checked for every code in TileConversionTests.
static inline AVX2 __m256 unit8(__m256i codes) {
  __m256 x = _mm256_cvtepi32_ps(codes);
  return _mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(0x1.01p-8f)), _mm256_mul_ps(x, _mm256_set1_ps(0x1.010102p-24f)));
}

/// The byte shuffle that spreads four pixels of `channels` bytes to R G B A byte quadruples
/// (0x80: zero), and the bytes to set to 255 afterwards (255 / 255 = 1) where the source has no
/// alpha; 0 for a channel count it does not know.
static inline AVX2 int unit8_masks(int channels, __m128i *order, __m128i *opaque) {
  *opaque = _mm_setzero_si128();
  switch (channels) {
  case 1:
    *order = _mm_setr_epi8(0, 0, 0, -128, 1, 1, 1, -128, 2, 2, 2, -128, 3, 3, 3, -128);
    *opaque = _mm_set1_epi32((int)0xFF000000u);
    return 1;
  case 2:
    *order = _mm_setr_epi8(0, 0, 0, 1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 6, 6, 7);
    return 1;
  case 3:
    *order = _mm_setr_epi8(0, 1, 2, -128, 3, 4, 5, -128, 6, 7, 8, -128, 9, 10, 11, -128);
    *opaque = _mm_set1_epi32((int)0xFF000000u);
    return 1;
  case 4:
    *order = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return 1;
  default:
    return 0;
  }
}

/// Four pixels' spread bytes → their floats at `dst`.
static inline AVX2 __attribute__((always_inline)) void unit8_store4(__m128i v, float *dst) {
  __m256i lo = _mm256_cvtepu8_epi32(v), hi = _mm256_cvtepu8_epi32(_mm_unpackhi_epi64(v, v));
  _mm256_storeu_ps(dst, unit8(lo));
  _mm256_storeu_ps(dst + 8, unit8(hi));
}

/// One row's whole groups of four pixels → code / 255 (16 bytes read per group, from inside the
/// row), with the masks made; returns how many pixels it wrote.
static inline AVX2 __attribute__((always_inline)) size_t unit8_groups(
    const uint8_t *src, size_t count, int channels, float *dst, __m128i order, __m128i opaque) {
  const size_t ch = (size_t)channels, group = 4 * ch;
  size_t x = 0;
  // A group reads 16 bytes from its first pixel's, which must lie inside the row.
  for (; x + 4 <= count && x * ch + 16 <= count * ch; x += 4) {
    unit8_store4(_mm_or_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + x * ch)), order), opaque), dst + 4 * x);
  }
  // The last groups of a row read the 16 bytes ending with them instead, and shuffle from 16 −
  // 4·channels bytes further in, when the row has that many bytes before them.
  if (x + 4 <= count && x * ch + group >= 16) {
    const __m128i shift = _mm_set1_epi8((char)(16 - group));
    // Zeroing entries (0x80) stay negative after the add: 0x80 + at most 12.
    const __m128i late = _mm_add_epi8(order, shift);
    for (; x + 4 <= count; x += 4) {
      __m128i v = _mm_loadu_si128((const __m128i *)(src + x * ch + group - 16));
      unit8_store4(_mm_or_si128(_mm_shuffle_epi8(v, late), opaque), dst + 4 * x);
    }
  }
  return x;
}

/// fg_codes8_block without a table, for each row's whole groups (prefetching four rows ahead);
/// returns how many pixels of each row it wrote (the same for every row).
static size_t AVX2 unit8_block_avx2(const uint8_t *const *rows, size_t rowCount, size_t x, size_t count, int channels,
                                    float *dst, ptrdiff_t dstRowFloats) {
  __m128i order, opaque;
  if (!unit8_masks(channels, &order, &opaque)) return 0;
  const size_t ch = (size_t)channels, bytes = count * ch;
  size_t done = 0;
  for (size_t r = 0; r < rowCount; r++) {
    if (r + 4 < rowCount) {
      const char *ahead = (const char *)(rows[r + 4] + x * ch);
      for (size_t i = 0; i < bytes; i += 64) __builtin_prefetch(ahead + i);
    }
    done = unit8_groups(rows[r] + x * ch, count, channels, dst + (ptrdiff_t)r * dstRowFloats, order, opaque);
  }
  return done;
}

size_t fg_linear8_row(const float *src, size_t count, uint8_t *dst, int channels, const uint32_t *table) {
  if (!fg_kernels_have_avx2()) return 0;
  return fg_linear8_row_avx2(src, count, dst, channels, table);
}

#else

int fg_kernels_have_avx2(void) { return 0; }

size_t fg_linear8_row(const float *src, size_t count, uint8_t *dst, int channels, const uint32_t *table) {
  (void)src; (void)count; (void)dst; (void)channels; (void)table;
  return 0;
}

static size_t unit8_block_avx2(const uint8_t *const *rows, size_t rowCount, size_t x, size_t count, int channels,
                               float *dst, ptrdiff_t dstRowFloats) {
  (void)rows; (void)rowCount; (void)x; (void)count; (void)channels; (void)dst; (void)dstRowFloats;
  return 0;
}

size_t fg_encoded8_row(const float *src, size_t count, uint8_t *dst, int channels, int straight) {
  (void)src; (void)count; (void)dst; (void)channels; (void)straight;
  return 0;
}

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

/// Starts loading `bytes` bytes from `p` into the caches (no effect on results).
static void prefetch_bytes(const void *p, size_t bytes) {
  const char *c = (const char *)p;
  for (size_t i = 0; i < bytes; i += 64) __builtin_prefetch(c + i);
  if (bytes > 0) __builtin_prefetch(c + bytes - 1);
}

void fg_codes8_block(const uint8_t *const *rows, size_t rowCount, size_t x, size_t count, int channels,
                     const float *table, float *dst, ptrdiff_t dstRowFloats) {
  if (channels < 1 || channels > 4) return;
  const size_t ch = (size_t)channels;
  size_t done = !table && fg_kernels_have_avx2() ? unit8_block_avx2(rows, rowCount, x, count, channels, dst, dstRowFloats) : 0;
  if (done == count) return;
  for (size_t r = 0; r < rowCount; r++) {
    const uint8_t *s = rows[r] + x * ch;
    float *d = dst + (ptrdiff_t)r * dstRowFloats;
    // A few cache lines per row, rows apart: too short a run for the hardware prefetcher.
    if (r + 4 < rowCount && done == 0) prefetch_bytes(rows[r + 4] + x * ch, count * ch);
    for (size_t i = done; i < count; i++) {
      const uint8_t *p = s + i * ch;
      float *o = d + 4 * i;
      float c0 = table ? table[p[0]] : (float)p[0] / 255.0f;
      switch (channels) {
      case 1: o[0] = o[1] = o[2] = c0; o[3] = 1; break;
      case 2: o[0] = o[1] = o[2] = c0; o[3] = (float)p[1] / 255.0f; break;
      default:
        o[0] = c0;
        o[1] = table ? table[p[1]] : (float)p[1] / 255.0f;
        o[2] = table ? table[p[2]] : (float)p[2] / 255.0f;
        o[3] = channels == 4 ? (float)p[3] / 255.0f : 1;
      }
    }
  }
}

typedef float fg_float4 __attribute__((ext_vector_type(4)));

static inline fg_float4 load4(const float *p) {
  fg_float4 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

/// Alpha clipped to 0…1; a result with alpha ≤ 0 (or NaN) is 0.
static inline void store_clipped(float *out, fg_float4 v) {
  if (!(v.w > 0)) v = (fg_float4){0, 0, 0, 0};
  else if (v.w > 1) v.w = 1;
  __builtin_memcpy(out, &v, sizeof v);
}

/// The kernel at distance t ≥ 0 (in kernel units).
static inline float affine_weight(const fg_affine_params *p, float t) {
  if (p->linear) return t < 1 ? 1 - t : 0;
  float s = t * 1024;
  ptrdiff_t i = (ptrdiff_t)s;
  if (i + 1 >= p->tableCount) return i < p->tableCount ? p->table[i] : 0;
  return p->table[i] + (p->table[i + 1] - p->table[i]) * (s - (float)i);
}

/// Σ k·k·in / Σ k·k over the tx × ty window from `top` (tap m of a row is |m − fu| from u), the
/// weights in `wx`, `wy` (at least tx and ty floats).
static inline __attribute__((always_inline)) fg_float4 window_sum(
    const fg_affine_params *p, const float *top, float fu, float fv, ptrdiff_t tx, ptrdiff_t ty, float *wx, float *wy) {
  float sumX = 0, sumY = 0;
  for (ptrdiff_t m = 0; m < tx; m++) {
    float w = affine_weight(p, __builtin_fabsf((float)m - fu) * p->invSX);
    wx[m] = w;
    sumX += w;
  }
  for (ptrdiff_t m = 0; m < ty; m++) {
    float w = affine_weight(p, __builtin_fabsf((float)m - fv) * p->invSY);
    wy[m] = w;
    sumY += w;
  }
  fg_float4 acc = {0, 0, 0, 0};
  const float *line = top;
  for (ptrdiff_t n = 0; n < ty; n++, line += p->rowFloats) {
    fg_float4 racc = load4(line) * wx[0];
    for (ptrdiff_t m = 1; m < tx; m++) racc += load4(line + 4 * m) * wx[m];
    acc += racc * wy[n];
  }
  float norm = sumX * sumY;
  return norm > 0 ? acc * (1 / norm) : load4(p->background);
}

/// `fg_affine_window` for a tx × ty window; the caller passes constants where it can, so that
/// the loops over taps unroll and the weights stay in registers. Every size computes the same.
static inline __attribute__((always_inline)) void window_span(
    const fg_affine_params *p, ptrdiff_t column, ptrdiff_t count, double cy, float *out, ptrdiff_t tx, ptrdiff_t ty) {
  const double bu = p->b * cy, bv = p->d * cy;
  const ptrdiff_t liftX = (ptrdiff_t)p->liftX, liftY = (ptrdiff_t)p->liftY;
  const int bilinear = p->linear && tx == 2 && ty == 2;
  float wx[4], wy[4];
  for (ptrdiff_t k = 0; k < count; k++, out += 4) {
    // The input position (pixel indices) and the window's first tap, as Affine.swift's `sample`.
    double x = (double)(column + k) + 0.5;
    double u = p->a * x + bu + p->tx - 0.5, v = p->c * x + bv + p->ty - 0.5;
    ptrdiff_t i0 = (ptrdiff_t)(u - p->rx + p->liftX) - liftX + 1;
    ptrdiff_t j0 = (ptrdiff_t)(v - p->ry + p->liftY) - liftY + 1;
    // Tap m of the window is |m − fu| from u.
    float fu = (float)(u - (double)i0), fv = (float)(v - (double)j0);
    const float *top = p->tile + (j0 - p->originY) * p->rowFloats + 4 * (i0 - p->originX);
    if (bilinear) {
      const float *bottom = top + p->rowFloats;
      fg_float4 upper = load4(top) + (load4(top + 4) - load4(top)) * fu;
      fg_float4 lower = load4(bottom) + (load4(bottom + 4) - load4(bottom)) * fu;
      store_clipped(out, upper + (lower - upper) * fv);
    } else if (tx <= 4 && ty <= 4) {
      store_clipped(out, window_sum(p, top, fu, fv, tx, ty, wx, wy));
    } else {
      store_clipped(out, window_sum(p, top, fu, fv, tx, ty, p->wx, p->wy));
    }
  }
}

void fg_affine_window(const fg_affine_params *p, ptrdiff_t column, ptrdiff_t count, double cy, float *out) {
  // Windows are at least 2 × 2 (the kernels with one reach at least 1).
  switch (p->tapsX <= 4 && p->tapsY <= 4 ? p->tapsX * 8 + p->tapsY : 0) {
  case 2 * 8 + 2: window_span(p, column, count, cy, out, 2, 2); break;
  case 2 * 8 + 3: window_span(p, column, count, cy, out, 2, 3); break;
  case 3 * 8 + 2: window_span(p, column, count, cy, out, 3, 2); break;
  case 3 * 8 + 3: window_span(p, column, count, cy, out, 3, 3); break;
  case 4 * 8 + 4: window_span(p, column, count, cy, out, 4, 4); break;
  default: window_span(p, column, count, cy, out, p->tapsX, p->tapsY); break;
  }
}
