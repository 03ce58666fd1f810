// shim.c — libjpeg(-turbo) behind status codes. See include/cjpeg_shim.h.
//
// Error handling: every public function that calls into libjpeg does its own setjmp first. The
// error manager's error_exit (and, in strict mode, emit_message for corrupt-data warnings)
// formats the message into the handle and longjmps back to that setjmp. Locals changed between
// setjmp and longjmp are not read after the jump.
#include "cjpeg_shim.h"
#include "filesource.h"
#include "small.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <jerror.h>
#include <jpeglib.h>

#define CJ_STRINGIFY2(x) #x
#define CJ_STRINGIFY(x) CJ_STRINGIFY2(x)

const char *cj_library_version(void) {
#ifdef LIBJPEG_TURBO_VERSION
  return CJ_STRINGIFY(LIBJPEG_TURBO_VERSION);
#else
  return "unknown";
#endif
}

// MARK: - Error manager shared by both directions

typedef struct {
  struct jpeg_error_mgr pub;  // must be first: libjpeg hands back a pointer to it
  jmp_buf jump;
  int status;
  int parameter;
  int strict;
  int saw_eof;
  int warning_count;
  int kept_warnings;
  char message[JMSG_LENGTH_MAX];
  char warnings[CJ_MAX_KEPT_WARNINGS][JMSG_LENGTH_MAX];
} cj_errors;

static int cj_classify(int code, int saw_eof) {
  switch (code) {
  case JERR_BAD_PRECISION:
    return CJ_ERR_UNSUPPORTED_PRECISION;
  case JERR_SOF_UNSUPPORTED:
    return CJ_ERR_UNSUPPORTED_PROCESS;
  case JERR_NOT_COMPILED:
  case JERR_NOTIMPL:
  case JERR_CONVERSION_NOTIMPL:
  case JERR_ARITH_NOTIMPL:
  case JERR_CCIR601_NOTIMPL:
  case JERR_FRACT_SAMPLE_NOTIMPL:
    return CJ_ERR_UNSUPPORTED;
  case JERR_OUT_OF_MEMORY:
  case JERR_BAD_ALLOC_CHUNK:
    return CJ_ERR_NO_MEMORY;
  case JERR_IMAGE_TOO_BIG:
  case JERR_WIDTH_OVERFLOW:
    return CJ_ERR_TOO_LARGE;
  case JERR_BAD_STATE:
  case JERR_BAD_BUFFER_MODE:
  case JERR_BAD_IN_COLORSPACE:
  case JERR_BAD_STRUCT_SIZE:
  case JERR_BAD_LIB_VERSION:
  case JERR_TOO_LITTLE_DATA:
    return CJ_ERR_USAGE;
  case JERR_INPUT_EMPTY:
  case JERR_INPUT_EOF:
    return CJ_ERR_TRUNCATED;
  case JERR_FILE_WRITE:  // raised only by the shim's descriptor destination
  case CJ_MSG_FILE_READ:
    return CJ_ERR_IO;
  case CJ_MSG_FILE_CHANGED:
    return CJ_ERR_FILE_CHANGED;
  default:
    return saw_eof ? CJ_ERR_TRUNCATED : CJ_ERR_CORRUPT;
  }
}

static void cj_error_exit(j_common_ptr cinfo) {
  cj_errors *e = (cj_errors *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, e->message);
  e->parameter = cinfo->err->msg_parm.i[0];
  e->status = cj_classify(cinfo->err->msg_code, e->saw_eof);
  longjmp(e->jump, 1);
}

static void cj_emit_message(j_common_ptr cinfo, int level) {
  cj_errors *e = (cj_errors *)cinfo->err;
  if (level >= 0) return;  // trace messages
  // A corrupt-data warning: count it, keep the first few messages.
  cinfo->err->num_warnings++;
  e->warning_count++;
  int eof = cinfo->err->msg_code == JWRN_JPEG_EOF;
  if (eof) e->saw_eof = 1;
  if (e->kept_warnings < CJ_MAX_KEPT_WARNINGS) {
    (*cinfo->err->format_message)(cinfo, e->warnings[e->kept_warnings]);
    e->kept_warnings++;
  }
  if (e->strict) {
    (*cinfo->err->format_message)(cinfo, e->message);
    e->parameter = 0;
    e->status = eof ? CJ_ERR_TRUNCATED : CJ_ERR_CORRUPT;
    longjmp(e->jump, 1);
  }
}

static void cj_output_message(j_common_ptr cinfo) { (void)cinfo; }  // never print

static void cj_errors_init(cj_errors *e) {
  jpeg_std_error(&e->pub);
  e->pub.error_exit = cj_error_exit;
  e->pub.emit_message = cj_emit_message;
  e->pub.output_message = cj_output_message;
  e->status = CJ_OK;
  e->message[0] = '\0';
}

