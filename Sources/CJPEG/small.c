// small.c — the perceptual JPEG encoder's kernels: colour, DCT, masking field, trellis
// quantisation. What each computes is defined in small.h.
#include "small.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// T.81 Figure A.6: the natural (row-major) index of each zig-zag position.
static const uint8_t cjk_zigzag[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

// Masking field constants (small.h, step 3): activity in 8-bit code values per sample.
#define CJK_ACTIVITY_FLOOR 1.0f  // a0
#define CJK_ACTIVITY_REF 3.0f    // aref: blocks this busy get multiplier 1
#define CJK_MULTIPLIER_MIN 0.5f
#define CJK_MULTIPLIER_MAX 4.0f

static int cjk_div_up(int a, int b) { return (a + b - 1) / b; }

void cjk_plane_size(const cjk_setup *s, int c, int *blocks_wide, int *blocks_high) {
  int h = c == 0 ? s->h_samp : 1, v = c == 0 ? s->v_samp : 1;
  *blocks_wide = cjk_div_up(cjk_div_up(s->width * h, s->h_samp), 8);
  *blocks_high = cjk_div_up(cjk_div_up(s->height * v, s->v_samp), 8);
}

// MARK: - DCT

static float cjk_cos[8][8];  // cjk_cos[x][u] = C(u)/2 · cos((2x+1)uπ/16)
static int cjk_cos_ready;

static void cjk_init_cos(void) {
  if (cjk_cos_ready) return;  // benign race: every thread writes the same values
  for (int x = 0; x < 8; x++)
    for (int u = 0; u < 8; u++)
      cjk_cos[x][u] = (float)((u == 0 ? sqrt(0.5) : 1.0) / 2.0 * cos((2 * x + 1) * u * M_PI / 16.0));
  cjk_cos_ready = 1;
}

/// The T.81 A.3.3 forward DCT of the 8×8 samples at `src` (`stride` floats apart), natural order.
/// Both passes accumulate whole rows of 8 (the compiler's vectors).
static void cjk_fdct(const float *src, int stride, float *out) {
  float t[64];
  for (int y = 0; y < 8; y++) {
    const float *row = src + (size_t)y * stride;
    float acc[8] = {0};
    for (int x = 0; x < 8; x++)
      for (int u = 0; u < 8; u++) acc[u] += cjk_cos[x][u] * row[x];
    for (int u = 0; u < 8; u++) t[y * 8 + u] = acc[u];
  }
  for (int v = 0; v < 8; v++) {
    float acc[8] = {0};
    for (int y = 0; y < 8; y++)
      for (int u = 0; u < 8; u++) acc[u] += cjk_cos[y][v] * t[y * 8 + u];
    for (int u = 0; u < 8; u++) out[v * 8 + u] = acc[u];
  }
}

// MARK: - Trellis quantisation

static int cjk_bits(int v) {  // T.81's SSSS: the magnitude category of v > 0
  int n = 0;
  while (v) {
    n++;
    v >>= 1;
  }
  return n;
}

/// Quantises one block (small.h, step 4). `rate` holds each AC symbol's length in bits.
static void cjk_trellis(const float *coef, const uint16_t *q, float lambda, const float *rate,
                        int16_t *out) {
  float a[64], zsum[64], best[64];
  int sign[64], prev[64], value[64], states[64];
  float dc = coef[0] / q[0];
  long d = lroundf(dc);
  out[0] = (int16_t)(d > 2047 ? 2047 : d < -2047 ? -2047 : d);
  zsum[0] = 0;
  for (int k = 1; k < 64; k++) {
    int n = cjk_zigzag[k];
    float x = coef[n] / q[n];
    sign[k] = x < 0;
    a[k] = fabsf(x);
    zsum[k] = zsum[k - 1] + a[k] * a[k];
    out[n] = 0;
  }
  int count = 0;
  states[count++] = 0;
  best[0] = 0;
  for (int k = 1; k < 64; k++) {
    if (a[k] < 0.5f) continue;  // rounds to 0: never the last nonzero coefficient
    int v1 = (int)(a[k] + 0.5f);
    if (v1 > 1023) v1 = 1023;
    // The integer below only pays when it is in a smaller magnitude category (fewer bits).
    int candidates = (v1 >= 2 && (v1 & (v1 - 1)) == 0) ? 2 : 1;
    best[k] = INFINITY;
    for (int i = 0; i < candidates; i++) {
      int v = v1 - i;
      int size = cjk_bits(v);
      float e = a[k] - (float)v;
      float own = e * e + lambda * (float)size;
      // Latest predecessor first: the zeros' distortion only grows going back, and every cost
      // is at least that plus `own`, so the search stops once that alone loses.
      for (int j = count - 1; j >= 0; j--) {
        int p = states[j];
        float zeros = zsum[k - 1] - zsum[p];
        if (zeros + own >= best[k]) break;
        int run = k - p - 1;
        float bits = rate[((run & 15) << 4) | size] + (float)(run >> 4) * rate[0xF0];
        float cost = best[p] + zeros + own + lambda * bits;
        if (cost < best[k]) {
          best[k] = cost;
          prev[k] = p;
          value[k] = v;
        }
      }
    }
    states[count++] = k;
  }
  int last = 0;
  float total = zsum[63] + lambda * rate[0x00];
  for (int j = 1; j < count; j++) {
    int p = states[j];
    float cost = best[p] + (zsum[63] - zsum[p]) + (p < 63 ? lambda * rate[0x00] : 0);
    if (cost < total) {
      total = cost;
      last = p;
    }
  }
  for (int k = last; k > 0; k = prev[k]) {
    int n = cjk_zigzag[k];
    out[n] = (int16_t)(sign[k] ? -value[k] : value[k]);
  }
}

/// Adds the AC symbols of a quantised block to `counts`.
static void cjk_count_symbols(const int16_t *block, uint32_t *counts) {
  int run = 0;
  for (int k = 1; k < 64; k++) {
    int v = block[cjk_zigzag[k]];
    if (v == 0) {
      run++;
      continue;
    }
    while (run > 15) {
      counts[0xF0]++;
      run -= 16;
    }
    counts[(run << 4) | cjk_bits(v < 0 ? -v : v)]++;
    run = 0;
  }
  if (run > 0) counts[0x00]++;
}

/// −log2 of each symbol's frequency (half a count added to every symbol), clamped to 1…16 bits.
static void cjk_rate_from_counts(const uint32_t *counts, float *rate) {
  double total = 0;
  for (int i = 0; i < 256; i++) total += counts[i] + 0.5;
  for (int i = 0; i < 256; i++) {
    double bits = -log2((counts[i] + 0.5) / total);
    rate[i] = (float)(bits < 1 ? 1 : bits > 16 ? 16 : bits);
  }
}

// MARK: - Masking field

/// Each luma block's activity (mean absolute difference of adjacent samples), then the minimum
/// over its 3×3 neighbourhood mapped to a multiplier. `field` has bw × bh entries.
static int cjk_masking_field(const cjk_setup *s, const uint8_t *pixels, size_t stride, int bw,
                             int bh, float *field) {
  int w = s->width, h = s->height, comps = s->components;
  float *activity = malloc(sizeof(float) * (size_t)bw * bh);
  float *rows = malloc(sizeof(float) * (size_t)w * 9);
  if (activity == NULL || rows == NULL) {
    free(activity);
    free(rows);
    return -1;
  }
  for (int by = 0; by < bh; by++) {
    for (int r = 0; r < 9; r++) {  // 8 rows of the block and the one below it, clamped
      int y = by * 8 + r;
      if (y >= h) y = h - 1;
      const uint8_t *src = pixels + (size_t)y * stride;
      float *dst = rows + (size_t)r * w;
      for (int x = 0; x < w; x++) {
        const uint8_t *p = src + (size_t)x * comps;
        dst[x] = comps == 1 ? p[0] : 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
      }
    }
    for (int bx = 0; bx < bw; bx++) {
      float sum = 0;
      for (int r = 0; r < 8; r++)
        for (int i = 0; i < 8; i++) {
          int x = bx * 8 + i;
          if (x >= w) x = w - 1;
          int xr = x + 1 < w ? x + 1 : x;
          float c = rows[(size_t)r * w + x];
          sum += fabsf(c - rows[(size_t)r * w + xr]) + fabsf(c - rows[(size_t)(r + 1) * w + x]);
        }
      activity[(size_t)by * bw + bx] = sum / 128.0f;
    }
  }
  free(rows);
  for (int by = 0; by < bh; by++)
    for (int bx = 0; bx < bw; bx++) {
      float least = activity[(size_t)by * bw + bx];
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int y = by + dy, x = bx + dx;
          if (y < 0 || y >= bh || x < 0 || x >= bw) continue;
          float v = activity[(size_t)y * bw + x];
          if (v < least) least = v;
        }
      float m = powf((least + CJK_ACTIVITY_FLOOR) / (CJK_ACTIVITY_REF + CJK_ACTIVITY_FLOOR), s->masking);
      field[(size_t)by * bw + bx] = m < CJK_MULTIPLIER_MIN ? CJK_MULTIPLIER_MIN : m > CJK_MULTIPLIER_MAX ? CJK_MULTIPLIER_MAX : m;
    }
  free(activity);
  return 0;
}

