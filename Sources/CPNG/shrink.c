// shrink.c — box reduction of decoded rows (see cpng_fast.h).
#include "cpng_fast.h"

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

void cpng_box_shrink_row(const uint8_t *src, size_t src_stride, int rows, int width, int channels,
                         int sixteen, int has_alpha, int d, uint8_t *dst) {
  if (rows < 1 || width < 1 || d < 1 || channels < 1 || channels > 4) return;
  if (sixteen) {
    const uint64_t max_value = 65535;
    SHRINK_ROW(uint16_t);
  } else {
    const uint64_t max_value = 255;
    SHRINK_ROW(uint8_t);
  }
}
