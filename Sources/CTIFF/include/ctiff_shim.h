// ctiff_shim.h — libtiff behind a reader and a writer that return a status and a message.
//
// libtiff reports errors and warnings through handlers. Every TIFF handle the shim opens gets its
// own handlers (TIFFOpenOptionsSetErrorHandlerExtR / …WarningHandlerExtR, libtiff ≥ 4.5), which
// copy the library's words into the reader or writer: nothing is printed to stderr, nothing
// aborts, and concurrent decodes never see each other's messages. Files are read from memory
// (mapped in place for libtiff, never copied) or from a descriptor, strip by strip, and written
// to a seekable descriptor or to memory.
//
// The reader converts whatever the file stores (1–16-bit integers, 16/32/64-bit floats, chunky or
// planar, strips or tiles, gray, RGB, palette, CMYK, YCbCr inside JPEG, extra samples) into one of
// gray, gray + alpha, RGB or RGBA at 8 bits (files of ≤ 8 bits), 16 bits (9–16 bits) or 32-bit
// float, straight alpha. Layouts libtiff only decodes through its RGBA interface (subsampled YCbCr
// without JPEG, CIE L*a*b*, LogLuv, old-style JPEG…) come out as 8-bit RGB(A) through it.
#ifndef CTIFF_SHIM_H
#define CTIFF_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes.
enum {
  CTIFF_OK = 0,
  CTIFF_CORRUPT = 1,      ///< not a valid TIFF file, or damaged data
  CTIFF_TRUNCATED = 2,    ///< the file ends before its data does
  CTIFF_UNSUPPORTED = 3,  ///< a valid file this build cannot decode
  CTIFF_NO_MEMORY = 4,
  CTIFF_INVALID = 5,      ///< a bad argument (page, region, option)
  CTIFF_IO = 6,           ///< writing to the destination failed
};

/// At most this many reduced-resolution levels of a page are looked at (from its SubIFDs, then
/// from the reduced directories that follow it), so a hostile file listing thousands costs
/// nothing more; 32 halvings are more than any image has.
enum { CTIFF_MAX_LEVELS = 32 };

/// What one page (directory) of a file holds and how it decodes.
typedef struct {
  uint32_t width, height;
  uint32_t page_count;     ///< pages in the file: directories not marked reduced-resolution (see ctiff_select)
  int channels;            ///< decoded channels: 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA (CMYK kept: 4 or 5)
  int sample_bytes;        ///< decoded bytes per channel: 1, 2 or 4 (float)
  int orientation;         ///< TIFF/EXIF orientation 1…8
  int is_tiled;
  uint32_t block_width, block_height;  ///< tile size, or width × rows per strip
  int is_cmyk;             ///< stored as CMYK (converted to RGB by the reader)
  int associated_alpha;    ///< the alpha was stored premultiplied (the reader unpremultiplies)
  int through_rgba;        ///< decoded through libtiff's RGBA interface (whole page, 8-bit)
  uint16_t photometric, compression, bits_per_sample, samples_per_pixel, sample_format, planar;
  const uint8_t *icc;      ///< ICC profile inside the reader (valid until the next select/close)
  uint32_t icc_length;
  const uint8_t *xmp;      ///< XMLPacket (XMP), likewise
  uint32_t xmp_length;
  const uint8_t *iptc;     ///< RichTIFFIPTC (IPTC-IIM records) as libtiff returns it (when stored as
  uint32_t iptc_length;    ///< 32-bit words of the other byte order, swapped word by word), in bytes
  const char *description; ///< ImageDescription, or NULL
  int iptc_words_swapped;  ///< libtiff swapped the IPTC bytes as 32-bit words of the other byte order
  int is_bigtiff;
  uint64_t ifd_offset;     ///< where the page's directory starts in the file
  int has_exif;            ///< the page's directory points to an EXIF or a GPS directory
} ctiff_info;

typedef struct ctiff_reader ctiff_reader;

/// Opens `length` bytes at `data` (which must stay alive and unchanged until ctiff_close) and
/// reads the first directory. `max_alloc` bounds any single allocation libtiff makes (0: no
/// bound). On failure returns NULL with a status in `*status` and a sentence in `message`.
ctiff_reader *ctiff_open(const uint8_t *data, size_t length, uint64_t max_alloc, int *status, char *message,
                         size_t capacity);
