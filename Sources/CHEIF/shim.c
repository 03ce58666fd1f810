// shim.c — see cheif_shim.h.
#include "cheif_shim.h"
#include "guarded.h"

#include <libheif/heif.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(int status, char *message, size_t capacity, const char *format, ...) {
  if (message && capacity) {
    va_list args;
    va_start(args, format);
    vsnprintf(message, capacity, format, args);
    va_end(args);
  }
  return status;
}

/// The status a libheif error stands for.
static int status_of(struct heif_error error) {
  if (error.subcode == heif_suberror_End_of_data) return CHEIF_TRUNCATED;
  if (error.subcode == heif_suberror_Security_limit_exceeded) return CHEIF_TOO_LARGE;
  switch (error.code) {
    case heif_error_Ok: return CHEIF_OK;
    case heif_error_Unsupported_feature: return CHEIF_UNSUPPORTED;
    case heif_error_Usage_error: return CHEIF_INVALID;
    case heif_error_Memory_allocation_error: return CHEIF_NO_MEMORY;
    case heif_error_Encoder_plugin_error:
    case heif_error_Encoding_error: return CHEIF_INVALID;
    default: return CHEIF_CORRUPT;
  }
}

/// Fails with libheif's own message after `what` ("The HEIF file cannot be read: <libheif>.").
static int fail_heif(struct heif_error error, const char *what, char *message, size_t capacity) {
  const char *text = error.message && *error.message ? error.message : "unknown error";
  return fail(status_of(error), message, capacity, "%s: %s (libheif).", what, text);
}

/// An open file: the context (which reads `data` in place) and one image handle.
typedef struct {
  struct heif_context *context;
  struct heif_image_handle *handle;
  heif_item_id item_id;  ///< the handle's item (libheif 1.15 has no getter for it)
  int image_count;
} opened;

static void close_file(opened *file) {
  if (file->handle) heif_image_handle_release(file->handle);
  if (file->context) heif_context_free(file->context);
  file->handle = NULL;
  file->context = NULL;
}

/// Opens image `index` (0: primary; then the other top-level images in file order) and checks
/// its decoded and coded sizes against `max_pixels`.
static int open_file(const uint8_t *data, size_t size, int index, int64_t max_pixels, opened *file, char *message,
                     size_t capacity) {
  memset(file, 0, sizeof *file);
  if (!data || size < 12) return fail(CHEIF_TRUNCATED, message, capacity, "The HEIF file ends before its header does.");
  if (max_pixels < 1) return fail(CHEIF_INVALID, message, capacity, "The pixel limit must be positive.");
  file->context = heif_context_alloc();
  if (!file->context) return fail(CHEIF_NO_MEMORY, message, capacity, "libheif could not allocate a context.");
  // libheif's own limit is on the side of a square; ours (checked below, exactly) is on the area.
  double side = ceil(sqrt((double)max_pixels));
  heif_context_set_maximum_image_size_limit(file->context, side > 1e9 ? 1000000000 : (int)side);
  // Grid tiles are decoded on the calling thread: the renderer's pool does the parallel work.
  heif_context_set_max_decoding_threads(file->context, 0);
  struct heif_error error = cheif_guarded_read(file->context, data, size);
  if (error.code != heif_error_Ok) {
    int status = fail_heif(error, "The HEIF file cannot be read", message, capacity);
    close_file(file);
    return status;
  }
  int count = heif_context_get_number_of_top_level_images(file->context);
  file->image_count = count;
  if (count < 1) {
    close_file(file);
    return fail(CHEIF_CORRUPT, message, capacity, "The HEIF file holds no image.");
  }
  if (index < 0 || index >= count) {
    close_file(file);
    return fail(CHEIF_INVALID, message, capacity, "The HEIF file has %d image%s (pages 0…%d); page %d does not exist.",
                count, count == 1 ? "" : "s", count - 1, index);
  }
  if (index == 0) {
    error = heif_context_get_primary_image_handle(file->context, &file->handle);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_ID(file->context, &file->item_id);
  } else {
    heif_item_id *ids = calloc((size_t)count, sizeof *ids);
    if (!ids) {
      close_file(file);
      return fail(CHEIF_NO_MEMORY, message, capacity, "Out of memory listing the HEIF file's images.");
    }
    int n = heif_context_get_list_of_top_level_image_IDs(file->context, ids, count);
    error = (struct heif_error){heif_error_Invalid_input, heif_suberror_Unspecified, "image list inconsistent"};
    for (int i = 0, seen = 0; i < n; i++) {
      struct heif_image_handle *candidate = NULL;
      error = heif_context_get_image_handle(file->context, ids[i], &candidate);
      if (error.code != heif_error_Ok) break;
      if (!heif_image_handle_is_primary_image(candidate) && ++seen == index) {
        file->handle = candidate;
        file->item_id = ids[i];
        break;
      }
      heif_image_handle_release(candidate);
    }
    if (error.code == heif_error_Ok && !file->handle) {
      error = (struct heif_error){heif_error_Invalid_input, heif_suberror_Unspecified, "image list inconsistent"};
    }
    free(ids);
  }
  if (error.code != heif_error_Ok) {
    int status = fail_heif(error, "The HEIF image cannot be opened", message, capacity);
    close_file(file);
    return status;
  }
  int64_t w = heif_image_handle_get_width(file->handle), h = heif_image_handle_get_height(file->handle);
  int64_t sw = heif_image_handle_get_ispe_width(file->handle), sh = heif_image_handle_get_ispe_height(file->handle);
  if (w <= 0 || h <= 0) {
    close_file(file);
    return fail(CHEIF_CORRUPT, message, capacity, "The HEIF image header gives an empty size (%lld×%lld).", (long long)w,
                (long long)h);
  }
  if (w * h > max_pixels || (sw > 0 && sh > 0 && sw * sh > max_pixels)) {
    int64_t bw = sw * sh > w * h ? sw : w, bh = sw * sh > w * h ? sh : h;
    close_file(file);
    return fail(CHEIF_TOO_LARGE, message, capacity,
                "The HEIF image is %lld×%lld pixels, more than the limit of %lld pixels; raise the limit (--max-pixels) if you trust this file.",
                (long long)bw, (long long)bh, (long long)max_pixels);
  }
  return CHEIF_OK;
}

