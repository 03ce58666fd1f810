// shim.c — see cwebp_shim.h.
#include "cwebp_shim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

static int fail(int status, char *message, size_t capacity, const char *format, ...) {
  if (message && capacity) {
    va_list args;
    va_start(args, format);
    vsnprintf(message, capacity, format, args);
    va_end(args);
  }
  return status;
}

static int status_of(VP8StatusCode code) {
  switch (code) {
    case VP8_STATUS_OK: return CWEBP_OK;
    case VP8_STATUS_OUT_OF_MEMORY: return CWEBP_NO_MEMORY;
    case VP8_STATUS_NOT_ENOUGH_DATA: return CWEBP_TRUNCATED;
    case VP8_STATUS_UNSUPPORTED_FEATURE: return CWEBP_UNSUPPORTED;
    case VP8_STATUS_INVALID_PARAM: return CWEBP_INVALID;
    default: return CWEBP_CORRUPT;
  }
}

static const char *describe(VP8StatusCode code) {
  switch (code) {
    case VP8_STATUS_OUT_OF_MEMORY: return "libwebp ran out of memory";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the WebP file ends before its image data does";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "the WebP file uses a feature libwebp cannot decode";
    case VP8_STATUS_INVALID_PARAM: return "libwebp refused the decoding parameters";
    case VP8_STATUS_BITSTREAM_ERROR: return "the WebP image data is damaged";
    default: return "the WebP file is damaged";
  }
}

/// What libwebp's encoder said, in a sentence's words.
static const char *describe_encoding(WebPEncodingError error) {
  switch (error) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "libwebp ran out of memory encoding the image";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "libwebp refused the image's dimensions";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "the image's lossy data is larger than a WebP partition holds (try a lower quality)";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the encoded image would be larger than a WebP file holds (4 GiB)";
    default: return "libwebp could not encode the image";
  }
}

int cwebp_read_info(const uint8_t *data, size_t size, cwebp_info *info, char *message, size_t capacity) {
  memset(info, 0, sizeof *info);
  WebPBitstreamFeatures features;
  VP8StatusCode code = WebPGetFeatures(data, size, &features);
  if (code != VP8_STATUS_OK) return fail(status_of(code), message, capacity, "The WebP header cannot be read: %s.", describe(code));
  info->width = features.width;
  info->height = features.height;
  info->has_alpha = features.has_alpha;
  info->has_animation = features.has_animation;
  info->is_lossless = features.format == 2;
  info->frame_count = 1;
  WebPData whole = {data, size};
  WebPDemuxState state;
  WebPDemuxer *demux = WebPDemuxPartial(&whole, &state);
  if (!demux) {
    if (features.has_animation) return fail(CWEBP_CORRUPT, message, capacity, "The WebP container is damaged.");
    return CWEBP_OK;  // a simple (VP8/VP8L) file: no container chunks
  }
  if (features.has_animation) {
    info->frame_count = (int)WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
    info->width = (int)WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
    info->height = (int)WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
    info->loop_count = (int)WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT);
  }
  WebPChunkIterator chunk;
  if (WebPDemuxGetChunk(demux, "ICCP", 1, &chunk)) {
    info->icc = chunk.chunk.bytes; info->icc_length = chunk.chunk.size;
    WebPDemuxReleaseChunkIterator(&chunk);
  }
  if (WebPDemuxGetChunk(demux, "EXIF", 1, &chunk)) {
    info->exif = chunk.chunk.bytes; info->exif_length = chunk.chunk.size;
    WebPDemuxReleaseChunkIterator(&chunk);
  }
  if (WebPDemuxGetChunk(demux, "XMP ", 1, &chunk)) {
    info->xmp = chunk.chunk.bytes; info->xmp_length = chunk.chunk.size;
    WebPDemuxReleaseChunkIterator(&chunk);
  }
  WebPDemuxDelete(demux);
  return CWEBP_OK;
}

int cwebp_read_durations(const uint8_t *data, size_t size, int *durations, int count, char *message, size_t capacity) {
  WebPData whole = {data, size};
  WebPDemuxer *demux = WebPDemux(&whole);
  if (!demux) return fail(CWEBP_CORRUPT, message, capacity, "The WebP container is damaged.");
  WebPIterator frame;
  int n = 0;
  if (WebPDemuxGetFrame(demux, 1, &frame)) {
    do {
      if (n < count) durations[n] = frame.duration;
      n++;
    } while (WebPDemuxNextFrame(&frame));
    WebPDemuxReleaseIterator(&frame);
  }
  WebPDemuxDelete(demux);
  return CWEBP_OK;
}

struct cwebp_frames {
  WebPAnimDecoder *decoder;
  WebPAnimInfo info;
  const uint8_t *data;
  int decoded;                     ///< frames decoded so far
  size_t last_offset, last_size;   ///< where the last frame's data lies in `data`
};

