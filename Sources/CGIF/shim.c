// shim.c — see cgif_shim.h.
#include "cgif_shim.h"

#include <gif_lib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <unistd.h>

/// Where giflib's reads come from: `size` bytes in memory at `data`, or, with `data` NULL and
/// `fd` ≥ 0, the first `size` bytes of the file open on `fd`, read with pread through `buffer`
/// (`CGIF_FILE_BUFFER` bytes, the only bytes of the file held).
typedef struct {
  const uint8_t *data;
  int fd;
  size_t size, offset;
  uint8_t *buffer;
  size_t buffer_start, buffer_fill;  ///< the file's bytes [buffer_start, buffer_start + buffer_fill) are in `buffer`
} source;

static int read_bytes(GifFileType *gif, GifByteType *into, int count) {
  source *s = (source *)gif->UserData;
  size_t left = s->size - s->offset;
  size_t n = count < 0 ? 0 : (size_t)count;
  if (n > left) n = left;
  if (s->data) {
    memcpy(into, s->data + s->offset, n);
    s->offset += n;
    return (int)n;
  }
  size_t done = 0;
  while (done < n) {
    if (s->offset < s->buffer_start || s->offset >= s->buffer_start + s->buffer_fill) {
      size_t want = s->size - s->offset < CGIF_FILE_BUFFER ? s->size - s->offset : CGIF_FILE_BUFFER;
      ssize_t got;
      do got = pread(s->fd, s->buffer, want, (off_t)s->offset);
      while (got < 0 && errno == EINTR);
      s->buffer_start = s->offset;
      s->buffer_fill = got > 0 ? (size_t)got : 0;
      if (got <= 0) break;  // the file is shorter than it was: giflib reports it as truncated
    }
    size_t at = s->offset - s->buffer_start, have = s->buffer_fill - at;
    size_t take = n - done < have ? n - done : have;
    memcpy(into + done, s->buffer + at, take);
    done += take;
    s->offset += take;
  }
  return (int)done;
}

/// A source over the file open on `fd`, of `size` bytes; false when its buffer cannot be had.
static int open_file_source(source *s, int fd, size_t size) {
  *s = (source){NULL, fd, size, 0, malloc(CGIF_FILE_BUFFER), 0, 0};
  return s->buffer != NULL;
}

static int fail(int status, char *message, size_t capacity, const char *format, ...) {
  if (message && capacity) {
    va_list args;
    va_start(args, format);
    vsnprintf(message, capacity, format, args);
    va_end(args);
  }
  return status;
}

static int gif_error(int code, char *message, size_t capacity) {
  const char *text = GifErrorString(code);
  int status = code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON ? CGIF_TRUNCATED
             : code == D_GIF_ERR_NOT_ENOUGH_MEM ? CGIF_NO_MEMORY : CGIF_CORRUPT;
  if (status == CGIF_TRUNCATED) return fail(status, message, capacity, "The GIF file ends before its data does.");
  return fail(status, message, capacity, "The GIF file cannot be read: %s.", text ? text : "unknown giflib error");
}

/// giflib appends every image descriptor it reads to `SavedImages` (for DGifSlurp); a reader
/// that streams frames drops each one so a long animation costs no memory per frame.
static void forget_saved_images(GifFileType *gif) {
  for (int i = 0; i < gif->ImageCount; i++) {
    GifFreeMapObject(gif->SavedImages[i].ImageDesc.ColorMap);
    gif->SavedImages[i].ImageDesc.ColorMap = NULL;
  }
  gif->ImageCount = 0;
}

/// What the extensions before an image say about it.
typedef struct {
  int disposal, delay, transparent;
} frame_control;

static const frame_control no_control = {DISPOSAL_UNSPECIFIED, 0, NO_TRANSPARENT_COLOR};