/// A malloc'ed copy of the first metadata block of `type` (and `content_type`, when given).
static void copy_metadata(const struct heif_image_handle *handle, const char *type, const char *content_type,
                          uint8_t **out, size_t *length) {
  int count = heif_image_handle_get_number_of_metadata_blocks(handle, type);
  if (count <= 0) return;
  heif_item_id *ids = calloc((size_t)count, sizeof *ids);
  if (!ids) return;
  count = heif_image_handle_get_list_of_metadata_block_IDs(handle, type, ids, count);
  for (int i = 0; i < count; i++) {
    if (content_type) {
      const char *ct = heif_image_handle_get_metadata_content_type(handle, ids[i]);
      if (!ct || strcmp(ct, content_type) != 0) continue;
    }
    size_t n = heif_image_handle_get_metadata_size(handle, ids[i]);
    if (n == 0 || n > (64u << 20)) continue;
    uint8_t *bytes = malloc(n);
    if (!bytes) break;
    if (heif_image_handle_get_metadata(handle, ids[i], bytes).code == heif_error_Ok) {
      *out = bytes;
      *length = n;
      break;
    }
    free(bytes);
  }
  free(ids);
}

int cheif_read_info(const uint8_t *data, size_t size, int index, int64_t max_pixels, cheif_info *info,
                    char *message, size_t capacity) {
  memset(info, 0, sizeof *info);
  opened file;
  int status = open_file(data, size, index, max_pixels, &file, message, capacity);
  if (status != CHEIF_OK) return status;
  struct heif_image_handle *handle = file.handle;
  info->width = heif_image_handle_get_width(handle);
  info->height = heif_image_handle_get_height(handle);
  info->stored_width = heif_image_handle_get_ispe_width(handle);
  info->stored_height = heif_image_handle_get_ispe_height(handle);
  info->has_alpha = heif_image_handle_has_alpha_channel(handle);
  info->premultiplied_alpha = heif_image_handle_is_premultiplied_alpha(handle);
  info->luma_bits = heif_image_handle_get_luma_bits_per_pixel(handle);
  info->chroma_bits = heif_image_handle_get_chroma_bits_per_pixel(handle);
  info->image_count = file.image_count;
  info->item_id = file.item_id;
  size_t icc_length = heif_image_handle_get_raw_color_profile_size(handle);
  if (icc_length > 0 && icc_length < (64u << 20)) {
    uint8_t *icc = malloc(icc_length);
    if (icc && heif_image_handle_get_raw_color_profile(handle, icc).code == heif_error_Ok) {
      info->icc = icc;
      info->icc_length = icc_length;
    } else {
      free(icc);
    }
  }
  struct heif_color_profile_nclx *nclx = NULL;
  struct heif_error nclx_error = heif_image_handle_get_nclx_color_profile(handle, &nclx);
  if (nclx_error.code == heif_error_Ok && nclx) {
    info->has_nclx = 1;
    info->nclx_primaries = nclx->color_primaries;
    info->nclx_transfer = nclx->transfer_characteristics;
    info->nclx_matrix = nclx->matrix_coefficients;
    info->nclx_full_range = nclx->full_range_flag;
    float xy[8] = {nclx->color_primary_red_x,   nclx->color_primary_red_y,   nclx->color_primary_green_x,
                   nclx->color_primary_green_y, nclx->color_primary_blue_x,  nclx->color_primary_blue_y,
                   nclx->color_primary_white_x, nclx->color_primary_white_y};
    memcpy(info->nclx_xy, xy, sizeof xy);
  }
  // libheif 1.15 hands out the profile it allocated even when it then reports an error (unknown
  // primaries): free it either way.
  if (nclx) heif_nclx_color_profile_free(nclx);
  copy_metadata(handle, "Exif", NULL, &info->exif, &info->exif_length);
  copy_metadata(handle, "mime", "application/rdf+xml", &info->xmp, &info->xmp_length);
  close_file(&file);
  return CHEIF_OK;
}

