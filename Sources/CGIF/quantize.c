// quantize.c — a palette of at most 256 colours for a set of pixels, and the pixels mapped to it
// (the GIF writer's colour reduction; see cgif_quantize.h).
//
// Palette. When the pixels hold at most `max_colors` distinct colours, the palette is exactly
// those colours and mapping is exact. Otherwise the palette is Wu's variance-minimising cut
// (Xiaolin Wu, "Efficient Statistical Computations for Optimal Color Quantization", Graphics
// Gems II, 1991, pp. 126–133): the colours are counted in a 32×32×32 histogram of sRGB-encoded
// values (each channel's top 5 bits); cumulative moments w, Σr, Σg, Σb, Σ(r²+g²+b²) make the
// sum over any box O(1); starting from the whole cube, the box of largest variance
//     V(B) = Σ_{p∈B} |c_p|² − |Σ_{p∈B} c_p|² / |B|
// is repeatedly cut in two along the channel and plane that maximise
//     |Σ_{B₁} c|² / |B₁| + |Σ_{B₂} c|² / |B₂|
// (equivalently minimise V(B₁) + V(B₂)), until there are `max_colors` boxes or none can be cut.
// Entry k is the mean colour of box k, rounded. One Lloyd (k-means) step then refines it: every
// histogram cell's mean colour goes to its nearest entry, and each entry becomes the weighted mean
// of the cells it won.
//
// Mapping. With an exact palette, pixel p gets the entry equal to its colour. Otherwise it gets
// the entry k minimising the squared sRGB distance |c_p − P_k|² (the first of equals; searched
// among the candidates of c_p's 8×8×8 cell of codes, see `make_candidates`). Without dithering
// c_p is the pixel's colour. With Floyd–Steinberg at amount a (0…1), it is the pixel's colour
// plus a·7/16, a·3/16, a·5/16 and a·1/16 of the errors (colour − entry chosen) of its left,
// upper-right, upper and upper-left neighbours (rows left to right, clamped to 0…255). With
// ordered dithering at amount a, c_p + a·A·((M(x mod 8, y mod 8) + ½)/64 − ½) for the 8×8 Bayer
// matrix M and A = 64 / ∛n for a palette of n entries. Amount 0 is no dithering. Pixels that are
// not mapped (transparent) take no error and pass none on.
#include "cgif_quantize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIDE 33
#define CELLS (SIDE * SIDE * SIDE)

struct cgif_quantizer {
  int64_t *weight, *sum_r, *sum_g, *sum_b;
  double *sum_squares;
  int32_t *candidates_at;  ///< 32×32×32: where each cell's candidate list starts in `pool`, -1 unknown
  uint8_t *pool;           ///< candidate lists: a count minus one, then that many entries
  int pool_used;
};

/// The bytes of candidate lists a quantiser keeps for one frame (beyond them, pixels are mapped
/// by a search of the whole palette).
#define POOL_BYTES (128 * 1024)

cgif_quantizer *cgif_quantizer_new(void) {
  cgif_quantizer *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->weight = malloc(CELLS * sizeof(int64_t));
  q->sum_r = malloc(CELLS * sizeof(int64_t));
  q->sum_g = malloc(CELLS * sizeof(int64_t));
  q->sum_b = malloc(CELLS * sizeof(int64_t));
  q->sum_squares = malloc(CELLS * sizeof(double));
  q->candidates_at = malloc(32 * 32 * 32 * sizeof(int32_t));
  q->pool = malloc(POOL_BYTES);
  if (!q->weight || !q->sum_r || !q->sum_g || !q->sum_b || !q->sum_squares || !q->candidates_at || !q->pool) {
    cgif_quantizer_free(q);
    return NULL;
  }
  return q;
}

void cgif_quantizer_free(cgif_quantizer *q) {
  if (!q) return;
  free(q->weight);
  free(q->sum_r);
  free(q->sum_g);
  free(q->sum_b);
  free(q->sum_squares);
  free(q->candidates_at);
  free(q->pool);
  free(q);
}

