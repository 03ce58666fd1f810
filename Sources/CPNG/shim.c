// shim.c — libpng 1.6 behind a longjmp-free C interface (see include/cpng_shim.h).
//
// Rule: every exported function that calls libpng does `if (setjmp(png_jmpbuf(png))) ...` itself,
// so libpng's longjmp lands in this file and never unwinds a Swift frame.
#include "cpng_shim.h"

#include <png.h>

#include "idat.h"
#include <stdlib.h>
#include <string.h>

#define CPNG_MESSAGE_SIZE 256
#define CPNG_MAX_WARNINGS 16
/// The largest ancillary chunk libpng may allocate (iCCP, eXIf, text…): 64 MiB.
#define CPNG_CHUNK_MALLOC_MAX (64u * 1024u * 1024u)

typedef struct messages {
  char error[CPNG_MESSAGE_SIZE];
  int warning_count;
  char warnings[CPNG_MAX_WARNINGS][CPNG_MESSAGE_SIZE];
} messages;

static void copy_message(char *dst, const char *src) {
  if (src == NULL) src = "(no message)";
  strncpy(dst, src, CPNG_MESSAGE_SIZE - 1);
  dst[CPNG_MESSAGE_SIZE - 1] = 0;
}

static void add_warning(messages *m, const char *text) {
  if (m->warning_count < CPNG_MAX_WARNINGS) copy_message(m->warnings[m->warning_count], text);
  if (m->warning_count < 1000000) m->warning_count += 1;
}

static const char *get_warning(const messages *m, int index) {
  if (index < 0 || index >= m->warning_count || index >= CPNG_MAX_WARNINGS) return "";
  return m->warnings[index];
}

static int is_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

// MARK: - Reader

struct cpng_reader {
  png_structp png;
  png_infop info;
  cpng_source source;
  size_t offset;
  uint32_t max_dimension;
  int overrun;
  int failed;
  int info_done;
  int started;
  int image_done;
  uint32_t rows_done;
  cpng_info cached;
  messages msgs;
  /// Plain images (see idat.h) are decoded by the shim's own row reader from the first IDAT
  /// chunk's data on (`idat_offset`, `idat_length`); libpng reads only what comes before.
  int plain;
  size_t idat_offset;
  uint32_t idat_length;
  cpng_idat_reader *idat;
};

static void reader_error(png_structp png, png_const_charp text) {
  cpng_reader *r = (cpng_reader *)png_get_error_ptr(png);
  if (r != NULL && !r->overrun) copy_message(r->msgs.error, text);
  png_longjmp(png, 1);
}

static void reader_warning(png_structp png, png_const_charp text) {
  cpng_reader *r = (cpng_reader *)png_get_error_ptr(png);
  if (r != NULL) add_warning(&r->msgs, text);
}

static void reader_read(png_structp png, png_bytep out, size_t count) {
  cpng_reader *r = (cpng_reader *)png_get_io_ptr(png);
  if (cpng_source_read(&r->source, r->offset, out, count) != 0) {
    copy_message(r->msgs.error, "the data ends before the image does (truncated file)");
    r->overrun = 1;
    png_error(png, "truncated");
  }
  r->offset += count;
}

/// Classifies the error that just longjmp'ed to a reader function.
static int reader_fail(cpng_reader *r) {
  r->failed = 1;
  if (r->overrun) return CPNG_ERR_TRUNCATED;
  if (strstr(r->msgs.error, "exceeds user limit") != NULL) return CPNG_ERR_TOO_LARGE;
  if (strstr(r->msgs.error, "ut of memory") != NULL) return CPNG_ERR_NO_MEMORY;
  return CPNG_ERR_CORRUPT;
}

static cpng_reader *reader_create(cpng_source source, uint32_t max_dimension) {
  cpng_reader *r = (cpng_reader *)calloc(1, sizeof(cpng_reader));
  if (r == NULL) return NULL;
  r->source = source;
  r->max_dimension = max_dimension == 0 ? 1 : max_dimension;
  r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, reader_error, reader_warning);
  if (r->png == NULL) {
    free(r);
    return NULL;
  }
  r->info = png_create_info_struct(r->png);
  if (r->info == NULL) {
    png_destroy_read_struct(&r->png, NULL, NULL);
    free(r);
    return NULL;
  }
  return r;
}

