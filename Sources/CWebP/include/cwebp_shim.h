// cwebp_shim.h — libwebp (decode, encode), libwebpdemux and libwebpmux behind a few calls that
// return a status and a message. libwebp never longjmps; the shim gathers the several libraries'
// calls (features, demuxing the RIFF container, animation, muxing metadata chunks) in one place.
#ifndef CWEBP_SHIM_H
#define CWEBP_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes.
enum {
  CWEBP_OK = 0,
  CWEBP_CORRUPT = 1,      ///< not a valid WebP file
  CWEBP_TRUNCATED = 2,    ///< the file ends early
  CWEBP_UNSUPPORTED = 3,  ///< a valid file this build cannot decode
  CWEBP_NO_MEMORY = 4,
  CWEBP_INVALID = 5,      ///< a bad argument (size, option)
  CWEBP_END = 6,          ///< `cwebp_frames_next`: there are no more frames
};

/// What a WebP file's header and chunks say. The metadata pointers point into the caller's bytes.
typedef struct {
  int width, height;          ///< canvas size
  int has_alpha;              ///< the image (or animation) has an alpha channel
  int has_animation;          ///< an animated file (ANIM/ANMF chunks)
  int frame_count;            ///< frames (1 for a still image)
  int is_lossless;            ///< the first frame is VP8L (lossless); 0 for VP8 (lossy) or mixed
  int loop_count;             ///< the ANIM chunk's loop count (0: forever); 0 for still images
  const uint8_t *icc; size_t icc_length;
  const uint8_t *exif; size_t exif_length;
  const uint8_t *xmp; size_t xmp_length;
} cwebp_info;

/// Reads the features and metadata chunks of `data`. Returns a status; `message` (of `capacity`
/// bytes) receives a sentence on failure.
int cwebp_read_info(const uint8_t *data, size_t size, cwebp_info *info, char *message, size_t capacity);

/// Decodes the first frame of `data` into `out` (rows `stride` bytes apart), as RGB
/// (`channels` 3) or straight-alpha RGBA (4), scaled to `out_width` × `out_height` by libwebp's
/// own scaler when that differs from the canvas. Still images only: animations are read with
/// `cwebp_frames_open`.
int cwebp_decode(const uint8_t *data, size_t size, int channels, int out_width, int out_height,
                 uint8_t *out, size_t stride, char *message, size_t capacity);

/// Each frame's duration in milliseconds, for the first `count` frames of `data` (which
/// `cwebp_read_info` found animated).
int cwebp_read_durations(const uint8_t *data, size_t size, int *durations, int count, char *message, size_t capacity);

/// An animated WebP being read frame by frame through libwebp's animation decoder (which
/// blends and disposes); it holds the canvas and borrows `data`, which must outlive it.
typedef struct cwebp_frames cwebp_frames;

/// Opens an animated WebP for `cwebp_frames_next`; NULL with `*status` and `message` on failure.
cwebp_frames *cwebp_frames_open(const uint8_t *data, size_t size, int *status, char *message, size_t capacity);

/// Copies the next composed canvas to `out` (rows `stride` bytes apart, at most `rows` rows) as
/// RGB (`channels` 3) or straight-alpha RGBA (4). Returns CWEBP_END after the last frame.
int cwebp_frames_next(cwebp_frames *frames, int channels, uint8_t *out, size_t stride, int rows, char *message,
                      size_t capacity);

/// Where the data of the frame `cwebp_frames_next` decoded last lies in the reader's bytes (its
/// ALPH and VP8/VP8L chunks): the bytes that decode read.
void cwebp_frames_last_extent(const cwebp_frames *frames, size_t *offset, size_t *size);

/// Closes a frame reader (NULL is fine).
void cwebp_frames_close(cwebp_frames *frames);

/// Encoder settings (see WebPCodec's option table).
typedef struct {
  int lossless;          ///< 1: lossless (VP8L)
  float quality;         ///< 0…100: lossy quality, or lossless compression effort
  int method;            ///< 0 (fast) … 6 (slow, smaller)
  int near_lossless;     ///< 0…100, 100 = off (lossless only)
  int alpha_quality;     ///< 0…100 (lossy alpha)
} cwebp_encode_options;

/// Encodes `width` × `height` pixels (RGB when `channels` is 3, straight-alpha RGBA when 4, rows
/// `stride` bytes apart) and adds the ICC, EXIF and XMP chunks given (any may be NULL). On
/// success `*out` holds `*out_length` bytes to release with `cwebp_free`.
int cwebp_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                 const cwebp_encode_options *options, const uint8_t *icc, size_t icc_length,
                 const uint8_t *exif, size_t exif_length, const uint8_t *xmp, size_t xmp_length,
                 uint8_t **out, size_t *out_length, char *message, size_t capacity);

/// The longest a frame of an animated WebP may last, in ms (the ANMF chunk's 24 bits).
#define CWEBP_MAX_DURATION 0xFFFFFF

/// Releases bytes `cwebp_encode` returned.
void cwebp_free(uint8_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
