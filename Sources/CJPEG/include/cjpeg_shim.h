// cjpeg_shim.h — a small C layer over libjpeg(-turbo) that keeps libjpeg's setjmp/longjmp error
// handling entirely inside C.
//
// libjpeg reports a fatal error by calling error_exit(), which by default prints and calls exit().
// Every function below installs its own setjmp before calling into libjpeg, and the shim's
// error_exit longjmps back to it: no longjmp ever crosses a Swift frame. Each function returns a
// cj_status; the library's own message (format_message) is copied into a buffer the handle owns.
//
// Decoding is incremental (header, start, rows, finish) so callers can decode in strips.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The outcome of a shim call.
typedef enum {
  CJ_OK = 0,
  /// The data is not a valid JPEG stream (bad marker, bad table, garbage…).
  CJ_ERR_CORRUPT = 1,
  /// The data ends before the image does (or an error followed a premature-end warning).
  CJ_ERR_TRUNCATED = 2,
  /// A valid stream using a feature this libjpeg build cannot decode.
  CJ_ERR_UNSUPPORTED = 3,
  /// The sample precision is not 8 bits (for example a 12-bit JPEG); see cj_decoder_error_parameter.
  CJ_ERR_UNSUPPORTED_PRECISION = 4,
  /// The SOF process is not supported (lossless, hierarchical); the SOF marker is the parameter.
  CJ_ERR_UNSUPPORTED_PROCESS = 5,
  /// libjpeg could not allocate memory.
  CJ_ERR_NO_MEMORY = 6,
  /// The image exceeds libjpeg's dimension limits.
  CJ_ERR_TOO_LARGE = 7,
  /// The caller broke the call order or passed a bad argument.
  CJ_ERR_USAGE = 8,
  /// Writing the compressed bytes to the file descriptor failed (full disk, I/O error, closed
  /// pipe); see cj_encoder_errno.
  CJ_ERR_IO = 9,
  /// The file a decoder reads (cj_decoder_create_file) changed size while it was read.
  CJ_ERR_FILE_CHANGED = 10,
} cj_status;

/// The colour model of the coded data, as the header reports it.
typedef enum {
  CJ_MODEL_OTHER = 0,
  CJ_MODEL_GRAY = 1,
  CJ_MODEL_YCBCR = 2,
  CJ_MODEL_RGB = 3,
  CJ_MODEL_CMYK = 4,
  CJ_MODEL_YCCK = 5,
} cj_color_model;

/// The inverse DCT used when decoding (libjpeg's JDCT_ISLOW, JDCT_IFAST, JDCT_FLOAT).
typedef enum {
  CJ_DCT_ISLOW = 0,
  CJ_DCT_IFAST = 1,
  CJ_DCT_FLOAT = 2,
} cj_dct_method;

/// Chroma subsampling for encoding.
typedef enum {
  CJ_SUBSAMPLE_444 = 0,
  CJ_SUBSAMPLE_422 = 1,
  CJ_SUBSAMPLE_420 = 2,
  /// For cj_small_encode: 4:4:4 or 4:2:0, whichever this image's colour detail needs
  /// (cj_small_subsampling); cj_encoder_start treats it as 4:2:0.
  CJ_SUBSAMPLE_AUTO = 3,
} cj_subsampling;

/// What jpeg_read_header found.
typedef struct {
  uint32_t width;
  uint32_t height;
  /// Components in the file (1, 3 or 4 usually).
  int32_t components;
  /// libjpeg's J_COLOR_SPACE of the coded data.
  int32_t jpeg_color_space;
  /// The same, simplified.
  int32_t color_model;
  /// 1 when an Adobe APP14 marker was seen (CMYK data is then stored inverted).
  int32_t saw_adobe_marker;
  /// The Adobe marker's transform flag (0 = none, 1 = YCbCr, 2 = YCCK).
  int32_t adobe_transform;
  /// 1 for progressive (SOF2/SOF10) files.
  int32_t progressive;
  /// 1 for arithmetic-coded files.
  int32_t arithmetic;
  /// Bits per sample (8; anything else fails earlier in this build).
  int32_t data_precision;
  /// Channels per output pixel the shim produces: 1 (gray) or 3 (RGB; CMYK is converted).
  int32_t output_components;
} cj_header;

/// An APP or COM marker to write.
typedef struct {
  /// The marker code (0xE1 for APP1, 0xE2 for APP2, 0xED for APP13, 0xFE for COM).
  int32_t marker;
  /// The payload (after the length field), owned by the caller, at most 65533 bytes.
  const uint8_t *data;
  size_t length;
} cj_marker;

// MARK: - Decoder

typedef struct cj_decoder cj_decoder;

/// The libjpeg-turbo version the shim was compiled against, for example "2.1.5".
const char *cj_library_version(void);

/// Creates a decoder over a private copy of `len` bytes. Returns NULL only when out of memory; any
/// other failure is reported by the next call (see cj_decoder_status).
cj_decoder *cj_decoder_create(const uint8_t *data, size_t len);

