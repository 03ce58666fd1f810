// layout.c — from a UTF-8 string to placed glyphs: paragraphs, bidi levels (ICU ubidi, UAX #9),
// runs of one level, script and font, shaping (HarfBuzz), line breaking (ICU's UAX #14 iterator,
// greedy fill, over-long words cut between clusters), visual order (UAX #9 L2), alignment.
#include "text_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ubidi.h>
#include <unicode/ubrk.h>
#include <unicode/utext.h>

/// The code point at s[*i] (advancing *i), or -1 for invalid UTF-8 (overlong, surrogate, > U+10FFFF).
static int32_t next_code_point(const uint8_t *s, size_t n, size_t *i) {
  uint8_t b = s[*i];
  int length = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
  if (length == 0 || *i + (size_t)length > n) return -1;
  int32_t cp = length == 1 ? b : length == 2 ? (b & 0x1F) : length == 3 ? (b & 0x0F) : (b & 0x07);
  for (int k = 1; k < length; k++) {
    if ((s[*i + (size_t)k] & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (s[*i + (size_t)k] & 0x3F);
  }
  static const int32_t smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  *i += (size_t)length;
  return cp;
}

/// The code point ending at byte `end` (valid UTF-8 already), and its start in *start.
static int32_t previous_code_point(const uint8_t *s, size_t end, size_t *start) {
  size_t i = end - 1;
  while (i > 0 && (s[i] & 0xC0) == 0x80) i--;
  *start = i;
  size_t j = i;
  return next_code_point(s, end, &j);
}

/// Spaces a line may end in without showing them (UAX #14's breaks follow them), and the
/// mandatory breaks inside a paragraph.
static int is_trailing_space(int32_t cp) {
  return cp == ' ' || cp == '\t' || cp == 0x3000 || (cp >= 0x2000 && cp <= 0x200A && cp != 0x2007) || cp == 0x205F ||
         cp == 0x1680 || cp == 0x2028 || cp == 0x2029 || cp == 0x0B || cp == 0x0C || cp == 0x85 || cp == '\r';
}

/// Characters set in the previous character's font: marks, joiners, variation selectors, emoji
/// modifiers and tags (they belong to the cluster before them).
static int follows_previous(hb_unicode_funcs_t *unicode, int32_t cp) {
  hb_unicode_general_category_t category = hb_unicode_general_category(unicode, (hb_codepoint_t)cp);
  return category == HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK ||
         category == HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK ||
         category == HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK || cp == 0x200C || cp == 0x200D ||
         (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0x1F3FB && cp <= 0x1F3FF) || (cp >= 0xE0020 && cp <= 0xE007F);
}

/// Characters shown as emoji (in a colour font): the pictographic planes' symbols and emoji
/// (U+1F000…U+1FAFF, regional indicators among them), and any character followed by VS16.
static int wants_colour(int32_t cp, int32_t next) {
  return (cp >= 0x1F000 && cp <= 0x1FAFF) || next == 0xFE0F;
}

typedef struct { size_t start, end; int level; hb_script_t script; int run, font; size_t first, last; } item;
typedef struct { uint32_t glyph, cluster; int32_t ax, dx, dy; } shaped;
typedef struct { size_t start, end; int level, item; } piece;

/// One paragraph's working state.
typedef struct {
  fg_text_layout *layout;
  const fg_text_run *runs;
  const uint8_t *text;
  size_t start, end;       // byte range in the whole string
  uint8_t *levels;         // per byte (at code point starts)
  hb_script_t *scripts;    // per byte
  int64_t *prefix;         // prefix[k] = advances of clusters starting before byte start + k
  uint8_t *cluster_start;  // per byte: a cluster starts here
  item *items; size_t item_count;
  shaped *glyphs; size_t glyph_count;
  int base_level;
} paragraph;

#define GROW(array, count, capacity, type)                                                  \
  do {                                                                                      \
    if ((count) == (capacity)) {                                                            \
      size_t grown_ = (capacity) ? (capacity) * 2 : 64;                                     \
      type *more_ = realloc((array), sizeof(type) * grown_);                                \
      if (!more_) return FG_TEXT_FAILED;                                                    \
      (array) = more_;                                                                      \
      (capacity) = grown_;                                                                  \
    }                                                                                       \
  } while (0)

/// Bidi levels per byte from ICU (the paragraph converted to UTF-16 for it).
static int resolve_levels(paragraph *p) {
  size_t n = p->end - p->start;
  UChar *units = malloc(sizeof(UChar) * (n + 1));
  size_t *byte_of = malloc(sizeof(size_t) * (n + 1));
  if (!units || !byte_of) { free(units); free(byte_of); return FG_TEXT_FAILED; }
  size_t count = 0;
  for (size_t i = p->start; i < p->end;) {
    size_t at = i;
    int32_t cp = next_code_point(p->text, p->end, &i);
    if (cp >= 0x10000) {
      units[count] = (UChar)(0xD7C0 + (cp >> 10)); byte_of[count++] = at;
      units[count] = (UChar)(0xDC00 | (cp & 0x3FF)); byte_of[count++] = at;
    } else {
      units[count] = (UChar)cp; byte_of[count++] = at;
    }
  }
  UErrorCode status = U_ZERO_ERROR;
  UBiDi *bidi = ubidi_open();
  if (bidi) ubidi_setPara(bidi, units, (int32_t)count, UBIDI_DEFAULT_LTR, NULL, &status);
  const UBiDiLevel *levels = bidi && U_SUCCESS(status) ? ubidi_getLevels(bidi, &status) : NULL;
  int ok = levels && U_SUCCESS(status);
  if (ok) {
    p->base_level = ubidi_getParaLevel(bidi) & 1;
    for (size_t k = 0; k < count; k++) p->levels[byte_of[k] - p->start] = levels[k];
  }
  if (bidi) ubidi_close(bidi);
  free(units);
  free(byte_of);
  return ok ? FG_TEXT_OK : FG_TEXT_FAILED;
}

/// The run holding byte `at` (the runs cover the text in order).
static int run_at(const fg_text_layout *l, const fg_text_run *runs, size_t at) {
  size_t low = 0, high = l->run_count - 1;
  while (low < high) {
    size_t middle = (low + high + 1) / 2;
    if (runs[middle].start <= at) low = middle; else high = middle - 1;
  }
  return (int)low;
}

/// The fonts of run `run`.
static fg_fonts *run_fonts(const fg_text_layout *l, int run) { return &l->fonts[l->run_fonts[run]]; }

/// Splits the paragraph into items (one level, script, run and font) and shapes each.
static int itemize_and_shape(paragraph *p) {
  hb_unicode_funcs_t *unicode = hb_unicode_funcs_get_default();
  size_t n = p->end - p->start;
  // Scripts: Common and Inherited take the script before them (or, leading, the one after).
  hb_script_t current = HB_SCRIPT_COMMON;
  for (size_t i = p->start; i < p->end;) {
    size_t at = i;
    hb_script_t s = hb_unicode_script(unicode, (hb_codepoint_t)next_code_point(p->text, p->end, &i));
    if (s == HB_SCRIPT_COMMON || s == HB_SCRIPT_INHERITED || s == HB_SCRIPT_UNKNOWN) s = current;
    p->scripts[at - p->start] = current = s;
  }
  current = HB_SCRIPT_COMMON;
  for (size_t k = n; k-- > 0;) {
    if (k > 0 && (p->text[p->start + k] & 0xC0) == 0x80) continue;
    if (p->scripts[k] == HB_SCRIPT_COMMON) p->scripts[k] = current; else current = p->scripts[k];
  }
  size_t item_capacity = 0, glyph_capacity = 0;
  int previous_font = -1, run = run_at(p->layout, p->runs, p->start);
  int32_t previous_cp = 0;
  for (size_t i = p->start; i < p->end;) {
    size_t at = i;
    int32_t cp = next_code_point(p->text, p->end, &i);
    size_t after = i;
    int32_t next = i < p->end ? next_code_point(p->text, p->end, &after) : 0;
    if (at >= p->runs[run].end) {  // a new run: its own fonts, chosen afresh
      while (at >= p->runs[run].end) run++;
      previous_font = -1;
    }
    fg_fonts *fonts = run_fonts(p->layout, run);
    int font = previous_font >= 0 && (follows_previous(unicode, cp) || (previous_cp == 0x200D && fg_fonts_has(fonts, previous_font, (uint32_t)cp)))
                   ? previous_font : fg_fonts_choose(fonts, (uint32_t)cp, wants_colour(cp, next));
    int level = p->levels[at - p->start];
    hb_script_t script = p->scripts[at - p->start];
    item *last = p->item_count ? &p->items[p->item_count - 1] : NULL;
    if (last && last->level == level && last->script == script && last->run == run && last->font == font) {
      last->end = i;
    } else {
      GROW(p->items, p->item_count, item_capacity, item);
      p->items[p->item_count++] = (item){at, i, level, script, run, font, 0, 0};
    }
    previous_font = font;
    previous_cp = cp;
    if (fonts->out_of_memory) return FG_TEXT_FAILED;  // the fallback order could not be made
  }
  hb_buffer_t *buffer = hb_buffer_create();
  if (!hb_buffer_allocation_successful(buffer)) return FG_TEXT_FAILED;
  for (size_t k = 0; k < p->item_count; k++) {
    item *it = &p->items[k];
    hb_buffer_clear_contents(buffer);
    hb_buffer_add_utf8(buffer, (const char *)p->text, (int)p->end, (unsigned)it->start, (int)(it->end - it->start));
    hb_buffer_set_direction(buffer, it->level & 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
    hb_buffer_set_script(buffer, it->script);
    hb_buffer_set_language(buffer, hb_language_get_default());
    hb_buffer_set_flags(buffer, (hb_buffer_flags_t)((it->start == p->start ? HB_BUFFER_FLAG_BOT : 0) |
                                                    (it->end == p->end ? HB_BUFFER_FLAG_EOT : 0)));
    hb_shape(run_fonts(p->layout, it->run)->fonts[it->font].hb, buffer, NULL, 0);
    unsigned count = 0;
    hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buffer, &count);
    hb_glyph_position_t *position = hb_buffer_get_glyph_positions(buffer, &count);
    if (!hb_buffer_allocation_successful(buffer)) { hb_buffer_destroy(buffer); return FG_TEXT_FAILED; }
    it->first = p->glyph_count;
    for (unsigned g = 0; g < count; g++) {
      if (p->glyph_count == glyph_capacity) {
        size_t grown = glyph_capacity ? glyph_capacity * 2 : 256;
        shaped *more = realloc(p->glyphs, sizeof(shaped) * grown);
        if (!more) { hb_buffer_destroy(buffer); return FG_TEXT_FAILED; }
        p->glyphs = more;
        glyph_capacity = grown;
      }
      p->glyphs[p->glyph_count++] = (shaped){info[g].codepoint, info[g].cluster, position[g].x_advance,
                                             position[g].x_offset, position[g].y_offset};
      p->prefix[info[g].cluster - p->start + 1] += position[g].x_advance;
      p->cluster_start[info[g].cluster - p->start] = 1;
    }
    it->last = p->glyph_count;
  }
  hb_buffer_destroy(buffer);
  for (size_t k = 0; k < n; k++) p->prefix[k + 1] += p->prefix[k];
  return FG_TEXT_OK;
}

/// The end of [start, end) without its trailing spaces.
static size_t trimmed(const paragraph *p, size_t start, size_t end) {
  while (end > start) {
    size_t before;
    if (!is_trailing_space(previous_code_point(p->text, end, &before))) break;
    end = before;
  }
  return end;
}

/// The width of [start, end) without trailing spaces, in 1/1024 px.
static int64_t measure(const paragraph *p, size_t start, size_t end) {
  return p->prefix[trimmed(p, start, end) - p->start] - p->prefix[start - p->start];
}

/// The layout being built: its glyphs, and each line's width, ascent and descent.
typedef struct {
  fg_text_layout *layout;
  const fg_text_run *runs;
  double *line_width, *line_ascent, *line_descent; size_t line_capacity;
  size_t *line_first;  // each line's first glyph
  double wrap;         // wrap width in 1/1024 px, 0 for none
  int justify;
} builder;

static int add_glyph(builder *b, fg_text_glyph glyph) {
  fg_text_layout *l = b->layout;
  GROW(l->glyphs, l->glyph_count, l->glyph_capacity, fg_text_glyph);
  l->glyphs[l->glyph_count++] = glyph;
  return FG_TEXT_OK;
}

/// Lays out one line [start, end) of the paragraph: its pieces in visual order (UAX #9 L2: from
/// the highest level down to the lowest odd one, reverse every run of pieces at that level or
/// higher), their glyphs placed along the pen. `soft` lines (ended by wrapping) may be justified.
static int emit_line(builder *b, const paragraph *p, size_t start, size_t end, int soft) {
  fg_text_layout *l = b->layout;
  end = trimmed(p, start, end);
  piece *pieces = NULL; size_t count = 0, capacity = 0;
  int highest = 0, lowest_odd = 127;
  for (size_t k = 0; k < p->item_count; k++) {
    const item *it = &p->items[k];
    if (it->end <= start || it->start >= end) continue;
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 16;
      piece *more = realloc(pieces, sizeof(piece) * capacity);
      if (!more) { free(pieces); return FG_TEXT_FAILED; }
      pieces = more;
    }
    pieces[count++] = (piece){it->start > start ? it->start : start, it->end < end ? it->end : end, it->level, (int)k};
    if (it->level > highest) highest = it->level;
    if ((it->level & 1) && it->level < lowest_odd) lowest_odd = it->level;
  }
  for (int level = highest; level >= lowest_odd; level--) {
    for (size_t i = 0; i < count;) {
      if (pieces[i].level < level) { i++; continue; }
      size_t j = i;
      while (j < count && pieces[j].level >= level) j++;
      for (size_t a = i, z = j - 1; a < z; a++, z--) { piece t = pieces[a]; pieces[a] = pieces[z]; pieces[z] = t; }
      i = j;
    }
  }
  int spaces = 0;
  for (size_t i = start; i < end; i++) spaces += p->text[i] == ' ';
  double extra = 0;
  if (b->justify && soft && spaces > 0 && b->wrap > 0) {
    double natural = (double)measure(p, start, end);
    if (natural < b->wrap) extra = (b->wrap - natural) / spaces;
  }
  int line = l->lines;
  if ((size_t)line == b->line_capacity) {
    size_t grown = b->line_capacity ? b->line_capacity * 2 : 64;
    double *w = realloc(b->line_width, sizeof(double) * grown);
    if (w) b->line_width = w;
    double *a = realloc(b->line_ascent, sizeof(double) * grown);
    if (a) b->line_ascent = a;
    double *d = realloc(b->line_descent, sizeof(double) * grown);
    if (d) b->line_descent = d;
    size_t *f = realloc(b->line_first, sizeof(size_t) * grown);
    if (f) b->line_first = f;
    if (!w || !a || !d || !f) { free(pieces); return FG_TEXT_FAILED; }
    b->line_capacity = grown;
  }
  b->line_first[line] = l->glyph_count;
  // The line box: the largest ascent and descent of its runs' first fonts, rounded up to whole
  // pixels (as Pango does: baselines fall on pixel edges, flat tops and bottoms stay crisp).
  b->line_ascent[line] = b->line_descent[line] = 0;
  for (size_t k = 0; k < (count ? count : 1); k++) {
    int run = count ? p->items[pieces[k].item].run : run_at(l, b->runs, start);
    hb_font_extents_t extents = {0};
    hb_font_get_h_extents(run_fonts(l, run)->fonts[0].hb, &extents);
    b->line_ascent[line] = fmax(b->line_ascent[line], ceil(extents.ascender / FG_TEXT_UNITS));
    b->line_descent[line] = fmax(b->line_descent[line], ceil(-extents.descender / FG_TEXT_UNITS));
  }
  double pen = 0;
  int status = FG_TEXT_OK;
  for (size_t k = 0; k < count && status == FG_TEXT_OK; k++) {
    const item *it = &p->items[pieces[k].item];
    for (size_t g = it->first; g < it->last && status == FG_TEXT_OK; g++) {
      const shaped *s = &p->glyphs[g];
      if (s->cluster < pieces[k].start || s->cluster >= pieces[k].end) continue;
      status = add_glyph(b, (fg_text_glyph){line, it->run, it->font, s->glyph, s->cluster, s->ax, (pen + s->dx) / FG_TEXT_UNITS, -s->dy / FG_TEXT_UNITS});
      pen += s->ax;
      if (p->text[s->cluster] == ' ') pen += extra;
    }
  }
  free(pieces);
  b->line_width[line] = pen / FG_TEXT_UNITS;
  l->lines++;
  return status;
}

/// The end of the line starting at `start` when lines are not wrapped: after the first mandatory
/// break of UAX #14 (LB4, LB5: after BK — VT, FF, U+2028, U+2029 —, LF, NEL, and CR unless an LF
/// follows it), or the paragraph's end. The same lines ICU's iterator gives without wrapping, with
/// no iterator to open (its rules and dictionaries are the most of a short text's layout).
static size_t mandatory_break(const paragraph *p, size_t start) {
  for (size_t i = start; i < p->end;) {
    int32_t cp = next_code_point(p->text, p->end, &i);
    if (cp == 0x0B || cp == 0x0C || cp == 0x2028 || cp == 0x2029 || cp == 0x0A || cp == 0x85) return i;
    if (cp == 0x0D && (i == p->end || p->text[i] != 0x0A)) return i;
  }
  return p->end;
}

/// Breaks the paragraph into lines: at every mandatory break, and, when wrapping, at the last
/// break opportunity that fits; a word wider than the box alone is cut between clusters.
static int break_lines(builder *b, const paragraph *p) {
  if (p->end == p->start) return emit_line(b, p, p->start, p->end, 0);
  if (b->wrap <= 0) {
    int result = FG_TEXT_OK;
    for (size_t start = p->start; start < p->end && result == FG_TEXT_OK;) {
      size_t end = mandatory_break(p, start);
      result = emit_line(b, p, start, end, 0);
      start = end;
    }
    return result;
  }
  UErrorCode status = U_ZERO_ERROR;
  UText *text = utext_openUTF8(NULL, (const char *)p->text + p->start, (int64_t)(p->end - p->start), &status);
  UBreakIterator *breaks = U_SUCCESS(status) ? ubrk_open(UBRK_LINE, "", NULL, 0, &status) : NULL;
  if (breaks) ubrk_setUText(breaks, text, &status);
  if (U_FAILURE(status)) {
    if (breaks) ubrk_close(breaks);
    utext_close(text);
    return FG_TEXT_FAILED;
  }
  size_t line_start = p->start, fit = 0;
  int result = FG_TEXT_OK;
  int32_t at = ubrk_first(breaks);
  at = ubrk_next(breaks);
  while (at != UBRK_DONE && result == FG_TEXT_OK) {
    size_t end = p->start + (size_t)at;
    int hard = ubrk_getRuleStatus(breaks) >= UBRK_LINE_HARD || end == p->end;
    if (b->wrap > 0 && measure(p, line_start, end) > b->wrap) {
      if (fit > line_start) {
        result = emit_line(b, p, line_start, fit, 1);
        line_start = fit;
        fit = 0;
        continue;  // the same opportunity, measured from the new line's start
      }
      // One word wider than the box: cut after the last cluster that fits (at least one).
      size_t cut = 0;
      for (size_t c = line_start + 1; c < end; c++)
        if (p->cluster_start[c - p->start] && (cut == 0 || measure(p, line_start, c) <= b->wrap)) cut = c;
        else if (p->cluster_start[c - p->start]) break;
      if (cut > line_start) {
        result = emit_line(b, p, line_start, cut, 1);
        line_start = cut;
        continue;
      }
    }
    fit = end;
    if (hard) {
      result = emit_line(b, p, line_start, end, 0);
      line_start = end;
      fit = 0;
    }
    at = ubrk_next(breaks);
  }
  ubrk_close(breaks);
  utext_close(text);
  return result;
}

static int lay_out_paragraph(builder *b, const uint8_t *text, size_t start, size_t end) {
  paragraph p = {.layout = b->layout, .runs = b->runs, .text = text, .start = start, .end = end};
  size_t n = end - start;
  p.levels = calloc(n + 1, 1);
  p.scripts = calloc(n + 1, sizeof(hb_script_t));
  p.prefix = calloc(n + 2, sizeof(int64_t));
  p.cluster_start = calloc(n + 1, 1);
  int status = p.levels && p.scripts && p.prefix && p.cluster_start ? FG_TEXT_OK : FG_TEXT_FAILED;
  if (status == FG_TEXT_OK && n > 0) status = resolve_levels(&p);
  if (status == FG_TEXT_OK && n > 0) status = itemize_and_shape(&p);
  if (status == FG_TEXT_OK) status = break_lines(b, &p);
  free(p.levels); free(p.scripts); free(p.prefix); free(p.cluster_start); free(p.items); free(p.glyphs);
  return status;
}

/// Aligns the lines in the box, sets baselines, and sizes the image to the line boxes and every
/// glyph's ink (HarfBuzz's extents), moving the glyphs so the image starts at (0, 0).
static int place(builder *b, const fg_text_settings *settings, char *message, size_t capacity) {
  fg_text_layout *l = b->layout;
  // Baselines: the first line's ascent down, then each line's descent and the next one's
  // ascent, times the line spacing (one font: a constant pitch of (ascent + descent) × spacing).
  double box = settings->width;
  for (int i = 0; i < l->lines; i++) if (b->line_width[i] > box && settings->width <= 0) box = b->line_width[i];
  double baseline = b->line_ascent[0];
  double left = 0, top = 0, right = box, bottom = 0;
  for (int i = 0; i < l->lines; i++) {
    double free_space = box - b->line_width[i], shift = 0;
    if (settings->align == FG_TEXT_ALIGN_CENTRE) shift = free_space / 2;
    else if (settings->align == FG_TEXT_ALIGN_RIGHT) shift = free_space;
    if (i > 0) baseline += (b->line_descent[i - 1] + b->line_ascent[i]) * settings->line_spacing;
    if (baseline + b->line_descent[i] > bottom) bottom = baseline + b->line_descent[i];
    size_t last = i + 1 < l->lines ? b->line_first[i + 1] : l->glyph_count;
    for (size_t g = b->line_first[i]; g < last; g++) {
      fg_text_glyph *glyph = &l->glyphs[g];
      glyph->x += shift;
      glyph->y += baseline;
      hb_glyph_extents_t ink;
      if (!hb_font_get_glyph_extents(run_fonts(l, glyph->run)->fonts[glyph->font].hb, glyph->glyph, &ink) || ink.width == 0) continue;
      double x0 = glyph->x + ink.x_bearing / FG_TEXT_UNITS, y0 = glyph->y - ink.y_bearing / FG_TEXT_UNITS;
      double x1 = x0 + ink.width / FG_TEXT_UNITS, y1 = y0 - ink.height / FG_TEXT_UNITS;
      if (x0 < left) left = x0;
      if (x1 > right) right = x1;
      if (y0 < top) top = y0;
      if (y1 > bottom) bottom = y1;
    }
  }
  left = floor(left); top = floor(top);
  double width = ceil(right - left), height = ceil(bottom - top);
  if (width < 1) width = 1;
  if (height < 1) height = 1;
  if (width > settings->max_side || height > settings->max_side || width * height > settings->max_pixels) {
    fg_text_message(message, capacity,
                    "the text would be %.0fx%.0f pixels (%d lines), over the limit of %d pixels a side and %.0f pixels in all; "
                    "use a smaller size, fewer lines or a width= to wrap",
                    width, height, l->lines, settings->max_side, settings->max_pixels);
    return FG_TEXT_TOO_LARGE;
  }
  for (size_t g = 0; g < l->glyph_count; g++) { l->glyphs[g].x -= left; l->glyphs[g].y -= top; }
  l->width = (int)width;
  l->height = (int)height;
  l->first_baseline = b->line_ascent[0] - top;
  return FG_TEXT_OK;
}

/// The runs cover the text in order, each with a size of 1…16384 px.
static int check_runs(const fg_text_settings *settings, char *message, size_t capacity) {
  size_t count = settings->run_count, at = 0;
  if (count == 0 || count > FG_TEXT_MAX_RUNS) {
    fg_text_message(message, capacity, "the text has %zu runs; it needs 1…%d", count, FG_TEXT_MAX_RUNS);
    return count ? FG_TEXT_TOO_LARGE : FG_TEXT_BAD_INPUT;
  }
  for (size_t k = 0; k < count; k++) {
    const fg_text_run *run = &settings->runs[k];
    if (run->start != at || run->end < run->start || (run->end == run->start && count > 1)) {
      fg_text_message(message, capacity, "run %zu (bytes %zu…%zu) does not follow the previous one", k, run->start, run->end);
      return FG_TEXT_BAD_INPUT;
    }
    if (!(run->size >= 1 && run->size <= 16384)) {
      fg_text_message(message, capacity, "the size must be 1…16384 px (run %zu's is %g)", k, run->size);
      return FG_TEXT_BAD_INPUT;
    }
    at = run->end;
  }
  if (at != settings->text_length) {
    fg_text_message(message, capacity, "the runs cover %zu bytes of the %zu-byte text", at, settings->text_length);
    return FG_TEXT_BAD_INPUT;
  }
  return FG_TEXT_OK;
}

static int same_string(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/// Opens the fonts of every run, once per different font (family, file, size, weight, slant).
static int open_run_fonts(fg_text_layout *l, const fg_text_settings *settings, char *message, size_t capacity) {
  l->run_count = settings->run_count;
  l->run_fonts = malloc(sizeof(int) * l->run_count);
  l->fonts = calloc(FG_TEXT_MAX_FONTS, sizeof(fg_fonts));
  if (!l->run_fonts || !l->fonts) { fg_text_message(message, capacity, "out of memory"); return FG_TEXT_FAILED; }
  size_t first_run[FG_TEXT_MAX_FONTS];  // the run each font set was opened for
  for (size_t k = 0; k < l->run_count; k++) {
    const fg_text_run *run = &settings->runs[k];
    int found = -1;
    for (int j = 0; j < l->font_count && found < 0; j++) {
      const fg_text_run *o = &settings->runs[first_run[j]];
      if (same_string(o->family, run->family) && same_string(o->font_file, run->font_file) && o->size == run->size &&
          o->weight == run->weight && o->italic == run->italic)
        found = j;
    }
    if (found < 0) {
      if (l->font_count == FG_TEXT_MAX_FONTS) {
        fg_text_message(message, capacity, "the text uses more than %d different fonts", FG_TEXT_MAX_FONTS);
        return FG_TEXT_TOO_LARGE;
      }
      int status = fg_fonts_open(&l->fonts[l->font_count], run, message, capacity);
      first_run[l->font_count++] = k;  // closed by fg_text_layout_free even when it failed half-way
      if (status != FG_TEXT_OK) return status;
      found = l->font_count - 1;
    }
    l->run_fonts[k] = found;
  }
  return FG_TEXT_OK;
}

int fg_text_layout_create(const fg_text_settings *settings, fg_text_layout **out, char *message, size_t capacity) {
  *out = NULL;
  if (message && capacity) message[0] = 0;
  const uint8_t *text = (const uint8_t *)settings->text;
  size_t n = settings->text_length;
  if (n > settings->max_bytes) {
    fg_text_message(message, capacity, "the text is %zu bytes; the limit is %zu", n, settings->max_bytes);
    return FG_TEXT_TOO_LARGE;
  }
  if (!(settings->width >= 0) || !(settings->line_spacing > 0)) {
    fg_text_message(message, capacity, "the width must be positive and the line spacing above 0");
    return FG_TEXT_BAD_INPUT;
  }
  int status = check_runs(settings, message, capacity);
  if (status != FG_TEXT_OK) return status;
  for (size_t i = 0; i < n;) {
    size_t at = i;
    int32_t cp = next_code_point(text, n, &i);
    if (cp < 0 || cp == 0) {
      fg_text_message(message, capacity, cp ? "the text is not valid UTF-8 (at byte %zu)" : "the text holds a NUL character (at byte %zu)", at);
      return FG_TEXT_BAD_INPUT;
    }
  }
  fg_text_layout *l = calloc(1, sizeof *l);
  if (!l) { fg_text_message(message, capacity, "out of memory"); return FG_TEXT_FAILED; }
  status = open_run_fonts(l, settings, message, capacity);
  builder b = {.layout = l, .runs = settings->runs, .wrap = settings->width * FG_TEXT_UNITS,
               .justify = settings->align == FG_TEXT_ALIGN_JUSTIFY};
  for (size_t start = 0; status == FG_TEXT_OK && start <= n;) {
    size_t end = start;
    while (end < n && text[end] != '\n') end++;
    size_t content = end > start && text[end - 1] == '\r' ? end - 1 : end;
    status = lay_out_paragraph(&b, text, start, content);
    start = end + 1;
  }
  if (status == FG_TEXT_OK) status = place(&b, settings, message, capacity);
  else if (status == FG_TEXT_FAILED && message && !message[0]) fg_text_message(message, capacity, "out of memory laying the text out");
  free(b.line_width);
  free(b.line_ascent);
  free(b.line_descent);
  free(b.line_first);
  if (status != FG_TEXT_OK) { fg_text_layout_free(l); return status; }
  *out = l;
  return FG_TEXT_OK;
}

void fg_text_layout_free(fg_text_layout *layout) {
  if (!layout) return;
  for (int i = 0; layout->fonts && i < layout->font_count; i++) fg_fonts_close(&layout->fonts[i]);
  free(layout->fonts);
  free(layout->run_fonts);
  free(layout->glyphs);
  free(layout);
}

int fg_text_layout_width(const fg_text_layout *layout) { return layout->width; }
int fg_text_layout_height(const fg_text_layout *layout) { return layout->height; }
int fg_text_layout_line_count(const fg_text_layout *layout) { return layout->lines; }
double fg_text_layout_first_baseline(const fg_text_layout *layout) { return layout->first_baseline; }
const char *fg_text_layout_warning(const fg_text_layout *layout) {
  for (int i = 0; i < layout->font_count; i++) if (layout->fonts[i].warning[0]) return layout->fonts[i].warning;
  return NULL;
}
size_t fg_text_layout_glyph_count(const fg_text_layout *layout) { return layout->glyph_count; }

int fg_text_layout_glyph(const fg_text_layout *layout, size_t index, fg_text_glyph *glyph) {
  if (index >= layout->glyph_count) return 0;
  *glyph = layout->glyphs[index];
  return 1;
}

const char *fg_text_layout_font_file(const fg_text_layout *layout, int run, int index) {
  if (run < 0 || (size_t)run >= layout->run_count) return NULL;
  const fg_fonts *fonts = &layout->fonts[layout->run_fonts[run]];
  return index >= 0 && index < fonts->count ? fonts->fonts[index].path : NULL;
}