// MARK: - The image, one MCU row at a time

typedef struct {
  const cjk_setup *s;
  const uint8_t *pixels;
  size_t stride;
  int padded_width;  // whole MCUs
  int mcu_rows_px;   // 8 · v_samp
  float *plane[3];   // one MCU row of Y, Cb, Cr at full resolution (padded_width × mcu_rows_px)
  float *chroma[2];  // Cb, Cr downsampled (h_samp × v_samp means; subsampled chroma only)
  const float *field;
  int field_wide;
} cjk_work;

static void cjk_load_mcu_row(cjk_work *w, int my) {
  const cjk_setup *s = w->s;
  int comps = s->components;
  for (int r = 0; r < w->mcu_rows_px; r++) {
    int y = my * w->mcu_rows_px + r;
    if (y >= s->height) y = s->height - 1;
    const uint8_t *src = w->pixels + (size_t)y * w->stride;
    size_t o = (size_t)r * w->padded_width;
    for (int x = 0; x < w->padded_width; x++) {
      const uint8_t *p = src + (size_t)(x < s->width ? x : s->width - 1) * comps;
      if (comps == 1) {
        w->plane[0][o + x] = p[0] - 128.0f;
        continue;
      }
      float R = p[0], G = p[1], B = p[2];
      w->plane[0][o + x] = 0.299f * R + 0.587f * G + 0.114f * B - 128.0f;
      w->plane[1][o + x] = -0.168736f * R - 0.331264f * G + 0.5f * B;
      w->plane[2][o + x] = 0.5f * R - 0.418688f * G - 0.081312f * B;
    }
  }
  if (comps == 3 && (s->h_samp > 1 || s->v_samp > 1)) {
    int hs = s->h_samp, vs = s->v_samp, cw = w->padded_width / hs;
    float scale = 1.0f / (float)(hs * vs);
    for (int c = 0; c < 2; c++)
      for (int r = 0; r < 8; r++)
        for (int x = 0; x < cw; x++) {
          float sum = 0;
          for (int dy = 0; dy < vs; dy++)
            for (int dx = 0; dx < hs; dx++)
              sum += w->plane[c + 1][(size_t)(vs * r + dy) * w->padded_width + hs * x + dx];
          w->chroma[c][(size_t)r * cw + x] = sum * scale;
        }
  }
}

