// cpng_shim.h — a small C layer over libpng 1.6 for FilterGraph's PNG codec.
//
// libpng reports errors with longjmp. Every function below that calls into libpng sets up its own
// setjmp(png_jmpbuf(...)) first, so a longjmp never crosses a Swift frame: failures come back as a
// CPNG_* status code, with a message copied into a buffer the handle owns (cpng_*_message).
// Warnings (ancillary-chunk CRC errors, rejected optional chunks…) are collected on the handle.
//
// After a function has returned an error, the handle may only be asked for its message and
// warnings, and destroyed.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes.
enum {
  CPNG_OK = 0,
  CPNG_ERR_CORRUPT = 1,    ///< Malformed data (bad signature, CRC in a critical chunk, zlib error…).
  CPNG_ERR_TRUNCATED = 2,  ///< The data ended before libpng had read what it needed.
  CPNG_ERR_TOO_LARGE = 3,  ///< The header exceeds the configured dimension limit.
  CPNG_ERR_NO_MEMORY = 4,  ///< An allocation failed.
  CPNG_ERR_IO = 5,         ///< Writing the output failed.
  CPNG_ERR_INVALID = 6,    ///< The caller asked for something impossible (bad state or argument).
};

/// Filter selections for the PNG writer (cpng_fast.h) (bit masks, combinable; CPNG_FILTER_ALL = adaptive).
enum {
  CPNG_FILTER_NONE = 0x08,
  CPNG_FILTER_SUB = 0x10,
  CPNG_FILTER_UP = 0x20,
  CPNG_FILTER_AVG = 0x40,
  CPNG_FILTER_PAETH = 0x80,
  CPNG_FILTER_ALL = 0xF8,
};

// MARK: - Reader

typedef struct cpng_reader cpng_reader;

/// What cpng_reader_read_info learned. Pointers stay valid until the reader is destroyed.
typedef struct cpng_info {
  uint32_t width, height;
  int bit_depth;       ///< As stored in IHDR (1, 2, 4, 8, 16).
  int color_type;      ///< As stored in IHDR (0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA).
  int interlaced;      ///< 1 for Adam7.
  int has_trns;        ///< 1 when a tRNS chunk was read (it becomes an alpha channel).
  int out_channels;    ///< Channels per decoded pixel: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
  int out_bit_depth;   ///< 8 or 16 (16-bit samples come out in native byte order).
  size_t out_rowbytes; ///< width × out_channels × out_bit_depth / 8.
  int has_gamma;
  double gamma;        ///< gAMA file gamma, e.g. 0.45455.
  int has_srgb;
  int srgb_intent;     ///< sRGB rendering intent 0…3.
  int has_chrm;
  double chrm[8];      ///< white x, y; red x, y; green x, y; blue x, y.
  const uint8_t *icc;  ///< iCCP profile (decompressed) or NULL.
  uint32_t icc_length;
  const uint8_t *exif; ///< eXIf payload (TIFF structure) or NULL.
  uint32_t exif_length;
} cpng_info;

/// Creates a reader over `length` bytes at `data`, which must stay valid and unchanged until the
/// reader is destroyed. Width and height above `max_dimension` are refused with
/// CPNG_ERR_TOO_LARGE. Returns NULL only when memory runs out.
cpng_reader *cpng_reader_create(const uint8_t *data, size_t length, uint32_t max_dimension);

/// Creates a reader over the first `length` bytes of the file open for reading on `fd`, which must
/// stay open until the reader is destroyed: bytes are read with pread where they are needed (the
/// descriptor's offset is neither used nor moved), the image data a piece at a time, so the file
/// is never held in memory whole. A file that ends before `length` is CPNG_ERR_TRUNCATED.
cpng_reader *cpng_reader_create_file(int fd, uint64_t length, uint32_t max_dimension);

/// Reads the signature and every chunk before the first IDAT; sets up the transforms (palette to
/// RGB(A), tRNS to alpha, 1/2/4-bit gray to 8 bits, 16-bit kept in native byte order, Adam7
/// handling). Allocates no row memory.
int cpng_reader_read_info(cpng_reader *reader, cpng_info *info);

/// Reads the next `count` rows of a non-interlaced image into `rows[0 ..< count]`, each at least
/// `out_rowbytes` long. CPNG_ERR_INVALID for an interlaced image or more rows than remain.
int cpng_reader_read_rows(cpng_reader *reader, uint8_t *const *rows, uint32_t count);

/// Reads the whole image (all passes, for interlaced files) into `rows[0 ..< height]`.
/// Only valid before any cpng_reader_read_rows call.
int cpng_reader_read_image(cpng_reader *reader, uint8_t *const *rows);

/// Reads the chunks after the image data (to IEND). Call after the last row. Problems here are
/// reported as errors; the caller may treat them as warnings since all pixels are already in.
int cpng_reader_finish(cpng_reader *reader);

/// The last error's message ("" when none).
const char *cpng_reader_message(const cpng_reader *reader);
/// The number of warnings collected so far.
int cpng_reader_warning_count(const cpng_reader *reader);
/// Warning `index` (0-based), or "" when out of range.
const char *cpng_reader_warning(const cpng_reader *reader, int index);
/// Frees the reader and everything it allocated. NULL is allowed.
void cpng_reader_destroy(cpng_reader *reader);

#ifdef __cplusplus
}
#endif
