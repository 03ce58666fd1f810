// fonts.c — finding and opening fonts: fontconfig's match and fallback order, FreeType faces at
// the layout's size (bitmap strikes chosen and scaled), HarfBuzz fonts for shaping.
#include "text_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void fg_text_message(char *message, size_t capacity, const char *format, ...) {
  if (!message || capacity == 0) return;
  va_list args;
  va_start(args, format);
  vsnprintf(message, capacity, format, args);
  va_end(args);
}

/// True when the configuration names a cache directory.
static int has_cache_directory(FcConfig *config) {
  FcStrList *directories = FcConfigGetCacheDirs(config);
  int found = directories && FcStrListNext(directories) != NULL;
  if (directories) FcStrListDone(directories);
  return found;
}

static int fonts_loaded;
static pthread_once_t fonts_once = PTHREAD_ONCE_INIT;

/// fontconfig's configuration and font caches, loaded as FcInit loads them less one step: after
/// the configuration, FcInit parses every file of the template directory (conf.avail) once more
/// without applying any, only so that fc-conflist can describe the files not enabled. That parse
/// is about half of FcInit's time (7 ms of CPU against 3.2 without it, Debian's 2.14 with its
/// 46 enabled files), and text is laid out only once it is done. The configuration applied, the
/// fonts found and their order are the same (substitutions and FcFontSort lists compared for
/// families, generics and languages). A configuration that cannot be read or names no cache
/// directory (FcInit then falls back to a built-in one, or warns and adds the user's) is left to
/// FcInit. The configuration stays current for the process's life, as FcInit's does: it is not
/// destroyed here (fontconfig before 2.13.91 takes no reference to the current configuration).
/// fontconfig's FC_DEBUG tracing of the configuration's parse (1024) prints nothing here.
static void load_fonts(void) {
  FcConfig *config = FcConfigCreate();
  if (config && FcConfigParseAndLoad(config, NULL, FcTrue) && has_cache_directory(config) && FcConfigBuildFonts(config) &&
      FcConfigSetCurrent(config)) {
    fonts_loaded = 1;
    return;
  }
  if (config) FcConfigDestroy(config);
  fonts_loaded = FcInit() ? 1 : 0;
}

int fg_text_load_fonts(void) {
  pthread_once(&fonts_once, load_fonts);
  return fonts_loaded;
}

/// Opens `path` (face `index`) at the size; FG_TEXT_OK or FG_TEXT_BAD_FONT.
static int open_font(fg_fonts *fonts, const char *path, int index, FcCharSet *charset, char *message, size_t capacity) {
  if (fonts->count == fonts->capacity) {
    int grown = fonts->capacity ? fonts->capacity * 2 : 8;
    fg_font *more = realloc(fonts->fonts, sizeof(fg_font) * (size_t)grown);
    if (!more) { fg_text_message(message, capacity, "out of memory opening fonts"); return FG_TEXT_FAILED; }
    fonts->fonts = more;
    fonts->capacity = grown;
  }
  fg_font font = {0};
  FT_Error error = FT_New_Face(fonts->library, path, index, &font.face);
  if (error) {
    fg_text_message(message, capacity, "'%s' is not a font FreeType can read (FreeType error %d)", path, (int)error);
    return FG_TEXT_BAD_FONT;
  }
  if (FT_IS_SCALABLE(font.face)) {
    error = FT_Set_Char_Size(font.face, 0, (FT_F26Dot6)lround(fonts->size * 64), 72, 72);
  } else if (font.face->num_fixed_sizes > 0) {
    // The smallest strike at least as large as the size (sharpest when scaled down), else the largest.
    int best = 0;
    for (int i = 1; i < font.face->num_fixed_sizes; i++) {
      FT_Pos p = font.face->available_sizes[i].y_ppem, b = font.face->available_sizes[best].y_ppem;
      int pAbove = p >= fonts->size * 64, bAbove = b >= fonts->size * 64;
      if ((pAbove && (!bAbove || p < b)) || (!pAbove && !bAbove && p > b)) best = i;
    }
    error = FT_Select_Size(font.face, best);
    font.is_strike = 1;
    font.strike_scale = fonts->size * 64 / (double)font.face->available_sizes[best].y_ppem;
  } else {
    error = 1;
  }
  hb_blob_t *blob = error ? NULL : hb_blob_create_from_file_or_fail(path);
  hb_face_t *face = blob ? hb_face_create(blob, (unsigned)index) : NULL;
  hb_blob_destroy(blob);
  if (error || !face || hb_face_get_glyph_count(face) == 0) {
    hb_face_destroy(face);
    FT_Done_Face(font.face);
    fg_text_message(message, capacity, "'%s' is not a font FreeType can read at %g px", path, fonts->size);
    return FG_TEXT_BAD_FONT;
  }
  font.hb = hb_font_create(face);
  hb_face_destroy(face);
  int scale = (int)lround(fonts->size * FG_TEXT_UNITS);
  hb_font_set_scale(font.hb, scale, scale);
  font.path = strdup(path);
  font.index = index;
  font.charset = charset ? FcCharSetCopy(charset) : NULL;
  fonts->fonts[fonts->count++] = font;
  return FG_TEXT_OK;
}