/// Reads one extension record: a graphic control block updates `control`; a NETSCAPE2.0 (or
/// ANIMEXTS1.0) application block sets `*loop_count`; the first XMP application block's data
/// range is stored in `info` (when not NULL). XMP's data is not framed as sub-blocks: its bytes
/// stand unframed, and giflib's walk through them as if they were sub-blocks ends at the
/// terminator after XMP's "magic trailer", so the range is the file's bytes from after the
/// application identifier to that terminator.
static int read_extension(GifFileType *gif, frame_control *control, int *loop_count, cgif_info *info) {
  int code = 0;
  GifByteType *block = NULL;
  if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return GIF_ERROR;
  int looping = 0, xmp = 0;
  if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) {
    GraphicsControlBlock gcb;
    if (DGifExtensionToGCB(block[0], block + 1, &gcb) == GIF_OK) {
      control->disposal = gcb.DisposalMode;
      control->delay = gcb.DelayTime;
      control->transparent = gcb.TransparentColor;
    }
  } else if (code == APPLICATION_EXT_FUNC_CODE && block && block[0] == 11) {
    looping = memcmp(block + 1, "NETSCAPE2.0", 11) == 0 || memcmp(block + 1, "ANIMEXTS1.0", 11) == 0;
    xmp = info && info->xmp_offset == 0 && memcmp(block + 1, "XMP DataXMP", 11) == 0;
  }
  const size_t start = ((const source *)gif->UserData)->offset;
  for (;;) {
    if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return GIF_ERROR;
    if (!block) {
      if (xmp) {
        info->xmp_offset = start;
        info->xmp_length = ((const source *)gif->UserData)->offset - 1 - start;
      }
      return GIF_OK;
    }
    if (looping && block[0] >= 3 && block[1] == 1) {
      *loop_count = block[2] | block[3] << 8;
      looping = 0;
    }
  }
}

/// Checks the image descriptor just read: a colour table, and a size within the limit.
static int check_frame(GifFileType *gif, int index, long long max_frame_pixels, char *message, size_t capacity) {
  const long long pixels = (long long)gif->Image.Width * gif->Image.Height;
  if (pixels > max_frame_pixels)
    return fail(CGIF_TOO_LARGE, message, capacity, "The GIF's frame %d is %d × %d pixels; the limit is %lld pixels.",
                index + 1, gif->Image.Width, gif->Image.Height, max_frame_pixels);
  if (!gif->Image.ColorMap && !gif->SColorMap)
    return fail(CGIF_CORRUPT, message, capacity, "The GIF's frame %d has no colour table.", index + 1);
  return CGIF_OK;
}

/// Skips an image's compressed pixels.
static int skip_pixels(GifFileType *gif) {
  int code_size = 0;
  GifByteType *block = NULL;
  if (DGifGetCode(gif, &code_size, &block) == GIF_ERROR) return GIF_ERROR;
  while (block) {
    if (DGifGetCodeNext(gif, &block) == GIF_ERROR) return GIF_ERROR;
  }
  return GIF_OK;
}

