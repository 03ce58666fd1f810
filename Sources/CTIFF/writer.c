// writer.c — rows in, a TIFF file out, through libtiff (see ctiff_shim.h).
//
// Rows are gathered into one band (a strip, or a row of tiles) and each band is compressed and
// written as soon as it is complete, so only one band is held. libtiff writes the image data in
// order and the directory last, then seeks back to point the header at it: a seekable descriptor
// is written in place, anything else (a pipe) is assembled in memory and handed back.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctiff_shim.h"
#include "log.h"

struct ctiff_writer {
  ctiff_log log;
  TIFF *tif;
  int fd;              ///< -1: memory
  int io_failed;
  char io_message[128];
  uint64_t base, position, end;
  uint8_t *memory;
  uint64_t capacity;

  ctiff_write_options options;
  size_t row_bytes;    ///< bytes of one image row
  uint32_t band_rows;  ///< rows per strip, or the tile size
  uint8_t *band;
  uint32_t band_filled, band_index, rows_written;
  uint8_t *tile;
  size_t tile_bytes;
};

// MARK: Output

static tmsize_t write_proc(thandle_t handle, void *buffer, tmsize_t size) {
  ctiff_writer *w = handle;
  if (size <= 0) return 0;
  if (w->fd >= 0) {
    size_t done = 0;
    while (done < (size_t)size) {
      ssize_t n = pwrite(w->fd, (const uint8_t *)buffer + done, (size_t)size - done, (off_t)(w->base + w->position + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        w->io_failed = 1;
        snprintf(w->io_message, sizeof w->io_message, "%s", strerror(n < 0 ? errno : ENOSPC));
        return -1;
      }
      done += (size_t)n;
    }
  } else {
    uint64_t needed = w->position + (uint64_t)size;
    if (needed > w->capacity) {
      uint64_t capacity = w->capacity ? w->capacity : 65536;
      while (capacity < needed) capacity *= 2;
      uint8_t *grown = realloc(w->memory, (size_t)capacity);
      if (!grown) {
        w->io_failed = 1;
        snprintf(w->io_message, sizeof w->io_message, "out of memory");
        return -1;
      }
      w->memory = grown;
      w->capacity = capacity;
    }
    if (w->position > w->end) memset(w->memory + w->end, 0, (size_t)(w->position - w->end));
    memcpy(w->memory + w->position, buffer, (size_t)size);
  }
  w->position += (uint64_t)size;
  if (w->position > w->end) w->end = w->position;
  return size;
}

static tmsize_t read_proc(thandle_t handle, void *buffer, tmsize_t size) {
  ctiff_writer *w = handle;
  if (size <= 0 || w->position >= w->end) return 0;
  uint64_t n = w->end - w->position < (uint64_t)size ? w->end - w->position : (uint64_t)size;
  if (w->fd >= 0) {
    ssize_t got = pread(w->fd, buffer, (size_t)n, (off_t)(w->base + w->position));
    if (got < 0) return -1;
    n = (uint64_t)got;
  } else {
    memcpy(buffer, w->memory + w->position, (size_t)n);
  }
  w->position += n;
  return (tmsize_t)n;
}

static toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
  ctiff_writer *w = handle;
  uint64_t base = whence == SEEK_CUR ? w->position : whence == SEEK_END ? w->end : 0;
  w->position = base + offset;
  return w->position;
}

static int close_proc(thandle_t handle) {
  (void)handle;
  return 0;
}

static toff_t size_proc(thandle_t handle) { return ((ctiff_writer *)handle)->end; }

static int map_proc(thandle_t handle, void **base, toff_t *size) {
  (void)handle, (void)base, (void)size;
  return 0;
}

static void unmap_proc(thandle_t handle, void *base, toff_t size) { (void)handle, (void)base, (void)size; }

/// The status of a libtiff failure while writing.
static int failure(ctiff_writer *w, const char *what) {
  if (w->io_failed) {
    w->log.failed = 0;
    return ctiff_log_fail(&w->log, CTIFF_IO, "Writing the TIFF file failed: %s.", w->io_message);
  }
  ctiff_log_fail(&w->log, CTIFF_CORRUPT, "%s", what);
  return ctiff_log_status(&w->log, CTIFF_INVALID) == CTIFF_NO_MEMORY ? CTIFF_NO_MEMORY : CTIFF_INVALID;
}

// MARK: Opening

