// modulate.c — FilterGraph's ModulateOperation (color/Modulate.swift) eight pixels at a time
// with AVX2; see include/ckernels.h. Every operation is the Swift loop's, in the same order and
// without fused multiply-adds, so the two give the same floats and a row's last pixels, left to
// Swift, match the rest bit for bit.

#include "ckernels.h"

#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

/// ∛x per lane, odd for negatives: ModulateOperation.cubeRoot.
static inline AVX2 __m256 cube_root8(__m256 x) {
  const __m256 zero = _mm256_setzero_ps(), third = _mm256_set1_ps(1.0f / 3.0f);
  const __m256 negative = _mm256_cmp_ps(x, zero, _CMP_LT_OQ);
  const __m256 ax = _mm256_blendv_ps(x, _mm256_sub_ps(zero, x), negative);
  const __m256 safe = _mm256_blendv_ps(ax, _mm256_set1_ps(1e-30f), _mm256_cmp_ps(ax, _mm256_set1_ps(1e-30f), _CMP_LT_OQ));
  const __m256i n = _mm256_castps_si256(safe);
  __m256i t = _mm256_add_epi32(_mm256_srli_epi32(n, 2), _mm256_srli_epi32(n, 4));
  t = _mm256_add_epi32(t, _mm256_srli_epi32(t, 4));
  t = _mm256_add_epi32(t, _mm256_srli_epi32(t, 8));
  t = _mm256_add_epi32(t, _mm256_srli_epi32(t, 16));
  __m256 y = _mm256_castsi256_ps(_mm256_sub_epi32(_mm256_set1_epi32(0x54A21DC0), t));
  const __m256 four = _mm256_set1_ps(4.0f);
  for (int i = 0; i < 2; i++) {
    __m256 y3 = _mm256_mul_ps(_mm256_mul_ps(y, y), y);
    y = _mm256_mul_ps(_mm256_mul_ps(y, _mm256_sub_ps(four, _mm256_mul_ps(safe, y3))), third);
  }
  const __m256 y2 = _mm256_mul_ps(y, y);
  __m256 r = _mm256_mul_ps(safe, y2);
  __m256 r3 = _mm256_mul_ps(_mm256_mul_ps(r, r), r);
  r = _mm256_add_ps(r, _mm256_mul_ps(_mm256_mul_ps(_mm256_sub_ps(safe, r3), y2), third));
  r = _mm256_blendv_ps(r, zero, _mm256_cmp_ps(ax, zero, _CMP_EQ_OQ));
  return _mm256_blendv_ps(r, _mm256_sub_ps(zero, r), negative);
}

/// c0·x + c1·y + c2·z, summed left to right.
static inline AVX2 __m256 row3(const float *c, __m256 x, __m256 y, __m256 z) {
  return _mm256_add_ps(
    _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(c[0]), x), _mm256_mul_ps(_mm256_set1_ps(c[1]), y)),
    _mm256_mul_ps(_mm256_set1_ps(c[2]), z));
}

static AVX2 size_t modulate_avx2(float *pixels, size_t count, const float *c) {
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  size_t done = 0;
  for (; done + 8 <= count; done += 8) {
    float *p = pixels + done * 4;
    // Eight RGBA pixels to planes (lanes in the order 0 2 4 6 1 3 5 7, the same for every plane).
    __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 8), v2 = _mm256_loadu_ps(p + 16), v3 = _mm256_loadu_ps(p + 24);
    __m256 t0 = _mm256_unpacklo_ps(v0, v1), t1 = _mm256_unpackhi_ps(v0, v1);
    __m256 t2 = _mm256_unpacklo_ps(v2, v3), t3 = _mm256_unpackhi_ps(v2, v3);
    const __m256 r0 = _mm256_shuffle_ps(t0, t2, 0x44), g0 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 b0 = _mm256_shuffle_ps(t1, t3, 0x44), a = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 covered = _mm256_cmp_ps(a, zero, _CMP_GT_OQ);
    const int opaque = _mm256_movemask_ps(_mm256_cmp_ps(a, one, _CMP_EQ_OQ)) == 0xFF;
    __m256 r = r0, g = g0, b = b0;
    if (!opaque) {
      const __m256 reciprocal = _mm256_div_ps(one, _mm256_blendv_ps(one, a, covered));
      r = _mm256_mul_ps(r, reciprocal);
      g = _mm256_mul_ps(g, reciprocal);
      b = _mm256_mul_ps(b, reciprocal);
    }
    const __m256 l = cube_root8(row3(c, r, g, b)), m = cube_root8(row3(c + 3, r, g, b)), s = cube_root8(row3(c + 6, r, g, b));
    __m256 l2 = _mm256_add_ps(row3(c + 9, l, m, s), _mm256_set1_ps(c[18]));
    __m256 m2 = _mm256_add_ps(row3(c + 12, l, m, s), _mm256_set1_ps(c[19]));
    __m256 s2 = _mm256_add_ps(row3(c + 15, l, m, s), _mm256_set1_ps(c[20]));
    l2 = _mm256_mul_ps(_mm256_mul_ps(l2, l2), l2);
    m2 = _mm256_mul_ps(_mm256_mul_ps(m2, m2), m2);
    s2 = _mm256_mul_ps(_mm256_mul_ps(s2, s2), s2);
    __m256 outR = row3(c + 21, l2, m2, s2), outG = row3(c + 24, l2, m2, s2), outB = row3(c + 27, l2, m2, s2);
    if (!opaque) {
      outR = _mm256_mul_ps(outR, a);
      outG = _mm256_mul_ps(outG, a);
      outB = _mm256_mul_ps(outB, a);
    }
    // Pixels with no coverage are left as they were.
    outR = _mm256_blendv_ps(r0, outR, covered);
    outG = _mm256_blendv_ps(g0, outG, covered);
    outB = _mm256_blendv_ps(b0, outB, covered);
    t0 = _mm256_unpacklo_ps(outR, outG);
    t1 = _mm256_unpacklo_ps(outB, a);
    t2 = _mm256_unpackhi_ps(outR, outG);
    t3 = _mm256_unpackhi_ps(outB, a);
    _mm256_storeu_ps(p, _mm256_shuffle_ps(t0, t1, 0x44));
    _mm256_storeu_ps(p + 8, _mm256_shuffle_ps(t0, t1, 0xEE));
    _mm256_storeu_ps(p + 16, _mm256_shuffle_ps(t2, t3, 0x44));
    _mm256_storeu_ps(p + 24, _mm256_shuffle_ps(t2, t3, 0xEE));
  }
  return done;
}

size_t fg_modulate(float *pixels, size_t count, const float *constants) {
  if (!fg_kernels_have_avx2()) return 0;
  return modulate_avx2(pixels, count, constants);
}

#else

size_t fg_modulate(float *pixels, size_t count, const float *constants) {
  (void)pixels;
  (void)count;
  (void)constants;
  return 0;
}

#endif