static int read_info(source *s, int max_frames, long long max_frame_pixels, cgif_info *info, int *delays,
                     int delays_capacity, char *message, size_t capacity) {
  int error = 0, status = CGIF_OK;
  GifFileType *gif = DGifOpen(s, read_bytes, &error);
  if (!gif) return gif_error(error, message, capacity);
  memset(info, 0, sizeof *info);
  info->width = gif->SWidth;
  info->height = gif->SHeight;
  info->loop_count = -1;
  frame_control control = no_control;
  int x0 = info->width, y0 = info->height, x1 = 0, y1 = 0;  // the frames' bounding box on the screen
  long long largest_saved = 0;                              // the largest "restore to previous" frame
  for (;;) {
    GifRecordType type;
    if (DGifGetRecordType(gif, &type) == GIF_ERROR) goto failed;
    if (type == TERMINATE_RECORD_TYPE) break;
    if (type == EXTENSION_RECORD_TYPE) {
      if (read_extension(gif, &control, &info->loop_count, info) == GIF_ERROR) goto failed;
    } else if (type == IMAGE_DESC_RECORD_TYPE) {
      if (DGifGetImageDesc(gif) == GIF_ERROR) goto failed;
      if (info->frame_count >= max_frames) {
        status = fail(CGIF_TOO_LARGE, message, capacity, "The GIF has more than %d frames, the limit.", max_frames);
        break;
      }
      if ((status = check_frame(gif, info->frame_count, max_frame_pixels, message, capacity)) != CGIF_OK) break;
      const GifImageDesc *d = &gif->Image;
      if (control.transparent != NO_TRANSPARENT_COLOR || d->Left != 0 || d->Top != 0 || d->Width < info->width ||
          d->Height < info->height)
        info->has_alpha = 1;
      if (delays && info->frame_count < delays_capacity) delays[info->frame_count] = control.delay;
      const long long fx0 = d->Left, fy0 = d->Top, fx1 = fx0 + d->Width, fy1 = fy0 + d->Height;
      const int cx0 = fx0 > info->width ? info->width : (int)fx0, cy0 = fy0 > info->height ? info->height : (int)fy0;
      const int cx1 = fx1 > info->width ? info->width : (int)fx1, cy1 = fy1 > info->height ? info->height : (int)fy1;
      if (cx1 > cx0 && cy1 > cy0) {
        if (cx0 < x0) x0 = cx0;
        if (cy0 < y0) y0 = cy0;
        if (cx1 > x1) x1 = cx1;
        if (cy1 > y1) y1 = cy1;
        if (control.disposal == DISPOSE_PREVIOUS && (long long)(cx1 - cx0) * (cy1 - cy0) > largest_saved)
          largest_saved = (long long)(cx1 - cx0) * (cy1 - cy0);
      }
      info->frame_count++;
      forget_saved_images(gif);
      if (skip_pixels(gif) == GIF_ERROR) goto failed;
      control = no_control;
    }
  }
  if (status == CGIF_OK && info->frame_count == 0)
    status = fail(CGIF_CORRUPT, message, capacity, "The GIF file has no image.");
  // The screen is allocated untouched (calloc), so only the pages under the frames are ever
  // written: each row of the bounding box touches its bytes' pages and at most one more.
  if (x1 > x0 && y1 > y0) {
    const long long page = 4096, screen = (long long)info->width * info->height * 4;
    long long touched = (long long)(y1 - y0) * (((long long)(x1 - x0) * 4 + page - 1) / page + 1) * page;
    info->held_bytes = (touched < screen ? touched : screen) + largest_saved * 4;
  }
  DGifCloseFile(gif, &error);
  return status;
failed:
  status = gif_error(gif->Error, message, capacity);
  DGifCloseFile(gif, &error);
  return status;
}

int cgif_read_info(const uint8_t *data, size_t size, int max_frames, long long max_frame_pixels,
                   cgif_info *info, int *delays, int delays_capacity, char *message, size_t capacity) {
  if (!data || !info) return fail(CGIF_INVALID, message, capacity, "No GIF data.");
  source s = {data, -1, size, 0, NULL, 0, 0};
  return read_info(&s, max_frames, max_frame_pixels, info, delays, delays_capacity, message, capacity);
}

int cgif_read_info_file(int fd, size_t size, int max_frames, long long max_frame_pixels, cgif_info *info, int *delays,
                        int delays_capacity, char *message, size_t capacity) {
  if (fd < 0 || !info) return fail(CGIF_INVALID, message, capacity, "No GIF file.");
  source s;
  if (!open_file_source(&s, fd, size)) return fail(CGIF_NO_MEMORY, message, capacity, "Out of memory reading the GIF.");
  const int status = read_info(&s, max_frames, max_frame_pixels, info, delays, delays_capacity, message, capacity);
  free(s.buffer);
  return status;
}