cwebp_frames *cwebp_frames_open(const uint8_t *data, size_t size, int *status, char *message, size_t capacity) {
  WebPAnimDecoderOptions options;
  if (!WebPAnimDecoderOptionsInit(&options)) {
    *status = fail(CWEBP_UNSUPPORTED, message, capacity, "libwebp's animation decoder is unavailable.");
    return NULL;
  }
  options.color_mode = MODE_RGBA;
  options.use_threads = 0;
  cwebp_frames *frames = calloc(1, sizeof *frames);
  if (!frames) {
    *status = fail(CWEBP_NO_MEMORY, message, capacity, "Out of memory opening the animated WebP.");
    return NULL;
  }
  WebPData whole = {data, size};
  frames->data = data;
  frames->decoder = WebPAnimDecoderNew(&whole, &options);
  if (!frames->decoder || !WebPAnimDecoderGetInfo(frames->decoder, &frames->info)) {
    cwebp_frames_close(frames);
    *status = fail(CWEBP_CORRUPT, message, capacity, "The animated WebP file is damaged.");
    return NULL;
  }
  *status = CWEBP_OK;
  return frames;
}

int cwebp_frames_next(cwebp_frames *frames, int channels, uint8_t *out, size_t stride, int rows, char *message,
                      size_t capacity) {
  if (!frames || !out || (channels != 3 && channels != 4))
    return fail(CWEBP_INVALID, message, capacity, "WebP frames decode to 3 or 4 channels, not %d.", channels);
  if (!WebPAnimDecoderHasMoreFrames(frames->decoder)) return CWEBP_END;
  uint8_t *canvas = NULL;
  int timestamp = 0;
  if (!WebPAnimDecoderGetNext(frames->decoder, &canvas, &timestamp))
    return fail(CWEBP_CORRUPT, message, capacity, "A frame of the animated WebP file cannot be decoded.");
  frames->decoded++;
  WebPIterator frame;
  if (WebPDemuxGetFrame(WebPAnimDecoderGetDemuxer(frames->decoder), frames->decoded, &frame)) {
    frames->last_offset = (size_t)(frame.fragment.bytes - frames->data);
    frames->last_size = frame.fragment.size;
    WebPDemuxReleaseIterator(&frame);
  }
  const uint32_t width = frames->info.canvas_width;
  for (int y = 0; y < rows && y < (int)frames->info.canvas_height; y++) {
    const uint8_t *src = canvas + (size_t)y * width * 4;
    uint8_t *dst = out + (size_t)y * stride;
    if (channels == 4) {
      memcpy(dst, src, (size_t)width * 4);
    } else {
      for (uint32_t x = 0; x < width; x++) {
        dst[3 * x] = src[4 * x]; dst[3 * x + 1] = src[4 * x + 1]; dst[3 * x + 2] = src[4 * x + 2];
      }
    }
  }
  return CWEBP_OK;
}

void cwebp_frames_last_extent(const cwebp_frames *frames, size_t *offset, size_t *size) {
  *offset = frames ? frames->last_offset : 0;
  *size = frames ? frames->last_size : 0;
}

void cwebp_frames_close(cwebp_frames *frames) {
  if (!frames) return;
  if (frames->decoder) WebPAnimDecoderDelete(frames->decoder);
  free(frames);
}

int cwebp_decode(const uint8_t *data, size_t size, int channels, int out_width, int out_height,
                 uint8_t *out, size_t stride, char *message, size_t capacity) {
  if (channels != 3 && channels != 4) return fail(CWEBP_INVALID, message, capacity, "WebP decodes to 3 or 4 channels, not %d.", channels);
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return fail(CWEBP_UNSUPPORTED, message, capacity, "libwebp's version does not match its headers.");
  VP8StatusCode code = WebPGetFeatures(data, size, &config.input);
  if (code != VP8_STATUS_OK) return fail(status_of(code), message, capacity, "The WebP header cannot be read: %s.", describe(code));
  if (config.input.has_animation)
    return fail(CWEBP_INVALID, message, capacity, "An animated WebP is read frame by frame (cwebp_frames_open).");
  if (out_width != config.input.width || out_height != config.input.height) {
    config.options.use_scaling = 1;
    config.options.scaled_width = out_width;
    config.options.scaled_height = out_height;
  }
  config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = out;
  config.output.u.RGBA.stride = (int)stride;
  config.output.u.RGBA.size = stride * (size_t)out_height;
  code = WebPDecode(data, size, &config);
  WebPFreeDecBuffer(&config.output);
  if (code != VP8_STATUS_OK) return fail(status_of(code), message, capacity, "The WebP image cannot be decoded: %s.", describe(code));
  return CWEBP_OK;
}

static int add_chunk(WebPMux *mux, const char *fourcc, const uint8_t *bytes, size_t length) {
  if (!bytes || !length) return 1;
  WebPData chunk = {bytes, length};
  return WebPMuxSetChunk(mux, fourcc, &chunk, 1) == WEBP_MUX_OK;
}

