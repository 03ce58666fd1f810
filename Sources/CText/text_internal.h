// text_internal.h — the layout's structures, shared by fonts.c, layout.c and raster.c.
#ifndef CTEXT_INTERNAL_H
#define CTEXT_INTERNAL_H

#include "ctext.h"

#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <harfbuzz/hb.h>

/// HarfBuzz's units per pixel: advances and offsets are kept in 1/1024 px (Pango's unit), so a
/// long line's pen positions drift by less than a pixel in 1000 glyphs.
#define FG_TEXT_UNITS 1024.0

/// An opened font: FreeType's face for pixels, HarfBuzz's font for shaping (both at the size).
typedef struct {
  FT_Face face;
  hb_font_t *hb;
  char *path;
  int index;
  /// For a bitmap-only face (CBDT, sbix: colour emoji): the chosen strike's scale to the size.
  int is_strike;
  double strike_scale;
  /// fontconfig's coverage, or NULL for the font file (FreeType's cmap answers instead).
  FcCharSet *charset;
} fg_font;

/// The fonts of one layout: the first is the primary; the rest are opened from fontconfig's
/// sorted set, made and opened as characters need them.
typedef struct {
  FT_Library library;
  double size;
  fg_font *fonts;
  int count, capacity;
  FcPattern *pattern;  ///< what was asked of fontconfig (family, weight, slant), substituted
  int primary_matched; ///< 1 when the primary is fontconfig's best match for `pattern`
  int sorted;          ///< 1 once `set` is made (when a character first needs a fallback)
  int out_of_memory;   ///< 1 when making `set` ran out of memory (the layout fails)
  FcFontSet *set;      ///< fontconfig's fallback order (NULL when fontconfig has no fonts)
  int *set_font;       ///< for each set entry, its index in `fonts`, -1 not yet opened, -2 unusable
  char warning[512];
} fg_fonts;

struct fg_text_layout {
  fg_fonts *fonts;        ///< one set per different font of the runs
  int font_count;
  int *run_fonts;         ///< each run's set in `fonts`
  size_t run_count;
  fg_text_glyph *glyphs;
  size_t glyph_count, glyph_capacity;
  int width, height, lines;
  double first_baseline;
};

/// Writes a formatted sentence into message (always NUL-terminated).
void fg_text_message(char *message, size_t capacity, const char *format, ...);

int fg_fonts_open(fg_fonts *fonts, const fg_text_run *run, char *message, size_t capacity);
void fg_fonts_close(fg_fonts *fonts);
/// The font to set code point `cp` in: with `colour`, the first colour font of the fallback
/// order that has it; else the primary when it has it, else the first font of the fallback
/// order that has it, else the primary (which shows its .notdef).
int fg_fonts_choose(fg_fonts *fonts, uint32_t cp, int colour);
/// 1 when font `index` has a glyph for `cp`.
int fg_fonts_has(fg_fonts *fonts, int index, uint32_t cp);

#endif