struct cgif_reader {
  source input;
  GifFileType *gif;
  int width, height;
  long long max_frame_pixels;
  uint8_t *screen;        ///< straight RGBA, width × height
  uint8_t *saved;         ///< the rectangle of a "restore to previous" frame before it was drawn
  size_t saved_capacity;
  GifPixelType *line;
  int line_capacity;
  int frame_index;
  int loop_count;
  frame_control previous; ///< the last frame drawn, and where
  int left, top, frame_width, frame_height;
};

/// Opens the GIF `input` reads (its buffer, for a file, is the reader's from then on).
static cgif_reader *open_reader(source input, long long max_frame_pixels, int *status, char *message, size_t capacity) {
  *status = CGIF_OK;
  cgif_reader *r = calloc(1, sizeof *r);
  if (!r) {
    free(input.buffer);
    *status = fail(CGIF_NO_MEMORY, message, capacity, "Out of memory opening the GIF.");
    return NULL;
  }
  r->input = input;
  int error = 0;
  r->gif = DGifOpen(&r->input, read_bytes, &error);
  if (!r->gif) {
    *status = gif_error(error, message, capacity);
    free(r->input.buffer);
    free(r);
    return NULL;
  }
  r->input.data = NULL;  // bytes in memory are read again only inside a call that is given them
  r->width = r->gif->SWidth;
  r->height = r->gif->SHeight;
  r->max_frame_pixels = max_frame_pixels;
  r->previous = no_control;
  r->screen = calloc((size_t)r->width * r->height ? (size_t)r->width * r->height : 1, 4);
  if (!r->screen) {
    *status = fail(CGIF_NO_MEMORY, message, capacity, "Out of memory for the GIF's %d × %d screen.", r->width, r->height);
    cgif_close(r);
    return NULL;
  }
  return r;
}

cgif_reader *cgif_open(const uint8_t *data, size_t size, long long max_frame_pixels, int *status, char *message,
                       size_t capacity) {
  return open_reader((source){data, -1, size, 0, NULL, 0, 0}, max_frame_pixels, status, message, capacity);
}

cgif_reader *cgif_open_file(int fd, size_t size, long long max_frame_pixels, int *status, char *message, size_t capacity) {
  source input;
  if (fd < 0 || !open_file_source(&input, fd, size)) {
    *status = fail(CGIF_NO_MEMORY, message, capacity, "Out of memory opening the GIF.");
    return NULL;
  }
  return open_reader(input, max_frame_pixels, status, message, capacity);
}

long long cgif_held_file_bytes(const cgif_reader *r) { return r && r->input.buffer ? CGIF_FILE_BUFFER : 0; }

void cgif_close(cgif_reader *r) {
  if (!r) return;
  int error = 0;
  if (r->gif) DGifCloseFile(r->gif, &error);
  free(r->screen);
  free(r->saved);
  free(r->line);
  free(r->input.buffer);
  free(r);
}

/// Clips the rectangle (x, y, w, h) to the screen: the column and row ranges [x0, x1) × [y0, y1).
static void clip(const cgif_reader *r, int x, int y, int w, int h, int *x0, int *x1, int *y0, int *y1) {
  *x0 = x < 0 ? 0 : x > r->width ? r->width : x;
  *y0 = y < 0 ? 0 : y > r->height ? r->height : y;
  long long xe = (long long)x + w, ye = (long long)y + h;
  *x1 = xe < *x0 ? *x0 : xe > r->width ? r->width : (int)xe;
  *y1 = ye < *y0 ? *y0 : ye > r->height ? r->height : (int)ye;
}