size_t cgif_quantizer_bytes(void) {
  return CELLS * (4 * sizeof(int64_t) + sizeof(double)) + 32 * 32 * 32 * sizeof(int32_t) + POOL_BYTES;
}

static inline int cell(int r, int g, int b) { return (r * SIDE + g) * SIDE + b; }

/// A box of histogram cells (r0, r1] × (g0, g1] × (b0, b1].
typedef struct {
  int r0, r1, g0, g1, b0, b1;
} box;

static int64_t volume(const box *c, const int64_t *m) {
  return m[cell(c->r1, c->g1, c->b1)] - m[cell(c->r1, c->g1, c->b0)] - m[cell(c->r1, c->g0, c->b1)] +
         m[cell(c->r1, c->g0, c->b0)] - m[cell(c->r0, c->g1, c->b1)] + m[cell(c->r0, c->g1, c->b0)] +
         m[cell(c->r0, c->g0, c->b1)] - m[cell(c->r0, c->g0, c->b0)];
}

static double volume_squares(const box *c, const double *m) {
  return m[cell(c->r1, c->g1, c->b1)] - m[cell(c->r1, c->g1, c->b0)] - m[cell(c->r1, c->g0, c->b1)] +
         m[cell(c->r1, c->g0, c->b0)] - m[cell(c->r0, c->g1, c->b1)] + m[cell(c->r0, c->g1, c->b0)] +
         m[cell(c->r0, c->g0, c->b1)] - m[cell(c->r0, c->g0, c->b0)];
}

/// The box's sums with its upper bound along `axis` (0 r, 1 g, 2 b) set to `position`.
static int64_t volume_to(const box *c, int axis, int position, const int64_t *m) {
  box part = *c;
  if (axis == 0) part.r1 = position;
  else if (axis == 1) part.g1 = position;
  else part.b1 = position;
  return volume(&part, m);
}

static double variance(const cgif_quantizer *q, const box *c) {
  const double r = (double)volume(c, q->sum_r), g = (double)volume(c, q->sum_g), b = (double)volume(c, q->sum_b);
  const double w = (double)volume(c, q->weight);
  return w > 0 ? volume_squares(c, q->sum_squares) - (r * r + g * g + b * b) / w : 0;
}

/// The best cut of `c` along `axis` between `first` and `last` (exclusive): its score, and the
/// plane in `*cut` (-1 when no plane leaves both halves non-empty).
static double best_cut(const cgif_quantizer *q, const box *c, int axis, int first, int last, int *cut,
                       const int64_t whole[4]) {
  double best = 0;
  *cut = -1;
  for (int i = first; i < last; i++) {
    const int64_t w = volume_to(c, axis, i, q->weight);
    if (w == 0 || w == whole[3]) continue;
    const double r = (double)volume_to(c, axis, i, q->sum_r), g = (double)volume_to(c, axis, i, q->sum_g),
                 b = (double)volume_to(c, axis, i, q->sum_b);
    const double rr = (double)whole[0] - r, gg = (double)whole[1] - g, bb = (double)whole[2] - b;
    const double score = (r * r + g * g + b * b) / (double)w + (rr * rr + gg * gg + bb * bb) / (double)(whole[3] - w);
    if (score > best) {
      best = score;
      *cut = i;
    }
  }
  return best;
}

/// Cuts `a` in two (`a` keeps the lower part, `b` gets the upper); false when it cannot be cut.
static int cut_box(const cgif_quantizer *q, box *a, box *b) {
  const int64_t whole[4] = {volume(a, q->sum_r), volume(a, q->sum_g), volume(a, q->sum_b), volume(a, q->weight)};
  int cuts[3];
  double scores[3];
  scores[0] = best_cut(q, a, 0, a->r0 + 1, a->r1, &cuts[0], whole);
  scores[1] = best_cut(q, a, 1, a->g0 + 1, a->g1, &cuts[1], whole);
  scores[2] = best_cut(q, a, 2, a->b0 + 1, a->b1, &cuts[2], whole);
  int axis = 0;
  for (int k = 1; k < 3; k++)
    if (scores[k] > scores[axis]) axis = k;
  if (cuts[axis] < 0) return 0;
  *b = *a;
  if (axis == 0) a->r1 = b->r0 = cuts[0];
  else if (axis == 1) a->g1 = b->g0 = cuts[1];
  else a->b1 = b->b0 = cuts[2];
  return 1;
}

