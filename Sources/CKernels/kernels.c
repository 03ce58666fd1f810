// kernels.c — see include/ckernels.h.

#include "ckernels.h"

// No fused multiply-add, whatever the compiler's default: the kernels must round exactly as the
// Swift loops they replace.
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

int fg_kernels_have_avx2(void) {
  static int cached = -1;
  if (cached < 0) {
    __builtin_cpu_init();
    cached = __builtin_cpu_supports("avx2") ? 1 : 0;
  }
  return cached;
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

#endif

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
