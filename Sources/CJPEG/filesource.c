// filesource.c — a libjpeg source manager reading a regular file through its descriptor.
//
// The file is read with pread into one buffer of a fixed size, so a decode holds that buffer, not
// the file. It reads as libjpeg's memory source (jpeg_mem_src) reads the same bytes: at the end of
// the file, "Premature end of JPEG file" (JWRN_JPEG_EOF) is warned and a fake EOI marker inserted,
// each time libjpeg asks for more; skip_input_data moves the file offset over bytes that are not
// in the buffer instead of reading them. The size the file had when it was opened bounds the
// reads: a read finding the file shorter than that, or the file at its end longer or shorter, fails
// with CJ_MSG_FILE_CHANGED rather than decode bytes of two versions of the file.
#include "filesource.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jerror.h>

static const char *const cj_file_messages[] = {
  "The file changed size while it was read",
  "Cannot read the file: %s",
};

typedef struct {
  struct jpeg_source_mgr pub;
  int fd;
  uint64_t size;    // the file's size when it was opened
  uint64_t offset;  // the file offset of the byte after the buffer's
  int at_end;       // the end was reached and the size checked
  JOCTET *buffer;
  size_t capacity;
} cj_file_source;

static const JOCTET cj_fake_eoi[2] = {0xFF, JPEG_EOI};

static void cj_file_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void cj_file_term(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean cj_file_fill(j_decompress_ptr cinfo) {
  cj_file_source *src = (cj_file_source *)cinfo->src;
  if (src->offset >= src->size) {
    if (!src->at_end) {
      struct stat status;
      if (fstat(src->fd, &status) != 0 || (uint64_t)status.st_size != src->size) ERREXIT(cinfo, CJ_MSG_FILE_CHANGED);
      src->at_end = 1;
    }
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->pub.next_input_byte = cj_fake_eoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  uint64_t left = src->size - src->offset;
  size_t want = left < src->capacity ? (size_t)left : src->capacity;
  size_t got = 0;
  while (got < want) {
    ssize_t n = pread(src->fd, src->buffer + got, want - got, (off_t)(src->offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ERREXITS(cinfo, CJ_MSG_FILE_READ, strerror(errno));
    if (n == 0) ERREXIT(cinfo, CJ_MSG_FILE_CHANGED);
    got += (size_t)n;
  }
  src->offset += got;
  src->pub.next_input_byte = src->buffer;
  src->pub.bytes_in_buffer = got;
  return TRUE;
}

static void cj_file_skip(j_decompress_ptr cinfo, long num_bytes) {
  cj_file_source *src = (cj_file_source *)cinfo->src;
  if (num_bytes <= 0) return;
  size_t skip = (size_t)num_bytes;
  if (skip > src->pub.bytes_in_buffer && src->offset < src->size) {
    // Past the buffer: move the offset over the bytes not read yet, up to the end of the file.
    skip -= src->pub.bytes_in_buffer;
    src->pub.bytes_in_buffer = 0;
    uint64_t left = src->size - src->offset;
    uint64_t moved = skip < left ? skip : left;
    src->offset += moved;
    skip -= (size_t)moved;
  }
  // What is left lies in the buffer, or past the end, where each refill is the fake EOI.
  while (skip > src->pub.bytes_in_buffer) {
    skip -= src->pub.bytes_in_buffer;
    src->pub.bytes_in_buffer = 0;
    (void)cj_file_fill(cinfo);
  }
  src->pub.next_input_byte += skip;
  src->pub.bytes_in_buffer -= skip;
}

void cj_file_src(j_decompress_ptr cinfo, int fd, uint64_t size, size_t buffer_size) {
  cinfo->err->addon_message_table = cj_file_messages;
  cinfo->err->first_addon_message = CJ_MSG_FILE_CHANGED;
  cinfo->err->last_addon_message = CJ_MSG_FILE_READ;
  cj_file_source *src = (cj_file_source *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_PERMANENT, sizeof(cj_file_source));
  memset(src, 0, sizeof *src);
  src->capacity = buffer_size > 0 ? buffer_size : 1;
  src->buffer = (JOCTET *)(*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_PERMANENT, src->capacity);
  src->fd = fd;
  src->size = size;
  src->pub.init_source = cj_file_init;
  src->pub.fill_input_buffer = cj_file_fill;
  src->pub.skip_input_data = cj_file_skip;
  src->pub.resync_to_restart = jpeg_resync_to_restart;
  src->pub.term_source = cj_file_term;
  cinfo->src = &src->pub;
}
