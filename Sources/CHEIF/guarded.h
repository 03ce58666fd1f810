// guarded.h — libheif's calls that allocate by the file's or the image's size, behind a C++ frame
// that turns an escaping exception into libheif's own error (guarded.cpp).
#ifndef CHEIF_GUARDED_H
#define CHEIF_GUARDED_H

#include <libheif/heif.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `heif_context_read_from_memory_without_copy`, with an exception returned as an error.
struct heif_error cheif_guarded_read(struct heif_context *context, const void *data, size_t size);

/// `heif_decode_image`, with an exception returned as an error.
struct heif_error cheif_guarded_decode(
    const struct heif_image_handle *handle, struct heif_image **image, enum heif_colorspace colorspace,
    enum heif_chroma chroma, const struct heif_decoding_options *options);

/// `heif_context_encode_image`, with an exception returned as an error.
struct heif_error cheif_guarded_encode(
    struct heif_context *context, const struct heif_image *image, struct heif_encoder *encoder,
    const struct heif_encoding_options *options, struct heif_image_handle **handle);

#ifdef __cplusplus
}
#endif

#endif
