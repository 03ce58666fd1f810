// shrink.c — box reduction of decoded rows (see cpng_fast.h).
#include "cpng_fast.h"

#include <math.h>
#include <pthread.h>

#define SHRINK_ROW(T)                                                                        \
  do {                                                                                       \
    const int out_width = (width + d - 1) / d;                                               \
    T *out = (T *)dst;                                                                       \
    const int colours = has_alpha ? channels - 1 : channels;                                 \
    for (int ox = 0; ox < out_width; ox++) {                                                 \
      const int x0 = ox * d;                                                                 \
      const int cols = width - x0 < d ? width - x0 : d;                                      \
      const uint64_t n = (uint64_t)cols * (uint64_t)rows;                                    \
      uint64_t plain[4] = {0, 0, 0, 0}, weighted[4] = {0, 0, 0, 0}, coverage = 0;            \
      for (int r = 0; r < rows; r++) {                                                       \
        const T *p = (const T *)(src + (size_t)r * src_stride) + (size_t)x0 * channels;      \
        for (int j = 0; j < cols; j++, p += channels) {                                      \
          const uint64_t a = has_alpha ? p[channels - 1] : 1;                                \
          coverage += a;                                                                     \
          for (int c = 0; c < colours; c++) {                                                \
            plain[c] += p[c];                                                                \
            if (has_alpha) weighted[c] += (uint64_t)p[c] * a;                                \
          }                                                                                  \
        }                                                                                    \
      }                                                                                      \
      T *q = out + (size_t)ox * channels;                                                    \
      /* Opaque blocks (the usual case) and plain averages divide by n, a power of two for   \
         every whole block (d = 2, 4, 8): a shift. */                                        \
      const int whole = cols == d && rows == d && (n & (n - 1)) == 0;                        \
      const int shift = whole ? __builtin_ctzll(n) : 0;                                      \
      const int opaque = !has_alpha || coverage == n * (uint64_t)max_value;                  \
      for (int c = 0; c < colours; c++) {                                                    \
        if (opaque || coverage == 0)                                                         \
          q[c] = (T)(whole ? (plain[c] + n / 2) >> shift : (plain[c] + n / 2) / n);          \
        else                                                                                 \
          q[c] = (T)((weighted[c] + coverage / 2) / coverage);                               \
      }                                                                                      \
      if (has_alpha)                                                                         \
        q[channels - 1] = (T)(whole ? (coverage + n / 2) >> shift : (coverage + n / 2) / n); \
    }                                                                                        \
  } while (0)

/// The 8-bit case, specialised on the channel count (the compiler unrolls the channel loops):
/// 32-bit sums, and one reciprocal per block instead of a division per channel; the quotient is
/// corrected to the exact rounded integer division.
static inline uint8_t divide_rounded(uint32_t sum, uint32_t count, double reciprocal) {
  const uint32_t x = sum + count / 2;
  uint32_t q = (uint32_t)(x * reciprocal);
  if (q * count > x) q--;
  else if ((q + 1) * count <= x) q++;
  return (uint8_t)q;
}

/// For whole 2×2 blocks with alpha, ⌊x / c⌋ for a coverage c = 1…1020 (four alphas) and
/// x = Σ colour · alpha + c / 2 < 2^18 is (x · m_c) >> 28 with m_c = ⌈2^28 / c⌉: exact, because
/// x · (m_c − 2^28 / c) / 2^28 < 2^18 / 2^28 = 1/1024 < 1/c, less than the distance from x / c
/// to the next integer. One multiplication instead of a division per channel.
static uint32_t coverage_reciprocal[4 * 255 + 1];

__attribute__((constructor)) static void make_coverage_reciprocals(void) {
  for (uint32_t c = 1; c <= 4 * 255; c++) coverage_reciprocal[c] = (uint32_t)(((1ull << 28) + c - 1) / c);
}

