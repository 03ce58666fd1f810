// reader.c — TIFF pages decoded from memory into gray/RGB(A) at 8, 16 bits or float (see ctiff_shim.h).
//
// A page is read block by block (a strip, or a tile; one block per plane for planar files) with
// TIFFReadEncodedStrip/Tile, and each block's rows are converted into the caller's buffer:
//   - direct: the stored samples already are the output (chunky 8/16-bit or 32-bit float gray or
//     RGB, with or without unassociated alpha): copied;
//   - converted: sample (x, c) is read at any depth 1–16 (integers) or 16/32/64 (floats) and
//     mapped: v · max_out / max_in rounded for integers (1/2/4-bit codes fill 8 bits, 9–16 fill 16);
//     MinIsWhite inverts (max − v, 1 − v); a palette gives its colormap entry (16-bit entries
//     shifted to 8 bits, as libtiff and Pillow do, unless every entry is below 256); CMYK becomes
//     R = (max − C)(max − K) / max (and G, B from M, Y), the naive conversion the JPEG reader also
//     uses; associated (premultiplied) alpha is divided out, colour = min(max, C · max / A)
//     rounded (0 where A = 0);
//   - through libtiff's RGBA interface (TIFFRGBAImage) for what only it decodes: the whole page
//     once, 8-bit, unpremultiplied the same way.
// A cache holds the last row of blocks (one slot per block column and plane), so consecutive bands
// of rows, or regions inside one row of tiles, never decode a block twice.
//
// Pages are the main chain's directories without NewSubfileType's reduced-image bit (the first
// always counts), found by reading only that tag of each directory; a page's pyramid levels are its
// SubIFDs and the reduced directories after it (at most CTIFF_MAX_LEVELS looked at), each checked
// by selecting it like a page. A level can be read as if a pixel larger (ctiff_set_extent),
// repeating its last column and row.
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctiff_shim.h"
#include "log.h"

enum { KIND_DIRECT, KIND_CONVERTED, KIND_RGBA };

struct ctiff_reader {
  ctiff_log log;
  TIFF *tif;
  const uint8_t *data;    ///< the file in memory, or NULL when it is read from `fd`
  int fd;                 ///< the file read with pread (not owned), or -1
  uint64_t length;
  uint64_t position;

  ctiff_info info;
  int kind;
  uint16_t photometric;   ///< after JPEG YCbCr is upsampled to RGB
  int colour_samples;     ///< stored colour samples per pixel (1, 3 or 4)
  int alpha_sample;       ///< index of the alpha sample, or -1
  int is_float, is_separate, out_bytes, out_channels;
  int keep_cmyk;          ///< CMYK pages decode to CMYK(A)
  uint32_t in_max, out_max;
  uint16_t *colormap[3];
  uint32_t colormap_size;
  int colormap_16;

  uint32_t blocks_across, blocks_down, planes;
  uint64_t block_bytes, row_bytes;
  uint8_t **slots;
  uint32_t *slot_block;   ///< which block each slot holds (UINT32_MAX: none)
  uint32_t *rgba;         ///< the whole page, for KIND_RGBA
  uint64_t blocks_decoded; ///< strips or tiles decompressed so far (ctiff_blocks_decoded)
  uint32_t extent_width, extent_height; ///< regions may reach this far (≥ the page; edges repeated)

  uint32_t *page_directories; ///< the directory of each page (directories not marked reduced)
  uint32_t page_count, directory_count;
  int has_pages;              ///< page_directories was built
  int64_t levels_page;        ///< the page `levels` belong to, or -1
  int level_count;
  struct {
    uint64_t sub_ifd;         ///< the SubIFD's offset, or 0 for a directory of the main chain
    uint32_t directory;
    uint32_t width, height;
  } levels[CTIFF_MAX_LEVELS];
};

// MARK: Reading from memory

