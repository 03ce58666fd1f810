// affine.c — the resampling window of FilterGraph's AffineOperation (`fg_affine_window`,
// geometry/Affine.swift), portable C; see include/ckernels.h.

#include "ckernels.h"

// No fused multiply-add, whatever the compiler's default: the kernels must round exactly as the
// Swift loops they replace.
#pragma STDC FP_CONTRACT OFF

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