static int cj_fail(cj_errors *e, int status, const char *message) {
  e->status = status;
  snprintf(e->message, sizeof e->message, "%s", message);
  return status;
}

// MARK: - Decoder

enum { STAGE_CREATED, STAGE_HEADER, STAGE_STARTED, STAGE_FINISHED, STAGE_FAILED };

struct cj_decoder {
  struct jpeg_decompress_struct cinfo;
  cj_errors err;
  struct jpeg_progress_mgr progress;
  int created;  // jpeg_create_decompress succeeded
  int stage;
  const uint8_t *data;
  size_t length;
  uint8_t *owned;  // the private copy (cj_decoder_create), or NULL when borrowing
  int cmyk;           // the file is CMYK or YCCK (decoded as CMYK)
  int cmyk_inverted;  // Adobe-style inverted CMYK
  int keep_cmyk;      // deliver CMYK rows (as ink amounts) instead of converting them to RGB
  uint8_t *scratch;   // one CMYK row
};

int cj_max_scans(uint32_t width, uint32_t height) {
  uint64_t pixels = (uint64_t)width * height;
  uint64_t by_work = pixels > 0 ? CJ_SCAN_PIXEL_BUDGET / pixels : CJ_MAX_SCANS;
  if (by_work > CJ_MAX_SCANS) by_work = CJ_MAX_SCANS;
  return by_work < CJ_MIN_SCAN_LIMIT ? CJ_MIN_SCAN_LIMIT : (int)by_work;
}

static void cj_progress(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  j_decompress_ptr d = (j_decompress_ptr)cinfo;
  int limit = cj_max_scans(d->image_width, d->image_height);
  if (d->progressive_mode && d->input_scan_number > limit) {
    cj_errors *e = (cj_errors *)cinfo->err;
    snprintf(e->message, sizeof e->message,
             "Progressive JPEG has more than %d scans (the limit for a %ux%u image); refusing to decode it",
             limit, (unsigned)d->image_width, (unsigned)d->image_height);
    e->status = CJ_ERR_CORRUPT;
    e->parameter = 0;
    longjmp(e->jump, 1);
  }
}

// A decoder reading `len` bytes at `data` (copied when `copy`), or, when `fd` >= 0, the file open
// on `fd` of `len` bytes through `buffer_size` bytes of buffer.
static cj_decoder *cj_decoder_make(const uint8_t *data, size_t len, int copy, int fd, size_t buffer_size) {
  cj_decoder *d = calloc(1, sizeof *d);
  if (d == NULL) return NULL;
  cj_errors_init(&d->err);
  d->cinfo.err = &d->err.pub;
  d->stage = STAGE_FAILED;
  if (fd < 0 && (copy || data == NULL)) {
    d->owned = malloc(len > 0 ? len : 1);
    if (d->owned == NULL) {
      cj_fail(&d->err, CJ_ERR_NO_MEMORY, "Out of memory copying the JPEG data");
      return d;
    }
    if (len > 0 && data != NULL) memcpy(d->owned, data, len);
    d->data = d->owned;
  } else {
    d->data = data;
  }
  d->length = len;
  if (setjmp(d->err.jump)) {
    return d;  // stage stays FAILED; the status is in d->err
  }
  jpeg_create_decompress(&d->cinfo);
  d->created = 1;
  d->progress.progress_monitor = cj_progress;
  d->cinfo.progress = &d->progress;
  if (fd >= 0)
    cj_file_src(&d->cinfo, fd, (uint64_t)len, buffer_size);
  else
    jpeg_mem_src(&d->cinfo, d->data, (unsigned long)d->length);
  d->stage = STAGE_CREATED;
  return d;
}

cj_decoder *cj_decoder_create(const uint8_t *data, size_t len) {
  return cj_decoder_make(data, len, 1, -1, 0);
}

cj_decoder *cj_decoder_create_borrowing(const uint8_t *data, size_t len) {
  return cj_decoder_make(data, len, 0, -1, 0);
}

cj_decoder *cj_decoder_create_file(int fd, uint64_t size, size_t buffer_size) {
  if (fd < 0) return cj_decoder_make(NULL, 0, 1, -1, 0);
  return cj_decoder_make(NULL, (size_t)size, 0, fd, buffer_size);
}

void cj_decoder_destroy(cj_decoder *d) {
  if (d == NULL) return;
  if (d->created) jpeg_destroy_decompress(&d->cinfo);
  free(d->scratch);
  free(d->owned);
  free(d);
}

void cj_decoder_set_strict(cj_decoder *d, int strict) {
  if (d != NULL) d->err.strict = strict != 0;
}