/// Opens the file open for reading on `fd` (which must stay open until ctiff_close; it is not
/// closed) like ctiff_open, reading it with pread as libtiff asks: the directories, then each
/// strip or tile as it is decoded, so memory never holds the whole file. A file that shrinks
/// while it is read gives CTIFF_TRUNCATED, never a signal.
ctiff_reader *ctiff_open_fd(int fd, uint64_t max_alloc, int *status, char *message, size_t capacity);
/// Selects page `page` (0-based) and describes it in `info`. Decoding state is reset. With
/// `keep_cmyk`, an 8- or 16-bit CMYK page decodes to C, M, Y, K (and alpha: 4 or 5 channels, for
/// a colour-managed conversion by the caller) instead of RGB.
///
/// Pages are the directories of the main chain except those whose NewSubfileType has bit 0
/// (reduced-resolution image) set, as libvips reads pyramids: such a directory (after the first)
/// is a pyramid level of the page before it, not a page. The first directory is always a page.
int ctiff_select(ctiff_reader *reader, uint32_t page, int keep_cmyk, ctiff_info *info);
/// The reduced-resolution levels of page `page`: its SubIFDs, and the directories marked reduced
/// that follow it in the main chain (at most CTIFF_MAX_LEVELS looked at), keeping those smaller
/// than the page in both directions that decode to the page's channels and sample size, largest
/// first. Their sizes go to `widths` and `heights` (CTIFF_MAX_LEVELS entries each) and their
/// number to `*count`. Unreadable or mismatched levels are skipped, never an error (the page
/// itself still decodes); their warnings are not kept. The selection is left undefined: select
/// a page or level next.
int ctiff_levels(ctiff_reader *reader, uint32_t page, int *count, uint32_t *widths, uint32_t *heights);
/// Selects level `level` (1-based, in ctiff_levels' order; 0 is the page itself) of page `page`
/// like ctiff_select.
int ctiff_select_level(ctiff_reader *reader, uint32_t page, int level, int keep_cmyk, ctiff_info *info);
/// Lets ctiff_read_region read up to `width` × `height` pixels (at least the selected page's
/// size; reset by every select): pixels to the right of or below the page repeat its last column
/// or row. A pyramid level a pixel smaller than the size its scale implies is read at that size.
int ctiff_set_extent(ctiff_reader *reader, uint32_t width, uint32_t height);
/// Decodes the pixels of the selected page in the rectangle (`x`, `y`, `width`, `height`) into
/// `out` (rows `stride` bytes apart) in the format `info` describes. Only the strips or tiles
/// the rectangle touches are decoded; the last row of strips or tiles decoded is kept, so reading
/// a page in consecutive bands decodes every strip or tile once.
int ctiff_read_region(ctiff_reader *reader, uint32_t x, uint32_t y, uint32_t width, uint32_t height, uint8_t *out,
                      size_t stride);
/// The message of the last failure, or of the last warning ("" when none).
const char *ctiff_message(const ctiff_reader *reader);
/// Warnings met so far (up to 8 kept), as libtiff worded them.
int ctiff_warning_count(const ctiff_reader *reader);
const char *ctiff_warning(const ctiff_reader *reader, int index);
/// Strips or tiles decoded (read and decompressed) since the reader was opened, over every page
/// and plane: a block served from the cache of the last row of blocks is not counted again.
uint64_t ctiff_blocks_decoded(const ctiff_reader *reader);
/// Closes the reader (NULL is fine).
void ctiff_close(ctiff_reader *reader);

/// Compression schemes the writer offers.
enum { CTIFF_WRITE_NONE = 0, CTIFF_WRITE_LZW = 1, CTIFF_WRITE_DEFLATE = 2, CTIFF_WRITE_JPEG = 3, CTIFF_WRITE_PACKBITS = 4 };

/// How to write a file.
typedef struct {
  uint32_t width, height;
  int channels;        ///< 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA (straight alpha)
  int sample_bytes;    ///< 1, 2, or 4 (32-bit float)
  int compression;     ///< CTIFF_WRITE_*
  int predictor;       ///< 1: horizontal (integers) or floating-point (floats) prediction for LZW/deflate
  int quality;         ///< JPEG quality 1…100
  uint32_t tile;       ///< 0: strips; otherwise square tiles of this size (a multiple of 16)
  const uint8_t *icc;  ///< ICC profile to embed (NULL: none)
  uint32_t icc_length;
  const uint8_t *xmp;  ///< XMP packet to embed (NULL: none)
  uint32_t xmp_length;
  const uint8_t *iptc; ///< IPTC-IIM records (NULL: none), written as RichTIFFIPTC
  uint32_t iptc_length;
  const uint32_t *text_tags;   ///< ASCII tags to write (ImageDescription, Make, Model…)
  const char *const *texts;    ///< their values
  int text_count;
} ctiff_write_options;

typedef struct ctiff_writer ctiff_writer;

/// Starts a file written to `fd` from its current position when it can seek (a regular file),
/// else collected in memory (ctiff_writer_finish returns the bytes). NULL on failure, with a
/// status and message.
ctiff_writer *ctiff_writer_open(int fd, const ctiff_write_options *options, int *status, char *message,
                                size_t capacity);
/// Writes the next `count` rows (`stride` bytes apart), top to bottom.
int ctiff_writer_write_rows(ctiff_writer *writer, const uint8_t *rows, size_t stride, uint32_t count);
/// Completes the file. In memory mode, `*bytes` and `*length` receive the file (owned by the
/// writer until ctiff_writer_destroy); otherwise they are NULL and 0.
int ctiff_writer_finish(ctiff_writer *writer, const uint8_t **bytes, size_t *length);
/// The message of the last failure.
const char *ctiff_writer_message(const ctiff_writer *writer);
/// Frees the writer (NULL is fine); an unfinished file is abandoned.
void ctiff_writer_destroy(ctiff_writer *writer);

#ifdef __cplusplus
}
#endif
#endif