cpng_reader *cpng_reader_create(const uint8_t *data, size_t length, uint32_t max_dimension) {
  static const uint8_t empty = 0;
  cpng_source source = {data == NULL ? &empty : data, -1, data == NULL ? 0 : length};
  return reader_create(source, max_dimension);
}

cpng_reader *cpng_reader_create_file(int fd, uint64_t length, uint32_t max_dimension) {
  cpng_source source = {NULL, fd, (size_t)length};
  return reader_create(source, max_dimension);
}

int cpng_reader_read_info(cpng_reader *r, cpng_info *out) {
  if (r == NULL || out == NULL) return CPNG_ERR_INVALID;
  if (r->failed) return CPNG_ERR_INVALID;
  if (r->info_done) {
    *out = r->cached;
    return CPNG_OK;
  }
  if (setjmp(png_jmpbuf(r->png))) return reader_fail(r);

  png_structp png = r->png;
  png_infop info = r->info;
  png_set_read_fn(png, r, reader_read);
  png_set_user_limits(png, r->max_dimension, r->max_dimension);
  png_set_chunk_malloc_max(png, CPNG_CHUNK_MALLOC_MAX);
  // Critical-chunk CRC errors stop decoding; ancillary ones warn and drop the chunk.
  png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_WARN_DISCARD);
  // Text chunks are read by the caller (the Swift side keeps XMP and the comment, inflating them
  // within its own limit); libpng skips them, so it never inflates a zTXt/iTXt bomb.
  static const png_byte text_chunks[] = {'t', 'E', 'X', 't', 0, 'z', 'T', 'X', 't', 0, 'i', 'T', 'X', 't', 0};
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, text_chunks, 3);
  png_read_info(png, info);

  cpng_info i;
  memset(&i, 0, sizeof i);
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
  i.width = width;
  i.height = height;
  i.bit_depth = bit_depth;
  i.color_type = color_type;
  i.interlaced = interlace == PNG_INTERLACE_ADAM7;
  i.has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;

  int channels;
  switch (color_type) {
  case PNG_COLOR_TYPE_GRAY: channels = 1; break;
  case PNG_COLOR_TYPE_GRAY_ALPHA: channels = 2; break;
  case PNG_COLOR_TYPE_RGB: channels = 3; break;
  case PNG_COLOR_TYPE_PALETTE: channels = 3; break;
  case PNG_COLOR_TYPE_RGB_ALPHA: channels = 4; break;
  default: png_error(png, "unknown colour type");
  }
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (i.has_trns && (color_type & PNG_COLOR_MASK_ALPHA) == 0) {
    png_set_tRNS_to_alpha(png);
    channels += 1;
  }
  if (bit_depth == 16 && is_little_endian()) png_set_swap(png);
  if (i.interlaced) (void)png_set_interlace_handling(png);
  i.out_channels = channels;
  i.out_bit_depth = bit_depth == 16 ? 16 : 8;
  i.out_rowbytes = (size_t)width * (size_t)channels * (size_t)(i.out_bit_depth / 8);

  double g = 0;
  if (png_get_gAMA(png, info, &g)) {
    i.has_gamma = 1;
    i.gamma = g;
  }
  int intent = 0;
  if (png_get_sRGB(png, info, &intent)) {
    i.has_srgb = 1;
    i.srgb_intent = intent;
  }
  double c[8];
  if (png_get_cHRM(png, info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7])) {
    i.has_chrm = 1;
    memcpy(i.chrm, c, sizeof c);
  }
  png_charp name = NULL;
  int compression = 0;
  png_bytep profile = NULL;
  png_uint_32 profile_length = 0;
  if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_length) && profile != NULL) {
    i.icc = profile;
    i.icc_length = profile_length;
  }
  png_uint_32 exif_length = 0;
  png_bytep exif = NULL;
  if (png_get_eXIf_1(png, info, &exif_length, &exif) && exif != NULL) {
    i.exif = exif;
    i.exif_length = exif_length;
  }

  // libpng stops right after the first IDAT chunk's length and type.
  // (Rows too long for zlib's 32-bit counts stay with libpng.)
  uint8_t p[8];
  r->plain = !i.interlaced && !i.has_trns && (bit_depth == 8 || bit_depth == 16) && color_type != PNG_COLOR_TYPE_PALETTE &&
             i.out_rowbytes < 0x7FFFFFFFu && r->offset >= 8 && cpng_source_read(&r->source, r->offset - 8, p, 8) == 0 &&
             memcmp(p + 4, "IDAT", 4) == 0;
  if (r->plain) {
    r->idat_offset = r->offset;
    r->idat_length = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
  }

  r->cached = i;
  r->info_done = 1;
  *out = i;
  return CPNG_OK;
}

