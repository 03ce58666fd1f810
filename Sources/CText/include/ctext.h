// ctext.h — text layout and rasterising for the `text` source, behind calls that never abort.
//
// One layout is made from a UTF-8 string and its settings (fg_text_layout_create): fonts are
// found by fontconfig (family, weight, slant, and per-character fallback through the sorted
// font set) or opened from a file; paragraphs (split at line feeds) get their bidirectional
// embedding levels from ICU's ubidi (UAX #9), runs of one level, script (HarfBuzz's Unicode
// functions) and font are shaped by HarfBuzz, lines are broken where ICU's line break iterator
// (UAX #14) allows and the greedy fill fits them into `width`, and each line's runs are put in
// visual order (UAX #9 rule L2). The layout's size covers every line box and every glyph's ink.
// fg_text_layout_render then rasterises it with FreeType (outlines anti-aliased, colour glyphs —
// CBDT/sbix bitmaps scaled from their strike, COLR layers — as BGRA) into premultiplied
// linear-light RGBA floats. HarfBuzz, FreeType, fontconfig and ICU report errors by return
// values (none longjmps or exits), so every failure here is a status and a sentence in `message`.
// The text may be an attributed string: runs with their own font, size, weight and slant (and
// colour, given when rendering), set in one pass as one text.
// A layout is not thread-safe: callers serialise calls on one layout.
#ifndef CTEXT_H
#define CTEXT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { FG_TEXT_ALIGN_LEFT = 0, FG_TEXT_ALIGN_CENTRE = 1, FG_TEXT_ALIGN_RIGHT = 2, FG_TEXT_ALIGN_JUSTIFY = 3 };

/// Status codes: 0 success; FG_TEXT_NO_FONTS when fontconfig finds no font at all (the caller
/// names the package to install); FG_TEXT_BAD_FONT for a font file FreeType cannot open;
/// FG_TEXT_TOO_LARGE when a limit below is passed; FG_TEXT_BAD_INPUT for invalid UTF-8 or
/// settings; FG_TEXT_FAILED for anything else (out of memory, a library error).
enum {
  FG_TEXT_OK = 0, FG_TEXT_NO_FONTS = 1, FG_TEXT_BAD_FONT = 2, FG_TEXT_TOO_LARGE = 3,
  FG_TEXT_BAD_INPUT = 4, FG_TEXT_FAILED = 5
};

/// The font of one run of the text (an attributed string's run): the bytes [start, end).
typedef struct {
  size_t start, end;
  const char *family;      ///< fontconfig family name (or a pattern like "serif"); NULL → sans-serif
  const char *font_file;   ///< a font file used first, fontconfig's set for fallback; NULL for none
  double size;             ///< the em size in pixels (ppem)
  int weight;              ///< fontconfig weight (FC_WEIGHT_REGULAR 80, BOLD 200…)
  int italic;              ///< 1 asks fontconfig for an italic or oblique face
} fg_text_run;

/// At most this many runs, and this many different fonts (family, file, size, weight, slant) among them.
enum { FG_TEXT_MAX_RUNS = 65536, FG_TEXT_MAX_FONTS = 64 };

typedef struct {
  const char *text;        ///< UTF-8, `text_length` bytes (no NUL needed)
  size_t text_length;
  /// The runs, in order, covering the text exactly ([0, n) when it is empty). Runs of one font
  /// share its fonts; the whole text is one paragraph stream (one bidi, shaping, breaking and
  /// layout pass over every run, a run boundary splitting shaping runs only).
  const fg_text_run *runs;
  size_t run_count;
  double width;            ///< the wrapping width in pixels; 0 does not wrap
  int align;               ///< FG_TEXT_ALIGN_*
  double line_spacing;     ///< line pitch as a multiple of each line's largest ascent + descent
  size_t max_bytes;        ///< limits: string length, image side, image area (pixels)
  int max_side;
  double max_pixels;
} fg_text_settings;

typedef struct fg_text_layout fg_text_layout;

/// Loads fontconfig's configuration and font caches, once per process (as FcInit does, without
/// its parse of the template directory; fonts.c); nonzero on success. Layouts load it themselves
/// when it is not loaded yet.
int fg_text_load_fonts(void);

/// Lays the text out. On success returns FG_TEXT_OK with *out set; otherwise a status, *out NULL
/// and a sentence in `message` (NUL-terminated, truncated to `capacity`).
int fg_text_layout_create(const fg_text_settings *settings, fg_text_layout **out, char *message, size_t capacity);
/// Frees a layout (NULL is fine).
void fg_text_layout_free(fg_text_layout *layout);
/// The image size in whole pixels.
int fg_text_layout_width(const fg_text_layout *layout);
int fg_text_layout_height(const fg_text_layout *layout);
/// The number of lines.
int fg_text_layout_line_count(const fg_text_layout *layout);
/// The baseline of the first line, in pixels from the image's top.
double fg_text_layout_first_baseline(const fg_text_layout *layout);
/// A warning for the user (a family fontconfig did not have and replaced), or NULL.
const char *fg_text_layout_warning(const fg_text_layout *layout);

/// One placed glyph, in visual order line by line.
typedef struct {
  int line;           ///< its line, from 0
  int run;            ///< its run (index into the settings' runs)
  int font;           ///< index into its run's fonts (fg_text_layout_font_file)
  uint32_t glyph;     ///< the glyph id in that font
  uint32_t cluster;   ///< UTF-8 byte offset of its cluster in the whole string
  int32_t advance;    ///< HarfBuzz's x advance, 1/1024 pixels
  double x, y;        ///< its origin (pen position plus offset) in image pixels, y down
} fg_text_glyph;

size_t fg_text_layout_glyph_count(const fg_text_layout *layout);
/// Copies glyph `index` (0 ≤ index < count) into *glyph; returns 0 when out of range.
int fg_text_layout_glyph(const fg_text_layout *layout, size_t index, fg_text_glyph *glyph);
/// The file of font `index` of run `run`'s fonts, or NULL.
const char *fg_text_layout_font_file(const fg_text_layout *layout, int run, int index);

/// Rasterises the `width` × `height` region at (x, y) of the text image into `pixels`: four
/// floats a pixel (premultiplied linear-light RGBA), rows `row_floats` floats apart, zeroed by the
/// caller; only glyphs whose ink (HarfBuzz's extents, a pixel of anti-aliasing around them) meets
/// the region are loaded. `colors` holds four floats per run: its text colour, linear light,
/// straight alpha; colour glyphs keep their own colours and take only its alpha. Returns the
/// number of glyphs FreeType could not load or render (drawn as nothing), normally 0.
size_t fg_text_layout_render(fg_text_layout *layout, int x, int y, int width, int height, float *pixels, size_t row_floats,
                             const float *colors);

/// 1 when a placed glyph comes from a font with colour glyphs (a bitmap strike, or FreeType's
/// FT_HAS_COLOR: CBDT, sbix, COLR): such a text is drawn with fg_text_layout_render.
int fg_text_layout_has_color_glyphs(const fg_text_layout *layout);

/// As fg_text_layout_render, for a text of one colour without colour glyphs, into its alpha
/// alone: one float a pixel (`row_floats` apart, zeroed by the caller), each glyph's coverage
/// times `color_alpha` laid over ("over") what is there. The same floats as the fourth channel
/// fg_text_layout_render gives; the pixels are the colour (linear light) times this alpha.
size_t fg_text_layout_render_alpha(fg_text_layout *layout, int x, int y, int width, int height, float *alpha,
                                   size_t row_floats, float color_alpha);

#ifdef __cplusplus
}
#endif

#endif