/// Disposes of the frame drawn last, as it asked.
static void dispose_previous(cgif_reader *r) {
  const size_t row_bytes = (size_t)r->width * 4;
  if (r->previous.disposal == DISPOSE_BACKGROUND) {
    int x0, x1, y0, y1;
    clip(r, r->left, r->top, r->frame_width, r->frame_height, &x0, &x1, &y0, &y1);
    for (int y = y0; y < y1; y++) memset(r->screen + y * row_bytes + (size_t)x0 * 4, 0, (size_t)(x1 - x0) * 4);
  } else if (r->previous.disposal == DISPOSE_PREVIOUS && r->saved) {
    int x0, x1, y0, y1;
    clip(r, r->left, r->top, r->frame_width, r->frame_height, &x0, &x1, &y0, &y1);
    const size_t saved_row = (size_t)(x1 - x0) * 4;
    for (int y = y0; y < y1; y++) memcpy(r->screen + y * row_bytes + (size_t)x0 * 4, r->saved + (y - y0) * saved_row, saved_row);
  }
}

/// Decodes the current image's rows onto the screen.
static int draw_frame(cgif_reader *r, const frame_control *control, char *message, size_t capacity) {
  GifFileType *gif = r->gif;
  const ColorMapObject *map = gif->Image.ColorMap ? gif->Image.ColorMap : gif->SColorMap;
  const int fw = gif->Image.Width, fh = gif->Image.Height;
  if (fw <= 0 || fh <= 0) return skip_pixels(gif) == GIF_ERROR ? gif_error(gif->Error, message, capacity) : CGIF_OK;
  if (fw > r->line_capacity) {
    GifPixelType *line = realloc(r->line, (size_t)fw);
    if (!line) return fail(CGIF_NO_MEMORY, message, capacity, "Out of memory decoding the GIF.");
    r->line = line;
    r->line_capacity = fw;
  }
  // Rows in file order: interlaced frames store rows 0, 8, 16… then 4, 12… then 2, 6… then 1, 3…
  static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
  const int passes = gif->Image.Interlace ? 4 : 1;
  for (int pass = 0; pass < passes; pass++) {
    const int start = passes == 1 ? 0 : starts[pass], step = passes == 1 ? 1 : steps[pass];
    for (int row = start; row < fh; row += step) {
      if (DGifGetLine(gif, r->line, fw) == GIF_ERROR) return gif_error(gif->Error, message, capacity);
      const long long y = (long long)gif->Image.Top + row;
      if (y < 0 || y >= r->height) continue;
      uint8_t *dst = r->screen + (size_t)y * r->width * 4;
      for (int i = 0; i < fw; i++) {
        const long long x = (long long)gif->Image.Left + i;
        if (x < 0 || x >= r->width) continue;
        const int index = r->line[i];
        if (index == control->transparent) continue;
        uint8_t *p = dst + x * 4;
        if (index < map->ColorCount) {
          p[0] = map->Colors[index].Red;
          p[1] = map->Colors[index].Green;
          p[2] = map->Colors[index].Blue;
        } else {
          p[0] = p[1] = p[2] = 0;
        }
        p[3] = 255;
      }
    }
  }
  return CGIF_OK;
}

/// Copies the screen to `out` as RGB or RGBA.
static void copy_screen(const cgif_reader *r, int channels, uint8_t *out, size_t stride) {
  cgif_copy_rows(r, 0, r->height, channels, out, stride);
}

