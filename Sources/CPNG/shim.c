// shim.c — libpng 1.6 behind a longjmp-free C interface (see include/cpng_shim.h).
//
// Rule: every exported function that calls libpng does `if (setjmp(png_jmpbuf(png))) ...` itself,
// so libpng's longjmp lands in this file and never unwinds a Swift frame.
#include "cpng_shim.h"

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  const uint8_t *data;
  size_t length;
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
  if (count > r->length - r->offset) {
    copy_message(r->msgs.error, "the data ends before the image does (truncated file)");
    r->overrun = 1;
    png_error(png, "truncated");
  }
  memcpy(out, r->data + r->offset, count);
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

cpng_reader *cpng_reader_create(const uint8_t *data, size_t length, uint32_t max_dimension) {
  cpng_reader *r = (cpng_reader *)calloc(1, sizeof(cpng_reader));
  if (r == NULL) return NULL;
  r->data = data;
  r->length = data == NULL ? 0 : length;
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

  r->cached = i;
  r->info_done = 1;
  *out = i;
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
  if (setjmp(png_jmpbuf(r->png))) return reader_fail(r);
  reader_start(r);
  png_read_image(r->png, (png_bytepp)rows);
  r->rows_done = r->cached.height;
  r->image_done = 1;
  return CPNG_OK;
}

int cpng_reader_finish(cpng_reader *r) {
  if (r == NULL || r->failed || !r->image_done) return CPNG_ERR_INVALID;
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
  png_destroy_read_struct(&r->png, &r->info, NULL);
  free(r);
}

// MARK: - Writer

struct cpng_writer {
  png_structp png;
  png_infop info;
  int fd;             // -1 for a memory writer
  uint8_t *bytes;     // memory writer's output
  size_t length, capacity;
  int io_error;
  int no_memory;
  int failed;
  int started;
  int finished;
  uint32_t height;
  uint32_t rows_done;
  messages msgs;
};

static void writer_error(png_structp png, png_const_charp text) {
  cpng_writer *w = (cpng_writer *)png_get_error_ptr(png);
  if (w != NULL && !w->io_error && !w->no_memory) copy_message(w->msgs.error, text);
  png_longjmp(png, 1);
}

static void writer_warning(png_structp png, png_const_charp text) {
  cpng_writer *w = (cpng_writer *)png_get_error_ptr(png);
  if (w != NULL) add_warning(&w->msgs, text);
}

static void writer_write(png_structp png, png_bytep data, size_t count) {
  cpng_writer *w = (cpng_writer *)png_get_io_ptr(png);
  if (w->fd >= 0) {
    size_t done = 0;
    while (done < count) {
      ssize_t n = write(w->fd, data + done, count - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        copy_message(w->msgs.error, strerror(errno));
        w->io_error = 1;
        png_error(png, "write failed");
      }
      done += (size_t)n;
    }
    return;
  }
  if (count > w->capacity - w->length) {
    size_t needed = w->length + count;
    size_t capacity = w->capacity < 4096 ? 4096 : w->capacity;
    while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
    uint8_t *grown = (uint8_t *)realloc(w->bytes, capacity);
    if (grown == NULL) {
      copy_message(w->msgs.error, "out of memory while collecting the PNG data");
      w->no_memory = 1;
      png_error(png, "out of memory");
    }
    w->bytes = grown;
    w->capacity = capacity;
  }
  memcpy(w->bytes + w->length, data, count);
  w->length += count;
}

static void writer_flush(png_structp png) { (void)png; }

static int writer_fail(cpng_writer *w) {
  w->failed = 1;
  if (w->io_error) return CPNG_ERR_IO;
  if (w->no_memory || strstr(w->msgs.error, "ut of memory") != NULL) return CPNG_ERR_NO_MEMORY;
  return CPNG_ERR_INVALID;
}

static cpng_writer *writer_create(int fd) {
  cpng_writer *w = (cpng_writer *)calloc(1, sizeof(cpng_writer));
  if (w == NULL) return NULL;
  w->fd = fd;
  w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, writer_error, writer_warning);
  if (w->png == NULL) {
    free(w);
    return NULL;
  }
  w->info = png_create_info_struct(w->png);
  if (w->info == NULL) {
    png_destroy_write_struct(&w->png, NULL);
    free(w);
    return NULL;
  }
  return w;
}

cpng_writer *cpng_writer_create_fd(int fd) { return fd < 0 ? NULL : writer_create(fd); }
cpng_writer *cpng_writer_create_memory(void) { return writer_create(-1); }

