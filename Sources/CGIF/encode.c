// encode.c — animated and still GIFs written frame by frame with giflib's encoder (see
// cgif_encode.h).
//
// Frame k is compared with the frame before it (the target pixels, alpha cut at 128: below is
// transparent). Only the smallest rectangle holding every changed pixel is written; inside it,
// unchanged pixels take the frame's transparent index, so the decoder keeps the previous frame's
// pixels there (disposal "do not dispose"), and only changed pixels are quantised and mapped.
// With a tolerance t > 0 (lossy), an opaque pixel whose target is within Euclidean RGB distance t
// of the colour the decoder already shows there (the earlier frames' mapped output, kept as the
// `shown` canvas) also counts as unchanged: its small change is dropped, and the longer runs of
// the transparent index cost LZW fewer bytes.
// A pixel can become transparent again only by disposal: when frame k+1 clears a pixel frame k
// shows, frame k (held, as palette indices, until then) is widened to the whole canvas with its
// transparent index around its rectangle and written with disposal "restore to background", and
// frame k+1 is then compared with an empty canvas. Each frame has its own colour table (a local
// one, up to 256 entries including the transparent index).
#include "cgif_encode.h"

#include "cgif_quantize.h"
#include "cgif_shim.h"

#include <gif_lib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cgif_writer {
  GifFileType *gif;
  cgif_sink sink;
  void *context;
  int sink_refused;
  int width, height, max_colors, dither, keep_transparent, tolerance;
  double dither_amount;
  cgif_quantizer *quantizer;
  uint8_t *current, *previous;  ///< the target frames, straight RGBA, alpha 0 or 255
  uint8_t *shown;               ///< what the decoder shows after the frames written, RGBA
  uint8_t *take;                ///< 1 where a pixel of the rectangle is written in colour
  uint8_t *indices;             ///< the held frame's indices, rows `held.width` apart
  uint8_t *wide;                ///< the held frame widened to the canvas
  int frames;
  struct {
    int present, x, y, width, height, count, transparent, delay, disposal;
    uint8_t palette[768];
  } held;
};

static int fail(int status, char *message, size_t capacity, const char *format, ...) {
  if (message && capacity) {
    va_list args;
    va_start(args, format);
    vsnprintf(message, capacity, format, args);
    va_end(args);
  }
  return status;
}

static int write_bytes(GifFileType *gif, const GifByteType *data, int count) {
  cgif_writer *w = gif->UserData;
  if (count <= 0) return 0;
  if (w->sink_refused || w->sink(w->context, data, (size_t)count) != 0) {
    w->sink_refused = 1;
    return 0;
  }
  return count;
}

static int gif_failure(cgif_writer *w, char *message, size_t capacity) {
  if (w->sink_refused) return fail(CGIF_INVALID, message, capacity, "The GIF's output refused its bytes.");
  const char *text = GifErrorString(w->gif ? w->gif->Error : 0);
  return fail(CGIF_CORRUPT, message, capacity, "giflib could not write the GIF: %s.", text ? text : "unknown error");
}

size_t cgif_writer_state_bytes(int width, int height) {
  return (size_t)width * height * 15 + cgif_quantizer_bytes();
}