/// Quantises MCU row `my` of every component into `planes` (or, when `counts` is given, into
/// `scratch` only, counting the AC symbols per table).
static void cjk_code_mcu_row(cjk_work *w, int my, const float rate[2][256], cjk_plane *planes,
                             uint32_t counts[2][256]) {
  const cjk_setup *s = w->s;
  float coef[64];
  int16_t scratch[64];
  for (int c = 0; c < s->components; c++) {
    int h = c == 0 ? s->h_samp : 1, v = c == 0 ? s->v_samp : 1, t = c == 0 ? 0 : 1;
    int full = c == 0 || (s->h_samp == 1 && s->v_samp == 1);
    const float *src = full ? w->plane[c] : w->chroma[c - 1];
    int src_stride = full ? w->padded_width : w->padded_width / s->h_samp;
    for (int r = 0; r < v; r++) {
      int by = my * v + r;
      if (by >= planes[c].blocks_high) break;
      for (int bx = 0; bx < planes[c].blocks_wide; bx++) {
        cjk_fdct(src + (size_t)r * 8 * src_stride + bx * 8, src_stride, coef);
        // The multiplier of the luma blocks this block covers (their mean for 4:2:0 chroma).
        int lx = bx * s->h_samp / h, ly = by * s->v_samp / v, n = 0;
        float m = 0;
        for (int dy = 0; dy < s->v_samp / v; dy++)
          for (int dx = 0; dx < s->h_samp / h; dx++) {
            int fx = lx + dx, fy = ly + dy;
            if (fx >= w->field_wide || fy >= planes[0].blocks_high) continue;
            m += w->field[(size_t)fy * w->field_wide + fx];
            n++;
          }
        m = n > 0 ? m / n : 1;
        int16_t *out = counts ? scratch : planes[c].rows[by] + (size_t)bx * 64;
        cjk_trellis(coef, s->quant[t], s->lambda * m, rate[t], out);
        if (counts) cjk_count_symbols(out, counts[t]);
      }
    }
  }
}