/// Creates a decoder reading `len` bytes in place, without copying them: the caller keeps `data`
/// alive and unchanged until cj_decoder_destroy. Otherwise as cj_decoder_create.
cj_decoder *cj_decoder_create_borrowing(const uint8_t *data, size_t len);

/// The buffer a decoder created by cj_decoder_create_file reads the file into.
#define CJ_FILE_BUFFER_SIZE (256 * 1024)

/// Creates a decoder reading the regular file open on `fd` (which stays the caller's: open until
/// cj_decoder_destroy, never closed here) from its start, through pread into a buffer of
/// `buffer_size` bytes; the descriptor's offset is neither used nor moved. `size` is the file's
/// size when it was opened: the bytes read are those a memory decoder (cj_decoder_create) of the
/// file's `size` bytes would read, and its end is met the same way ("Premature end of JPEG file"
/// and a fake EOI). A read that finds the file shorter, or at its end another size, fails with
/// CJ_ERR_FILE_CHANGED; a failed read with CJ_ERR_IO. Otherwise as cj_decoder_create.
cj_decoder *cj_decoder_create_file(int fd, uint64_t size, size_t buffer_size);

/// Frees everything the decoder owns. Safe at any stage, including after an error; NULL is fine.
void cj_decoder_destroy(cj_decoder *decoder);

/// Makes corrupt-data warnings (for example "Premature end of JPEG file") fatal when `strict` is 1.
void cj_decoder_set_strict(cj_decoder *decoder, int strict);

/// With `keep` 1 (set before cj_start), CMYK and YCCK files are delivered as 4 bytes per pixel of
/// CMYK ink amounts (0 = no ink; the inverted values of files with an Adobe marker are turned
/// back), for a colour-managed conversion by the caller, instead of being converted to RGB.
void cj_decoder_keep_cmyk(cj_decoder *decoder, int keep);

/// Reads the markers up to the first scan and fills `header`. Metadata segments are skipped, not
/// saved: the caller reads them from the bytes it passed, or from the file's head it read itself
/// (JPEGMetadata.forEachSegment).
int cj_read_header(cj_decoder *decoder, cj_header *header);

/// Starts decompression scaled by 1/scale_denom (1, 2, 4 or 8) and reports the output size and
/// channels (1 = gray, 3 = RGB, 4 = CMYK kept by cj_decoder_keep_cmyk). CMYK and YCCK files are
/// otherwise decoded as CMYK and converted to RGB naively.
int cj_start(cj_decoder *decoder, int scale_denom, int dct_method, int fancy_upsampling,
             uint32_t *out_width, uint32_t *out_height, int32_t *out_components);

/// Decodes up to `max_rows` rows into `rows` (each at least out_width × out_components bytes);
/// `rows_read` receives the number decoded (fewer only at the end of the image).
int cj_read_rows(cj_decoder *decoder, uint8_t *const *rows, uint32_t max_rows, uint32_t *rows_read);

/// Skips up to `count` rows without producing them; `rows_skipped` receives the number skipped.
int cj_skip_rows(cj_decoder *decoder, uint32_t count, uint32_t *rows_skipped);

/// The next output row to be decoded.
uint32_t cj_output_row(const cj_decoder *decoder);

/// Reads the rest of the stream (to EOI) after all rows were read.
int cj_finish(cj_decoder *decoder);

/// The status of the first failure, or CJ_OK.
int cj_decoder_status(const cj_decoder *decoder);

/// The last error's message (empty when none); owned by the decoder.
const char *cj_decoder_message(const cj_decoder *decoder);

/// The last error's first numeric parameter (the precision, or the SOF marker code).
int cj_decoder_error_parameter(const cj_decoder *decoder);

/// The number of corrupt-data warnings (libjpeg message level -1) so far.
int cj_warning_count(const cj_decoder *decoder);

/// The number of warning messages kept (at most CJ_MAX_KEPT_WARNINGS).
int cj_kept_warning_count(const cj_decoder *decoder);

/// The `index`th kept warning message, or NULL.
const char *cj_warning_message(const cj_decoder *decoder, int index);

/// How many warning messages the decoder keeps.
#define CJ_MAX_KEPT_WARNINGS 8

/// How many scans a progressive file may have before decoding fails. Every scan of a
/// progressive JPEG is a pass over the whole image's coefficients, and a valid file can repeat
/// tiny refinement scans thousands of times (libjpeg-turbo's report "Two Issues with the JPEG
/// Standard", LJT-01-003), so the limit shrinks with the image: at most
/// CJ_SCAN_PIXEL_BUDGET / (width × height) scans, never fewer than CJ_MIN_SCAN_LIMIT nor more
/// than CJ_MAX_SCANS. libjpeg's standard progression uses 10 scans (6 for gray), so a hostile
/// large file costs at most ~3× a normal decode of its size.
int cj_max_scans(uint32_t width, uint32_t height);

