// codes8.c — 8-bit codes to float pixels (`fg_codes8_block`), used by FilterGraph's
// Render/TileConversion.swift and resample/Scale.swift; see include/ckernels.h.

#include "ckernels.h"

// No fused multiply-add, whatever the compiler's default: the kernels must round exactly as the
// Swift loops they replace.
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

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

#else

static size_t unit8_block_avx2(const uint8_t *const *rows, size_t rowCount, size_t x, size_t count, int channels,
                               float *dst, ptrdiff_t dstRowFloats) {
  (void)rows; (void)rowCount; (void)x; (void)count; (void)channels; (void)dst; (void)dstRowFloats;
  return 0;
}

#endif

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
