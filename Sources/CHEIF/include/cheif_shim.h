// cheif_shim.h — libheif (HEIF/AVIF/HEIC containers; AV1 and HEVC through its plugins) behind a few
// calls that each return a status and a message. libheif reports errors as `struct heif_error`
// values (it never longjmps); the shim turns each into a status and a sentence carrying libheif's
// own message, and keeps libheif's objects (context, handles, images, encoders) inside C.
#ifndef CHEIF_SHIM_H
#define CHEIF_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes.
enum {
  CHEIF_OK = 0,
  CHEIF_CORRUPT = 1,      ///< not a valid HEIF file, or damaged image data
  CHEIF_TRUNCATED = 2,    ///< the file ends early
  CHEIF_UNSUPPORTED = 3,  ///< a valid file this build cannot decode (no decoder for its codec…)
  CHEIF_TOO_LARGE = 4,    ///< over the pixel limit, or libheif's own security limits
  CHEIF_NO_MEMORY = 5,
  CHEIF_INVALID = 6,      ///< a bad argument (image index, option, size)
  CHEIF_NO_ENCODER = 7,   ///< libheif has no encoder for the requested format (or of that name)
};

/// Compression formats the encoder writes.
enum {
  CHEIF_AV1 = 1,   ///< AVIF
  CHEIF_HEVC = 2,  ///< HEIC
};

/// What one top-level image of a HEIF file is, read without decoding pixels.
typedef struct {
  int width, height;                  ///< the decoded size: after irot/imir/clap, i.e. upright
  int stored_width, stored_height;    ///< the coded size (`ispe`), which decoding allocates
  int has_alpha;                      ///< an alpha auxiliary image is present
  int premultiplied_alpha;            ///< the file says colour is premultiplied by alpha
  int luma_bits, chroma_bits;         ///< bits per sample (8, 10, 12)
  int image_count;                    ///< top-level images in the file
  uint32_t item_id;                   ///< the image's item id (its properties are associated by it in `ipma`)
  int has_nclx;                       ///< an nclx `colr` box (primaries, transfer, matrix)
  int nclx_primaries, nclx_transfer, nclx_matrix, nclx_full_range;
  float nclx_xy[8];                   ///< red, green, blue, white chromaticities (x, y) of the primaries
  uint8_t *icc; size_t icc_length;    ///< the ICC `colr` profile (malloc'ed; release with cheif_info_free)
  uint8_t *exif; size_t exif_length;  ///< the Exif block, as stored (a 4-byte offset, then TIFF)
  uint8_t *xmp; size_t xmp_length;    ///< the XMP packet
} cheif_info;

/// The linked libheif's version, as "1.15.1".
const char *cheif_version(void);

/// Reads image `index` (0: the primary image; 1…: the other top-level images in file order) of
/// `data`. Fails with CHEIF_TOO_LARGE when either size is over `max_pixels`. Returns a status;
/// `message` (of `capacity` bytes) receives a sentence on failure.
int cheif_read_info(const uint8_t *data, size_t size, int index, int64_t max_pixels, cheif_info *info,
                    char *message, size_t capacity);

/// Releases the blocks `cheif_read_info` allocated.
void cheif_info_free(cheif_info *info);

/// Decodes image `index` upright (libheif applies irot/imir/clap), RGB (`channels` 3) or RGBA
/// (4, straight alpha: premultiplied files are divided back), into `out` of `width` × `height`
/// (the info's size), rows `stride` bytes apart: 8-bit samples when `sixteen` is 0, otherwise
/// 16-bit native-endian samples scaled from the file's depth (v · 65535 / (2^bits − 1), rounded;
/// an 8-bit file gives v · 257). `strict` makes libheif fail instead of warning on damage.
/// The size is checked against `max_pixels` before anything is decoded.
int cheif_decode(const uint8_t *data, size_t size, int index, int64_t max_pixels, int strict, int channels,
                 int sixteen, int width, int height, uint8_t *out, size_t stride, char *message, size_t capacity);

/// An HDR image's mdcv and clli boxes (written when `present` is 1).
typedef struct {
  int present;
  uint16_t primaries_xy[6];  ///< green, blue, red (x, y), in units of 0.00002
  uint16_t white_xy[2];      ///< white (x, y), in units of 0.00002
  uint32_t max_luminance;    ///< the mastering display's, in units of 0.0001 cd/m²
  uint32_t min_luminance;    ///< the mastering display's, in units of 0.0001 cd/m²
  uint16_t max_cll, max_fall;  ///< MaxCLL and MaxFALL, cd/m²
} cheif_light_levels;

/// Encoder settings (see the AVIF and HEIC option tables).
typedef struct {
  int format;                ///< CHEIF_AV1 or CHEIF_HEVC
  const char *encoder_name;  ///< libheif's id of an encoder ("aom", "x265"…), or NULL for its default
  int quality;               ///< 0…100
  int lossless;              ///< 1: lossless (4:4:4, identity matrix)
  int effort;                ///< 0 (fastest) … 9 (slowest), or -1 for the encoder's default
  int chroma;                ///< 420, 422 or 444
  int bit_depth;             ///< 8, 10 or 12
  int primaries;             ///< nclx colour_primaries (ITU-T H.273), or 0 for BT.709 (sRGB)
  int transfer;              ///< nclx transfer_characteristics, or 0 for sRGB's (13)
  cheif_light_levels light_levels;  ///< mdcv and clli of an HDR image
} cheif_encode_options;

/// Encodes `width` × `height` pixels (RGB when `channels` is 3, straight-alpha RGBA when 4, rows
/// `stride` bytes apart; 8-bit samples when `sixteen` is 0, else 16-bit native-endian ones,
/// scaled to the bit depth written) as one primary image, with the ICC profile, Exif block and
/// XMP packet given (any may be NULL). On success `*out` holds `*out_length` bytes to release with
/// `cheif_free`. CHEIF_NO_ENCODER names the encoder that is missing.
int cheif_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels, int sixteen,
                 const cheif_encode_options *options, const uint8_t *icc, size_t icc_length,
                 const uint8_t *exif, size_t exif_length, const uint8_t *xmp, size_t xmp_length,
                 uint8_t **out, size_t *out_length, char *message, size_t capacity);

/// Releases bytes `cheif_encode` returned.
void cheif_free(uint8_t *bytes);

/// Writes the names of the encoders libheif has for `format` (CHEIF_AV1, CHEIF_HEVC) into
/// `names`, comma-separated ("" for none), for messages and `fgrun formats`.
void cheif_encoder_names(int format, char *names, size_t capacity);

/// Writes into `buffer` (of `capacity` bytes) the ICC v4 matrix/shaper profile an nclx box
/// defines: primaries and white point `xy` (red, green, blue, white chromaticities), the same tone
/// curve on each channel as ICC parametric curve type 4 (`curve`: g, a, b, c, d), described as
/// `name`. Returns its length, or 0 when lcms2 cannot build it or it does not fit.
size_t cheif_nclx_profile(const double xy[8], const double curve[5], const char *name, uint8_t *buffer,
                          size_t capacity);

#ifdef __cplusplus
}
#endif
#endif