static tmsize_t read_proc(thandle_t handle, void *buffer, tmsize_t size) {
  ctiff_reader *r = handle;
  if (size <= 0) return 0;
  if (r->position >= r->length) {
    r->log.hit_end = 1;
    return 0;
  }
  uint64_t available = r->length - r->position;
  uint64_t n = (uint64_t)size < available ? (uint64_t)size : available;
  if (r->data) {
    memcpy(buffer, r->data + r->position, n);
  } else {
    // pread at this reader's own position: readers of one descriptor never disturb each other.
    uint64_t done = 0;
    while (done < n) {
      ssize_t got = pread(r->fd, (uint8_t *)buffer + done, (size_t)(n - done), (off_t)(r->position + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      done += (uint64_t)got;
    }
    n = done;
  }
  if (n < (uint64_t)size) r->log.hit_end = 1;
  r->position += n;
  return (tmsize_t)n;
}

static tmsize_t write_proc(thandle_t handle, void *buffer, tmsize_t size) {
  (void)handle, (void)buffer, (void)size;
  return 0;
}

static toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
  ctiff_reader *r = handle;
  uint64_t base = whence == SEEK_CUR ? r->position : whence == SEEK_END ? r->length : 0;
  if (offset > UINT64_MAX - base) return (toff_t)-1;
  r->position = base + offset;
  return r->position;
}

static int close_proc(thandle_t handle) {
  (void)handle;
  return 0;
}

static toff_t size_proc(thandle_t handle) { return ((ctiff_reader *)handle)->length; }

static int map_proc(thandle_t handle, void **base, toff_t *size) {
  ctiff_reader *r = handle;
  if (!r->data) return 0;  // a descriptor is read block by block, never mapped
  *base = (void *)r->data;
  *size = r->length;
  return 1;
}

static void unmap_proc(thandle_t handle, void *base, toff_t size) { (void)handle, (void)base, (void)size; }

// MARK: Opening and selecting pages

static ctiff_reader *open_reader(const uint8_t *data, int fd, uint64_t length, uint64_t max_alloc, int *status,
                                 char *message, size_t capacity) {
  ctiff_reader *r = calloc(1, sizeof *r);
  if (!r) {
    *status = CTIFF_NO_MEMORY;
    snprintf(message, capacity, "Out of memory while opening the TIFF file.");
    return NULL;
  }
  r->data = data;
  r->fd = fd;
  r->length = length;
  r->levels_page = -1;
  TIFFOpenOptions *options = ctiff_log_options(&r->log, max_alloc);
  if (options) {
    r->tif = TIFFClientOpenExt("TIFF", "r", r, read_proc, write_proc, seek_proc, close_proc, size_proc, map_proc,
                               unmap_proc, options);
    TIFFOpenOptionsFree(options);
  }
  if (!r->tif) {
    if (!r->log.failed) ctiff_log_fail(&r->log, CTIFF_CORRUPT, "The TIFF file could not be opened.");
    *status = ctiff_log_status(&r->log, CTIFF_CORRUPT);
    snprintf(message, capacity, "%s", r->log.message);
    free(r);
    return NULL;
  }
  *status = CTIFF_OK;
  return r;
}

ctiff_reader *ctiff_open(const uint8_t *data, size_t length, uint64_t max_alloc, int *status, char *message,
                         size_t capacity) {
  return open_reader(data, -1, length, max_alloc, status, message, capacity);
}

ctiff_reader *ctiff_open_fd(int fd, uint64_t max_alloc, int *status, char *message, size_t capacity) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    *status = CTIFF_IO;
    snprintf(message, capacity, "The TIFF file cannot be read (%s).", strerror(errno));
    return NULL;
  }
  return open_reader(NULL, fd, (uint64_t)st.st_size, max_alloc, status, message, capacity);
}

static void release_page(ctiff_reader *r) {
  if (r->slots) {
    for (uint32_t i = 0; i < r->blocks_across * r->planes; i++) free(r->slots[i]);
  }
  free(r->slots);
  free(r->slot_block);
  free(r->rgba);
  r->slots = NULL;
  r->slot_block = NULL;
  r->rgba = NULL;
}

void ctiff_close(ctiff_reader *r) {
  if (!r) return;
  release_page(r);
  free(r->page_directories);
  if (r->tif) TIFFClose(r->tif);
  free(r);
}

const char *ctiff_message(const ctiff_reader *r) { return r->log.message; }
uint64_t ctiff_blocks_decoded(const ctiff_reader *r) { return r->blocks_decoded; }
int ctiff_warning_count(const ctiff_reader *r) { return r->log.warning_count; }
const char *ctiff_warning(const ctiff_reader *r, int index) {
  return index >= 0 && index < r->log.warning_count ? r->log.warnings[index] : "";
}

/// Sets up decoding through TIFFRGBAImage (8-bit RGB or RGBA).
static int select_rgba(ctiff_reader *r) {
  char why[1024] = "";
  if (!TIFFRGBAImageOK(r->tif, why)) {
    return ctiff_log_fail(&r->log, CTIFF_UNSUPPORTED, "This TIFF layout cannot be decoded: %s.", why);
  }
  TIFFRGBAImage image;
  if (!TIFFRGBAImageBegin(&image, r->tif, 0, why)) {
    return ctiff_log_fail(&r->log, ctiff_log_status(&r->log, CTIFF_UNSUPPORTED), "This TIFF page cannot be decoded: %s.", why);
  }
  int alpha = image.alpha != 0;
  TIFFRGBAImageEnd(&image);
  r->kind = KIND_RGBA;
  r->out_bytes = 1;
  r->out_channels = alpha ? 4 : 3;
  r->info.through_rgba = 1;
  r->info.associated_alpha = 0;
  r->info.channels = r->out_channels;
  r->info.sample_bytes = 1;
  r->info.block_width = r->info.width;
  r->info.block_height = r->info.height;
  return CTIFF_OK;
}

// MARK: Pages and pyramid levels