static inline void shrink8(const uint8_t *src, size_t src_stride, int rows, int width, const int channels,
                           const int has_alpha, int d, uint8_t *dst) {
  const int out_width = (width + d - 1) / d;
  const int colours = has_alpha ? channels - 1 : channels;
  int ox = 0;
  if (d == 2 && rows == 2) {
    // Whole 2×2 blocks (the common shrink): n = 4, opaque averages by a shift.
    const uint8_t *r0 = src, *r1 = src + src_stride;
    for (; ox < width / 2; ox++, r0 += 2 * channels, r1 += 2 * channels) {
      uint8_t *q = dst + (size_t)ox * channels;
      const uint32_t a0 = has_alpha ? r0[channels - 1] : 255, a1 = has_alpha ? r0[2 * channels - 1] : 255;
      const uint32_t a2 = has_alpha ? r1[channels - 1] : 255, a3 = has_alpha ? r1[2 * channels - 1] : 255;
      const uint32_t coverage = a0 + a1 + a2 + a3;
      if (!has_alpha || coverage == 4 * 255u || coverage == 0) {
        for (int c = 0; c < colours; c++)
          q[c] = (uint8_t)((r0[c] + r0[channels + c] + r1[c] + r1[channels + c] + 2) >> 2);
      } else {
        const uint64_t m = coverage_reciprocal[coverage];
        for (int c = 0; c < colours; c++) {
          const uint64_t x = r0[c] * a0 + r0[channels + c] * a1 + r1[c] * a2 + r1[channels + c] * a3 + coverage / 2;
          q[c] = (uint8_t)((x * m) >> 28);
        }
      }
      if (has_alpha) q[channels - 1] = (uint8_t)((coverage + 2) >> 2);
    }
  }
  for (; ox < out_width; ox++) {
    const int x0 = ox * d;
    const int cols = width - x0 < d ? width - x0 : d;
    const uint32_t n = (uint32_t)(cols * rows);
    uint32_t plain[4] = {0, 0, 0, 0}, weighted[4] = {0, 0, 0, 0}, coverage = 0;
    for (int r = 0; r < rows; r++) {
      const uint8_t *p = src + (size_t)r * src_stride + (size_t)x0 * channels;
      for (int j = 0; j < cols; j++, p += channels) {
        const uint32_t a = has_alpha ? p[channels - 1] : 1;
        coverage += a;
        for (int c = 0; c < colours; c++) {
          plain[c] += p[c];
          if (has_alpha) weighted[c] += p[c] * a;
        }
      }
    }
    uint8_t *q = dst + (size_t)ox * channels;
    const int opaque = !has_alpha || coverage == n * 255u || coverage == 0;
    const double per_pixel = 1.0 / n;
    if (opaque) {
      for (int c = 0; c < colours; c++) q[c] = divide_rounded(plain[c], n, per_pixel);
    } else {
      const double per_coverage = 1.0 / coverage;
      for (int c = 0; c < colours; c++) q[c] = divide_rounded(weighted[c], coverage, per_coverage);
    }
    if (has_alpha) q[channels - 1] = divide_rounded(coverage, n, per_pixel);
  }
}

/// The sRGB curve (IEC 61966-2-1) and its inverse, on 0…1.
static inline float srgb_decode(float v) { return v <= 0.04045f ? v / 12.92f : powf((v + 0.055f) / 1.055f, 2.4f); }
static inline float srgb_encode(float v) {
  if (v <= 0) return 0;
  if (v >= 1) return 1;
  return v <= 0.0031308f ? v * 12.92f : 1.055f * powf(v, 1 / 2.4f) - 0.055f;
}

/// 8-bit codes as light, and light quantised to 16 bits back to the nearest 8-bit code.
static float code_light[256];
static uint8_t light_code[65536];

__attribute__((constructor)) static void make_light_tables(void) {
  for (int i = 0; i < 256; i++) code_light[i] = srgb_decode(i / 255.0f);
  for (int i = 0; i < 65536; i++) light_code[i] = (uint8_t)lrintf(srgb_encode(i / 65535.0f) * 255);
}

/// 16-bit codes as light: the same srgb_decode of code / 65535, looked up instead of a powf per
/// sample (72 million of them for a 24 MP RGB image). 256 KiB, made on the first 16-bit shrink.
static float sixteen_light[65536];
static pthread_once_t sixteen_light_once = PTHREAD_ONCE_INIT;