static int draw_next(cgif_reader *r, int *delay, char *message, size_t capacity) {
  GifFileType *gif = r->gif;
  frame_control control = no_control;
  for (;;) {
    GifRecordType type;
    if (DGifGetRecordType(gif, &type) == GIF_ERROR) return gif_error(gif->Error, message, capacity);
    if (type == TERMINATE_RECORD_TYPE) return CGIF_END;
    if (type == EXTENSION_RECORD_TYPE) {
      if (read_extension(gif, &control, &r->loop_count, NULL) == GIF_ERROR) return gif_error(gif->Error, message, capacity);
      continue;
    }
    if (type != IMAGE_DESC_RECORD_TYPE) continue;
    if (DGifGetImageDesc(gif) == GIF_ERROR) return gif_error(gif->Error, message, capacity);
    forget_saved_images(gif);
    int status = check_frame(gif, r->frame_index, r->max_frame_pixels, message, capacity);
    if (status != CGIF_OK) return status;
    dispose_previous(r);
    if (control.disposal == DISPOSE_PREVIOUS) {
      // Only the frame's rectangle changes while it is shown: that is all there is to restore.
      int x0, x1, y0, y1;
      clip(r, gif->Image.Left, gif->Image.Top, gif->Image.Width, gif->Image.Height, &x0, &x1, &y0, &y1);
      const size_t saved_row = (size_t)(x1 - x0) * 4, bytes = saved_row * (size_t)(y1 - y0);
      if (bytes > r->saved_capacity) {
        uint8_t *saved = realloc(r->saved, bytes);
        if (!saved) return fail(CGIF_NO_MEMORY, message, capacity, "Out of memory for the GIF's saved rectangle.");
        r->saved = saved;
        r->saved_capacity = bytes;
      }
      const size_t row_bytes = (size_t)r->width * 4;
      for (int y = y0; y < y1; y++) memcpy(r->saved + (y - y0) * saved_row, r->screen + y * row_bytes + (size_t)x0 * 4, saved_row);
    }
    if ((status = draw_frame(r, &control, message, capacity)) != CGIF_OK) return status;
    r->previous = control;
    r->left = gif->Image.Left;
    r->top = gif->Image.Top;
    r->frame_width = gif->Image.Width;
    r->frame_height = gif->Image.Height;
    r->frame_index++;
    if (delay) *delay = control.delay;
    return CGIF_OK;
  }
}

/// Draws the next frame of `data` (checked to be the reader's bytes; NULL for a reader of a file)
/// on the screen.
static int draw_from(cgif_reader *r, const uint8_t *data, size_t size, int *delay, char *message, size_t capacity) {
  if (r->input.fd >= 0) return draw_next(r, delay, message, capacity);
  if (!data || size != r->input.size) return fail(CGIF_INVALID, message, capacity, "These are not the bytes the GIF reader opened.");
  r->input.data = data;
  const int status = draw_next(r, delay, message, capacity);
  r->input.data = NULL;  // giflib keeps no pointer into the bytes: only the offset carries over
  return status;
}

int cgif_next_frame(cgif_reader *r, const uint8_t *data, size_t size, int channels, uint8_t *out, size_t stride,
                    int *delay, char *message, size_t capacity) {
  if (!r || !out) return fail(CGIF_INVALID, message, capacity, "No GIF reader or output.");
  if (channels != 3 && channels != 4)
    return fail(CGIF_INVALID, message, capacity, "GIF decodes to 3 or 4 channels, not %d.", channels);
  const int status = draw_from(r, data, size, delay, message, capacity);
  if (status == CGIF_OK) copy_screen(r, channels, out, stride);
  return status;
}

int cgif_draw_frame(cgif_reader *r, const uint8_t *data, size_t size, int *delay, char *message, size_t capacity) {
  if (!r) return fail(CGIF_INVALID, message, capacity, "No GIF reader.");
  return draw_from(r, data, size, delay, message, capacity);
}

int cgif_copy_rows(const cgif_reader *r, int first, int count, int channels, uint8_t *out, size_t stride) {
  if (!r || !out || (channels != 3 && channels != 4) || first < 0 || count < 0 || first > r->height - count)
    return CGIF_INVALID;
  for (int y = first; y < first + count; y++) {
    const uint8_t *src = r->screen + (size_t)y * r->width * 4;
    uint8_t *dst = out + (size_t)(y - first) * stride;
    if (channels == 4) {
      memcpy(dst, src, (size_t)r->width * 4);
    } else {
      for (int x = 0; x < r->width; x++) memcpy(dst + (size_t)x * 3, src + (size_t)x * 4, 3);
    }
  }
  return CGIF_OK;
}