/// Reads `n` bytes at `offset` without moving libtiff's position; 0 when the file is shorter.
static int read_at(const ctiff_reader *r, uint64_t offset, void *buffer, size_t n) {
  if (offset > r->length || n > r->length - offset) return 0;
  if (r->data) {
    memcpy(buffer, r->data + offset, n);
    return 1;
  }
  size_t done = 0;
  while (done < n) {
    ssize_t got = pread(r->fd, (uint8_t *)buffer + done, n - done, (off_t)(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0;
    done += (size_t)got;
  }
  return 1;
}

/// The unsigned integer of `bytes` bytes at `p`, in the file's byte order.
static uint64_t unsigned_at(const ctiff_reader *r, const uint8_t *p, int bytes) {
  const int big = TIFFIsBigEndian(r->tif);
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)p[big ? bytes - 1 - i : i] << (8 * i);
  return v;
}

/// Lists the directory of each page: every directory of the main chain (as many as libtiff
/// counts, loops excluded) whose NewSubfileType lacks the reduced-image bit, and the first.
/// Only NewSubfileType is read, straight from each directory's first entries (entries are sorted
/// by tag and 254 comes before every baseline tag), so counting the pages of a file of many
/// pages costs a few small reads per page, not a parse of every directory.
static int build_pages(ctiff_reader *r) {
  if (r->has_pages) return CTIFF_OK;
  const uint32_t n = TIFFNumberOfDirectories(r->tif);
  if (r->log.failed) return ctiff_log_status(&r->log, CTIFF_CORRUPT);
  r->page_directories = malloc((size_t)(n ? n : 1) * sizeof *r->page_directories);
  if (!r->page_directories) return ctiff_log_fail(&r->log, CTIFF_NO_MEMORY, "Out of memory for the TIFF file's %u directories.", n);
  const int big = TIFFIsBigTIFF(r->tif);
  const int count_bytes = big ? 8 : 2, entry_bytes = big ? 20 : 12, offset_bytes = big ? 8 : 4;
  enum { SCANNED = 16 };
  uint8_t word[8], table[SCANNED * 20];
  uint64_t offset = read_at(r, big ? 8 : 4, word, (size_t)offset_bytes) ? unsigned_at(r, word, offset_bytes) : 0;
  uint32_t pages = 0;
  for (uint32_t i = 0; i < n; i++) {
    int reduced = 0;
    uint64_t next = 0;
    if (offset && read_at(r, offset, word, (size_t)count_bytes)) {
      const uint64_t entries = unsigned_at(r, word, count_bytes);
      const size_t scanned = entries < SCANNED ? (size_t)entries : SCANNED;
      if (read_at(r, offset + (uint64_t)count_bytes, table, scanned * (size_t)entry_bytes)) {
        for (size_t e = 0; e < scanned; e++) {
          const uint8_t *entry = table + e * (size_t)entry_bytes;
          const uint64_t tag = unsigned_at(r, entry, 2);
          if (tag > TIFFTAG_SUBFILETYPE) break;
          if (tag != TIFFTAG_SUBFILETYPE) continue;
          // A SHORT, LONG or LONG8 stored in the entry itself (left-justified).
          const uint64_t type = unsigned_at(r, entry + 2, 2);
          const int value_bytes = type == TIFF_SHORT ? 2 : type == TIFF_LONG8 ? 8 : 4;
          reduced = (unsigned_at(r, entry + (big ? 12 : 8), value_bytes) & FILETYPE_REDUCEDIMAGE) != 0;
        }
      }
      if (entries < ((uint64_t)1 << 32) &&
          read_at(r, offset + (uint64_t)count_bytes + entries * (uint64_t)entry_bytes, word, (size_t)offset_bytes)) {
        next = unsigned_at(r, word, offset_bytes);
      }
    }
    if (i == 0 || !reduced) r->page_directories[pages++] = i;
    offset = next;
  }
  r->directory_count = n;
  r->page_count = pages;
  r->has_pages = 1;
  return CTIFF_OK;
}

static int describe(ctiff_reader *r, int keep_cmyk, ctiff_info *info);

/// Reads directory `directory` of the main chain, or the SubIFD at `sub_ifd` when that is not 0,
/// and describes it.
static int select_directory(ctiff_reader *r, uint32_t directory, uint64_t sub_ifd, int keep_cmyk, ctiff_info *info) {
  release_page(r);
  memset(&r->info, 0, sizeof r->info);
  int read = sub_ifd ? TIFFSetSubDirectory(r->tif, sub_ifd) : TIFFSetDirectory(r->tif, (tdir_t)directory);
  if (!read) {
    ctiff_log_fail(&r->log, CTIFF_CORRUPT, "A directory of the TIFF file cannot be read.");
    return ctiff_log_status(&r->log, CTIFF_CORRUPT);
  }
  if (r->log.lost_tag) {
    // libtiff drops a tag it cannot read and carries on (a palette page without its colormap
    // would become gray): for FilterGraph that is a damaged file.
    return ctiff_log_fail(&r->log, CTIFF_TRUNCATED, "The TIFF file is damaged: %s.",
                          r->log.warning_count ? r->log.warnings[r->log.warning_count - 1] : "a tag cannot be read");
  }
  int status = describe(r, keep_cmyk, info);
  r->info.page_count = info->page_count = r->page_count;
  return status;
}

/// Checks `page` against the page count.
static int check_page(ctiff_reader *r, uint32_t page) {
  int status = build_pages(r);
  if (status != CTIFF_OK) return status;
  if (page >= r->page_count) {
    return ctiff_log_fail(&r->log, CTIFF_INVALID, "The TIFF file has %u page%s; page %u does not exist.", r->page_count,
                          r->page_count == 1 ? "" : "s", page);
  }
  return CTIFF_OK;
}

int ctiff_select(ctiff_reader *r, uint32_t page, int keep_cmyk, ctiff_info *info) {
  return ctiff_select_level(r, page, 0, keep_cmyk, info);
}

/// Finds the levels of `page` (see ctiff_levels), unless they are known.
static int find_levels(ctiff_reader *r, uint32_t page) {
  if (r->levels_page == (int64_t)page) return CTIFF_OK;
  r->levels_page = -1;
  r->level_count = 0;
  ctiff_info full;
  const uint32_t directory = r->page_directories[page];
  int status = select_directory(r, directory, 0, 0, &full);
  if (status != CTIFF_OK) return status;
  uint64_t candidates[CTIFF_MAX_LEVELS];
  uint32_t directories[CTIFF_MAX_LEVELS];
  int count = 0;
  uint16_t sub_count = 0;
  uint64_t *subs = NULL;
  if (TIFFGetField(r->tif, TIFFTAG_SUBIFD, &sub_count, &subs) && subs) {
    for (uint16_t i = 0; i < sub_count && count < CTIFF_MAX_LEVELS; i++) {
      if (subs[i]) candidates[count] = subs[i], directories[count++] = 0;
    }
  }
  const uint32_t end = page + 1 < r->page_count ? r->page_directories[page + 1] : r->directory_count;
  for (uint32_t d = directory + 1; d < end && count < CTIFF_MAX_LEVELS; d++) candidates[count] = 0, directories[count++] = d;
  // A level that cannot be used is skipped without a trace: save what looking at it changes.
  const int warnings = r->log.warning_count, lost_tag = r->log.lost_tag;
  for (int i = 0; i < count; i++) {
    ctiff_info level;
    int usable = select_directory(r, directories[i], candidates[i], 0, &level) == CTIFF_OK && !r->log.lost_tag &&
                 level.width <= full.width && level.height <= full.height &&
                 (level.width < full.width || level.height < full.height) && level.channels == full.channels &&
                 level.sample_bytes == full.sample_bytes && level.is_cmyk == full.is_cmyk &&
                 level.through_rgba == full.through_rgba;
    ctiff_log_reset(&r->log);
    r->log.warning_count = warnings;
    r->log.lost_tag = lost_tag;
    if (!usable) continue;
    // Insert by decreasing width; a second level of one size adds nothing.
    int at = r->level_count;
    while (at > 0 && r->levels[at - 1].width < level.width) at--;
    if (at > 0 && r->levels[at - 1].width == level.width && r->levels[at - 1].height == level.height) continue;
    memmove(&r->levels[at + 1], &r->levels[at], (size_t)(r->level_count - at) * sizeof r->levels[0]);
    r->levels[at].sub_ifd = candidates[i];
    r->levels[at].directory = directories[i];
    r->levels[at].width = level.width;
    r->levels[at].height = level.height;
    r->level_count++;
  }
  release_page(r);
  r->levels_page = (int64_t)page;
  return CTIFF_OK;
}

int ctiff_levels(ctiff_reader *r, uint32_t page, int *count, uint32_t *widths, uint32_t *heights) {
  ctiff_log_reset(&r->log);
  *count = 0;
  int status = check_page(r, page);
  if (status == CTIFF_OK) status = find_levels(r, page);
  if (status != CTIFF_OK) return status;
  for (int i = 0; i < r->level_count; i++) widths[i] = r->levels[i].width, heights[i] = r->levels[i].height;
  *count = r->level_count;
  return CTIFF_OK;
}

int ctiff_select_level(ctiff_reader *r, uint32_t page, int level, int keep_cmyk, ctiff_info *info) {
  ctiff_log_reset(&r->log);
  int status = check_page(r, page);
  if (status != CTIFF_OK) return status;
  if (level == 0) return select_directory(r, r->page_directories[page], 0, keep_cmyk, info);
  status = find_levels(r, page);
  if (status != CTIFF_OK) return status;
  if (level < 0 || level > r->level_count) {
    return ctiff_log_fail(&r->log, CTIFF_INVALID, "Page %u of the TIFF file has %d reduced-resolution level%s; level %d does not exist.",
                          page, r->level_count, r->level_count == 1 ? "" : "s", level);
  }
  return select_directory(r, r->levels[level - 1].directory, r->levels[level - 1].sub_ifd, keep_cmyk, info);
}

int ctiff_set_extent(ctiff_reader *r, uint32_t width, uint32_t height) {
  if (!r->info.width || width < r->info.width || height < r->info.height) {
    return ctiff_log_fail(&r->log, CTIFF_INVALID, "A TIFF page of %ux%u cannot be read as %ux%u.", r->info.width,
                          r->info.height, width, height);
  }
  r->extent_width = width;
  r->extent_height = height;
  return CTIFF_OK;
}

/// Describes the directory libtiff has just read and prepares to decode it.
static int describe(ctiff_reader *r, int keep_cmyk, ctiff_info *info) {
  TIFF *tif = r->tif;
  ctiff_info *in = &r->info;
  uint32_t width = 0, height = 0;
  if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height) || !width ||
      !height) {
    return ctiff_log_fail(&r->log, CTIFF_CORRUPT, "The TIFF page gives no image size (%ux%u).", width, height);
  }
  in->width = width;
  in->height = height;
  r->extent_width = width;
  r->extent_height = height;
  uint16_t bps = 1, spp = 1, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, compression = COMPRESSION_NONE;
  uint16_t orientation = ORIENTATION_TOPLEFT, photometric, inkset = INKSET_CMYK;
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
  TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
  TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inkset);
  if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) {
    photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  }
  in->photometric = photometric;
  in->compression = compression;
  in->bits_per_sample = bps;
  in->samples_per_pixel = spp;
  in->sample_format = format;
  in->planar = planar;
  in->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
  in->is_tiled = TIFFIsTiled(tif);
  uint32_t icc_length = 0;
  void *icc = NULL;
  if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_length, &icc) && icc && icc_length) {
    in->icc = icc;
    in->icc_length = icc_length;
  }
  uint32_t length = 0;
  void *bytes = NULL;
  if (TIFFGetField(tif, TIFFTAG_XMLPACKET, &length, &bytes) && bytes && length) {
    in->xmp = bytes;
    in->xmp_length = length;
  }
  length = 0, bytes = NULL;
  // libtiff versions differ on RichTIFFIPTC's unit (bytes or 32-bit words): ask it.
  const TIFFField *iptc_field = TIFFFieldWithTag(tif, TIFFTAG_RICHTIFFIPTC);
  int iptc_unit = iptc_field ? TIFFFieldSetGetSize(iptc_field) : 0;
  if (iptc_unit > 0 && TIFFGetField(tif, TIFFTAG_RICHTIFFIPTC, &length, &bytes) && bytes && length && length < (1u << 28)) {
    in->iptc = bytes;
    in->iptc_length = length * (uint32_t)iptc_unit;
  }
  char *description = NULL;
  if (TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &description) && description) in->description = description;
  in->iptc_words_swapped = TIFFIsByteSwapped(tif) && iptc_unit == 4;
  in->is_bigtiff = TIFFIsBigTIFF(tif);
  in->ifd_offset = TIFFCurrentDirOffset(tif);
  uint64_t sub_ifd = 0;
  in->has_exif = TIFFGetField(tif, TIFFTAG_EXIFIFD, &sub_ifd) || TIFFGetField(tif, TIFFTAG_GPSIFD, &sub_ifd);
  if (!TIFFIsCODECConfigured(compression)) {
    return ctiff_log_fail(&r->log, CTIFF_UNSUPPORTED, "The TIFF page is compressed with scheme %u, which this libtiff cannot decode.",
                          compression);
  }
  if (spp == 0) return ctiff_log_fail(&r->log, CTIFF_CORRUPT, "The TIFF page has no samples per pixel.");

  // Colour model.
  int colour;
  switch (photometric) {
  case PHOTOMETRIC_MINISBLACK:
  case PHOTOMETRIC_MINISWHITE:
  case PHOTOMETRIC_PALETTE: colour = 1; break;
  case PHOTOMETRIC_RGB: colour = 3; break;
  case PHOTOMETRIC_SEPARATED:
    if (inkset != INKSET_CMYK || spp < 4) {
      return ctiff_log_fail(&r->log, CTIFF_UNSUPPORTED, "Only CMYK separated TIFF pages are supported (ink set %u, %u samples).",
                            inkset, spp);
    }
    colour = 4;
    in->is_cmyk = 1;
    break;
  case PHOTOMETRIC_YCBCR:
    if (compression == COMPRESSION_JPEG && planar == PLANARCONFIG_CONTIG && spp == 3) {
      // libjpeg converts to RGB (and upsamples) while decoding.
      TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
      photometric = PHOTOMETRIC_RGB;
      colour = 3;
      break;
    }
    return select_rgba(r) == CTIFF_OK ? (*info = *in, CTIFF_OK) : ctiff_log_status(&r->log, CTIFF_UNSUPPORTED);
  default:
    return select_rgba(r) == CTIFF_OK ? (*info = *in, CTIFF_OK) : ctiff_log_status(&r->log, CTIFF_UNSUPPORTED);
  }
  if (compression == COMPRESSION_OJPEG) {
    return select_rgba(r) == CTIFF_OK ? (*info = *in, CTIFF_OK) : ctiff_log_status(&r->log, CTIFF_UNSUPPORTED);
  }
  if (spp < colour) {
    return ctiff_log_fail(&r->log, CTIFF_CORRUPT, "The TIFF page has %u samples per pixel, too few for its colour model.", spp);
  }
  r->photometric = photometric;
  r->colour_samples = colour;
  r->alpha_sample = -1;
  if (spp > colour) {
    // The first extra sample is alpha: associated (premultiplied), unassociated, or unspecified
    // (read as unassociated, as libvips does).
    uint16_t count = 0, *types = NULL;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &count, &types) && count > 0 && types) {
      in->associated_alpha = types[0] == EXTRASAMPLE_ASSOCALPHA;
    }
    r->alpha_sample = colour;
  }

  // Sample type.
  r->is_float = 0;
  if (format == SAMPLEFORMAT_IEEEFP) {
    if (bps != 16 && bps != 32 && bps != 64) {
      return ctiff_log_fail(&r->log, CTIFF_UNSUPPORTED, "%u-bit floating-point TIFF samples are not supported.", bps);
    }
    if (photometric == PHOTOMETRIC_PALETTE) {
      return ctiff_log_fail(&r->log, CTIFF_CORRUPT, "A TIFF palette page cannot have floating-point samples.");
    }
    r->is_float = 1;
    r->out_bytes = 4;
  } else if (format == SAMPLEFORMAT_UINT || format == SAMPLEFORMAT_VOID) {
    if (bps < 1 || bps > 16) {
      return ctiff_log_fail(&r->log, CTIFF_UNSUPPORTED, "%u-bit integer TIFF samples are not supported (1 to 16 bits are).", bps);
    }
    r->in_max = (1u << bps) - 1;
    r->out_bytes = bps <= 8 || photometric == PHOTOMETRIC_PALETTE ? 1 : 2;
    r->out_max = r->out_bytes == 1 ? 255 : 65535;
  } else {
    return ctiff_log_fail(&r->log, CTIFF_UNSUPPORTED, "Signed or complex TIFF samples (sample format %u) are not supported.", format);
  }
  if (photometric == PHOTOMETRIC_PALETTE) {
    uint16_t *red = NULL, *green = NULL, *blue = NULL;
    if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &red, &green, &blue) || !red || !green || !blue) {
      return ctiff_log_fail(&r->log, CTIFF_CORRUPT, "The TIFF palette page has no colormap.");
    }
    r->colormap[0] = red;
    r->colormap[1] = green;
    r->colormap[2] = blue;
    r->colormap_size = 1u << bps;
    r->colormap_16 = 0;
    for (uint32_t i = 0; i < r->colormap_size; i++) {
      if (red[i] > 255 || green[i] > 255 || blue[i] > 255) r->colormap_16 = 1;
    }
  }
  r->keep_cmyk = keep_cmyk && colour == 4 && !r->is_float;
  r->out_channels = (r->keep_cmyk ? 4 : colour == 1 && photometric != PHOTOMETRIC_PALETTE ? 1 : 3) + (r->alpha_sample >= 0 ? 1 : 0);
  r->is_separate = planar == PLANARCONFIG_SEPARATE && spp > 1;
  r->kind = !r->is_separate && spp == r->out_channels && !in->associated_alpha &&
                    (photometric == PHOTOMETRIC_RGB || photometric == PHOTOMETRIC_MINISBLACK) &&
                    ((!r->is_float && (bps == 8 || bps == 16)) || (r->is_float && bps == 32))
                ? KIND_DIRECT
                : KIND_CONVERTED;

  // Blocks.
  if (in->is_tiled) {
    uint32_t tw = 0, th = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    if (!tw || !th) return ctiff_log_fail(&r->log, CTIFF_CORRUPT, "The TIFF page's tiles have no size.");
    in->block_width = tw;
    in->block_height = th;
    r->block_bytes = TIFFTileSize64(tif);
    r->row_bytes = TIFFTileRowSize64(tif);
  } else {
    uint32_t rows = height;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
    if (rows == 0 || rows > height) rows = height;
    in->block_width = width;
    in->block_height = rows;
    r->block_bytes = TIFFStripSize64(tif);
    r->row_bytes = TIFFScanlineSize64(tif);
  }
  r->blocks_across = (uint32_t)(((uint64_t)width + in->block_width - 1) / in->block_width);
  r->blocks_down = (uint32_t)(((uint64_t)height + in->block_height - 1) / in->block_height);
  r->planes = r->is_separate ? spp : 1;
  uint64_t samples_in_row = (uint64_t)in->block_width * (r->is_separate ? 1 : spp);
  if (r->block_bytes == 0 || r->row_bytes == 0 || r->row_bytes < (samples_in_row * bps + 7) / 8 ||
      r->row_bytes * in->block_height > r->block_bytes || r->block_bytes > ((uint64_t)1 << 40)) {
    ctiff_log_fail(&r->log, CTIFF_CORRUPT, "The TIFF page's strips or tiles have an impossible size.");
    return ctiff_log_status(&r->log, CTIFF_CORRUPT);
  }
  uint64_t expected = (uint64_t)r->blocks_across * r->blocks_down * r->planes;
  uint64_t stored = in->is_tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
  if (stored < expected) {
    return ctiff_log_fail(&r->log, CTIFF_CORRUPT, "The TIFF page lists %llu strips or tiles; it needs %llu.",
                          (unsigned long long)stored, (unsigned long long)expected);
  }
  in->channels = r->out_channels;
  in->sample_bytes = r->out_bytes;
  *info = *in;
  return CTIFF_OK;
}