void cj_decoder_keep_cmyk(cj_decoder *d, int keep) {
  if (d != NULL) d->keep_cmyk = keep != 0;
}

static int cj_check_stage(cj_decoder *d, int expected, const char *what) {
  if (d->stage == STAGE_FAILED)
    return d->err.status != CJ_OK ? d->err.status : CJ_ERR_USAGE;
  if (d->stage != expected) return cj_fail(&d->err, CJ_ERR_USAGE, what);
  return CJ_OK;
}

static int cj_model(J_COLOR_SPACE space) {
  switch (space) {
  case JCS_GRAYSCALE: return CJ_MODEL_GRAY;
  case JCS_YCbCr: return CJ_MODEL_YCBCR;
  case JCS_RGB: return CJ_MODEL_RGB;
  case JCS_CMYK: return CJ_MODEL_CMYK;
  case JCS_YCCK: return CJ_MODEL_YCCK;
  default: return CJ_MODEL_OTHER;
  }
}

int cj_read_header(cj_decoder *d, cj_header *h) {
  if (d == NULL || h == NULL) return CJ_ERR_USAGE;
  int s = cj_check_stage(d, STAGE_CREATED, "The JPEG header was already read");
  if (s != CJ_OK) return s;
  if (setjmp(d->err.jump)) {
    d->stage = STAGE_FAILED;
    return d->err.status;
  }
  jpeg_read_header(&d->cinfo, TRUE);
  memset(h, 0, sizeof *h);
  h->width = d->cinfo.image_width;
  h->height = d->cinfo.image_height;
  h->components = d->cinfo.num_components;
  h->jpeg_color_space = (int32_t)d->cinfo.jpeg_color_space;
  h->color_model = cj_model(d->cinfo.jpeg_color_space);
  h->saw_adobe_marker = d->cinfo.saw_Adobe_marker ? 1 : 0;
  h->adobe_transform = d->cinfo.Adobe_transform;
  h->progressive = d->cinfo.progressive_mode ? 1 : 0;
  h->arithmetic = d->cinfo.arith_code ? 1 : 0;
  h->data_precision = d->cinfo.data_precision;
  h->output_components = h->color_model == CJ_MODEL_GRAY ? 1 : 3;
  d->stage = STAGE_HEADER;
  return CJ_OK;
}

int cj_start(cj_decoder *d, int scale_denom, int dct_method, int fancy_upsampling,
             uint32_t *out_width, uint32_t *out_height, int32_t *out_components) {
  if (d == NULL) return CJ_ERR_USAGE;
  int s = cj_check_stage(d, STAGE_HEADER, "Decoding was started before reading the header, or twice");
  if (s != CJ_OK) return s;
  if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8)
    return cj_fail(&d->err, CJ_ERR_USAGE, "The scale denominator must be 1, 2, 4 or 8");
  if (setjmp(d->err.jump)) {
    d->stage = STAGE_FAILED;
    return d->err.status;
  }
  switch (d->cinfo.jpeg_color_space) {
  case JCS_GRAYSCALE:
    d->cinfo.out_color_space = JCS_GRAYSCALE;
    break;
  case JCS_CMYK:
  case JCS_YCCK:
    d->cinfo.out_color_space = JCS_CMYK;
    d->cmyk = 1;
    d->cmyk_inverted = d->cinfo.saw_Adobe_marker ? 1 : 0;
    break;
  default:
    d->cinfo.out_color_space = JCS_RGB;
    break;
  }
  d->cinfo.scale_num = 1;
  d->cinfo.scale_denom = (unsigned int)scale_denom;
  d->cinfo.dct_method = dct_method == CJ_DCT_IFAST   ? JDCT_IFAST
                        : dct_method == CJ_DCT_FLOAT ? JDCT_FLOAT
                                                     : JDCT_ISLOW;
  d->cinfo.do_fancy_upsampling = fancy_upsampling ? TRUE : FALSE;
  jpeg_start_decompress(&d->cinfo);
  if (d->cmyk && d->cinfo.output_components != 4) {
    d->stage = STAGE_FAILED;
    return cj_fail(&d->err, CJ_ERR_UNSUPPORTED, "Unexpected component count in CMYK output");
  }
  if (d->cmyk && !d->keep_cmyk) {
    d->scratch = malloc((size_t)d->cinfo.output_width * 4);
    if (d->scratch == NULL) {
      d->stage = STAGE_FAILED;
      return cj_fail(&d->err, CJ_ERR_NO_MEMORY, "Out of memory for a CMYK row");
    }
  }
  *out_width = d->cinfo.output_width;
  *out_height = d->cinfo.output_height;
  *out_components = d->cmyk && !d->keep_cmyk ? 3 : d->cinfo.output_components;
  d->stage = STAGE_STARTED;
  return CJ_OK;
}

