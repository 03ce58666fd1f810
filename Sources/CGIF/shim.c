// shim.c — see cgif_shim.h.
#include "cgif_shim.h"

#include <gif_lib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t *data;
  size_t size, offset;
} source;

static int read_bytes(GifFileType *gif, GifByteType *into, int count) {
  source *s = (source *)gif->UserData;
  size_t left = s->size - s->offset;
  size_t n = count < 0 ? 0 : (size_t)count;
  if (n > left) n = left;
  memcpy(into, s->data + s->offset, n);
  s->offset += n;
  return (int)n;
}

static int fail(int status, char *message, size_t capacity, const char *format, ...) {
  if (message && capacity) {
    va_list args;
    va_start(args, format);
    vsnprintf(message, capacity, format, args);
    va_end(args);
  }
  return status;
}

static int gif_error(int code, char *message, size_t capacity) {
  const char *text = GifErrorString(code);
  int status = code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON ? CGIF_TRUNCATED
             : code == D_GIF_ERR_NOT_ENOUGH_MEM ? CGIF_NO_MEMORY : CGIF_CORRUPT;
  return fail(status, message, capacity, "The GIF file cannot be read: %s.", text ? text : "unknown giflib error");
}

/// Opens the GIF and reads records up to the first image descriptor (included).
static GifFileType *open_first_frame(source *s, cgif_info *info, int *status, char *message, size_t capacity) {
  int error = 0;
  GifFileType *gif = DGifOpen(s, read_bytes, &error);
  if (!gif) {
    *status = gif_error(error, message, capacity);
    return NULL;
  }
  memset(info, 0, sizeof *info);
  info->width = gif->SWidth;
  info->height = gif->SHeight;
  info->transparent_index = -1;
  for (;;) {
    GifRecordType type;
    if (DGifGetRecordType(gif, &type) == GIF_ERROR) break;
    if (type == IMAGE_DESC_RECORD_TYPE) {
      if (DGifGetImageDesc(gif) == GIF_ERROR) break;
      info->frame_left = gif->Image.Left;
      info->frame_top = gif->Image.Top;
      info->frame_width = gif->Image.Width;
      info->frame_height = gif->Image.Height;
      info->has_alpha = info->transparent_index >= 0 || info->frame_left != 0 || info->frame_top != 0 ||
                        info->frame_width < info->width || info->frame_height < info->height;
      if (!gif->Image.ColorMap && !gif->SColorMap) {
        *status = fail(CGIF_CORRUPT, message, capacity, "The GIF's first frame has no colour table.");
        DGifCloseFile(gif, &error);
        return NULL;
      }
      *status = CGIF_OK;
      return gif;
    }
    if (type == EXTENSION_RECORD_TYPE) {
      int code = 0;
      GifByteType *block = NULL;
      if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) break;
      if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) {
        GraphicsControlBlock gcb;
        if (DGifExtensionToGCB(block[0], block + 1, &gcb) == GIF_OK) info->transparent_index = gcb.TransparentColor;
      }
      while (block) {
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) goto failed;
      }
      continue;
    }
    if (type == TERMINATE_RECORD_TYPE) {
      *status = fail(CGIF_CORRUPT, message, capacity, "The GIF file has no image.");
      DGifCloseFile(gif, &error);
      return NULL;
    }
  }
failed:
  *status = gif_error(gif->Error, message, capacity);
  DGifCloseFile(gif, &error);
  return NULL;
}

int cgif_read_info(const uint8_t *data, size_t size, cgif_info *info, char *message, size_t capacity) {
  source s = {data, size, 0};
  int status = CGIF_OK, error = 0;
  GifFileType *gif = open_first_frame(&s, info, &status, message, capacity);
  if (gif) DGifCloseFile(gif, &error);
  return status;
}

int cgif_decode(const uint8_t *data, size_t size, int channels, uint8_t *out, size_t stride,
                char *message, size_t capacity) {
  if (channels != 3 && channels != 4) return fail(CGIF_INVALID, message, capacity, "GIF decodes to 3 or 4 channels, not %d.", channels);
  source s = {data, size, 0};
  cgif_info info;
  int status = CGIF_OK, error = 0;
  GifFileType *gif = open_first_frame(&s, &info, &status, message, capacity);
  if (!gif) return status;
  for (int y = 0; y < info.height; y++) memset(out + (size_t)y * stride, 0, (size_t)info.width * channels);
  const ColorMapObject *map = gif->Image.ColorMap ? gif->Image.ColorMap : gif->SColorMap;
  const int fw = info.frame_width, fh = info.frame_height;
  GifPixelType *line = fw > 0 ? malloc((size_t)fw) : NULL;
  if (fw > 0 && !line) {
    DGifCloseFile(gif, &error);
    return fail(CGIF_NO_MEMORY, message, capacity, "Out of memory decoding the GIF.");
  }
  // Rows in file order: interlaced frames store rows 0, 8, 16… then 4, 12… then 2, 6… then 1, 3…
  static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
  const int passes = gif->Image.Interlace ? 4 : 1;
  for (int pass = 0; pass < passes; pass++) {
    const int start = passes == 1 ? 0 : starts[pass], step = passes == 1 ? 1 : steps[pass];
    for (int row = start; row < fh; row += step) {
      if (DGifGetLine(gif, line, fw) == GIF_ERROR) {
        status = gif_error(gif->Error, message, capacity);
        free(line);
        DGifCloseFile(gif, &error);
        return status;
      }
      const int y = info.frame_top + row;
      if (y < 0 || y >= info.height) continue;
      uint8_t *dst = out + (size_t)y * stride;
      for (int i = 0; i < fw; i++) {
        const int x = info.frame_left + i;
        if (x < 0 || x >= info.width) continue;
        const int index = line[i];
        if (index == info.transparent_index) continue;
        uint8_t *p = dst + (size_t)x * channels;
        if (index < map->ColorCount) {
          p[0] = map->Colors[index].Red;
          p[1] = map->Colors[index].Green;
          p[2] = map->Colors[index].Blue;
        }
        if (channels == 4) p[3] = 255;
      }
    }
  }
  free(line);
  DGifCloseFile(gif, &error);
  return CGIF_OK;
}