/// Turns the histogram into cumulative moments (each cell the sum over the box from the origin).
static void accumulate(cgif_quantizer *q) {
  int64_t area_w[SIDE], area_r[SIDE], area_g[SIDE], area_b[SIDE];
  double area_s[SIDE];
  for (int r = 1; r < SIDE; r++) {
    memset(area_w, 0, sizeof area_w);
    memset(area_r, 0, sizeof area_r);
    memset(area_g, 0, sizeof area_g);
    memset(area_b, 0, sizeof area_b);
    memset(area_s, 0, sizeof area_s);
    for (int g = 1; g < SIDE; g++) {
      int64_t line_w = 0, line_r = 0, line_g = 0, line_b = 0;
      double line_s = 0;
      for (int b = 1; b < SIDE; b++) {
        const int i = cell(r, g, b), below = cell(r - 1, g, b);
        line_w += q->weight[i];
        line_r += q->sum_r[i];
        line_g += q->sum_g[i];
        line_b += q->sum_b[i];
        line_s += q->sum_squares[i];
        area_w[b] += line_w;
        area_r[b] += line_r;
        area_g[b] += line_g;
        area_b[b] += line_b;
        area_s[b] += line_s;
        q->weight[i] = q->weight[below] + area_w[b];
        q->sum_r[i] = q->sum_r[below] + area_r[b];
        q->sum_g[i] = q->sum_g[below] + area_g[b];
        q->sum_b[i] = q->sum_b[below] + area_b[b];
        q->sum_squares[i] = q->sum_squares[below] + area_s[b];
      }
    }
  }
}

static inline int distance(const uint8_t *p, int r, int g, int b) {
  const int dr = p[0] - r, dg = p[1] - g, db = p[2] - b;
  return dr * dr + dg * dg + db * db;
}