int cpng_writer_start(cpng_writer *w, uint32_t width, uint32_t height, int channels, int bit_depth,
                      int level, int filters, const uint8_t *icc, uint32_t icc_length,
                      int srgb_intent) {
  if (w == NULL || w->failed || w->started) return CPNG_ERR_INVALID;
  int color_type;
  switch (channels) {
  case 1: color_type = PNG_COLOR_TYPE_GRAY; break;
  case 2: color_type = PNG_COLOR_TYPE_GRAY_ALPHA; break;
  case 3: color_type = PNG_COLOR_TYPE_RGB; break;
  case 4: color_type = PNG_COLOR_TYPE_RGB_ALPHA; break;
  default: copy_message(w->msgs.error, "channels must be 1, 2, 3 or 4"); return CPNG_ERR_INVALID;
  }
  if (bit_depth != 8 && bit_depth != 16) {
    copy_message(w->msgs.error, "bit depth must be 8 or 16");
    return CPNG_ERR_INVALID;
  }
  if (level < 0 || level > 9) {
    copy_message(w->msgs.error, "compression level must be 0 to 9");
    return CPNG_ERR_INVALID;
  }
  if ((filters & ~CPNG_FILTER_ALL) != 0 || filters == 0) {
    copy_message(w->msgs.error, "invalid filter selection");
    return CPNG_ERR_INVALID;
  }
  if (setjmp(png_jmpbuf(w->png))) return writer_fail(w);
  png_structp png = w->png;
  png_infop info = w->info;
  png_set_write_fn(png, w, writer_write, writer_flush);
  // Problems with optional data (a rejected ICC profile) become warnings, not failures.
  png_set_benign_errors(png, 1);
  png_set_IHDR(png, info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
  png_set_compression_level(png, level);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
  if (icc != NULL && icc_length > 0) {
    png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, icc_length);
    if (!png_get_valid(png, info, PNG_INFO_iCCP))
      add_warning(&w->msgs, "The ICC profile was rejected by libpng and left out of the PNG.");
  } else if (srgb_intent >= 0 && srgb_intent <= 3) {
    png_set_sRGB(png, info, srgb_intent);
  }
  png_write_info(png, info);
  if (bit_depth == 16 && is_little_endian()) png_set_swap(png);
  w->height = height;
  w->started = 1;
  return CPNG_OK;
}

int cpng_writer_write_rows(cpng_writer *w, const uint8_t *const *rows, uint32_t count) {
  if (w == NULL || w->failed || !w->started || w->finished) return CPNG_ERR_INVALID;
  if (count > w->height - w->rows_done) {
    copy_message(w->msgs.error, "more rows than the image height");
    return CPNG_ERR_INVALID;
  }
  if (count == 0) return CPNG_OK;
  if (setjmp(png_jmpbuf(w->png))) return writer_fail(w);
  png_write_rows(w->png, (png_bytepp)rows, count);
  w->rows_done += count;
  return CPNG_OK;
}

int cpng_writer_finish(cpng_writer *w) {
  if (w == NULL || w->failed || !w->started || w->finished) return CPNG_ERR_INVALID;
  if (w->rows_done != w->height) {
    copy_message(w->msgs.error, "not every row has been written");
    return CPNG_ERR_INVALID;
  }
  if (setjmp(png_jmpbuf(w->png))) return writer_fail(w);
  png_write_end(w->png, w->info);
  w->finished = 1;
  return CPNG_OK;
}

const uint8_t *cpng_writer_data(const cpng_writer *w, size_t *length) {
  if (w == NULL || w->fd >= 0) {
    if (length) *length = 0;
    return NULL;
  }
  if (length) *length = w->length;
  return w->bytes;
}

const char *cpng_writer_message(const cpng_writer *w) { return w == NULL ? "" : w->msgs.error; }
int cpng_writer_warning_count(const cpng_writer *w) {
  if (w == NULL) return 0;
  return w->msgs.warning_count < CPNG_MAX_WARNINGS ? w->msgs.warning_count : CPNG_MAX_WARNINGS;
}
const char *cpng_writer_warning(const cpng_writer *w, int index) {
  return w == NULL ? "" : get_warning(&w->msgs, index);
}

void cpng_writer_destroy(cpng_writer *w) {
  if (w == NULL) return;
  png_destroy_write_struct(&w->png, &w->info);
  free(w->bytes);
  free(w);
}