// Naive CMYK → RGB: R = C'·K'/255 where C' = 255 − C is the amount of light the ink lets through.
// Adobe files store the inverted values (C' and K') directly.
static void cj_cmyk_to_rgb(const uint8_t *src, uint8_t *dst, uint32_t width, int inverted) {
  for (uint32_t x = 0; x < width; x++) {
    unsigned c = src[0], m = src[1], y = src[2], k = src[3];
    if (!inverted) {
      c = 255 - c;
      m = 255 - m;
      y = 255 - y;
      k = 255 - k;
    }
    dst[0] = (uint8_t)((c * k + 127) / 255);
    dst[1] = (uint8_t)((m * k + 127) / 255);
    dst[2] = (uint8_t)((y * k + 127) / 255);
    src += 4;
    dst += 3;
  }
}

int cj_read_rows(cj_decoder *d, uint8_t *const *rows, uint32_t max_rows, uint32_t *rows_read) {
  if (d == NULL || rows_read == NULL) return CJ_ERR_USAGE;
  *rows_read = 0;
  int s = cj_check_stage(d, STAGE_STARTED, "Rows were requested before decoding started or after it finished");
  if (s != CJ_OK) return s;
  if (setjmp(d->err.jump)) {
    d->stage = STAGE_FAILED;
    return d->err.status;
  }
  // *rows_read is updated as rows arrive, so the caller knows how far a failed call got.
  while (*rows_read < max_rows && d->cinfo.output_scanline < d->cinfo.output_height) {
    JDIMENSION got;
    if (d->cmyk && !d->keep_cmyk) {
      JSAMPROW row = d->scratch;
      got = jpeg_read_scanlines(&d->cinfo, &row, 1);
      if (got == 1)
        cj_cmyk_to_rgb(d->scratch, rows[*rows_read], d->cinfo.output_width, d->cmyk_inverted);
    } else {
      got = jpeg_read_scanlines(&d->cinfo, (JSAMPARRAY)(rows + *rows_read), max_rows - *rows_read);
      if (d->cmyk && d->cmyk_inverted) {
        size_t n = (size_t)d->cinfo.output_width * 4;
        for (JDIMENSION r = 0; r < got; r++) {
          uint8_t *p = rows[*rows_read + r];
          for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(255 - p[i]);
        }
      }
    }
    if (got == 0) break;  // cannot happen: neither source suspends
    *rows_read += got;
  }
  return CJ_OK;
}

int cj_skip_rows(cj_decoder *d, uint32_t count, uint32_t *rows_skipped) {
  if (d == NULL || rows_skipped == NULL) return CJ_ERR_USAGE;
  *rows_skipped = 0;
  int s = cj_check_stage(d, STAGE_STARTED, "Rows were skipped before decoding started or after it finished");
  if (s != CJ_OK) return s;
  if (setjmp(d->err.jump)) {
    d->stage = STAGE_FAILED;
    return d->err.status;
  }
  *rows_skipped = jpeg_skip_scanlines(&d->cinfo, count);
  return CJ_OK;
}

uint32_t cj_output_row(const cj_decoder *d) {
  return d != NULL && d->stage == STAGE_STARTED ? d->cinfo.output_scanline : 0;
}

int cj_finish(cj_decoder *d) {
  if (d == NULL) return CJ_ERR_USAGE;
  int s = cj_check_stage(d, STAGE_STARTED, "Decoding was finished before it started");
  if (s != CJ_OK) return s;
  if (d->cinfo.output_scanline < d->cinfo.output_height)
    return cj_fail(&d->err, CJ_ERR_USAGE, "Decoding was finished before all rows were read");
  if (setjmp(d->err.jump)) {
    d->stage = STAGE_FAILED;
    return d->err.status;
  }
  jpeg_finish_decompress(&d->cinfo);
  d->stage = STAGE_FINISHED;
  return CJ_OK;
}

int cj_decoder_status(const cj_decoder *d) { return d != NULL ? d->err.status : CJ_ERR_USAGE; }
const char *cj_decoder_message(const cj_decoder *d) { return d != NULL ? d->err.message : ""; }
int cj_decoder_error_parameter(const cj_decoder *d) { return d != NULL ? d->err.parameter : 0; }
int cj_warning_count(const cj_decoder *d) { return d != NULL ? d->err.warning_count : 0; }
int cj_kept_warning_count(const cj_decoder *d) { return d != NULL ? d->err.kept_warnings : 0; }

const char *cj_warning_message(const cj_decoder *d, int index) {
  if (d == NULL || index < 0 || index >= d->err.kept_warnings) return NULL;
  return d->err.warnings[index];
}

