// idat.h — the PNG reader's own row decoder for plain images (internal to CPNG; see idat.c).
#pragma once

#include <stddef.h>
#include <stdint.h>

/// Where a PNG's bytes are: `length` bytes in memory at `data`, or, when `data` is NULL, the first
/// `length` bytes of the file open on `fd`, read with pread where they are needed.
typedef struct cpng_source {
  const uint8_t *data;
  int fd;
  size_t length;
} cpng_source;

/// Copies the `count` bytes at `offset` of `source` into `out`: 0, or -1 when the source ends
/// first (a file cut short since its size was taken) or reading fails.
int cpng_source_read(const cpng_source *source, size_t offset, uint8_t *out, size_t count);

typedef struct cpng_idat_reader cpng_idat_reader;

/// Starts decoding the image data of a non-interlaced 8- or 16-bit gray, gray + alpha, RGB or
/// RGBA PNG (no palette, no tRNS: rows need no transformation), whose first IDAT chunk's data
/// starts at `offset` of `source` with `chunk_length` bytes. NULL when memory runs out.
cpng_idat_reader *cpng_idat_start(const cpng_source *source, size_t offset, uint32_t chunk_length, size_t rowbytes,
                                  int bpp, int sixteen);

/// Decodes the next row (`rowbytes` bytes, 16-bit samples in native byte order) into `out`.
/// Returns CPNG_OK, CPNG_ERR_TRUNCATED (the data ends first), CPNG_ERR_CORRUPT (a CRC, zlib or
/// filter error, or the image data ends before the rows do) with a sentence in `message`.
int cpng_idat_row(cpng_idat_reader *reader, uint8_t *out, char *message, size_t capacity);

/// After the last row: inflates to the end of the image data (zlib checks its Adler-32).
/// CPNG_OK, or an error with a sentence in `message` (the
/// caller reports it as a warning, as libpng does for damage after the last row).
int cpng_idat_finish(cpng_idat_reader *reader, char *message, size_t capacity);

/// Frees the reader (NULL is fine).
void cpng_idat_free(cpng_idat_reader *reader);

/// Reverses PNG filter `filter` (0 none, 1 sub, 2 up, 3 average, 4 Paeth) on `row` (`n` bytes)
/// in place, given the decoded row above (`prior`, all zero for the first row) and `bpp` bytes
/// per pixel (1…8). Returns 0, or −1 for a filter type above 4.
int cpng_unfilter_row(int filter, uint8_t *row, const uint8_t *prior, size_t n, int bpp);
