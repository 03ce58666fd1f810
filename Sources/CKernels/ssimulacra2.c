// ssimulacra2.c — SSIMULACRA2's per-pixel steps (statistics/SSIMULACRA2.swift defines the
// metric; include/ckernels.h each step): sRGB decoding, XYB, 2 × 2 means, the blur and the
// per-pixel sums of the ssim and edge maps. Portable C: the compiler vectorises the plane loops.

#include "ckernels.h"

#include <math.h>

#pragma STDC FP_CONTRACT OFF

static inline float clamp01(float v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

static inline float srgb_decode(float v) { return v <= 0.04045f ? v / 12.92f : powf((v + 0.055f) / 1.055f, 2.4f); }

void fg_ssim2_linear(const float *src, size_t count, int channels, float background, float *r, float *g, float *b) {
  for (size_t i = 0; i < count; i++) {
    const float *p = src + i * (size_t)channels;
    float v[3] = {clamp01(p[0]), clamp01(p[1]), clamp01(p[2])};
    if (channels == 4) {
      const float a = clamp01(p[3]);
      for (int c = 0; c < 3; c++) v[c] = a * v[c] + (1 - a) * background;
    }
    r[i] = srgb_decode(v[0]);
    g[i] = srgb_decode(v[1]);
    b[i] = srgb_decode(v[2]);
  }
}

void fg_ssim2_linear8(const uint8_t *src, size_t count, int channels, float background, float *r, float *g, float *b) {
  const int gray = channels <= 2, alpha = channels == 2 || channels == 4;
  for (size_t i = 0; i < count; i++) {
    const uint8_t *p = src + i * (size_t)channels;
    float v[3];
    for (int c = 0; c < 3; c++) v[c] = (float)p[gray ? 0 : c] / 255.0f;
    if (alpha) {
      const float a = (float)p[channels - 1] / 255.0f;
      for (int c = 0; c < 3; c++) v[c] = a * v[c] + (1 - a) * background;
    }
    r[i] = srgb_decode(v[0]);
    g[i] = srgb_decode(v[1]);
    b[i] = srgb_decode(v[2]);
  }
}

void fg_ssim2_xyb(const float *r, const float *g, const float *b, float *x, float *y, float *bb, size_t count) {
  const float bias = 0.0037930732552754493f, root = cbrtf(bias);
  const float m20 = 0.24342268924547819f, m21 = 0.20476744424496821f, m22 = 1.0f - m20 - m21;
  for (size_t i = 0; i < count; i++) {
    const float l = 0.30f * r[i] + 0.622f * g[i] + 0.078f * b[i] + bias;
    const float m = 0.23f * r[i] + 0.692f * g[i] + 0.078f * b[i] + bias;
    const float s = m20 * r[i] + m21 * g[i] + m22 * b[i] + bias;
    const float l3 = cbrtf(l > 0 ? l : 0) - root, m3 = cbrtf(m > 0 ? m : 0) - root, s3 = cbrtf(s > 0 ? s : 0) - root;
    const float xv = 0.5f * (l3 - m3), yv = 0.5f * (l3 + m3);
    x[i] = 14.0f * xv + 0.42f;
    y[i] = yv + 0.01f;
    bb[i] = s3 - yv + 0.55f;
  }
}

void fg_ssim2_halve(const float *src, size_t width, size_t height, float *dst) {
  const size_t w = (width + 1) / 2, h = (height + 1) / 2;
  for (size_t oy = 0; oy < h; oy++) {
    const float *row0 = src + 2 * oy * width;
    const float *row1 = src + (2 * oy + 1 < height ? 2 * oy + 1 : height - 1) * width;
    for (size_t ox = 0; ox < w; ox++) {
      const size_t x0 = 2 * ox, x1 = 2 * ox + 1 < width ? 2 * ox + 1 : width - 1;
      dst[oy * w + ox] = (row0[x0] + row0[x1] + row1[x0] + row1[x1]) * 0.25f;
    }
  }
}

void fg_ssim2_product(const float *a, const float *b, size_t count, float *out) {
  for (size_t i = 0; i < count; i++) out[i] = a[i] * b[i];
}

void fg_ssim2_blur(const float *src, size_t width, size_t height, const float *taps, float *scratch, float *dst) {
  const ptrdiff_t w = (ptrdiff_t)width, h = (ptrdiff_t)height;
  for (ptrdiff_t y = 0; y < h; y++) {
    const float *row = src + y * w;
    float *out = scratch + y * w;
    for (ptrdiff_t x = 0; x < w; x++) {
      float sum = 0;
      for (ptrdiff_t t = 0; t < 11; t++) {
        const ptrdiff_t i = x + t - 5;
        if (i >= 0 && i < w) sum += taps[t] * row[i];
      }
      out[x] = sum;
    }
  }
  for (ptrdiff_t y = 0; y < h; y++) {
    float *out = dst + y * w;
    for (ptrdiff_t x = 0; x < w; x++) out[x] = 0;
    for (ptrdiff_t t = 0; t < 11; t++) {
      ptrdiff_t i = y + t - 5;
      while (i < 0 || i >= h) i = i < 0 ? -i - 1 : 2 * h - i - 1;
      const float *row = scratch + i * w, k = taps[t];
      for (ptrdiff_t x = 0; x < w; x++) out[x] += k * row[x];
    }
  }
}

void fg_ssim2_sums(const float *i1, const float *mu1, const float *s11, const float *i2, const float *mu2,
                   const float *s22, const float *s12, size_t count, double sums[6]) {
  double d1 = 0, d4 = 0, a1 = 0, a4 = 0, l1 = 0, l4 = 0;
  for (size_t i = 0; i < count; i++) {
    const float m1 = mu1[i], m2 = mu2[i];
    const float num_m = 1.0f - (m1 - m2) * (m1 - m2);
    const float num_s = 2 * (s12[i] - m1 * m2) + 0.0009f;
    const float den_s = (s11[i] - m1 * m1) + (s22[i] - m2 * m2) + 0.0009f;
    double d = 1.0 - (double)(num_m * num_s / den_s);
    if (d < 0) d = 0;
    d1 += d;
    d4 += (d * d) * (d * d);
    const double e = (1.0 + fabs((double)i2[i] - m2)) / (1.0 + fabs((double)i1[i] - m1)) - 1.0;
    const double artifact = e > 0 ? e : 0, lost = e < 0 ? -e : 0;
    a1 += artifact;
    a4 += (artifact * artifact) * (artifact * artifact);
    l1 += lost;
    l4 += (lost * lost) * (lost * lost);
  }
  sums[0] += d1;
  sums[1] += d4;
  sums[2] += a1;
  sums[3] += a4;
  sums[4] += l1;
  sums[5] += l4;
}