/// Decodes `count` rows through the shim's own reader (plain images).
static int read_plain_rows(cpng_reader *r, uint8_t *const *rows, uint32_t count) {
  if (!r->idat) {
    r->idat = cpng_idat_start(&r->source, r->idat_offset, r->idat_length, r->cached.out_rowbytes,
                              (int)(r->cached.out_channels * (r->cached.out_bit_depth / 8)), r->cached.out_bit_depth == 16);
    if (!r->idat) {
      copy_message(r->msgs.error, "Out of memory for the PNG row decoder");
      r->failed = 1;
      return CPNG_ERR_NO_MEMORY;
    }
  }
  for (uint32_t k = 0; k < count; k++) {
    int status = cpng_idat_row(r->idat, rows[k], r->msgs.error, CPNG_MESSAGE_SIZE);
    if (status != CPNG_OK) {
      r->failed = 1;
      return status;
    }
  }
  r->rows_done += count;
  if (r->rows_done == r->cached.height) r->image_done = 1;
  return CPNG_OK;
}

/// Applies the transforms (png_read_update_info) once, checking the row size we promised.
/// Must be called inside a function that has set up setjmp.
static void reader_start(cpng_reader *r) {
  if (r->started) return;
  r->started = 1;
  png_read_update_info(r->png, r->info);
  size_t rowbytes = png_get_rowbytes(r->png, r->info);
  if (rowbytes != r->cached.out_rowbytes || png_get_channels(r->png, r->info) != r->cached.out_channels)
    png_error(r->png, "internal error: unexpected decoded row layout");
}

int cpng_reader_read_rows(cpng_reader *r, uint8_t *const *rows, uint32_t count) {
  if (r == NULL || r->failed || !r->info_done || r->image_done) return CPNG_ERR_INVALID;
  if (r->cached.interlaced) {
    copy_message(r->msgs.error, "interlaced images are read whole, not row by row");
    return CPNG_ERR_INVALID;
  }
  if (count > r->cached.height - r->rows_done) {
    copy_message(r->msgs.error, "asked for more rows than remain");
    return CPNG_ERR_INVALID;
  }
  if (count == 0) return CPNG_OK;
  if (r->plain) return read_plain_rows(r, rows, count);
  if (setjmp(png_jmpbuf(r->png))) return reader_fail(r);
  reader_start(r);
  png_read_rows(r->png, (png_bytepp)rows, NULL, count);
  r->rows_done += count;
  if (r->rows_done == r->cached.height) r->image_done = 1;
  return CPNG_OK;
}

int cpng_reader_read_image(cpng_reader *r, uint8_t *const *rows) {
  if (r == NULL || r->failed || !r->info_done || r->image_done || r->rows_done != 0)
    return CPNG_ERR_INVALID;
  if (r->plain) return read_plain_rows(r, rows, r->cached.height);
  if (setjmp(png_jmpbuf(r->png))) return reader_fail(r);
  reader_start(r);
  png_read_image(r->png, (png_bytepp)rows);
  r->rows_done = r->cached.height;
  r->image_done = 1;
  return CPNG_OK;
}

int cpng_reader_finish(cpng_reader *r) {
  if (r == NULL || r->failed || !r->image_done) return CPNG_ERR_INVALID;
  if (r->plain) return cpng_idat_finish(r->idat, r->msgs.error, CPNG_MESSAGE_SIZE);
  if (setjmp(png_jmpbuf(r->png))) return reader_fail(r);
  png_read_end(r->png, NULL);
  return CPNG_OK;
}

const char *cpng_reader_message(const cpng_reader *r) { return r == NULL ? "" : r->msgs.error; }
int cpng_reader_warning_count(const cpng_reader *r) {
  if (r == NULL) return 0;
  return r->msgs.warning_count < CPNG_MAX_WARNINGS ? r->msgs.warning_count : CPNG_MAX_WARNINGS;
}
const char *cpng_reader_warning(const cpng_reader *r, int index) {
  return r == NULL ? "" : get_warning(&r->msgs, index);
}

void cpng_reader_destroy(cpng_reader *r) {
  if (r == NULL) return;
  cpng_idat_free(r->idat);
  png_destroy_read_struct(&r->png, &r->info, NULL);
  free(r);
}
