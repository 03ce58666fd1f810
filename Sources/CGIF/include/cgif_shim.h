// cgif_shim.h — giflib behind two calls that read a GIF held in memory and return a status and
// a message (giflib reports errors by return codes; the shim turns them into sentences and keeps
// its read callback in C).
#ifndef CGIF_SHIM_H
#define CGIF_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes.
enum {
  CGIF_OK = 0,
  CGIF_CORRUPT = 1,    ///< not a valid GIF
  CGIF_TRUNCATED = 2,  ///< the file ends before the first frame's data does
  CGIF_NO_MEMORY = 3,
  CGIF_INVALID = 4,    ///< a bad argument
};

/// What a GIF's screen descriptor and first frame's descriptor say.
typedef struct {
  int width, height;                ///< the logical screen (canvas)
  int frame_left, frame_top;        ///< the first frame's rectangle on the canvas
  int frame_width, frame_height;
  int transparent_index;            ///< the first frame's transparent colour index, or -1
  int has_alpha;                    ///< transparency, or a first frame smaller than the canvas
} cgif_info;

/// Reads the screen descriptor and the records up to the first frame's descriptor.
int cgif_read_info(const uint8_t *data, size_t size, cgif_info *info, char *message, size_t capacity);

/// Decodes the first frame onto the canvas at `out` (rows `stride` bytes apart) as RGB
/// (`channels` 3) or straight-alpha RGBA (4): canvas pixels outside the frame and transparent
/// pixels become (0, 0, 0, 0). Interlaced frames are de-interlaced.
int cgif_decode(const uint8_t *data, size_t size, int channels, uint8_t *out, size_t stride,
                char *message, size_t capacity);

#ifdef __cplusplus
}
#endif
#endif