/// Hands `image` (`size` bytes from WebPMalloc, owned from here on) to `*out`, with the ICC,
/// EXIF and XMP chunks given (any may be NULL) muxed in.
static int with_metadata(uint8_t *image, size_t size, const uint8_t *icc, size_t icc_length, const uint8_t *exif,
                         size_t exif_length, const uint8_t *xmp, size_t xmp_length, uint8_t **out, size_t *out_length,
                         char *message, size_t capacity) {
  if ((!icc || !icc_length) && (!exif || !exif_length) && (!xmp || !xmp_length)) {
    *out = image;
    *out_length = size;
    return CWEBP_OK;
  }
  WebPData whole = {image, size};
  WebPMux *mux = WebPMuxCreate(&whole, 1);
  WebPFree(image);
  if (!mux) return fail(CWEBP_NO_MEMORY, message, capacity, "libwebpmux could not take the encoded image.");
  if (!add_chunk(mux, "ICCP", icc, icc_length) || !add_chunk(mux, "EXIF", exif, exif_length) ||
      !add_chunk(mux, "XMP ", xmp, xmp_length)) {
    WebPMuxDelete(mux);
    return fail(CWEBP_INVALID, message, capacity, "libwebpmux refused a metadata chunk.");
  }
  WebPData assembled = {NULL, 0};
  WebPMuxError merr = WebPMuxAssemble(mux, &assembled);
  WebPMuxDelete(mux);
  if (merr != WEBP_MUX_OK) {
    WebPDataClear(&assembled);
    return fail(CWEBP_NO_MEMORY, message, capacity, "libwebpmux could not assemble the file (error %d).", (int)merr);
  }
  *out = (uint8_t *)assembled.bytes;
  *out_length = assembled.size;
  return CWEBP_OK;
}

/// libwebp's encoder configuration for `o`.
static int make_config(const cwebp_encode_options *o, WebPConfig *config, char *message, size_t capacity) {
  if (!WebPConfigInit(config)) return fail(CWEBP_UNSUPPORTED, message, capacity, "libwebp's version does not match its headers.");
  config->lossless = o->lossless;
  config->quality = o->quality;
  config->method = o->method;
  config->alpha_quality = o->alpha_quality;
  if (o->lossless && o->near_lossless < 100) config->near_lossless = o->near_lossless;
  if (!WebPValidateConfig(config)) return fail(CWEBP_INVALID, message, capacity, "libwebp refused the encoder settings.");
  return CWEBP_OK;
}

/// Imports RGB or RGBA rows into `picture` (initialised, sized).
static int import_pixels(WebPPicture *picture, const uint8_t *pixels, size_t stride, int channels, char *message,
                         size_t capacity) {
  int imported = channels == 4 ? WebPPictureImportRGBA(picture, pixels, (int)stride)
                               : WebPPictureImportRGB(picture, pixels, (int)stride);
  return imported ? CWEBP_OK : fail(CWEBP_NO_MEMORY, message, capacity, "libwebp ran out of memory importing the pixels.");
}

int cwebp_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                 const cwebp_encode_options *o, const uint8_t *icc, size_t icc_length,
                 const uint8_t *exif, size_t exif_length, const uint8_t *xmp, size_t xmp_length,
                 uint8_t **out, size_t *out_length, char *message, size_t capacity) {
  *out = NULL;
  *out_length = 0;
  if (width < 1 || height < 1 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION)
    return fail(CWEBP_INVALID, message, capacity, "A WebP image must be 1 to %d pixels on each side; %dx%d was requested.", WEBP_MAX_DIMENSION, width, height);
  WebPConfig config;
  int status = make_config(o, &config, message, capacity);
  if (status != CWEBP_OK) return status;
  WebPPicture picture;
  if (!WebPPictureInit(&picture)) return fail(CWEBP_UNSUPPORTED, message, capacity, "libwebp's version does not match its headers.");
  picture.width = width;
  picture.height = height;
  picture.use_argb = o->lossless;
  if ((status = import_pixels(&picture, pixels, stride, channels, message, capacity)) != CWEBP_OK) {
    WebPPictureFree(&picture);
    return status;
  }
  WebPMemoryWriter writer;
  WebPMemoryWriterInit(&writer);
  picture.writer = WebPMemoryWrite;
  picture.custom_ptr = &writer;
  int ok = WebPEncode(&config, &picture);
  int error = picture.error_code;
  WebPPictureFree(&picture);
  if (!ok) {
    WebPMemoryWriterClear(&writer);
    int memory = error == VP8_ENC_ERROR_OUT_OF_MEMORY || error == VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY;
    return fail(memory ? CWEBP_NO_MEMORY : CWEBP_INVALID, message, capacity, "%s (libwebp error %d).",
                describe_encoding((WebPEncodingError)error), error);
  }
  return with_metadata(writer.mem, writer.size, icc, icc_length, exif, exif_length, xmp, xmp_length, out, out_length,
                       message, capacity);
}

void cwebp_free(uint8_t *bytes) { WebPFree(bytes); }
