// cpng_fast.h — the pieces of FilterGraph's own PNG writer that run in C: row filtering and
// segment-wise deflate (zlib), CRC-32 and Adler-32 helpers.
//
// A PNG's image data is one zlib stream. The writer cuts the filtered rows into segments of whole
// rows, compresses each segment on its own as raw deflate (primed with up to 32 KiB of the
// filtered bytes that precede it, so the ratio barely changes) ending on a byte boundary with a
// sync flush (the last segment ends the stream), and joins them in order behind one zlib header,
// with the Adler-32 of the whole stream combined from the segments' (the pigz approach).
// Segments are independent, so they can be compressed in parallel; the bytes never depend on
// timing. No function here longjmps or keeps state between calls.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Filters and compresses one segment.
///
/// - rows: `total_rows` consecutive rows of `rowbytes` bytes each (16-bit samples in native byte
///   order when `swap16` is 1 on a little-endian machine: they are written big-endian).
/// - prior_only: 1 when rows[0] is not filtered itself and only serves as the row above rows[1]
///   (0: rows[0] is the image's first row, with an all-zero row above it).
/// - emit_rows: the last `emit_rows` rows are compressed; the filtered rows before them (their
///   last 32 KiB) prime the deflate dictionary. 1 ≤ emit_rows ≤ total_rows − prior_only.
/// - bpp: bytes per complete pixel (1…8), the filters' left distance.
/// - filters: a CPNG_FILTER_* mask (one filter, or several: the per-row minimum-sum-of-absolute-
///   differences heuristic picks among them).
/// - level: zlib level 0…9. last: 1 finishes the deflate stream; 0 ends with a sync flush.
/// - out, out_length: the raw-deflate bytes (free them with cpng_free).
/// - adler: the Adler-32 (seeded with 1) of the emitted filtered bytes; filtered_length their count.
/// Returns CPNG_OK, CPNG_ERR_INVALID (bad arguments) or CPNG_ERR_NO_MEMORY (also for zlib errors).
int cpng_segment_encode(const uint8_t *rows, size_t rowbytes, uint32_t total_rows, int prior_only,
                        uint32_t emit_rows, int bpp, int swap16, int filters, int level, int last,
                        uint8_t **out, size_t *out_length, uint32_t *adler,
                        size_t *filtered_length);

/// Frees memory returned by this file's functions. NULL is allowed.
void cpng_free(void *pointer);

/// The Adler-32 of A followed by B, from adler(A), adler(B) and B's length.
uint32_t cpng_adler32_combine(uint32_t adler_a, uint32_t adler_b, uint64_t length_b);

/// Updates a CRC-32 (start with 0) with `length` bytes.
uint32_t cpng_crc32(uint32_t crc, const uint8_t *data, size_t length);

/// zlib-compresses `length` bytes (with zlib header and trailer) for an iCCP chunk.
/// CPNG_OK or CPNG_ERR_NO_MEMORY; free *out with cpng_free.
int cpng_zlib_compress(const uint8_t *data, size_t length, int level, uint8_t **out,
                       size_t *out_length);

#ifdef __cplusplus
}
#endif