void cheif_info_free(cheif_info *info) {
  free(info->icc);
  free(info->exif);
  free(info->xmp);
  info->icc = info->exif = info->xmp = NULL;
  info->icc_length = info->exif_length = info->xmp_length = 0;
}

int cheif_decode(const uint8_t *data, size_t size, int index, int64_t max_pixels, int strict, int channels,
                 int sixteen, int width, int height, uint8_t *out, size_t stride, char *message, size_t capacity) {
  if (channels != 3 && channels != 4) return fail(CHEIF_INVALID, message, capacity, "HEIF images decode to RGB or RGBA.");
  opened file;
  int status = open_file(data, size, index, max_pixels, &file, message, capacity);
  if (status != CHEIF_OK) return status;
  int bits = heif_image_handle_get_luma_bits_per_pixel(file.handle);
  int deep = bits > 8;
  enum heif_chroma chroma = deep ? (channels == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                                 : (channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
  struct heif_decoding_options *options = heif_decoding_options_alloc();
  if (!options) {
    close_file(&file);
    return fail(CHEIF_NO_MEMORY, message, capacity, "libheif could not allocate decoding options.");
  }
  options->ignore_transformations = 0;  // irot, imir and clap applied: the image comes out upright
  options->convert_hdr_to_8bit = 0;
  options->strict_decoding = strict ? 1 : 0;
  struct heif_image *image = NULL;
  struct heif_error error = cheif_guarded_decode(file.handle, &image, heif_colorspace_RGB, chroma, options);
  heif_decoding_options_free(options);
  if (error.code != heif_error_Ok) {
    // libheif's message lives in the context: format it before the context is freed.
    int failed = fail_heif(error, "The HEIF image cannot be decoded", message, capacity);
    close_file(&file);
    return failed;
  }
  int stride_in = 0;
  const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride_in);
  int iw = heif_image_get_width(image, heif_channel_interleaved), ih = heif_image_get_height(image, heif_channel_interleaved);
  int range = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
  int premultiplied = heif_image_is_premultiplied_alpha(image);
  if (!plane || iw != width || ih != height || (deep && (range <= 8 || range > 16)) || (!deep && range != 8)) {
    heif_image_release(image);
    close_file(&file);
    return fail(CHEIF_CORRUPT, message, capacity,
                "libheif decoded a %d×%d image of %d bits where the header promised %d×%d of %d bits.", iw, ih, range,
                width, height, bits);
  }
  const uint32_t max_in = deep ? (1u << range) - 1 : 255;
  for (int y = 0; y < height; y++) {
    const uint8_t *src8 = plane + (size_t)y * (size_t)stride_in;
    uint8_t *row = out + (size_t)y * stride;
    for (int x = 0; x < width; x++) {
      uint32_t v[4];
      for (int c = 0; c < channels; c++) {
        size_t i = (size_t)x * (size_t)channels + (size_t)c;
        v[c] = deep ? (uint32_t)(src8[2 * i] | (src8[2 * i + 1] << 8)) : src8[i];
        if (v[c] > max_in) v[c] = max_in;
      }
      if (channels == 4 && premultiplied) {
        uint32_t a = v[3];
        for (int c = 0; c < 3; c++) {
          uint32_t straight = a == 0 ? 0 : (v[c] * max_in + a / 2) / a;
          v[c] = straight > max_in ? max_in : straight;
        }
      }
      for (int c = 0; c < channels; c++) {
        if (sixteen) {
          uint16_t s = (uint16_t)(((uint64_t)v[c] * 65535u + max_in / 2) / max_in);
          memcpy(row + ((size_t)x * (size_t)channels + (size_t)c) * 2, &s, 2);
        } else {
          // An 8-bit buffer for a deeper file keeps the nearest 8-bit code.
          row[(size_t)x * (size_t)channels + (size_t)c] = (uint8_t)((v[c] * 255u + max_in / 2) / max_in);
        }
      }
    }
  }
  heif_image_release(image);
  close_file(&file);
  return CHEIF_OK;
}

/// Appends to a growing malloc'ed buffer (libheif's writer callback).
typedef struct {
  uint8_t *bytes;
  size_t length, capacity;
} growing;

static struct heif_error append(struct heif_context *context, const void *data, size_t size, void *userdata) {
  (void)context;
  growing *g = userdata;
  if (g->length + size > g->capacity) {
    size_t wanted = g->capacity ? g->capacity : 65536;
    while (wanted < g->length + size) wanted *= 2;
    uint8_t *bigger = realloc(g->bytes, wanted);
    if (!bigger) return (struct heif_error){heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
    g->bytes = bigger;
    g->capacity = wanted;
  }
  memcpy(g->bytes + g->length, data, size);
  g->length += size;
  return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "ok"};
}

static enum heif_compression_format compression_of(int format) {
  return format == CHEIF_HEVC ? heif_compression_HEVC : heif_compression_AV1;
}

static const char *format_name(int format) { return format == CHEIF_HEVC ? "HEIC (HEVC)" : "AVIF (AV1)"; }

void cheif_encoder_names(int format, char *names, size_t capacity) {
  if (!names || !capacity) return;
  names[0] = 0;
  const struct heif_encoder_descriptor *descriptors[16];
  int n = heif_context_get_encoder_descriptors(NULL, compression_of(format), NULL, descriptors, 16);
  size_t used = 0;
  for (int i = 0; i < n && used < capacity; i++) {
    int w = snprintf(names + used, capacity - used, "%s%s", i ? ", " : "", heif_encoder_descriptor_get_id_name(descriptors[i]));
    if (w < 0) break;
    used += (size_t)w;
  }
}

/// The encoder for `options`: the named one, or libheif's default for the format.
static int find_encoder(struct heif_context *context, const cheif_encode_options *options, struct heif_encoder **encoder,
                        char *message, size_t capacity) {
  enum heif_compression_format compression = compression_of(options->format);
  const struct heif_encoder_descriptor *descriptors[16];
  int n = heif_context_get_encoder_descriptors(context, compression, NULL, descriptors, 16);
  const struct heif_encoder_descriptor *chosen = NULL;
  for (int i = 0; i < n && !chosen; i++) {
    if (!options->encoder_name || strcmp(heif_encoder_descriptor_get_id_name(descriptors[i]), options->encoder_name) == 0) {
      chosen = descriptors[i];
    }
  }
  if (!chosen) {
    char available[256];
    cheif_encoder_names(options->format, available, sizeof available);
    if (options->encoder_name) {
      return fail(CHEIF_NO_ENCODER, message, capacity,
                  "libheif has no %s encoder named '%s' (available: %s); it cannot write this file.",
                  format_name(options->format), options->encoder_name, *available ? available : "none");
    }
    return fail(CHEIF_NO_ENCODER, message, capacity,
                "libheif has no %s encoder (%s), so %s files cannot be written; install libheif's %s plugin.",
                format_name(options->format), options->format == CHEIF_HEVC ? "x265" : "aom, rav1e or SVT-AV1",
                options->format == CHEIF_HEVC ? "HEIC" : "AVIF", options->format == CHEIF_HEVC ? "x265" : "aom");
  }
  struct heif_error error = heif_context_get_encoder(context, chosen, encoder);
  if (error.code != heif_error_Ok) return fail_heif(error, "The HEIF encoder cannot be started", message, capacity);
  return CHEIF_OK;
}

/// Sets the effort on `encoder`: aom's `speed` (9 − effort), x265's `preset` (ultrafast…placebo).
static struct heif_error set_effort(struct heif_encoder *encoder, int format, int effort) {
  if (effort < 0) return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "ok"};
  if (format == CHEIF_HEVC) {
    static const char *presets[10] = {"ultrafast", "superfast", "veryfast", "faster", "fast",
                                      "medium",    "slow",      "slower",   "veryslow", "placebo"};
    return heif_encoder_set_parameter_string(encoder, "preset", presets[effort > 9 ? 9 : effort]);
  }
  struct heif_error error = heif_encoder_set_parameter_integer(encoder, "speed", 9 - (effort > 9 ? 9 : effort));
  // An encoder without a `speed` parameter (another AV1 plugin) keeps its own default.
  if (error.code == heif_error_Usage_error) return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "ok"};
  return error;
}