static int is_generic(const char *family) {
  static const char *generic[] = {"sans-serif", "sans", "serif", "monospace", "mono", "emoji", "cursive", "fantasy", "system-ui"};
  for (size_t i = 0; i < sizeof generic / sizeof *generic; i++)
    if (strcasecmp(family, generic[i]) == 0) return 1;
  return 0;
}

/// Warns when fontconfig replaced a named family by another.
static void check_family(fg_fonts *fonts, const char *family, FcPattern *match) {
  if (!family || is_generic(family)) return;
  FcChar8 *name = NULL;
  for (int i = 0; FcPatternGetString(match, FC_FAMILY, i, &name) == FcResultMatch; i++)
    if (strcasecmp((const char *)name, family) == 0) return;
  if (FcPatternGetString(match, FC_FAMILY, 0, &name) != FcResultMatch) name = (FcChar8 *)"another font";
  fg_text_message(fonts->warning, sizeof fonts->warning,
                  "font family '%s' is not installed (fc-list lists the installed ones); using '%s'", family, name);
}

/// fontconfig's fallback order for the fonts' pattern (FcFontSort, trimmed to the fonts that add
/// coverage), made the first time a character needs more than the primary: sorting costs about
/// twice the primary's FcFontMatch, and most texts never need it. The primary, when it came from
/// fontconfig, is its entry in the order (it is the order's first font), so it is not opened twice.
/// 0 when out of memory.
static int sort_fallbacks(fg_fonts *fonts) {
  if (fonts->sorted || !fonts->pattern) return 1;
  fonts->sorted = 1;
  FcResult result;
  fonts->set = FcFontSort(NULL, fonts->pattern, FcTrue, NULL, &result);
  if (fonts->set && fonts->set->nfont == 0) {
    FcFontSetDestroy(fonts->set);
    fonts->set = NULL;
  }
  if (!fonts->set) return 1;
  fonts->set_font = malloc(sizeof(int) * (size_t)fonts->set->nfont);
  if (!fonts->set_font) {
    FcFontSetDestroy(fonts->set);
    fonts->set = NULL;
    return 0;
  }
  for (int i = 0; i < fonts->set->nfont; i++) {
    FcChar8 *file; int index = 0;
    FcPatternGetInteger(fonts->set->fonts[i], FC_INDEX, 0, &index);
    int primary = fonts->primary_matched && FcPatternGetString(fonts->set->fonts[i], FC_FILE, 0, &file) == FcResultMatch &&
                  strcmp((const char *)file, fonts->fonts[0].path) == 0 && index == fonts->fonts[0].index;
    fonts->set_font[i] = primary ? 0 : -1;
  }
  return 1;
}

