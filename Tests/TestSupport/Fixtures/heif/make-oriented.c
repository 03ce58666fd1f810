// make-oriented.c — writes an AVIF whose pixels are stored transformed, with the irot/imir
// boxes (libheif's heif_encoding_options.image_orientation) that turn them upright again.
//   cc make-oriented.c -lheif -lpng -o make-oriented && ./make-oriented upright.png 6 out.avif
#include <libheif/heif.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  png_image png; memset(&png, 0, sizeof png); png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, argv[1])) return 1;
  png.format = PNG_FORMAT_RGB;
  unsigned char *rgb = malloc(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, NULL, rgb, 0, NULL)) return 1;
  int orientation = atoi(argv[2]), w = png.width, h = png.height;
  // libheif stores the pixels given and adds the boxes that undo `orientation` (EXIF meaning):
  // hand it the picture as a camera with that orientation would have stored it.
  int sw = orientation >= 5 ? h : w, sh = orientation >= 5 ? w : h;
  struct heif_image *img; heif_image_create(sw, sh, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &img);
  heif_image_add_plane(img, heif_channel_interleaved, sw, sh, 8);
  int stride; unsigned char *p = heif_image_get_plane(img, heif_channel_interleaved, &stride);
  for (int y = 0; y < sh; y++) for (int x = 0; x < sw; x++) {
    int ux, uy;  // the upright pixel shown at stored (x, y)
    switch (orientation) {
      case 2: ux = w - 1 - x; uy = y; break;           // mirrored left-right
      case 6: ux = sh - 1 - y; uy = x; break;          // turn 90° clockwise to show upright
      default: ux = x; uy = y; break;
    }
    memcpy(p + y * stride + x * 3, rgb + (uy * w + ux) * 3, 3);
  }
  struct heif_context *ctx = heif_context_alloc(); struct heif_encoder *enc;
  heif_context_get_encoder_for_format(ctx, heif_compression_AV1, &enc);
  heif_encoder_set_lossless(enc, 1); heif_encoder_set_parameter_string(enc, "chroma", "444");
  struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
  nclx->matrix_coefficients = heif_matrix_coefficients_RGB_GBR; nclx->full_range_flag = 1;
  struct heif_encoding_options *o = heif_encoding_options_alloc();
  o->output_nclx_profile = nclx; o->image_orientation = (enum heif_orientation)orientation;
  struct heif_error e = heif_context_encode_image(ctx, img, enc, o, NULL);
  if (e.code) { fprintf(stderr, "%s\n", e.message); return 1; }
  e = heif_context_write_to_file(ctx, argv[3]);
  return e.code != 0;
}
