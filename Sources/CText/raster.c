// raster.c — the placed glyphs drawn into premultiplied linear-light RGBA floats.
//
// Outline glyphs: FreeType's anti-aliased coverage of the unhinted outline, its origin at the
// pixel nearest the pen (the pen itself advances in 1/64 px, so spacing does not drift; cairo,
// and so Pango and libvips, place glyphs the same way), coverage c taken as the fraction of the
// pixel the glyph covers: the source pixel is the text colour (linear) with alpha c·a.
// Colour glyphs (BGRA: CBDT/sbix strikes, COLR layers) are premultiplied sRGB: unpremultiplied,
// decoded to linear light, premultiplied again and scaled by the text colour's alpha; a strike
// larger than the size is shrunk by area averaging (every source pixel weighted by its overlap).
// Each glyph is laid over what is there already ("over", premultiplied), as overlapping glyphs
// (joined Arabic letters, kerned pairs) are in every text renderer.
// A text of one colour without colour glyphs can be drawn as its alpha alone (one float a pixel,
// the same arithmetic as the RGBA target's fourth channel): its premultiplied pixels are then the
// colour times that alpha, which is what the RGBA target holds too, up to float rounding (exactly
// for colour channels of 1 or 0, white or black text).
#include "text_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float decode_table[256];

static void fill_decode_table(void) {
  for (int i = 0; i < 256; i++) {
    double v = i / 255.0;
    decode_table[i] = (float)(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4));
  }
}

/// A drawing target: a region of the image, at (x0, y0), of `channels` floats a pixel (4:
/// premultiplied RGBA; 1: alpha alone), and the text colour.
typedef struct {
  float *pixels;
  size_t row_floats;
  int channels;
  int x0, y0, width, height;
  float color[4];
} target;

/// Lays a pixel at (x, y) of the image over the target, when the target's region has it.
static inline void over(target *t, int x, int y, float r, float g, float b, float a) {
  x -= t->x0;
  y -= t->y0;
  if (x < 0 || y < 0 || x >= t->width || y >= t->height || a <= 0) return;
  float *p = t->pixels + (size_t)y * t->row_floats + (size_t)x * t->channels;
  float keep = 1 - a;
  if (t->channels == 1) {
    p[0] = a + p[0] * keep;
    return;
  }
  p[0] = r + p[0] * keep; p[1] = g + p[1] * keep; p[2] = b + p[2] * keep; p[3] = a + p[3] * keep;
}

/// A BGRA pixel (premultiplied sRGB bytes) as premultiplied linear floats times `alpha`.
static inline void colour_pixel(const uint8_t *bgra, float alpha, float out[4]) {
  float a = bgra[3] / 255.0f;
  if (bgra[3] == 0) { out[0] = out[1] = out[2] = out[3] = 0; return; }
  float scale = a * alpha;
  for (int c = 0; c < 3; c++) {
    int straight = (int)lroundf(bgra[2 - c] * 255.0f / bgra[3]);
    out[c] = decode_table[straight > 255 ? 255 : straight] * scale;
  }
  out[3] = scale;
}

/// Draws a bitmap with its top-left at (left, top) and `scale` image pixels per bitmap pixel.
static void draw_bitmap(target *t, const FT_Bitmap *bitmap, double left, double top, double scale) {
  int rows = (int)bitmap->rows, columns = (int)bitmap->width;
  const float *c = t->color;
  if (bitmap->pixel_mode == FT_PIXEL_MODE_BGRA && scale != 1) {
    int x0 = (int)floor(left), y0 = (int)floor(top);
    int x1 = (int)ceil(left + columns * scale), y1 = (int)ceil(top + rows * scale);
    for (int y = y0; y < y1; y++) {
      if (y < t->y0 || y >= t->y0 + t->height) continue;
      // Source rows and columns overlapping this pixel, weighted by the overlap.
      double sy0 = (y - top) / scale, sy1 = (y + 1 - top) / scale;
      for (int x = x0; x < x1; x++) {
        if (x < t->x0 || x >= t->x0 + t->width) continue;
        double sx0 = (x - left) / scale, sx1 = (x + 1 - left) / scale;
        float sum[4] = {0, 0, 0, 0};
        double area = (sx1 - sx0) * (sy1 - sy0);
        for (int sy = (int)floor(sy0 < 0 ? 0 : sy0); sy < rows && sy < sy1; sy++) {
          double wy = fmin(sy + 1, sy1) - fmax(sy, sy0);
          for (int sx = (int)floor(sx0 < 0 ? 0 : sx0); sx < columns && sx < sx1; sx++) {
            double w = (fmin(sx + 1, sx1) - fmax(sx, sx0)) * wy / area;
            float v[4];
            colour_pixel(bitmap->buffer + (ptrdiff_t)sy * bitmap->pitch + sx * 4, c[3], v);
            for (int k = 0; k < 4; k++) sum[k] += (float)w * v[k];
          }
        }
        over(t, x, y, sum[0], sum[1], sum[2], sum[3]);
      }
    }
    return;
  }
  int ox = (int)lround(left), oy = (int)lround(top);
  if (bitmap->pixel_mode == FT_PIXEL_MODE_GRAY) {
    // Coverage bytes, the most common case: the rows and columns inside the target only, each
    // pixel laid over as `over` does (the same arithmetic, so the same floats).
    int y0 = t->y0 - oy > 0 ? t->y0 - oy : 0, y1 = t->y0 + t->height - oy < rows ? t->y0 + t->height - oy : rows;
    int x0 = t->x0 - ox > 0 ? t->x0 - ox : 0, x1 = t->x0 + t->width - ox < columns ? t->x0 + t->width - ox : columns;
    for (int y = y0; y < y1; y++) {
      const uint8_t *row = bitmap->buffer + (ptrdiff_t)y * bitmap->pitch;
      float *line = t->pixels + (size_t)(oy + y - t->y0) * t->row_floats;
      if (t->channels == 1) {
        for (int x = x0; x < x1; x++) {
          float a = row[x] / 255.0f * c[3];
          if (a <= 0) continue;
          float *q = line + (ox + x - t->x0);
          *q = a + *q * (1 - a);
        }
        continue;
      }
      for (int x = x0; x < x1; x++) {
        float a = row[x] / 255.0f * c[3];
        if (a <= 0) continue;
        float r = c[0] * a, g = c[1] * a, b = c[2] * a, keep = 1 - a;
        float *q = line + (size_t)(ox + x - t->x0) * 4;
        q[0] = r + q[0] * keep; q[1] = g + q[1] * keep; q[2] = b + q[2] * keep; q[3] = a + q[3] * keep;
      }
    }
    return;
  }
  for (int y = 0; y < rows; y++) {
    const uint8_t *row = bitmap->buffer + (ptrdiff_t)y * bitmap->pitch;
    for (int x = 0; x < columns; x++) {
      if (bitmap->pixel_mode == FT_PIXEL_MODE_BGRA) {
        float v[4];
        colour_pixel(row + x * 4, c[3], v);
        over(t, ox + x, oy + y, v[0], v[1], v[2], v[3]);
        continue;
      }
      float coverage = bitmap->pixel_mode == FT_PIXEL_MODE_MONO ? ((row[x >> 3] >> (7 - (x & 7))) & 1) : 0;
      float a = coverage * c[3];
      over(t, ox + x, oy + y, c[0] * a, c[1] * a, c[2] * a, a);
    }
  }
}