/// Refuses settings that make this system's libraries abort the process or write a bad file
/// instead of returning an error (checked, not guessed: each was reproduced with heif-enc).
static int check_known_aborts(struct heif_encoder *encoder, const cheif_encode_options *options, const char *chroma,
                              int width, int height, char *message, size_t capacity) {
  if (options->format != CHEIF_AV1) return CHEIF_OK;
  const char *name = heif_encoder_get_name(encoder);
  int is_aom = name && strstr(name, "AOMedia") != NULL;
  // libheif 1.15 asks libaom for AV1 profile 2 ("professional") for every 10-bit image; libaom
  // allows 10 bits in that profile only at 4:2:2 and otherwise fails an assert() (abort).
  if (is_aom && options->bit_depth == 10 && strcmp(chroma, "422") != 0 && heif_get_version_number() < 0x01100000) {
    return fail(CHEIF_UNSUPPORTED, message, capacity,
                "libheif %s with libaom writes 10-bit AVIF only with 4:2:2 chroma (libaom aborts otherwise); use --chroma 422, --bit-depth 12 or --bit-depth 8.",
                heif_get_version());
  }
  // libaom 3.6.0 encodes images beyond 8192 × 4352 pixels wrongly (fixed in 3.6.1).
  if (is_aom && strstr(name, "v3.6.0") && !(width <= 16384 && height <= 8704 && (int64_t)width * height <= 8192 * 4352)) {
    return fail(CHEIF_UNSUPPORTED, message, capacity,
                "libaom 3.6.0 cannot encode AVIF images larger than 8192 × 4352 pixels (%d × %d requested); scale the image down or use another format.",
                width, height);
  }
  return CHEIF_OK;
}