// MARK: - Encoder

struct cj_encoder {
  struct jpeg_compress_struct cinfo;  // must be first: the destination manager casts cinfo back
  cj_errors err;
  int created;
  int stage;
  // Memory destination (fd < 0): jpeg_mem_dest's buffer.
  unsigned char *out;
  unsigned long out_size;
  // The buffer cj_encoder_create_with_capacity preallocated (libjpeg replaces `out` when it grows).
  unsigned char *initial;
  // Descriptor destination (fd >= 0): one chunk, written out each time libjpeg fills it.
  int fd;
  struct jpeg_destination_mgr dest;
  unsigned char *chunk;
  int write_errno;
  uint64_t written;
};

// MARK: Descriptor destination
//
// libjpeg calls empty_output_buffer when the chunk is full (it must then write the whole chunk,
// whatever next_output_byte says) and term_destination at the end for the partial last chunk. A
// failed write is raised through libjpeg's own error path (ERREXIT → cj_error_exit → longjmp to
// the setjmp of the shim call in progress), so the failure never leaves C.

static void cj_fd_write(cj_encoder *e, const unsigned char *bytes, size_t count) {
  while (count > 0) {
    ssize_t n = write(e->fd, bytes, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      e->write_errno = n < 0 ? errno : EIO;
      ERREXIT(&e->cinfo, JERR_FILE_WRITE);
    }
    bytes += n;
    count -= (size_t)n;
    e->written += (uint64_t)n;
  }
}

static void cj_fd_init_destination(j_compress_ptr cinfo) {
  cj_encoder *e = (cj_encoder *)cinfo;
  e->dest.next_output_byte = e->chunk;
  e->dest.free_in_buffer = CJ_FD_CHUNK_SIZE;
}

static boolean cj_fd_empty_output_buffer(j_compress_ptr cinfo) {
  cj_encoder *e = (cj_encoder *)cinfo;
  cj_fd_write(e, e->chunk, CJ_FD_CHUNK_SIZE);
  e->dest.next_output_byte = e->chunk;
  e->dest.free_in_buffer = CJ_FD_CHUNK_SIZE;
  return TRUE;
}

static void cj_fd_term_destination(j_compress_ptr cinfo) {
  cj_encoder *e = (cj_encoder *)cinfo;
  cj_fd_write(e, e->chunk, CJ_FD_CHUNK_SIZE - e->dest.free_in_buffer);
  e->dest.next_output_byte = e->chunk;
  e->dest.free_in_buffer = CJ_FD_CHUNK_SIZE;
}

static cj_encoder *cj_encoder_make(int fd) {
  cj_encoder *e = calloc(1, sizeof *e);
  if (e == NULL) return NULL;
  e->fd = fd;
  if (fd >= 0) {
    e->chunk = malloc(CJ_FD_CHUNK_SIZE);
    if (e->chunk == NULL) {
      free(e);
      return NULL;
    }
    e->dest.init_destination = cj_fd_init_destination;
    e->dest.empty_output_buffer = cj_fd_empty_output_buffer;
    e->dest.term_destination = cj_fd_term_destination;
  }
  cj_errors_init(&e->err);
  e->cinfo.err = &e->err.pub;
  e->stage = STAGE_FAILED;
  if (setjmp(e->err.jump)) return e;
  jpeg_create_compress(&e->cinfo);
  e->created = 1;
  e->stage = STAGE_CREATED;
  return e;
}

cj_encoder *cj_encoder_create(void) { return cj_encoder_make(-1); }

cj_encoder *cj_encoder_create_with_capacity(size_t capacity) {
  cj_encoder *e = cj_encoder_make(-1);
  if (e == NULL || capacity == 0) return e;
  e->out = malloc(capacity);
  if (e->out == NULL) {
    cj_encoder_destroy(e);
    return NULL;
  }
  e->out_size = capacity;
  e->initial = e->out;
  return e;
}

cj_encoder *cj_encoder_create_fd(int fd) {
  if (fd < 0) return NULL;
  return cj_encoder_make(fd);
}

int cj_encoder_errno(const cj_encoder *e) { return e != NULL ? e->write_errno : 0; }

uint64_t cj_encoder_bytes_written(const cj_encoder *e) { return e != NULL ? e->written : 0; }

void cj_encoder_destroy(cj_encoder *e) {
  if (e == NULL) return;
  if (e->created) jpeg_destroy_compress(&e->cinfo);
  if (e->initial != NULL && e->initial != e->out) free(e->initial);
  free(e->out);  // jpeg_mem_dest's buffer is the caller's to free, even after an error
  free(e->chunk);
  free(e);
}