// MARK: Decoding

/// The decoded block at (bx, by) of `plane`, from the cache or decoded into it; NULL on failure.
static const uint8_t *block(ctiff_reader *r, uint32_t bx, uint32_t by, uint32_t plane) {
  if (!r->slots) {
    size_t count = (size_t)r->blocks_across * r->planes;
    r->slots = calloc(count, sizeof *r->slots);
    r->slot_block = malloc(count * sizeof *r->slot_block);
    if (!r->slots || !r->slot_block) {
      ctiff_log_fail(&r->log, CTIFF_NO_MEMORY, "Out of memory for TIFF strips or tiles.");
      return NULL;
    }
    for (size_t i = 0; i < count; i++) r->slot_block[i] = UINT32_MAX;
  }
  uint32_t slot = plane * r->blocks_across + bx;
  uint32_t index = r->info.is_tiled ? TIFFComputeTile(r->tif, bx * r->info.block_width, by * r->info.block_height, 0, (uint16_t)plane)
                                    : TIFFComputeStrip(r->tif, by * r->info.block_height, (uint16_t)plane);
  if (r->slot_block[slot] == index) return r->slots[slot];
  if (!r->slots[slot]) {
    r->slots[slot] = malloc((size_t)r->block_bytes);
    if (!r->slots[slot]) {
      ctiff_log_fail(&r->log, CTIFF_NO_MEMORY, "Out of memory for a TIFF strip or tile of %llu bytes.",
                     (unsigned long long)r->block_bytes);
      return NULL;
    }
  }
  r->slot_block[slot] = UINT32_MAX;
  tmsize_t n = r->info.is_tiled ? TIFFReadEncodedTile(r->tif, index, r->slots[slot], (tmsize_t)r->block_bytes)
                                : TIFFReadEncodedStrip(r->tif, index, r->slots[slot], (tmsize_t)r->block_bytes);
  if (n < 0 || r->log.failed) {
    ctiff_log_fail(&r->log, CTIFF_CORRUPT, "TIFF %s %u cannot be decoded.", r->info.is_tiled ? "tile" : "strip", index);
    return NULL;
  }
  r->blocks_decoded++;
  if ((uint64_t)n < r->block_bytes) memset(r->slots[slot] + n, 0, (size_t)(r->block_bytes - (uint64_t)n));
  r->slot_block[slot] = index;
  return r->slots[slot];
}