static int nearest_entry(const uint8_t *palette, int count, int r, int g, int b) {
  int best = 0, best_distance = distance(palette, r, g, b);
  for (int k = 1; k < count && best_distance; k++) {
    const int d = distance(palette + 3 * k, r, g, b);
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best;
}

/// The distinct colours of the taken pixels when there are at most `max_colors`, in `palette`;
/// returns their number, or -1 when there are more.
static int distinct_colors(const uint8_t *rgba, int stride_pixels, const uint8_t *take, int width, int height,
                           int max_colors, uint8_t *palette) {
  enum { SLOTS = 1024 };
  uint32_t table[SLOTS];
  memset(table, 0xff, sizeof table);
  int count = 0;
  for (int y = 0; y < height; y++) {
    const uint8_t *row = rgba + (size_t)y * stride_pixels * 4;
    const uint8_t *t = take + (size_t)y * width;
    uint32_t last = 0xffffffffu;
    for (int x = 0; x < width; x++) {
      if (!t[x]) continue;
      const uint32_t key = (uint32_t)row[4 * x] << 16 | (uint32_t)row[4 * x + 1] << 8 | row[4 * x + 2];
      if (key == last) continue;
      last = key;
      uint32_t slot = (key * 2654435761u) >> 22;
      while (table[slot] != 0xffffffffu && table[slot] != key) slot = (slot + 1) & (SLOTS - 1);
      if (table[slot] == key) continue;
      if (count == max_colors) return -1;
      table[slot] = key;
      palette[3 * count] = (uint8_t)(key >> 16);
      palette[3 * count + 1] = (uint8_t)(key >> 8);
      palette[3 * count + 2] = (uint8_t)key;
      count++;
    }
  }
  return count;
}

int cgif_build_palette(cgif_quantizer *q, const uint8_t *rgba, int stride_pixels, const uint8_t *take, int width,
                       int height, int max_colors, uint8_t *palette, int *exact) {
  if (max_colors < 1) max_colors = 1;
  if (max_colors > 256) max_colors = 256;
  const int distinct = distinct_colors(rgba, stride_pixels, take, width, height, max_colors, palette);
  *exact = distinct >= 0;
  if (distinct > 0) return distinct;
  if (distinct == 0) {  // no pixel: one black entry
    palette[0] = palette[1] = palette[2] = 0;
    return 1;
  }

  memset(q->weight, 0, CELLS * sizeof(int64_t));
  memset(q->sum_r, 0, CELLS * sizeof(int64_t));
  memset(q->sum_g, 0, CELLS * sizeof(int64_t));
  memset(q->sum_b, 0, CELLS * sizeof(int64_t));
  memset(q->sum_squares, 0, CELLS * sizeof(double));
  for (int y = 0; y < height; y++) {
    const uint8_t *row = rgba + (size_t)y * stride_pixels * 4;
    const uint8_t *t = take + (size_t)y * width;
    for (int x = 0; x < width; x++) {
      if (!t[x]) continue;
      const int r = row[4 * x], g = row[4 * x + 1], b = row[4 * x + 2];
      const int i = cell((r >> 3) + 1, (g >> 3) + 1, (b >> 3) + 1);
      q->weight[i]++;
      q->sum_r[i] += r;
      q->sum_g[i] += g;
      q->sum_b[i] += b;
      q->sum_squares[i] += (double)(r * r + g * g + b * b);
    }
  }
  // Each cell's mean colour and count, for the Lloyd step, before the moments are accumulated.
  int cells = 0;
  uint8_t *means = malloc((size_t)32 * 32 * 32 * 3);
  int64_t *counts = malloc((size_t)32 * 32 * 32 * sizeof(int64_t));
  if (means && counts) {
    for (int i = 0; i < CELLS; i++) {
      if (!q->weight[i]) continue;
      const int64_t w = q->weight[i];
      means[3 * cells] = (uint8_t)((q->sum_r[i] + w / 2) / w);
      means[3 * cells + 1] = (uint8_t)((q->sum_g[i] + w / 2) / w);
      means[3 * cells + 2] = (uint8_t)((q->sum_b[i] + w / 2) / w);
      counts[cells++] = w;
    }
  }
  accumulate(q);

  box boxes[256];
  double variances[256];
  boxes[0] = (box){0, 32, 0, 32, 0, 32};
  variances[0] = 0;
  int count = 1, next = 0;
  while (count < max_colors) {
    if (cut_box(q, &boxes[next], &boxes[count])) {
      variances[next] = variance(q, &boxes[next]);
      variances[count] = variance(q, &boxes[count]);
      count++;
    } else {
      variances[next] = 0;
    }
    next = 0;
    for (int k = 1; k < count; k++)
      if (variances[k] > variances[next]) next = k;
    if (variances[next] <= 0) break;
  }
  int entries = 0;
  for (int k = 0; k < count; k++) {
    const int64_t w = volume(&boxes[k], q->weight);
    if (!w) continue;
    palette[3 * entries] = (uint8_t)((volume(&boxes[k], q->sum_r) + w / 2) / w);
    palette[3 * entries + 1] = (uint8_t)((volume(&boxes[k], q->sum_g) + w / 2) / w);
    palette[3 * entries + 2] = (uint8_t)((volume(&boxes[k], q->sum_b) + w / 2) / w);
    entries++;
  }
  if (means && counts && entries > 1) {
    int64_t sums[256][4];
    memset(sums, 0, sizeof sums);
    for (int i = 0; i < cells; i++) {
      const uint8_t *m = means + 3 * i;
      const int k = nearest_entry(palette, entries, m[0], m[1], m[2]);
      sums[k][0] += m[0] * counts[i];
      sums[k][1] += m[1] * counts[i];
      sums[k][2] += m[2] * counts[i];
      sums[k][3] += counts[i];
    }
    for (int k = 0; k < entries; k++) {
      const int64_t w = sums[k][3];
      if (!w) continue;
      for (int c = 0; c < 3; c++) palette[3 * k + c] = (uint8_t)((sums[k][c] + w / 2) / w);
    }
  }
  free(means);
  free(counts);
  return entries > 0 ? entries : 1;
}

static const uint8_t bayer8[8][8] = {
    {0, 32, 8, 40, 2, 34, 10, 42},  {48, 16, 56, 24, 50, 18, 58, 26}, {12, 44, 4, 36, 14, 46, 6, 38},
    {60, 28, 52, 20, 62, 30, 54, 22}, {3, 35, 11, 43, 1, 33, 9, 41},  {51, 19, 59, 27, 49, 17, 57, 25},
    {15, 47, 7, 39, 13, 45, 5, 37},  {63, 31, 55, 23, 61, 29, 53, 21},
};

static inline int clamp255(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

/// Makes the candidate list of the 8×8×8 cell of codes holding (r, g, b): every entry that is the
/// nearest of some colour in the cell. With m the cell's centre and R = 3.5·√3 the distance from m
/// to the cell's farthest colour, the nearest entry k* of a colour c in the cell and the entry k₀
/// nearest m satisfy |m − k*| ≤ |c − k*| + R ≤ |c − k₀| + R ≤ |m − k₀| + 2R, so the entries within
/// |m − k₀| + 2R of m are kept. Returns the list's place in the pool, or -1 when the pool is full.
static int32_t make_candidates(cgif_quantizer *q, const uint8_t *palette, int count, int r, int g, int b) {
  if (q->pool_used + count + 1 > POOL_BYTES) return -1;
  // Distances in half codes, so that the centre (8i + 3.5 a channel) is a whole number.
  const int mr = 2 * (r & ~7) + 7, mg = 2 * (g & ~7) + 7, mb = 2 * (b & ~7) + 7;
  int squares[256], least = -1;
  for (int k = 0; k < count; k++) {
    const int dr = 2 * palette[3 * k] - mr, dg = 2 * palette[3 * k + 1] - mg, db = 2 * palette[3 * k + 2] - mb;
    squares[k] = dr * dr + dg * dg + db * db;
    if (least < 0 || squares[k] < least) least = squares[k];
  }
  const double reach = sqrt((double)least) + 4 * 3.5 * sqrt(3.0) + 1e-6;  // |m − k₀| + 2R, in half codes
  const double limit = reach * reach;
  const int32_t at = q->pool_used;
  uint8_t *list = q->pool + at;
  int n = 0;
  for (int k = 0; k < count; k++)
    if (squares[k] <= limit) list[1 + n++] = (uint8_t)k;
  list[0] = (uint8_t)(n - 1);
  q->pool_used += n + 1;
  return at;
}

/// The entry nearest (r, g, b) (the first of equals): searched among its cell's candidates.
static int lookup(cgif_quantizer *q, const uint8_t *palette, int count, int r, int g, int b) {
  const int key = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3);
  int32_t at = q->candidates_at[key];
  if (at < 0) {
    at = make_candidates(q, palette, count, r, g, b);
    if (at < 0) return nearest_entry(palette, count, r, g, b);
    q->candidates_at[key] = at;
  }
  const uint8_t *list = q->pool + at;
  const int n = list[0] + 1;
  int best = list[1], best_distance = distance(palette + 3 * best, r, g, b);
  for (int i = 2; i <= n && best_distance; i++) {
    const int k = list[i], d = distance(palette + 3 * k, r, g, b);
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best;
}

void cgif_map_pixels(cgif_quantizer *q, const uint8_t *rgba, int stride_pixels, const uint8_t *take, int x0, int y0,
                     int width, int height, const uint8_t *palette, int count, int exact, int transparent, int dither,
                     double amount, uint8_t *indices) {
  memset(q->candidates_at, 0xff, 32 * 32 * 32 * sizeof(int32_t));
  q->pool_used = 0;
  if (exact) dither = CGIF_DITHER_NONE;
  // An exact palette holds every colour mapped: found by hashing the colour.
  struct {
    uint32_t key;
    int index;
  } slots[1024];
  if (exact) {
    for (int s = 0; s < 1024; s++) slots[s].key = 0xffffffffu;
    for (int k = 0; k < count; k++) {
      const uint32_t key = (uint32_t)palette[3 * k] << 16 | (uint32_t)palette[3 * k + 1] << 8 | palette[3 * k + 2];
      uint32_t slot = (key * 2654435761u) >> 22;
      while (slots[slot].key != 0xffffffffu && slots[slot].key != key) slot = (slot + 1) & 1023;
      slots[slot].key = key;
      slots[slot].index = k;
    }
  }
  amount = amount < 0 ? 0 : amount > 1 ? 1 : amount;
  if (amount == 0) dither = CGIF_DITHER_NONE;
  const double amplitude = amount * 64.0 / cbrt((double)(count > 1 ? count : 2));
  // The share of an error passed on, in 1/4096ths (the weights below are sixteenths of it).
  const int share = (int)lround(amount * 4096);
  // Floyd–Steinberg errors of this row and the next, per channel, with a pixel of margin each side.
  int *errors = dither == CGIF_DITHER_DIFFUSION ? calloc((size_t)(width + 2) * 6, sizeof(int)) : NULL;
  if (dither == CGIF_DITHER_DIFFUSION && !errors) dither = CGIF_DITHER_NONE;
  for (int y = 0; y < height; y++) {
    const uint8_t *row = rgba + (size_t)y * stride_pixels * 4;
    const uint8_t *t = take + (size_t)y * width;
    uint8_t *out = indices + (size_t)y * width;
    int *current = errors ? errors + ((y & 1) ? 3 * (width + 2) : 0) : NULL;
    int *below = errors ? errors + ((y & 1) ? 0 : 3 * (width + 2)) : NULL;
    if (below) memset(below, 0, (size_t)(width + 2) * 3 * sizeof(int));
    for (int x = 0; x < width; x++) {
      if (!t[x]) {
        out[x] = (uint8_t)transparent;
        continue;
      }
      int r = row[4 * x], g = row[4 * x + 1], b = row[4 * x + 2];
      int k;
      if (exact) {
        const uint32_t key = (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
        uint32_t slot = (key * 2654435761u) >> 22;
        while (slots[slot].key != key) slot = (slot + 1) & 1023;
        k = slots[slot].index;
      } else if (dither == CGIF_DITHER_DIFFUSION) {
        const int *e = current + 3 * (x + 1);
        r = clamp255(r + (e[0] * share + 8 * 4096) / (16 * 4096));
        g = clamp255(g + (e[1] * share + 8 * 4096) / (16 * 4096));
        b = clamp255(b + (e[2] * share + 8 * 4096) / (16 * 4096));
        k = lookup(q, palette, count, r, g, b);
        const int er = r - palette[3 * k], eg = g - palette[3 * k + 1], eb = b - palette[3 * k + 2];
        int *right = current + 3 * (x + 2), *down_left = below + 3 * x, *down = below + 3 * (x + 1),
            *down_right = below + 3 * (x + 2);
        right[0] += er * 7, right[1] += eg * 7, right[2] += eb * 7;
        down_left[0] += er * 3, down_left[1] += eg * 3, down_left[2] += eb * 3;
        down[0] += er * 5, down[1] += eg * 5, down[2] += eb * 5;
        down_right[0] += er, down_right[1] += eg, down_right[2] += eb;
      } else if (dither == CGIF_DITHER_ORDERED) {
        const int offset = (int)lround(amplitude * ((bayer8[(y0 + y) & 7][(x0 + x) & 7] + 0.5) / 64.0 - 0.5));
        k = lookup(q, palette, count, clamp255(r + offset), clamp255(g + offset), clamp255(b + offset));
      } else {
        k = lookup(q, palette, count, r, g, b);
      }
      out[x] = (uint8_t)k;
    }
  }
  free(errors);
}