cgif_writer *cgif_writer_new(int width, int height, int loop_count, int max_colors, int dither, double dither_amount,
                             int keep_transparent, int tolerance, cgif_sink sink, void *context, int *status, char *message, size_t capacity) {
  *status = CGIF_OK;
  if (!sink) {
    *status = fail(CGIF_INVALID, message, capacity, "A GIF writer needs a sink for its bytes.");
    return NULL;
  }
  if (width < 1 || height < 1 || width > 65535 || height > 65535) {
    *status = fail(CGIF_INVALID, message, capacity, "A GIF is 1 to 65535 pixels a side, not %d × %d.", width, height);
    return NULL;
  }
  cgif_writer *w = calloc(1, sizeof *w);
  const size_t pixels = (size_t)width * height;
  if (w) {
    w->sink = sink;
    w->context = context;
    w->width = width;
    w->height = height;
    w->max_colors = max_colors < 2 ? 2 : max_colors > 256 ? 256 : max_colors;
    w->dither = dither;
    w->dither_amount = dither_amount;
    w->keep_transparent = keep_transparent;
    w->tolerance = tolerance < 0 ? 0 : tolerance > 255 ? 255 : tolerance;
    w->shown = calloc(pixels, 4);
    w->quantizer = cgif_quantizer_new();
    w->current = calloc(pixels, 4);
    w->previous = calloc(pixels, 4);
    w->take = malloc(pixels);
    w->indices = malloc(pixels);
    w->wide = malloc(pixels);
  }
  if (!w || !w->quantizer || !w->current || !w->previous || !w->shown || !w->take || !w->indices || !w->wide) {
    *status = fail(CGIF_NO_MEMORY, message, capacity, "Out of memory for a %d × %d GIF writer.", width, height);
    cgif_writer_free(w);
    return NULL;
  }
  int error = 0;
  w->gif = EGifOpen(w, write_bytes, &error);
  if (!w->gif) {
    *status = fail(CGIF_NO_MEMORY, message, capacity, "giflib could not start a GIF.");
    cgif_writer_free(w);
    return NULL;
  }
  EGifSetGifVersion(w->gif, true);
  int ok = EGifPutScreenDesc(w->gif, width, height, 8, 0, NULL) == GIF_OK;
  if (ok && loop_count >= 0) {
    const GifByteType count[3] = {1, (GifByteType)(loop_count & 0xff), (GifByteType)(loop_count >> 8 & 0xff)};
    ok = EGifPutExtensionLeader(w->gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
         EGifPutExtensionBlock(w->gif, 11, "NETSCAPE2.0") == GIF_OK && EGifPutExtensionBlock(w->gif, 3, count) == GIF_OK &&
         EGifPutExtensionTrailer(w->gif) == GIF_OK;
  }
  if (!ok) {
    *status = gif_failure(w, message, capacity);
    cgif_writer_free(w);
    return NULL;
  }
  return w;
}

void cgif_writer_free(cgif_writer *w) {
  if (!w) return;
  int error = 0;
  w->sink_refused = 1;  // an unfinished GIF is abandoned: giflib's trailer is not written
  if (w->gif) EGifCloseFile(w->gif, &error);
  cgif_quantizer_free(w->quantizer);
  free(w->current);
  free(w->previous);
  free(w->shown);
  free(w->take);
  free(w->indices);
  free(w->wide);
  free(w);
}

/// Writes the held frame: its graphic control extension, image descriptor, colour table and rows.
static int write_held(cgif_writer *w, char *message, size_t capacity) {
  if (!w->held.present) return CGIF_OK;
  w->held.present = 0;
  GraphicsControlBlock control = {w->held.disposal, false, w->held.delay, w->held.transparent};
  GifByteType extension[4];
  EGifGCBToExtension(&control, extension);
  const int used = w->held.count + (w->held.transparent >= 0 ? 1 : 0);
  int size = 2;
  while (size < used) size *= 2;
  GifColorType colors[256];
  memset(colors, 0, sizeof colors);
  for (int k = 0; k < w->held.count; k++) {
    colors[k].Red = w->held.palette[3 * k];
    colors[k].Green = w->held.palette[3 * k + 1];
    colors[k].Blue = w->held.palette[3 * k + 2];
  }
  ColorMapObject *map = GifMakeMapObject(size, colors);
  if (!map) return fail(CGIF_NO_MEMORY, message, capacity, "Out of memory writing the GIF.");
  int ok = EGifPutExtension(w->gif, GRAPHICS_EXT_FUNC_CODE, 4, extension) == GIF_OK &&
           EGifPutImageDesc(w->gif, w->held.x, w->held.y, w->held.width, w->held.height, false, map) == GIF_OK;
  GifFreeMapObject(map);
  for (int y = 0; ok && y < w->held.height; y++)
    ok = EGifPutLine(w->gif, w->indices + (size_t)y * w->held.width, w->held.width) == GIF_OK;
  return ok ? CGIF_OK : gif_failure(w, message, capacity);
}

/// Widens the held frame to the whole canvas (its transparent index around its rectangle) and
/// makes it restore the background, so that the frame after it starts from an empty canvas.
static void widen_held(cgif_writer *w) {
  memset(w->wide, (uint8_t)w->held.transparent, (size_t)w->width * w->height);
  for (int y = 0; y < w->held.height; y++)
    memcpy(w->wide + (size_t)(w->held.y + y) * w->width + w->held.x, w->indices + (size_t)y * w->held.width,
           (size_t)w->held.width);
  uint8_t *swap = w->indices;
  w->indices = w->wide;
  w->wide = swap;
  w->held.x = w->held.y = 0;
  w->held.width = w->width;
  w->held.height = w->height;
  w->held.disposal = DISPOSE_BACKGROUND;
}

/// Whether canvas pixel `i` must be written: its target differs from the previous frame's and,
/// with a tolerance, from what is shown there by more than the tolerance.
static inline int changed(const cgif_writer *w, size_t i) {
  const uint8_t *now = w->current + 4 * i, *before = w->previous + 4 * i, *shown = w->shown + 4 * i;
  if (memcmp(now, before, 4) == 0) return 0;
  if (!w->tolerance || now[3] != 255 || shown[3] != 255) return 1;
  const int r = now[0] - shown[0], g = now[1] - shown[1], b = now[2] - shown[2];
  return r * r + g * g + b * b > w->tolerance * w->tolerance;
}

int cgif_writer_add(cgif_writer *w, const uint8_t *pixels, size_t stride, int channels, int delay, char *message,
                    size_t capacity) {
  if (!w || !pixels || (channels != 3 && channels != 4))
    return fail(CGIF_INVALID, message, capacity, "GIF frames are RGB or RGBA.");
  if (!w->gif) return fail(CGIF_INVALID, message, capacity, "The GIF is already finished.");
  const int width = w->width, height = w->height;
  int clears = 0;
  for (int y = 0; y < height; y++) {
    const uint8_t *src = pixels + (size_t)y * stride;
    uint8_t *dst = w->current + (size_t)y * width * 4;
    const uint8_t *before = w->previous + (size_t)y * width * 4;
    for (int x = 0; x < width; x++, src += channels, dst += 4) {
      if (channels == 3 || src[3] >= 128) {
        dst[0] = src[0], dst[1] = src[1], dst[2] = src[2], dst[3] = 255;
      } else {
        dst[0] = dst[1] = dst[2] = dst[3] = 0;
        clears |= before[4 * x + 3];
      }
    }
  }
  if (clears && w->held.present) {
    widen_held(w);
    memset(w->previous, 0, (size_t)width * height * 4);
    memset(w->shown, 0, (size_t)width * height * 4);
  }
  int status = write_held(w, message, capacity);
  if (status != CGIF_OK) return status;

  // The rectangle of changed pixels.
  int x0 = width, x1 = -1, y0 = height, y1 = -1;
  for (int y = 0; y < height; y++) {
    const size_t row = (size_t)y * width;
    int first = 0, last = width - 1;
    while (first < width && !changed(w, row + first)) first++;
    if (first == width) continue;
    while (!changed(w, row + last)) last--;
    if (first < x0) x0 = first;
    if (last > x1) x1 = last;
    if (y < y0) y0 = y;
    y1 = y;
  }
  if (x1 < 0) x0 = x1 = y0 = y1 = 0;  // nothing changed: one transparent pixel
  const int rw = x1 - x0 + 1, rh = y1 - y0 + 1;
  int unchanged = 0;
  for (int y = 0; y < rh; y++) {
    const size_t row = (size_t)(y0 + y) * width + x0;
    const uint8_t *alpha = w->current + row * 4 + 3;
    uint8_t *t = w->take + (size_t)y * rw;
    for (int x = 0; x < rw; x++) {
      t[x] = changed(w, row + x) && alpha[4 * x] != 0;
      unchanged |= !t[x];
    }
  }
  const int transparent = unchanged || w->keep_transparent;
  const uint8_t *origin = w->current + ((size_t)y0 * width + x0) * 4;
  int exact = 0;
  const int count = cgif_build_palette(w->quantizer, origin, width, w->take, rw, rh, w->max_colors - transparent,
                                       w->held.palette, &exact);
  cgif_map_pixels(w->quantizer, origin, width, w->take, x0, y0, rw, rh, w->held.palette, count, exact,
                  transparent ? count : 0, w->dither, w->dither_amount, w->indices);
  for (int y = 0; y < rh; y++) {
    const uint8_t *t = w->take + (size_t)y * rw, *index = w->indices + (size_t)y * rw;
    uint8_t *shown = w->shown + ((size_t)(y0 + y) * width + x0) * 4;
    for (int x = 0; x < rw; x++) {
      if (!t[x]) continue;
      const uint8_t *entry = w->held.palette + 3 * index[x];
      shown[4 * x] = entry[0], shown[4 * x + 1] = entry[1], shown[4 * x + 2] = entry[2], shown[4 * x + 3] = 255;
    }
  }
  w->held.present = 1;
  w->held.x = x0, w->held.y = y0, w->held.width = rw, w->held.height = rh;
  w->held.count = count;
  w->held.transparent = transparent ? count : NO_TRANSPARENT_COLOR;
  w->held.delay = delay < 0 ? 0 : delay > 65535 ? 65535 : delay;
  w->held.disposal = DISPOSE_DO_NOT;
  uint8_t *swap = w->previous;
  w->previous = w->current;
  w->current = swap;
  w->frames++;
  return CGIF_OK;
}

int cgif_writer_finish(cgif_writer *w, char *message, size_t capacity) {
  if (!w || !w->gif) return fail(CGIF_INVALID, message, capacity, "The GIF is already finished.");
  if (!w->frames) return fail(CGIF_INVALID, message, capacity, "A GIF needs at least one frame.");
  int status = write_held(w, message, capacity);
  if (status != CGIF_OK) return status;
  int error = 0;
  const int closed = EGifCloseFile(w->gif, &error);
  w->gif = NULL;
  if (w->sink_refused) return fail(CGIF_INVALID, message, capacity, "The GIF's output refused its bytes.");
  if (closed != GIF_OK) {
    const char *text = GifErrorString(error);
    return fail(CGIF_CORRUPT, message, capacity, "giflib could not finish the GIF: %s.", text ? text : "unknown error");
  }
  return CGIF_OK;
}