/// The scan limit of small images.
#define CJ_MAX_SCANS 1000
/// The scan limit of images of more than CJ_SCAN_PIXEL_BUDGET / CJ_MIN_SCAN_LIMIT pixels.
#define CJ_MIN_SCAN_LIMIT 32
/// Scans × pixels allowed before the limit falls below CJ_MAX_SCANS (1000 scans of 1 MP).
#define CJ_SCAN_PIXEL_BUDGET 1000000000ULL

// MARK: - Encoder

typedef struct cj_encoder cj_encoder;

/// Encoding parameters.
typedef struct {
  uint32_t width;
  uint32_t height;
  /// 1 (gray input) or 3 (RGB input).
  int32_t components;
  /// 1…100.
  int32_t quality;
  /// A cj_subsampling (ignored for gray).
  int32_t subsampling;
  int32_t progressive;
  int32_t optimize_coding;
  /// An ICC profile to embed (APP2 ICC_PROFILE segments), or NULL.
  const uint8_t *icc;
  size_t icc_length;
  /// The restart interval in MCUs written in a DRI marker (0: none). The parallel strip encoder
  /// sets it to the MCUs of one whole strip, so the strip itself holds no RST marker.
  uint32_t restart_interval;
  /// Metadata segments to write (APPn or COM, at most 65533 bytes each): APP1 segments right after
  /// the JFIF header, the others after the ICC profile, in order. NULL when `marker_count` is 0.
  const cj_marker *markers;
  int32_t marker_count;
} cj_encode_params;

/// Creates an encoder writing to a growable memory buffer. Returns NULL only when out of memory.
cj_encoder *cj_encoder_create(void);

/// Creates an encoder writing to a memory buffer of `capacity` bytes allocated now (grown by
/// doubling only if the data does not fit), sparing the copies of growing from 4 KiB. Returns
/// NULL only when out of memory.
cj_encoder *cj_encoder_create_with_capacity(size_t capacity);

/// The size of the chunks an encoder created by cj_encoder_create_fd hands to write(2).
#define CJ_FD_CHUNK_SIZE (256 * 1024)

/// Creates an encoder that streams the compressed bytes to the open descriptor `fd` in chunks of
/// CJ_FD_CHUNK_SIZE bytes as libjpeg produces them (the descriptor is not closed). A failed write
/// makes the call in progress return CJ_ERR_IO, with errno in cj_encoder_errno; cj_encoder_finish
/// then reports no data (NULL, 0). Returns NULL only when out of memory.
cj_encoder *cj_encoder_create_fd(int fd);

/// The errno of the write that failed (0 when none did).
int cj_encoder_errno(const cj_encoder *encoder);

/// The number of bytes written to the descriptor so far.
uint64_t cj_encoder_bytes_written(const cj_encoder *encoder);

/// Frees everything the encoder owns, including its output buffer; NULL is fine.
void cj_encoder_destroy(cj_encoder *encoder);

/// Writes the headers (and the ICC profile) and gets ready for rows.
int cj_encoder_start(cj_encoder *encoder, const cj_encode_params *params);

/// Compresses `count` rows (each width × components bytes); `rows_written` receives the number taken.
int cj_encoder_write_rows(cj_encoder *encoder, const uint8_t *const *rows, uint32_t count,
                          uint32_t *rows_written);

/// Finishes the stream; `data`/`length` then point at the encoded bytes, owned by the encoder
/// (NULL and 0 for an encoder writing to a descriptor, whose bytes are all written on success).
int cj_encoder_finish(cj_encoder *encoder, const uint8_t **data, size_t *length);

/// The last error's message (empty when none); owned by the encoder.
const char *cj_encoder_message(const cj_encoder *encoder);

// MARK: - Perceptual encoder

/// Encodes a whole image with the perceptual ("small") encoder in one call, on a freshly created
/// encoder: its own DCT, a masking-driven trellis quantisation (Sources/CJPEG/small.h defines what
/// it computes) and libjpeg-turbo's entropy coder (jpeg_write_coefficients) with optimised Huffman
/// tables, progressive when `params->progressive`. `pixels` holds `height` rows of
/// `width` × `components` bytes, `stride` bytes apart. `params->quality` picks libjpeg's tables for
/// that quality; `subsampling` may be CJ_SUBSAMPLE_AUTO; `optimize_coding` and `restart_interval`
/// are ignored. On success `data`/`length` are as for cj_encoder_finish. The encoder cannot be used
/// again afterwards.
int cj_small_encode(cj_encoder *encoder, const cj_encode_params *params, const uint8_t *pixels,
                    size_t stride, const uint8_t **data, size_t *length);

/// The subsampling CJ_SUBSAMPLE_AUTO chooses for these pixels: CJ_SUBSAMPLE_444 when the colour
/// has detail that 4:2:0 would blur (and for gray), else CJ_SUBSAMPLE_420.
int cj_small_subsampling(const uint8_t *pixels, uint32_t width, uint32_t height, int32_t components,
                         size_t stride);

#ifdef __cplusplus
}
#endif