int cjk_compute_coefficients(const cjk_setup *s, const uint8_t *pixels, size_t stride,
                             cjk_plane *planes) {
  cjk_init_cos();
  cjk_work w = {.s = s, .pixels = pixels, .stride = stride};
  w.padded_width = cjk_div_up(s->width, 8 * s->h_samp) * 8 * s->h_samp;
  w.mcu_rows_px = 8 * s->v_samp;
  int mcu_rows = cjk_div_up(s->height, w.mcu_rows_px);
  w.field_wide = planes[0].blocks_wide;
  float *field = malloc(sizeof(float) * (size_t)planes[0].blocks_wide * planes[0].blocks_high);
  size_t strip = (size_t)w.padded_width * w.mcu_rows_px;
  int ok = field != NULL;
  for (int c = 0; c < s->components; c++) ok = ok && (w.plane[c] = malloc(sizeof(float) * strip)) != NULL;
  if (s->components == 3 && (s->h_samp > 1 || s->v_samp > 1))
    for (int c = 0; c < 2; c++)
      ok = ok && (w.chroma[c] = malloc(sizeof(float) * strip / (size_t)(s->h_samp * s->v_samp))) != NULL;
  if (ok) ok = cjk_masking_field(s, pixels, stride, planes[0].blocks_wide, planes[0].blocks_high, field) == 0;
  if (ok) {
    w.field = field;
    // First pass: the standard tables' lengths, over a sample of about 24 MCU rows.
    float rate[2][256];
    uint32_t counts[2][256];
    memset(counts, 0, sizeof counts);
    for (int t = 0; t < 2; t++)
      for (int i = 0; i < 256; i++) rate[t][i] = s->ac_lengths[t][i] ? s->ac_lengths[t][i] : 16;
    int step = mcu_rows > 24 ? mcu_rows / 24 : 1;
    for (int my = step / 2; my < mcu_rows; my += step) {
      cjk_load_mcu_row(&w, my);
      cjk_code_mcu_row(&w, my, rate, planes, counts);
    }
    for (int t = 0; t < 2; t++) cjk_rate_from_counts(counts[t], rate[t]);
    for (int my = 0; my < mcu_rows; my++) {
      cjk_load_mcu_row(&w, my);
      cjk_code_mcu_row(&w, my, rate, planes, NULL);
    }
  }
  free(field);
  for (int c = 0; c < 3; c++) free(w.plane[c]);
  for (int c = 0; c < 2; c++) free(w.chroma[c]);
  return ok ? 0 : -1;
}

double cjk_chroma_detail(const uint8_t *pixels, int width, int height, int components, size_t stride) {
  if (components != 3 || width < 2 || height < 2) return 0;
  double sum = 0;
  long n = 0;
  for (int y = 0; y + 1 < height; y += 2) {
    const uint8_t *r0 = pixels + (size_t)y * stride, *r1 = r0 + stride;
    for (int x = 0; x + 1 < width; x += 2) {
      float cb[4], cr[4];
      const uint8_t *p[4] = {r0 + 3 * x, r0 + 3 * x + 3, r1 + 3 * x, r1 + 3 * x + 3};
      for (int i = 0; i < 4; i++) {
        cb[i] = -0.168736f * p[i][0] - 0.331264f * p[i][1] + 0.5f * p[i][2];
        cr[i] = 0.5f * p[i][0] - 0.418688f * p[i][1] - 0.081312f * p[i][2];
      }
      float mb = 0.25f * (cb[0] + cb[1] + cb[2] + cb[3]), mr = 0.25f * (cr[0] + cr[1] + cr[2] + cr[3]);
      for (int i = 0; i < 4; i++) sum += (cb[i] - mb) * (cb[i] - mb) + (cr[i] - mr) * (cr[i] - mr);
      n += 4;
    }
  }
  return n > 0 ? sum / (double)n : 0;
}
