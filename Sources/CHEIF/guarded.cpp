// guarded.cpp — libheif and its codecs are C++: a `std::bad_alloc` thrown inside them (libde265
// grows its vectors with the image, and a refused block throws) escapes through libheif's C API.
// shim.c's frames cannot pass an exception, so it would end the process (`terminate`, SIGABRT;
// seen under `ulimit -v`). These frames catch it next to the call and return libheif's memory
// error instead, which fails the one image with a message.

#include "guarded.h"

#include <new>

namespace {
/// The error for an exception that escaped libheif.
heif_error escaped(bool isMemory) {
  if (isMemory) return {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "not enough memory"};
  return {heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "the codec stopped with an exception"};
}
}  // namespace

extern "C" heif_error cheif_guarded_read(heif_context *context, const void *data, size_t size) {
  try {
    return heif_context_read_from_memory_without_copy(context, data, size, nullptr);
  } catch (const std::bad_alloc &) {
    return escaped(true);
  } catch (...) {
    return escaped(false);
  }
}

extern "C" heif_error cheif_guarded_decode(
    const heif_image_handle *handle, heif_image **image, heif_colorspace colorspace, heif_chroma chroma,
    const heif_decoding_options *options) {
  try {
    return heif_decode_image(handle, image, colorspace, chroma, options);
  } catch (const std::bad_alloc &) {
    return escaped(true);
  } catch (...) {
    return escaped(false);
  }
}

extern "C" heif_error cheif_guarded_encode(
    heif_context *context, const heif_image *image, heif_encoder *encoder, const heif_encoding_options *options,
    heif_image_handle **handle) {
  try {
    return heif_context_encode_image(context, image, encoder, options, handle);
  } catch (const std::bad_alloc &) {
    return escaped(true);
  } catch (...) {
    return escaped(false);
  }
}
