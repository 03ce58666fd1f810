// cgif_encode.h — GIFs written one frame at a time with giflib's LZW encoder: each frame
// quantised to its own colour table (cgif_quantize.h), only the rectangle that changed since the
// previous frame written, unchanged pixels there transparent (see encode.c). The writer holds
// three canvases of RGBA, one frame of indices (the last frame, written when the next one says how
// it must be disposed of) and its widened copy; the bytes go to the caller's sink as giflib makes
// them (a few hundred at a time), so the writer holds none of its output.
#ifndef CGIF_ENCODE_H
#define CGIF_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cgif_writer cgif_writer;

/// Receives `count` bytes of the GIF, in order; returns 0 when they were taken, anything else to
/// stop the writer (the call then fails with CGIF_INVALID, and the sink knows why).
typedef int (*cgif_sink)(void *context, const uint8_t *bytes, size_t count);

/// Starts a `width` × `height` GIF89a. `loop_count` is the NETSCAPE2.0 count (0 forever, n:
/// repeat n times after the first play), or -1 for no such extension (played once).
/// `max_colors` (2…256) bounds each frame's colour table including its transparent index;
/// `dither` is a CGIF_DITHER_ value applied at `dither_amount` (0…1, see cgif_map_pixels);
/// `keep_transparent` reserves a transparent index in every frame (needed when frames have
/// transparent pixels); `tolerance` (0…255, 0: exact) is the RGB distance within which an opaque
/// pixel's change from what is shown is dropped (lossy). The bytes go to `sink` with `context`.
/// NULL with `*status` on failure.
cgif_writer *cgif_writer_new(int width, int height, int loop_count, int max_colors, int dither, double dither_amount,
                             int keep_transparent, int tolerance, cgif_sink sink, void *context, int *status, char *message, size_t capacity);

/// Adds a frame (RGB or RGBA, `channels` 3 or 4, rows `stride` bytes apart; alpha below 128 is
/// transparent) shown for `delay` centiseconds (clamped to 0…65535).
int cgif_writer_add(cgif_writer *writer, const uint8_t *pixels, size_t stride, int channels, int delay, char *message,
                    size_t capacity);

/// Writes the last frame and the trailer to the sink.
int cgif_writer_finish(cgif_writer *writer, char *message, size_t capacity);

/// Frees the writer.
void cgif_writer_free(cgif_writer *writer);

/// The bytes a writer of a `width` × `height` GIF holds.
size_t cgif_writer_state_bytes(int width, int height);

#ifdef __cplusplus
}
#endif
#endif