static int cj_encoder_check(cj_encoder *e, int expected, const char *what) {
  if (e->stage == STAGE_FAILED) return e->err.status != CJ_OK ? e->err.status : CJ_ERR_USAGE;
  if (e->stage != expected) return cj_fail(&e->err, CJ_ERR_USAGE, what);
  return CJ_OK;
}

// APP1 (EXIF, XMP) right after JFIF, then the ICC profile, then the rest in the given order.
static void cj_write_markers(cj_encoder *e, const cj_encode_params *p) {
  for (int32_t i = 0; i < p->marker_count; i++)
    if (p->markers[i].marker == JPEG_APP0 + 1)
      jpeg_write_marker(&e->cinfo, p->markers[i].marker, p->markers[i].data, (unsigned int)p->markers[i].length);
  if (p->icc != NULL && p->icc_length > 0)
    jpeg_write_icc_profile(&e->cinfo, p->icc, (unsigned int)p->icc_length);
  for (int32_t i = 0; i < p->marker_count; i++)
    if (p->markers[i].marker != JPEG_APP0 + 1)
      jpeg_write_marker(&e->cinfo, p->markers[i].marker, p->markers[i].data, (unsigned int)p->markers[i].length);
}

/// The checks cj_encoder_start and cj_small_encode share; CJ_OK or the failure recorded.
static int cj_check_params(cj_encoder *e, const cj_encode_params *p) {
  if (p->components != 1 && p->components != 3)
    return cj_fail(&e->err, CJ_ERR_USAGE, "The encoder takes 1 (gray) or 3 (RGB) components");
  if (p->width == 0 || p->height == 0)
    return cj_fail(&e->err, CJ_ERR_USAGE, "The image to encode is empty");
  if (p->restart_interval > 65535)
    return cj_fail(&e->err, CJ_ERR_USAGE, "The restart interval exceeds 65535 MCUs");
  if (p->marker_count < 0 || (p->marker_count > 0 && p->markers == NULL))
    return cj_fail(&e->err, CJ_ERR_USAGE, "The marker list is invalid");
  for (int32_t i = 0; i < p->marker_count; i++) {
    const cj_marker *m = &p->markers[i];
    if (m->length > 65533 || (m->length > 0 && m->data == NULL) ||
        !(m->marker == JPEG_COM || (m->marker >= JPEG_APP0 && m->marker <= JPEG_APP0 + 15)))
      return cj_fail(&e->err, CJ_ERR_USAGE, "A metadata marker is not an APPn or COM segment of at most 65533 bytes");
  }
  return CJ_OK;
}

/// Points libjpeg at the encoder's destination and sets the image, libjpeg's defaults, the
/// quality's tables and the luma sampling factors `h`, `v` (chroma 1, 1). Called inside the
/// caller's setjmp.
static void cj_setup_compress(cj_encoder *e, const cj_encode_params *p, int h, int v) {
  if (e->fd >= 0)
    e->cinfo.dest = &e->dest;
  else
    jpeg_mem_dest(&e->cinfo, &e->out, &e->out_size);
  e->cinfo.image_width = p->width;
  e->cinfo.image_height = p->height;
  e->cinfo.input_components = p->components;
  e->cinfo.in_color_space = p->components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&e->cinfo);
  int quality = p->quality < 1 ? 1 : p->quality > 100 ? 100 : p->quality;
  jpeg_set_quality(&e->cinfo, quality, TRUE);
  if (p->components == 3) {
    e->cinfo.comp_info[0].h_samp_factor = h;
    e->cinfo.comp_info[0].v_samp_factor = v;
    for (int i = 1; i < 3; i++) {
      e->cinfo.comp_info[i].h_samp_factor = 1;
      e->cinfo.comp_info[i].v_samp_factor = 1;
    }
  }
}

int cj_encoder_start(cj_encoder *e, const cj_encode_params *p) {
  if (e == NULL || p == NULL) return CJ_ERR_USAGE;
  int s = cj_encoder_check(e, STAGE_CREATED, "The encoder was started twice");
  if (s != CJ_OK) return s;
  s = cj_check_params(e, p);
  if (s != CJ_OK) return s;
  if (setjmp(e->err.jump)) {
    e->stage = STAGE_FAILED;
    return e->err.status;
  }
  int sub = p->subsampling == CJ_SUBSAMPLE_AUTO ? CJ_SUBSAMPLE_420 : p->subsampling;
  cj_setup_compress(e, p, sub == CJ_SUBSAMPLE_444 ? 1 : 2, sub == CJ_SUBSAMPLE_420 ? 2 : 1);
  e->cinfo.dct_method = JDCT_ISLOW;
  e->cinfo.optimize_coding = p->optimize_coding ? TRUE : FALSE;
  e->cinfo.restart_interval = (unsigned int)p->restart_interval;
  if (p->progressive) jpeg_simple_progression(&e->cinfo);
  jpeg_start_compress(&e->cinfo, TRUE);
  cj_write_markers(e, p);
  e->stage = STAGE_STARTED;
  return CJ_OK;
}