/// False when the glyph's ink, grown by a pixel, cannot reach the target's region (HarfBuzz's
/// extents; a glyph without them is drawn).
static int reaches(const target *t, const fg_font *font, const fg_text_glyph *glyph) {
  hb_glyph_extents_t ink;
  if (!hb_font_get_glyph_extents(font->hb, glyph->glyph, &ink)) return 1;
  double x0 = glyph->x + ink.x_bearing / FG_TEXT_UNITS, y0 = glyph->y - ink.y_bearing / FG_TEXT_UNITS;
  double x1 = x0 + ink.width / FG_TEXT_UNITS, y1 = y0 - ink.height / FG_TEXT_UNITS;
  return x1 + 1 >= t->x0 && x0 - 1 <= t->x0 + t->width && y1 + 1 >= t->y0 && y0 - 1 <= t->y0 + t->height;
}

/// Draws every glyph that reaches the target, each run in its colour (`colors`: four floats a
/// run, or NULL for the alpha `alpha` alone); returns the number FreeType could not draw.
static size_t draw(fg_text_layout *layout, target *t, const float *colors, float alpha) {
  if (decode_table[255] == 0) fill_decode_table();
  size_t failed = 0;
  for (size_t g = 0; g < layout->glyph_count; g++) {
    const fg_text_glyph *glyph = &layout->glyphs[g];
    fg_font *font = &layout->fonts[layout->run_fonts[glyph->run]].fonts[glyph->font];
    if (!reaches(t, font, glyph)) continue;
    if (colors) {
      memcpy(t->color, colors + 4 * (size_t)glyph->run, sizeof t->color);
    } else {
      t->color[3] = alpha;
    }
    FT_GlyphSlot slot = font->face->glyph;
    double ix = round(glyph->x), iy = round(glyph->y);
    int flags = FT_LOAD_COLOR | (font->is_strike ? 0 : FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP);
    if (FT_Load_Glyph(font->face, glyph->glyph, flags) ||
        (slot->format == FT_GLYPH_FORMAT_OUTLINE && FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL))) {
      failed++;
      continue;
    }
    if (slot->format != FT_GLYPH_FORMAT_BITMAP || slot->bitmap.rows == 0) continue;
    if (font->is_strike) {
      double s = font->strike_scale;
      draw_bitmap(t, &slot->bitmap, glyph->x + slot->bitmap_left * s, glyph->y - slot->bitmap_top * s, s);
    } else {
      draw_bitmap(t, &slot->bitmap, ix + slot->bitmap_left, iy - slot->bitmap_top, 1);
    }
  }
  return failed;
}

size_t fg_text_layout_render(fg_text_layout *layout, int x, int y, int width, int height, float *pixels, size_t row_floats,
                             const float *colors) {
  target t = {pixels, row_floats, 4, x, y, width, height, {0, 0, 0, 0}};
  return draw(layout, &t, colors, 0);
}

size_t fg_text_layout_render_alpha(fg_text_layout *layout, int x, int y, int width, int height, float *alpha,
                                   size_t row_floats, float color_alpha) {
  target t = {alpha, row_floats, 1, x, y, width, height, {0, 0, 0, 0}};
  return draw(layout, &t, NULL, color_alpha);
}

int fg_text_layout_has_color_glyphs(const fg_text_layout *layout) {
  for (size_t g = 0; g < layout->glyph_count; g++) {
    const fg_text_glyph *glyph = &layout->glyphs[g];
    const fg_font *font = &layout->fonts[layout->run_fonts[glyph->run]].fonts[glyph->font];
    if (font->is_strike || FT_HAS_COLOR(font->face)) return 1;
  }
  return 0;
}
