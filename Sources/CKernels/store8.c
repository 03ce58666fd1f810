// store8.c — float tiles to 8-bit codes: `fg_linear8_row` (linear light → sRGB codes, FilterGraph's
// TileConversion.storeLinear8 in Render/TileConversion+Linear8.swift) and `fg_encoded8_row`
// (encoded values → codes, Render/TileConversion.swift); see include/ckernels.h.

#include "ckernels.h"

// No fused multiply-add, whatever the compiler's default: the kernels must round exactly as the
// Swift loops they replace.
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

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

size_t fg_linear8_row(const float *src, size_t count, uint8_t *dst, int channels, const uint32_t *table) {
  if (!fg_kernels_have_avx2()) return 0;
  return fg_linear8_row_avx2(src, count, dst, channels, table);
}

#else

size_t fg_linear8_row(const float *src, size_t count, uint8_t *dst, int channels, const uint32_t *table) {
  (void)src; (void)count; (void)dst; (void)channels; (void)table;
  return 0;
}

size_t fg_encoded8_row(const float *src, size_t count, uint8_t *dst, int channels, int straight) {
  (void)src; (void)count; (void)dst; (void)channels; (void)straight;
  return 0;
}

#endif