ctiff_writer *ctiff_writer_open(int fd, const ctiff_write_options *o, int *status, char *message, size_t capacity) {
  ctiff_writer *w = calloc(1, sizeof *w);
  if (!w) {
    *status = CTIFF_NO_MEMORY;
    snprintf(message, capacity, "Out of memory while starting a TIFF file.");
    return NULL;
  }
  w->options = *o;
  w->fd = -1;
  if (fd >= 0) {
    off_t here = lseek(fd, 0, SEEK_CUR);
    if (here >= 0) {
      w->fd = fd;
      w->base = (uint64_t)here;
    }
  }
  int bytes = o->sample_bytes, channels = o->channels;
  w->row_bytes = (size_t)o->width * channels * bytes;
  // Classic TIFF addresses 4 GiB; larger images (before compression) are written as BigTIFF.
  uint64_t raw = (uint64_t)w->row_bytes * o->height;
  const char *mode = raw > ((uint64_t)3 << 30) ? "w8" : "w";
  TIFFOpenOptions *options = ctiff_log_options(&w->log, 0);
  if (options) {
    w->tif = TIFFClientOpenExt("TIFF output", mode, w, read_proc, write_proc, seek_proc, close_proc, size_proc, map_proc,
                               unmap_proc, options);
    TIFFOpenOptionsFree(options);
  }
  if (!w->tif) {
    *status = w->io_failed ? CTIFF_IO : CTIFF_NO_MEMORY;
    snprintf(message, capacity, "%s", w->log.failed ? w->log.message : "The TIFF file could not be started.");
    free(w);
    return NULL;
  }
  TIFF *tif = w->tif;
  int alpha = channels == 2 || channels == 4, gray = channels <= 2;
  uint16_t compression = o->compression == CTIFF_WRITE_LZW       ? COMPRESSION_LZW
                         : o->compression == CTIFF_WRITE_DEFLATE  ? COMPRESSION_ADOBE_DEFLATE
                         : o->compression == CTIFF_WRITE_JPEG     ? COMPRESSION_JPEG
                         : o->compression == CTIFF_WRITE_PACKBITS ? COMPRESSION_PACKBITS
                                                                  : COMPRESSION_NONE;
  int ycbcr = compression == COMPRESSION_JPEG && channels == 3;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, o->width);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, o->height);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(bytes * 8));
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)channels);
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, (uint16_t)(bytes == 4 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT));
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, (uint16_t)PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)ORIENTATION_TOPLEFT);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
               (uint16_t)(ycbcr ? PHOTOMETRIC_YCBCR : gray ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB));
  if (alpha) {
    uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
  }
  if (compression == COMPRESSION_JPEG) {
    TIFFSetField(tif, TIFFTAG_JPEGQUALITY, o->quality);
    if (ycbcr) TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
  }
  if (o->predictor && (compression == COMPRESSION_LZW || compression == COMPRESSION_ADOBE_DEFLATE)) {
    TIFFSetField(tif, TIFFTAG_PREDICTOR, (uint16_t)(bytes == 4 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL));
  }
  if (o->icc && o->icc_length) TIFFSetField(tif, TIFFTAG_ICCPROFILE, o->icc_length, o->icc);
  if (o->xmp && o->xmp_length) TIFFSetField(tif, TIFFTAG_XMLPACKET, o->xmp_length, o->xmp);
  uint8_t *iptc = NULL;
  const TIFFField *iptc_field = TIFFFieldWithTag(tif, TIFFTAG_RICHTIFFIPTC);
  int iptc_unit = iptc_field ? TIFFFieldSetGetSize(iptc_field) : 0;
  if (o->iptc && o->iptc_length && (iptc_unit == 1 || iptc_unit == 4)) {
    // The records, zero-padded to a multiple of 4 (readers take them as 32-bit words), counted
    // in the unit this libtiff uses for the tag (bytes or words).
    uint32_t padded = (o->iptc_length + 3) / 4 * 4;
    iptc = calloc(padded, 1);
    if (iptc) {
      memcpy(iptc, o->iptc, o->iptc_length);
      TIFFSetField(tif, TIFFTAG_RICHTIFFIPTC, padded / (uint32_t)iptc_unit, iptc);
    }
  }
  for (int i = 0; i < o->text_count; i++) TIFFSetField(tif, o->text_tags[i], o->texts[i]);
  free(iptc);
  if (o->tile) {
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, o->tile);
    TIFFSetField(tif, TIFFTAG_TILELENGTH, o->tile);
    w->band_rows = o->tile;
    w->tile_bytes = (size_t)o->tile * o->tile * channels * bytes;
    w->tile = malloc(w->tile_bytes);
  } else {
    // Strips of about 256 KiB, a multiple of 16 rows (JPEG's MCU height with subsampling).
    uint32_t rows = (uint32_t)(262144 / (w->row_bytes ? w->row_bytes : 1));
    rows = rows < 16 ? 16 : rows / 16 * 16;
    w->band_rows = rows > o->height ? o->height : rows;
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, w->band_rows);
  }
  w->band = malloc(w->row_bytes * w->band_rows);
  if (!w->band || (o->tile && !w->tile) || w->log.failed) {
    *status = w->log.failed ? CTIFF_INVALID : CTIFF_NO_MEMORY;
    snprintf(message, capacity, "%s", w->log.failed ? w->log.message : "Out of memory for a band of TIFF rows.");
    ctiff_writer_destroy(w);
    return NULL;
  }
  *status = CTIFF_OK;
  return w;
}