int fg_fonts_open(fg_fonts *fonts, const fg_text_run *settings, char *message, size_t capacity) {
  memset(fonts, 0, sizeof *fonts);
  fonts->size = settings->size;
  if (FT_Init_FreeType(&fonts->library)) {
    fg_text_message(message, capacity, "FreeType could not start");
    return FG_TEXT_FAILED;
  }
  int status = FG_TEXT_OK;
  if (settings->font_file) {
    status = open_font(fonts, settings->font_file, 0, NULL, message, capacity);
    if (status != FG_TEXT_OK) return status;
  }
  FcPattern *pattern = fg_text_load_fonts() ? FcPatternCreate() : NULL;
  if (pattern) {
    const char *family = settings->family ? settings->family : "sans-serif";
    FcPatternAddString(pattern, FC_FAMILY, (const FcChar8 *)family);
    FcPatternAddInteger(pattern, FC_WEIGHT, settings->weight);
    FcPatternAddInteger(pattern, FC_SLANT, settings->italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN);
    FcConfigSubstitute(NULL, pattern, FcMatchPattern);
    FcDefaultSubstitute(pattern);
    fonts->pattern = pattern;
  }
  if (fonts->count == 0 && pattern) {
    // The primary is fontconfig's best match (the fallback order's first font) when it opens.
    FcResult result;
    FcPattern *match = FcFontMatch(NULL, pattern, &result);
    FcChar8 *file; int index = 0; FcCharSet *charset = NULL;
    if (match && FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch) {
      FcPatternGetInteger(match, FC_INDEX, 0, &index);
      FcPatternGetCharSet(match, FC_CHARSET, 0, &charset);
      if (open_font(fonts, (const char *)file, index, charset, NULL, 0) == FG_TEXT_OK) fonts->primary_matched = 1;
    }
    if (match) check_family(fonts, settings->family, match);
    if (match) FcPatternDestroy(match);
    // Else the first font of the fallback order that opens.
    if (fonts->count == 0) {
      if (!sort_fallbacks(fonts)) { fg_text_message(message, capacity, "out of memory opening fonts"); return FG_TEXT_FAILED; }
      for (int i = 0; fonts->set && i < fonts->set->nfont && fonts->count == 0; i++) {
        charset = NULL;
        if (FcPatternGetString(fonts->set->fonts[i], FC_FILE, 0, &file) != FcResultMatch) continue;
        FcPatternGetInteger(fonts->set->fonts[i], FC_INDEX, 0, &index);
        FcPatternGetCharSet(fonts->set->fonts[i], FC_CHARSET, 0, &charset);
        if (open_font(fonts, (const char *)file, index, charset, NULL, 0) == FG_TEXT_OK) fonts->set_font[i] = 0;
      }
    }
  }
  if (fonts->count == 0) {
    fg_text_message(message, capacity,
                    "no fonts are installed (fontconfig found none); install some, for example "
                    "'apt-get install fonts-dejavu-core' on Debian or Ubuntu, or give font= a font file");
    return FG_TEXT_NO_FONTS;
  }
  return FG_TEXT_OK;
}

void fg_fonts_close(fg_fonts *fonts) {
  for (int i = 0; i < fonts->count; i++) {
    hb_font_destroy(fonts->fonts[i].hb);
    FT_Done_Face(fonts->fonts[i].face);
    free(fonts->fonts[i].path);
    if (fonts->fonts[i].charset) FcCharSetDestroy(fonts->fonts[i].charset);
  }
  free(fonts->fonts);
  free(fonts->set_font);
  if (fonts->set) FcFontSetDestroy(fonts->set);
  if (fonts->pattern) FcPatternDestroy(fonts->pattern);
  if (fonts->library) FT_Done_FreeType(fonts->library);
  memset(fonts, 0, sizeof *fonts);
}

static int fg_fonts_choose_in(fg_fonts *fonts, uint32_t cp, int colour);

int fg_fonts_has(fg_fonts *fonts, int index, uint32_t cp) {
  fg_font *font = &fonts->fonts[index];
  if (font->charset) return FcCharSetHasChar(font->charset, cp);
  return FT_Get_Char_Index(font->face, cp) != 0;
}

int fg_fonts_choose(fg_fonts *fonts, uint32_t cp, int colour) {
  if (colour) {
    int found = fg_fonts_choose_in(fonts, cp, 1);
    if (found >= 0) return found;
  }
  if (fonts->count > 0 && fg_fonts_has(fonts, 0, cp)) return 0;
  int found = fg_fonts_choose_in(fonts, cp, 0);
  return found >= 0 ? found : 0;
}

static int fg_fonts_choose_in(fg_fonts *fonts, uint32_t cp, int colour) {
  if (!sort_fallbacks(fonts)) fonts->out_of_memory = 1;
  for (int i = 0; fonts->set && i < fonts->set->nfont; i++) {
    if (fonts->set_font[i] == -2) continue;
    FcBool is_colour = FcFalse;
    if (colour && (FcPatternGetBool(fonts->set->fonts[i], FC_COLOR, 0, &is_colour) != FcResultMatch || !is_colour)) continue;
    FcCharSet *charset = NULL;
    if (FcPatternGetCharSet(fonts->set->fonts[i], FC_CHARSET, 0, &charset) != FcResultMatch || !FcCharSetHasChar(charset, cp))
      continue;
    if (fonts->set_font[i] == -1) {
      FcChar8 *file; int index = 0;
      FcPatternGetInteger(fonts->set->fonts[i], FC_INDEX, 0, &index);
      if (FcPatternGetString(fonts->set->fonts[i], FC_FILE, 0, &file) != FcResultMatch ||
          open_font(fonts, (const char *)file, index, charset, NULL, 0) != FG_TEXT_OK) {
        fonts->set_font[i] = -2;
        continue;
      }
      fonts->set_font[i] = fonts->count - 1;
    }
    return fonts->set_font[i];
  }
  return -1;
}
