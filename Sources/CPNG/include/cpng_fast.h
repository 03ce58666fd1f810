// cpng_fast.h — the pieces of FilterGraph's own PNG writer that run in C: row filtering and
// segment-wise deflate (libdeflate), a deflate block walker, CRC-32 and Adler-32 helpers.
//
// A PNG's image data is one zlib stream. The writer cuts the filtered rows into segments of whole
// rows and compresses each segment on its own with libdeflate, which gives a complete raw deflate
// stream whose last block is marked final. For every segment but the last, a block walker
// (cpng_deflate_scan) finds that final block's header and end; the final bit is cleared and an
// empty stored block (zlib's sync-flush marker, 00 00 FF FF) appended, so the segment ends on a
// byte boundary and the next one can follow. The segments are joined in order behind one zlib
// header, with the Adler-32 of the whole stream combined from the segments' (the pigz approach).
// libdeflate takes no preset dictionary, so a segment cannot refer back into the previous one:
// with 1 MiB segments that costs about 0.1 % in size (measured on a 24 MP photo).
// Segments are independent, so they can be compressed in parallel; the bytes never depend on
// timing. No function here longjmps; the only state kept is one libdeflate compressor per thread.
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
/// - emit_rows: the last `emit_rows` rows are compressed; of the rows before them only the one
///   right above is read (the filters' row above). 1 ≤ emit_rows ≤ total_rows − prior_only.
/// - bpp: bytes per complete pixel (1…8), the filters' left distance.
/// - filters: a CPNG_FILTER_* mask (one filter, or several: the per-row minimum-sum-of-absolute-
///   differences heuristic picks among them).
/// - level: 0…9 on zlib's scale, used as the same libdeflate level (0 stores).
///   last: 1 finishes the deflate stream; 0 ends it with an empty stored block instead (joinable).
/// - out, out_length: the raw-deflate bytes (free them with cpng_free).
/// - adler: the Adler-32 (seeded with 1) of the emitted filtered bytes; filtered_length their count.
/// Returns CPNG_OK, CPNG_ERR_INVALID (bad arguments), CPNG_ERR_NO_MEMORY, or CPNG_ERR_CORRUPT
/// when the compressed segment fails its own check (never expected).
int cpng_segment_encode(const uint8_t *rows, size_t rowbytes, uint32_t total_rows, int prior_only,
                        uint32_t emit_rows, int bpp, int swap16, int filters, int level, int last,
                        uint8_t **out, size_t *out_length, uint32_t *adler,
                        size_t *filtered_length);

/// Compresses `length` (≥ 1) bytes as one raw deflate segment with libdeflate at `level` (0…9,
/// as for cpng_segment_encode). last = 1: a complete stream; last = 0: joinable (see
/// cpng_deflate_make_joinable), so segments can be concatenated into one stream. Free *out with
/// cpng_free. CPNG_OK, CPNG_ERR_INVALID, CPNG_ERR_NO_MEMORY or CPNG_ERR_CORRUPT (self-check).
int cpng_deflate_segment(const uint8_t *data, size_t length, int level, int last, uint8_t **out,
                         size_t *out_length);

/// Walks a raw deflate stream's blocks (RFC 1951) up to the end of its first final block, decoding
/// every symbol but producing no output.
///
/// On CPNG_OK: `final_header_bit` is the bit offset of the final block's BFINAL bit (bit k of the
/// stream is bit k % 8 of byte k / 8), `end_bit` the offset just past that block's end, and
/// `decoded_length` the number of bytes the stream inflates to. CPNG_ERR_CORRUPT for a malformed
/// or truncated stream (bad block type, code lengths, symbols or stored lengths, a distance
/// before the start); CPNG_ERR_INVALID for NULL arguments. Never reads outside `data`.
int cpng_deflate_scan(const uint8_t *data, size_t length, uint64_t *final_header_bit,
                      uint64_t *end_bit, uint64_t *decoded_length);

/// Turns a complete raw deflate stream of `length` bytes (in a buffer of `capacity` bytes) into a
/// joinable prefix: clears the final block's BFINAL bit and appends an empty stored block ending
/// on a byte boundary. The stream must inflate to `expected_length` bytes and its final block end
/// in its last byte. `joined_length` receives the new length (at most length + 5).
/// CPNG_OK, CPNG_ERR_CORRUPT (the stream is malformed or not as expected) or CPNG_ERR_INVALID.
int cpng_deflate_make_joinable(uint8_t *stream, size_t length, size_t capacity,
                               uint64_t expected_length, size_t *joined_length);

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

/// Inflates one complete zlib stream (header, data, Adler-32) into `out` with zlib, independent of
/// the writer's own code (the tests' second opinion on joined streams). `out_length` receives the
/// bytes produced. CPNG_OK only when the stream ends, its Adler-32 matches and no input is left
/// over; CPNG_ERR_CORRUPT otherwise (including output that does not fit).
int cpng_zlib_uncompress(const uint8_t *data, size_t length, uint8_t *out, size_t capacity,
                         size_t *out_length);

// Box reduction of decoded rows (shrink-on-load for PNG; shrink.c).
/// Averages `rows` (1…d) consecutive decoded rows, `src_stride` bytes apart, in blocks of `d`
/// columns into one row of ceil(width / d) pixels at `dst`. Samples are 8-bit, or 16-bit in
/// native byte order when `sixteen` is nonzero; `channels` per pixel (1–4). When `has_alpha` is
/// nonzero the last channel is straight alpha: colours are averaged weighted by alpha (the
/// average of premultiplied colours divided by the average alpha), so transparent pixels do not
/// bleed their colour; a block with no coverage averages its colours plainly. Every average is
/// rounded to nearest. The last block of a row may be narrower than `d`. With `linear` nonzero
/// the colour samples are sRGB-encoded values averaged as light (decoded through the sRGB curve,
/// averaged, encoded back to the nearest value), as a linear-light resample of the full image
/// averages them; alpha is averaged as stored. Never fails.
void cpng_box_shrink_row(const uint8_t *src, size_t src_stride, int rows, int width, int channels,
                         int sixteen, int has_alpha, int d, int linear, uint8_t *dst);

#ifdef __cplusplus
}
#endif