// MARK: Writing

/// Compresses and writes the band (its `band_filled` rows).
static int flush_band(ctiff_writer *w) {
  if (w->band_filled == 0) return CTIFF_OK;
  const ctiff_write_options *o = &w->options;
  if (!o->tile) {
    tmsize_t size = (tmsize_t)(w->row_bytes * w->band_filled);
    if (TIFFWriteEncodedStrip(w->tif, w->band_index, w->band, size) != size || w->log.failed) {
      return failure(w, "A TIFF strip could not be written.");
    }
  } else {
    size_t pixel = (size_t)o->channels * o->sample_bytes, tile_row = (size_t)o->tile * pixel;
    for (uint32_t x = 0; x < o->width; x += o->tile) {
      uint32_t columns = o->width - x < o->tile ? o->width - x : o->tile;
      memset(w->tile, 0, w->tile_bytes);
      for (uint32_t y = 0; y < w->band_filled; y++) {
        memcpy(w->tile + y * tile_row, w->band + y * w->row_bytes + x * pixel, columns * pixel);
      }
      uint32_t index = TIFFComputeTile(w->tif, x, w->band_index * o->tile, 0, 0);
      if (TIFFWriteEncodedTile(w->tif, index, w->tile, (tmsize_t)w->tile_bytes) != (tmsize_t)w->tile_bytes || w->log.failed) {
        return failure(w, "A TIFF tile could not be written.");
      }
    }
  }
  w->band_index++;
  w->band_filled = 0;
  return CTIFF_OK;
}

int ctiff_writer_write_rows(ctiff_writer *w, const uint8_t *rows, size_t stride, uint32_t count) {
  if (w->log.failed) return w->io_failed ? CTIFF_IO : CTIFF_INVALID;
  if ((uint64_t)w->rows_written + count > w->options.height) {
    return ctiff_log_fail(&w->log, CTIFF_INVALID, "More rows were written than the TIFF image has (%u).", w->options.height);
  }
  for (uint32_t y = 0; y < count; y++) {
    memcpy(w->band + (size_t)w->band_filled * w->row_bytes, rows + y * stride, w->row_bytes);
    w->band_filled++;
    w->rows_written++;
    if (w->band_filled == w->band_rows || w->rows_written == w->options.height) {
      int status = flush_band(w);
      if (status != CTIFF_OK) return status;
    }
  }
  return CTIFF_OK;
}

int ctiff_writer_finish(ctiff_writer *w, const uint8_t **bytes, size_t *length) {
  *bytes = NULL;
  *length = 0;
  if (w->log.failed) return w->io_failed ? CTIFF_IO : CTIFF_INVALID;
  if (w->rows_written != w->options.height) {
    return ctiff_log_fail(&w->log, CTIFF_INVALID, "The TIFF image has %u rows; %u were written.", w->options.height,
                          w->rows_written);
  }
  if (!TIFFFlush(w->tif) || w->log.failed || w->io_failed) return failure(w, "The TIFF directory could not be written.");
  TIFFClose(w->tif);
  w->tif = NULL;
  if (w->io_failed) return failure(w, "The TIFF file could not be completed.");
  if (w->fd < 0) {
    *bytes = w->memory;
    *length = (size_t)w->end;
  }
  return CTIFF_OK;
}

const char *ctiff_writer_message(const ctiff_writer *w) { return w->log.message; }

void ctiff_writer_destroy(ctiff_writer *w) {
  if (!w) return;
  if (w->tif) TIFFCleanup(w->tif);
  free(w->band);
  free(w->tile);
  free(w->memory);
  free(w);
}