int cj_encoder_write_rows(cj_encoder *e, const uint8_t *const *rows, uint32_t count,
                          uint32_t *rows_written) {
  if (e == NULL || rows_written == NULL) return CJ_ERR_USAGE;
  *rows_written = 0;
  int s = cj_encoder_check(e, STAGE_STARTED, "Rows were written before the encoder started or after it finished");
  if (s != CJ_OK) return s;
  if (count > e->cinfo.image_height - e->cinfo.next_scanline)
    return cj_fail(&e->err, CJ_ERR_USAGE, "More rows were written than the image has");
  if (setjmp(e->err.jump)) {
    e->stage = STAGE_FAILED;
    return e->err.status;
  }
  while (*rows_written < count) {
    JDIMENSION n = jpeg_write_scanlines(&e->cinfo, (JSAMPARRAY)(rows + *rows_written),
                                        count - *rows_written);
    if (n == 0) break;  // cannot happen: neither destination suspends
    *rows_written += n;
  }
  return CJ_OK;
}

int cj_encoder_finish(cj_encoder *e, const uint8_t **data, size_t *length) {
  if (e == NULL || data == NULL || length == NULL) return CJ_ERR_USAGE;
  int s = cj_encoder_check(e, STAGE_STARTED, "The encoder was finished before it started, or twice");
  if (s != CJ_OK) return s;
  if (e->cinfo.next_scanline < e->cinfo.image_height)
    return cj_fail(&e->err, CJ_ERR_USAGE, "The encoder was finished before all rows were written");
  if (setjmp(e->err.jump)) {
    e->stage = STAGE_FAILED;
    return e->err.status;
  }
  jpeg_finish_compress(&e->cinfo);
  e->stage = STAGE_FINISHED;
  *data = e->out;
  *length = e->out_size;
  return CJ_OK;
}

const char *cj_encoder_message(const cj_encoder *e) { return e != NULL ? e->err.message : ""; }

// MARK: - The perceptual ("small") encoder
//
// small.c chooses the coefficients; libjpeg-turbo writes them (jpeg_write_coefficients) with
// Huffman tables optimised for them. The tables are libjpeg's for the quality (T.81 Annex K
// scaled, jpeg_set_quality), reshaped: luma steps relative to the DC step are raised to the power
// CJ_SMALL_LUMA_SLOPE (< 1: relatively finer high frequencies), chroma steps are scaled by
// CJ_SMALL_CHROMA_SCALE (finer colour; SSIMULACRA2 weighs colour error more than the Annex K
// chroma table assumes). The constants are the encoder's tuning, chosen by BD-rate at equal
// SSIMULACRA2 over the corpus photos (bench/bytes.py; docs/Performance.md).

#ifndef CJ_SMALL_LAMBDA
#define CJ_SMALL_LAMBDA 0.03f  // λ at masking multiplier 1, in squared quantiser steps per bit
#endif
#ifndef CJ_SMALL_MASKING
#define CJ_SMALL_MASKING 0.3f  // γ, the masking field's exponent
#endif
#ifndef CJ_SMALL_LUMA_SLOPE
#define CJ_SMALL_LUMA_SLOPE 0.8  // α: table step = DC step · (libjpeg step / its DC step)^α
#endif
#ifndef CJ_SMALL_CHROMA_SCALE
#define CJ_SMALL_CHROMA_SCALE 0.5  // the chroma table's steps × this
#endif
#ifndef CJ_SMALL_CHROMA_DETAIL
#define CJ_SMALL_CHROMA_DETAIL 30.0  // cjk_chroma_detail above which CJ_SUBSAMPLE_AUTO keeps 4:4:4
#endif

/// Each AC symbol's code length in the Huffman table `table` (0 when absent).
static void cj_code_lengths(const JHUFF_TBL *table, uint8_t *lengths) {
  memset(lengths, 0, 256);
  int k = 0;
  for (int bits = 1; bits <= 16; bits++)
    for (int i = 0; i < table->bits[bits] && k < 256; i++) lengths[table->huffval[k++]] = (uint8_t)bits;
}

int cj_small_subsampling(const uint8_t *pixels, uint32_t width, uint32_t height, int32_t components,
                         size_t stride) {
  if (components != 3) return CJ_SUBSAMPLE_444;
  double detail = cjk_chroma_detail(pixels, (int)width, (int)height, components, stride);
  return detail > CJ_SMALL_CHROMA_DETAIL ? CJ_SUBSAMPLE_444 : CJ_SUBSAMPLE_420;
}