static inline uint32_t integer_sample(const uint8_t *row, size_t index, int bps) {
  switch (bps) {
  case 8: return row[index];
  case 16: return ((const uint16_t *)row)[index];
  case 1:
  case 2:
  case 4: {
    size_t bit = index * (size_t)bps;
    return (uint32_t)(row[bit >> 3] >> (8 - bps - (bit & 7))) & ((1u << bps) - 1);
  }
  default: {
    size_t bit = index * (size_t)bps;
    uint32_t v = 0;
    for (int b = 0; b < bps; b++, bit++) v = v << 1 | ((row[bit >> 3] >> (7 - (bit & 7))) & 1);
    return v;
  }
  }
}

static inline float half_to_float(uint16_t h) {
  int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  float v;
  if (exponent == 0) {
    v = ldexpf((float)mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa ? NAN : INFINITY;
  } else {
    v = ldexpf((float)(mantissa | 0x400), exponent - 25);
  }
  return (h & 0x8000) ? -v : v;
}

static inline float float_sample(const uint8_t *row, size_t index, int bps) {
  if (bps == 32) {
    float v;
    memcpy(&v, row + index * 4, 4);
    return v;
  }
  if (bps == 64) {
    double v;
    memcpy(&v, row + index * 8, 8);
    return (float)v;
  }
  uint16_t h;
  memcpy(&h, row + index * 2, 2);
  return half_to_float(h);
}

static inline void store(uint8_t *out, int index, int bytes, uint32_t v) {
  if (bytes == 1) {
    out[index] = (uint8_t)v;
  } else {
    ((uint16_t *)out)[index] = (uint16_t)v;
  }
}

/// Converts `count` pixels starting at block column `column` of the block rows `rows` (one per
/// plane, or one for chunky data) into `out`.
static void convert(const ctiff_reader *r, const uint8_t *const *rows, uint32_t column, uint32_t count, uint8_t *out) {
  const int bps = r->info.bits_per_sample, spp = r->info.samples_per_pixel;
  const int channels = r->out_channels, colour = r->colour_samples, alpha = r->alpha_sample;
  const int separate = r->is_separate;
  if (r->kind == KIND_DIRECT) {
    memcpy(out, rows[0] + (size_t)column * spp * (bps / 8), (size_t)count * spp * (bps / 8));
    return;
  }
#define SAMPLE_AT(x, s) (separate ? (rows[(s)]) : rows[0]), (separate ? (size_t)(column + (x)) : (size_t)(column + (x)) * spp + (s))
  if (r->is_float) {
    float *o = (float *)out;
    for (uint32_t x = 0; x < count; x++) {
      float v[4] = {0, 0, 0, 1};
      for (int s = 0; s < colour; s++) v[s] = float_sample(SAMPLE_AT(x, s), bps);
      float a = alpha >= 0 ? float_sample(SAMPLE_AT(x, alpha), bps) : 1;
      float c[3];
      int n;
      if (r->photometric == PHOTOMETRIC_SEPARATED) {
        for (int i = 0; i < 3; i++) c[i] = (1 - v[i]) * (1 - v[3]);
        n = 3;
      } else if (colour == 1) {
        c[0] = r->photometric == PHOTOMETRIC_MINISWHITE ? 1 - v[0] : v[0];
        n = 1;
      } else {
        for (int i = 0; i < 3; i++) c[i] = v[i];
        n = 3;
      }
      if (r->info.associated_alpha) {
        for (int i = 0; i < n; i++) c[i] = a != 0 ? c[i] / a : 0;
      }
      for (int i = 0; i < n; i++) o[i] = c[i];
      if (alpha >= 0) o[n] = a;
      o += channels;
    }
    return;
  }
  const uint32_t in_max = r->in_max, out_max = r->out_max;
  const int bytes = r->out_bytes;
  const int rescale = !((bps == 8 && bytes == 1) || (bps == 16 && bytes == 2));
  for (uint32_t x = 0; x < count; x++) {
    uint32_t c[4], a = out_max;
    int n;
    if (r->photometric == PHOTOMETRIC_PALETTE) {
      uint32_t index = integer_sample(SAMPLE_AT(x, 0), bps);
      if (index >= r->colormap_size) index = r->colormap_size - 1;
      for (int i = 0; i < 3; i++) c[i] = r->colormap_16 ? r->colormap[i][index] >> 8 : r->colormap[i][index];
      n = 3;
    } else {
      uint32_t v[4];
      for (int s = 0; s < colour; s++) {
        uint32_t raw = integer_sample(SAMPLE_AT(x, s), bps);
        if (r->photometric == PHOTOMETRIC_MINISWHITE) raw = in_max - raw;
        v[s] = rescale ? (uint32_t)(((uint64_t)raw * out_max + in_max / 2) / in_max) : raw;
      }
      if (r->keep_cmyk) {
        for (int i = 0; i < 4; i++) c[i] = v[i];
        n = 4;
      } else if (r->photometric == PHOTOMETRIC_SEPARATED) {
        for (int i = 0; i < 3; i++) {
          c[i] = (uint32_t)(((uint64_t)(out_max - v[i]) * (out_max - v[3]) + out_max / 2) / out_max);
        }
        n = 3;
      } else {
        for (int i = 0; i < colour; i++) c[i] = v[i];
        n = colour;
      }
    }
    if (alpha >= 0) {
      uint32_t raw = integer_sample(SAMPLE_AT(x, alpha), bps);
      a = rescale ? (uint32_t)(((uint64_t)raw * out_max + in_max / 2) / in_max) : raw;
      if (r->info.associated_alpha) {
        for (int i = 0; i < n; i++) {
          uint64_t straight = a ? ((uint64_t)c[i] * out_max + a / 2) / a : 0;
          c[i] = straight > out_max ? out_max : (uint32_t)straight;
        }
      }
    }
    for (int i = 0; i < n; i++) store(out, i, bytes, c[i]);
    if (alpha >= 0) store(out, n, bytes, a);
    out += (size_t)channels * bytes;
  }
#undef SAMPLE_AT
}

/// Decodes the whole page through TIFFRGBAImage, in stored row order.
static int decode_rgba(ctiff_reader *r) {
  char why[1024] = "";
  TIFFRGBAImage image;
  if (!TIFFRGBAImageBegin(&image, r->tif, 0, why)) {
    return ctiff_log_fail(&r->log, CTIFF_UNSUPPORTED, "This TIFF page cannot be decoded: %s.", why);
  }
  // Ask for the file's own orientation: rows come out as stored (orientation is applied later,
  // like every format's).
  image.req_orientation = image.orientation;
  size_t pixels = (size_t)r->info.width * r->info.height;
  r->rgba = malloc(pixels * 4);
  if (!r->rgba) {
    TIFFRGBAImageEnd(&image);
    return ctiff_log_fail(&r->log, CTIFF_NO_MEMORY, "Out of memory for a %ux%u TIFF page.", r->info.width, r->info.height);
  }
  int ok = TIFFRGBAImageGet(&image, r->rgba, r->info.width, r->info.height);
  TIFFRGBAImageEnd(&image);
  if (!ok || r->log.failed) {
    free(r->rgba);
    r->rgba = NULL;
    ctiff_log_fail(&r->log, CTIFF_CORRUPT, "The TIFF page cannot be decoded.");
    return ctiff_log_status(&r->log, CTIFF_CORRUPT);
  }
  return CTIFF_OK;
}

/// Decodes a rectangle inside the page (see ctiff_read_region).
static int read_inside(ctiff_reader *r, uint32_t x, uint32_t y, uint32_t width, uint32_t height, uint8_t *out, size_t stride);

int ctiff_read_region(ctiff_reader *r, uint32_t x, uint32_t y, uint32_t width, uint32_t height, uint8_t *out,
                      size_t stride) {
  if (r->log.failed) return ctiff_log_status(&r->log, CTIFF_CORRUPT);
  const ctiff_info *in = &r->info;
  if (!in->width || (uint64_t)x + width > r->extent_width || (uint64_t)y + height > r->extent_height) {
    return ctiff_log_fail(&r->log, CTIFF_INVALID, "The region %ux%u+%u+%u is outside the %ux%u TIFF page.", width, height, x, y,
                          r->extent_width, r->extent_height);
  }
  if (!width || !height) return CTIFF_OK;
  // Output column i is page column min(x + i, width − 1), likewise for rows: decode the part of
  // the page the rectangle covers (at least its last column and row), then repeat its last
  // column and row over the rest.
  const uint32_t sx = x < in->width ? x : in->width - 1, sy = y < in->height ? y : in->height - 1;
  const uint32_t x_end = (uint64_t)x + width < in->width ? x + width : in->width;
  const uint32_t y_end = (uint64_t)y + height < in->height ? y + height : in->height;
  const uint32_t sw = x_end - sx, sh = y_end - sy;
  int status = read_inside(r, sx, sy, sw, sh, out, stride);
  if (status != CTIFF_OK || (sw == width && sh == height)) return status;
  const size_t pixel_bytes = (size_t)r->out_channels * r->out_bytes;
  for (uint32_t row = 0; row < sh; row++) {
    uint8_t *line = out + row * stride;
    for (uint32_t i = sw; i < width; i++) memcpy(line + (size_t)i * pixel_bytes, line + (size_t)(sw - 1) * pixel_bytes, pixel_bytes);
  }
  for (uint32_t row = sh; row < height; row++) memcpy(out + row * stride, out + (size_t)(sh - 1) * stride, (size_t)width * pixel_bytes);
  return CTIFF_OK;
}

static int read_inside(ctiff_reader *r, uint32_t x, uint32_t y, uint32_t width, uint32_t height, uint8_t *out, size_t stride) {
  const ctiff_info *in = &r->info;
  const size_t pixel_bytes = (size_t)r->out_channels * r->out_bytes;
  if (r->kind == KIND_RGBA) {
    if (!r->rgba) {
      int status = decode_rgba(r);
      if (status != CTIFF_OK) return status;
    }
    for (uint32_t row = 0; row < height; row++) {
      const uint32_t *src = r->rgba + (size_t)(y + row) * in->width + x;
      uint8_t *dst = out + row * stride;
      for (uint32_t i = 0; i < width; i++) {
        uint32_t p = src[i], a = TIFFGetA(p);
        uint32_t c[3] = {TIFFGetR(p), TIFFGetG(p), TIFFGetB(p)};
        if (r->out_channels == 4) {
          for (int k = 0; k < 3; k++) {
            uint32_t v = a ? (c[k] * 255 + a / 2) / a : 0;
            dst[k] = (uint8_t)(v > 255 ? 255 : v);
          }
          dst[3] = (uint8_t)a;
          dst += 4;
        } else {
          dst[0] = (uint8_t)c[0], dst[1] = (uint8_t)c[1], dst[2] = (uint8_t)c[2];
          dst += 3;
        }
      }
    }
    return CTIFF_OK;
  }
  const uint32_t bw = in->block_width, bh = in->block_height;
  const int needed = r->is_separate ? (r->alpha_sample >= 0 ? r->alpha_sample + 1 : r->colour_samples) : 1;
  for (uint32_t by = y / bh; by <= (y + height - 1) / bh; by++) {
    for (uint32_t bx = x / bw; bx <= (x + width - 1) / bw; bx++) {
      const uint8_t *planes[5] = {0};
      for (int p = 0; p < needed; p++) {
        planes[p] = block(r, bx, by, (uint32_t)p);
        if (!planes[p]) return ctiff_log_status(&r->log, CTIFF_CORRUPT);
      }
      uint32_t x0 = x > bx * bw ? x : bx * bw, x1 = bx * bw + bw < x + width ? bx * bw + bw : x + width;
      uint32_t y0 = y > by * bh ? y : by * bh, y1 = by * bh + bh < y + height ? by * bh + bh : y + height;
      for (uint32_t row = y0; row < y1; row++) {
        const uint8_t *rows[5];
        for (int p = 0; p < needed; p++) rows[p] = planes[p] + (size_t)(row - by * bh) * r->row_bytes;
        convert(r, rows, x0 - bx * bw, x1 - x0, out + (size_t)(row - y) * stride + (size_t)(x0 - x) * pixel_bytes);
      }
    }
  }
  return CTIFF_OK;
}