int cheif_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels, int sixteen,
                 const cheif_encode_options *options, const uint8_t *icc, size_t icc_length,
                 const uint8_t *exif, size_t exif_length, const uint8_t *xmp, size_t xmp_length,
                 uint8_t **out, size_t *out_length, char *message, size_t capacity) {
  *out = NULL;
  *out_length = 0;
  if (!pixels || width < 1 || height < 1 || (channels != 3 && channels != 4)) {
    return fail(CHEIF_INVALID, message, capacity, "A HEIF image needs RGB or RGBA pixels and a size of at least 1×1.");
  }
  if (options->bit_depth != 8 && options->bit_depth != 10 && options->bit_depth != 12) {
    return fail(CHEIF_INVALID, message, capacity, "HEIF files are written with 8, 10 or 12 bits, not %d.", options->bit_depth);
  }
  const char *chroma_name = options->chroma == 444 ? "444" : options->chroma == 422 ? "422" : "420";
  if (options->lossless) chroma_name = "444";
  struct heif_context *context = heif_context_alloc();
  if (!context) return fail(CHEIF_NO_MEMORY, message, capacity, "libheif could not allocate a context.");
  struct heif_encoder *encoder = NULL;
  struct heif_image *image = NULL;
  struct heif_image_handle *handle = NULL;
  struct heif_encoding_options *encoding = NULL;
  struct heif_color_profile_nclx *nclx = NULL;
  growing written = {0};
  int status = find_encoder(context, options, &encoder, message, capacity);
  if (status != CHEIF_OK) goto done;
  status = check_known_aborts(encoder, options, chroma_name, width, height, message, capacity);
  if (status != CHEIF_OK) goto done;

  struct heif_error error;
  if (options->lossless) {
    error = heif_encoder_set_lossless(encoder, 1);
  } else {
    error = heif_encoder_set_lossy_quality(encoder, options->quality);
  }
  if (error.code == heif_error_Ok) error = set_effort(encoder, options->format, options->effort);
  if (error.code == heif_error_Ok) error = heif_encoder_set_parameter_string(encoder, "chroma", chroma_name);
  if (error.code != heif_error_Ok) {
    status = fail_heif(error, "The HEIF encoder refused its settings", message, capacity);
    goto done;
  }

  int deep = options->bit_depth > 8;
  enum heif_chroma layout = deep ? (channels == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                                 : (channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
  error = heif_image_create(width, height, heif_colorspace_RGB, layout, &image);
  if (error.code == heif_error_Ok) error = heif_image_add_plane(image, heif_channel_interleaved, width, height, options->bit_depth);
  if (error.code != heif_error_Ok) {
    status = fail_heif(error, "The HEIF image cannot be created", message, capacity);
    goto done;
  }
  int dst_stride = 0;
  uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &dst_stride);
  const uint32_t max_out = (1u << options->bit_depth) - 1, max_in = sixteen ? 65535u : 255u;
  size_t samples = (size_t)width * (size_t)channels;
  for (int y = 0; y < height; y++) {
    const uint8_t *src = pixels + (size_t)y * stride;
    uint8_t *dst = plane + (size_t)y * (size_t)dst_stride;
    if (!deep && !sixteen) {
      memcpy(dst, src, samples);
      continue;
    }
    for (size_t i = 0; i < samples; i++) {
      uint32_t v;
      if (sixteen) {
        uint16_t s;
        memcpy(&s, src + 2 * i, 2);
        v = s;
      } else {
        v = src[i];
      }
      uint32_t q = (uint32_t)(((uint64_t)v * max_out + max_in / 2) / max_in);
      if (deep) {
        dst[2 * i] = (uint8_t)(q & 0xFF);
        dst[2 * i + 1] = (uint8_t)(q >> 8);
      } else {
        dst[i] = (uint8_t)q;
      }
    }
  }
  if (icc && icc_length) {
    error = heif_image_set_raw_color_profile(image, "prof", icc, icc_length);
    if (error.code != heif_error_Ok) {
      status = fail_heif(error, "The ICC profile cannot be attached", message, capacity);
      goto done;
    }
  }
  // The nclx box says how libheif turned RGB into YCbCr: BT.601 full range for lossy images, the
  // identity matrix for lossless ones (so the RGB values survive exactly); sRGB primaries and
  // transfer unless an ICC profile (written alongside) says otherwise, or the primaries and
  // transfer the options name (an HDR file: BT.2020 and PQ).
  nclx = heif_nclx_color_profile_alloc();
  encoding = heif_encoding_options_alloc();
  if (!nclx || !encoding) {
    status = fail(CHEIF_NO_MEMORY, message, capacity, "libheif could not allocate encoding options.");
    goto done;
  }
  nclx->color_primaries = options->primaries ? (enum heif_color_primaries)options->primaries : heif_color_primaries_ITU_R_BT_709_5;
  nclx->transfer_characteristics =
      options->transfer ? (enum heif_transfer_characteristics)options->transfer : heif_transfer_characteristic_IEC_61966_2_1;
  nclx->matrix_coefficients = options->lossless ? heif_matrix_coefficients_RGB_GBR : heif_matrix_coefficients_ITU_R_BT_601_6;
  nclx->full_range_flag = 1;
  // libheif 1.15 converts RGB to YCbCr with the image's own nclx and ignores
  // output_nclx_profile for that (a lossless file then says BT.601 and decodes a code off):
  // the image carries it too.
  error = heif_image_set_nclx_color_profile(image, nclx);
  if (error.code != heif_error_Ok) {
    status = fail_heif(error, "The HEIF colour description cannot be set", message, capacity);
    goto done;
  }
  if (options->light_levels.present) {
    const cheif_light_levels *levels = &options->light_levels;
    struct heif_mastering_display_colour_volume mdcv;
    for (int i = 0; i < 3; i++) {
      mdcv.display_primaries_x[i] = levels->primaries_xy[2 * i];
      mdcv.display_primaries_y[i] = levels->primaries_xy[2 * i + 1];
    }
    mdcv.white_point_x = levels->white_xy[0];
    mdcv.white_point_y = levels->white_xy[1];
    mdcv.max_display_mastering_luminance = levels->max_luminance;
    mdcv.min_display_mastering_luminance = levels->min_luminance;
    heif_image_set_mastering_display_colour_volume(image, &mdcv);
    struct heif_content_light_level clli = {levels->max_cll, levels->max_fall};
    heif_image_set_content_light_level(image, &clli);
  }
  encoding->output_nclx_profile = nclx;
  encoding->save_two_colr_boxes_when_ICC_and_nclx_available = 1;
  // libheif 1.15's HEVC path leaves the nclx `colr` box out when
  // macOS_compatibility_workaround_no_nclx_profile is set (options version >= 4; the default is
  // set), whatever the image or output_nclx_profile say; its AV1 path writes the box either way. An
  // SDR HEIC keeps that default (its ICC profile, or sRGB by default, says the same); an HDR one
  // (the options name its primaries or transfer: BT.2020, PQ or HLG) has nothing else saying how
  // its signal is encoded, so it gets the box and readers do not take PQ or HLG for sRGB.
  if (options->primaries || options->transfer) encoding->macOS_compatibility_workaround_no_nclx_profile = 0;
  encoding->save_alpha_channel = 1;
  error = cheif_guarded_encode(context, image, encoder, encoding, &handle);
  if (error.code != heif_error_Ok) {
    status = fail_heif(error, "The HEIF image cannot be encoded", message, capacity);
    goto done;
  }
  if (exif && exif_length) {
    error = heif_context_add_exif_metadata(context, handle, exif, (int)exif_length);
    if (error.code != heif_error_Ok) {
      status = fail_heif(error, "The Exif block cannot be added", message, capacity);
      goto done;
    }
  }
  if (xmp && xmp_length) {
    error = heif_context_add_XMP_metadata(context, handle, xmp, (int)xmp_length);
    if (error.code != heif_error_Ok) {
      status = fail_heif(error, "The XMP packet cannot be added", message, capacity);
      goto done;
    }
  }
  struct heif_writer writer = {1, append};
  error = heif_context_write(context, &writer, &written);
  if (error.code != heif_error_Ok) {
    status = fail_heif(error, "The HEIF file cannot be assembled", message, capacity);
    goto done;
  }
  *out = written.bytes;
  *out_length = written.length;
  written.bytes = NULL;
  status = CHEIF_OK;

done:
  free(written.bytes);
  if (encoding) {
    encoding->output_nclx_profile = NULL;
    heif_encoding_options_free(encoding);
  }
  if (nclx) heif_nclx_color_profile_free(nclx);
  if (handle) heif_image_handle_release(handle);
  if (image) heif_image_release(image);
  if (encoder) heif_encoder_release(encoder);
  heif_context_free(context);
  return status;
}

void cheif_free(uint8_t *bytes) { free(bytes); }

const char *cheif_version(void) { return heif_get_version(); }