int cj_small_encode(cj_encoder *e, const cj_encode_params *p, const uint8_t *pixels, size_t stride,
                    const uint8_t **data, size_t *length) {
  if (e == NULL || p == NULL || pixels == NULL || data == NULL || length == NULL) return CJ_ERR_USAGE;
  int s = cj_encoder_check(e, STAGE_CREATED, "The encoder was started twice");
  if (s != CJ_OK) return s;
  s = cj_check_params(e, p);
  if (s != CJ_OK) return s;
  if (stride < (size_t)p->width * (size_t)p->components)
    return cj_fail(&e->err, CJ_ERR_USAGE, "The row stride is shorter than a row");
  int subsampling = p->subsampling;
  if (subsampling == CJ_SUBSAMPLE_AUTO)
    subsampling = cj_small_subsampling(pixels, p->width, p->height, p->components, stride);
  cjk_setup setup;
  memset(&setup, 0, sizeof setup);
  setup.width = (int)p->width;
  setup.height = (int)p->height;
  setup.components = p->components;
  setup.h_samp = p->components == 3 && subsampling != CJ_SUBSAMPLE_444 ? 2 : 1;
  setup.v_samp = p->components == 3 && subsampling == CJ_SUBSAMPLE_420 ? 2 : 1;
  setup.lambda = CJ_SMALL_LAMBDA;
  setup.masking = CJ_SMALL_MASKING;
  if (setjmp(e->err.jump)) {
    e->stage = STAGE_FAILED;
    return e->err.status;
  }
  cj_setup_compress(e, p, setup.h_samp, setup.v_samp);
  for (int t = 0; t < 2; t++) {
    JQUANT_TBL *q = e->cinfo.quant_tbl_ptrs[t];  // natural order, as small.c wants
    double slope = t == 0 ? CJ_SMALL_LUMA_SLOPE : 1.0;
    double scale = t == 0 ? 1.0 : CJ_SMALL_CHROMA_SCALE, dc = q->quantval[0];
    for (int i = 0; i < 64; i++) {
      long step = lround(dc * pow(q->quantval[i] / dc, slope) * scale);
      q->quantval[i] = (UINT16)(step < 1 ? 1 : step > 255 ? 255 : step);
      setup.quant[t][i] = q->quantval[i];
    }
    cj_code_lengths(e->cinfo.ac_huff_tbl_ptrs[t], setup.ac_lengths[t]);
  }
  e->cinfo.optimize_coding = TRUE;
  if (p->progressive) jpeg_simple_progression(&e->cinfo);
  jvirt_barray_ptr arrays[3];
  cjk_plane planes[3];
  for (int c = 0; c < p->components; c++) {
    jpeg_component_info *comp = &e->cinfo.comp_info[c];
    cjk_plane_size(&setup, c, &planes[c].blocks_wide, &planes[c].blocks_high);
    JDIMENSION wide = (JDIMENSION)((planes[c].blocks_wide + comp->h_samp_factor - 1) / comp->h_samp_factor * comp->h_samp_factor);
    JDIMENSION high = (JDIMENSION)((planes[c].blocks_high + comp->v_samp_factor - 1) / comp->v_samp_factor * comp->v_samp_factor);
    arrays[c] = (*e->cinfo.mem->request_virt_barray)((j_common_ptr)&e->cinfo, JPOOL_IMAGE, TRUE, wide, high, high);
  }
  (*e->cinfo.mem->realize_virt_arrays)((j_common_ptr)&e->cinfo);
  for (int c = 0; c < p->components; c++) {
    jpeg_component_info *comp = &e->cinfo.comp_info[c];
    JDIMENSION high = (JDIMENSION)((planes[c].blocks_high + comp->v_samp_factor - 1) / comp->v_samp_factor * comp->v_samp_factor);
    planes[c].rows = (int16_t **)(*e->cinfo.mem->access_virt_barray)((j_common_ptr)&e->cinfo, arrays[c], 0, high, TRUE);
  }
  if (cjk_compute_coefficients(&setup, pixels, stride, planes) != 0) {
    e->stage = STAGE_FAILED;
    return cj_fail(&e->err, CJ_ERR_NO_MEMORY, "Out of memory computing the JPEG coefficients");
  }
  jpeg_write_coefficients(&e->cinfo, arrays);
  cj_write_markers(e, p);
  jpeg_finish_compress(&e->cinfo);
  e->stage = STAGE_FINISHED;
  *data = e->out;
  *length = e->out_size;
  return CJ_OK;
}
