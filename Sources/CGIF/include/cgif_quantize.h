// cgif_quantize.h — the GIF writer's colour reduction: a palette of at most 256 colours for the
// pixels of a frame (their own colours when they are few, otherwise Wu's cut refined by one
// k-means step) and the pixels mapped to it with or without dithering (see quantize.c).
#ifndef CGIF_QUANTIZE_H
#define CGIF_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Dithering when pixels are mapped to a palette that lacks their colours.
enum {
  CGIF_DITHER_NONE = 0,
  CGIF_DITHER_DIFFUSION = 1,  ///< Floyd–Steinberg error diffusion
  CGIF_DITHER_ORDERED = 2,    ///< an 8×8 Bayer matrix
};

/// The histogram and caches a quantiser reuses from frame to frame (about 1.7 MB).
typedef struct cgif_quantizer cgif_quantizer;

/// A new quantiser, or NULL when memory is short.
cgif_quantizer *cgif_quantizer_new(void);
void cgif_quantizer_free(cgif_quantizer *quantizer);
/// The bytes a quantiser holds.
size_t cgif_quantizer_bytes(void);

/// Chooses at most `max_colors` (1…256) entries (3 bytes each into `palette`) for the pixels of
/// the `width` × `height` RGBA rectangle at `rgba` (rows `stride_pixels` pixels apart) whose
/// `take` byte (rows `width` apart) is non-zero; returns the number of entries (at least 1).
/// `*exact` is 1 when the entries are exactly the pixels' distinct colours.
int cgif_build_palette(cgif_quantizer *quantizer, const uint8_t *rgba, int stride_pixels, const uint8_t *take,
                       int width, int height, int max_colors, uint8_t *palette, int *exact);

/// Maps the rectangle's pixels to `palette` (`count` entries) into `indices` (rows `width`
/// apart): pixels whose `take` byte is 0 get `transparent`; the others their entry, dithered as
/// `dither` says at `amount` (0…1: the ordered pattern's amplitude or the share of each error
/// diffused is scaled by it; 0 is no dithering), never for an `exact` palette. `x0`, `y0` place the rectangle on the canvas
/// (the ordered pattern is anchored to the canvas, so it does not move between frames).
void cgif_map_pixels(cgif_quantizer *quantizer, const uint8_t *rgba, int stride_pixels, const uint8_t *take, int x0,
                     int y0, int width, int height, const uint8_t *palette, int count, int exact, int transparent,
                     int dither, double amount, uint8_t *indices);

#ifdef __cplusplus
}
#endif
#endif