static void make_sixteen_light(void) {
  for (int i = 0; i < 65536; i++) sixteen_light[i] = srgb_decode(i / 65535.0f);
}

/// The box average of light (`linear` in cpng_box_shrink_row): each colour sample is decoded
/// through the sRGB curve, averaged (weighted by alpha, as the encoded average is), and encoded
/// back to the nearest code; alpha is averaged as stored.
static void shrink_light(const uint8_t *src, size_t src_stride, int rows, int width, int channels, int sixteen,
                         int has_alpha, int d, uint8_t *dst) {
  const int out_width = (width + d - 1) / d;
  const int colours = has_alpha ? channels - 1 : channels;
  const uint32_t max_value = sixteen ? 65535u : 255u;
  if (sixteen) pthread_once(&sixteen_light_once, make_sixteen_light);
  for (int ox = 0; ox < out_width; ox++) {
    const int x0 = ox * d;
    const int cols = width - x0 < d ? width - x0 : d;
    const uint32_t n = (uint32_t)(cols * rows);
    float plain[4] = {0, 0, 0, 0}, weighted[4] = {0, 0, 0, 0};
    uint64_t coverage = 0;
    for (int r = 0; r < rows; r++) {
      const uint8_t *row = src + (size_t)r * src_stride;
      for (int j = 0; j < cols; j++) {
        const size_t at = (size_t)(x0 + j) * (size_t)channels;
        uint32_t sample[4];
        for (int c = 0; c < channels; c++) sample[c] = sixteen ? ((const uint16_t *)row)[at + c] : row[at + c];
        const uint32_t a = has_alpha ? sample[channels - 1] : max_value;
        coverage += a;
        for (int c = 0; c < colours; c++) {
          const float light = sixteen ? sixteen_light[sample[c]] : code_light[sample[c]];
          plain[c] += light;
          if (has_alpha) weighted[c] += light * (float)a;
        }
      }
    }
    const int opaque = !has_alpha || coverage == (uint64_t)n * max_value || coverage == 0;
    for (int c = 0; c < colours; c++) {
      float mean = opaque ? plain[c] / (float)n : weighted[c] / (float)coverage;
      mean = mean < 0 ? 0 : mean > 1 ? 1 : mean;
      if (sixteen) {
        ((uint16_t *)dst)[(size_t)ox * channels + c] = (uint16_t)lrintf(srgb_encode(mean) * 65535);
      } else {
        dst[(size_t)ox * channels + c] = light_code[(int)lrintf(mean * 65535)];
      }
    }
    if (has_alpha) {
      const uint32_t a = (uint32_t)((coverage + n / 2) / n);
      if (sixteen) ((uint16_t *)dst)[(size_t)ox * channels + channels - 1] = (uint16_t)a;
      else dst[(size_t)ox * channels + channels - 1] = (uint8_t)a;
    }
  }
}

void cpng_box_shrink_row(const uint8_t *src, size_t src_stride, int rows, int width, int channels,
                         int sixteen, int has_alpha, int d, int linear, uint8_t *dst) {
  if (rows < 1 || width < 1 || d < 1 || channels < 1 || channels > 4) return;
  if (linear) {
    shrink_light(src, src_stride, rows, width, channels, sixteen, has_alpha, d, dst);
    return;
  }
  if (sixteen) {
    const uint64_t max_value = 65535;
    SHRINK_ROW(uint16_t);
  } else {
    switch (channels * 2 + (has_alpha != 0)) {
      case 2: shrink8(src, src_stride, rows, width, 1, 0, d, dst); break;
      case 5: shrink8(src, src_stride, rows, width, 2, 1, d, dst); break;
      case 6: shrink8(src, src_stride, rows, width, 3, 0, d, dst); break;
      case 9: shrink8(src, src_stride, rows, width, 4, 1, d, dst); break;
      default: {
        const uint64_t max_value = 255;
        SHRINK_ROW(uint8_t);
      }
    }
  }
}
