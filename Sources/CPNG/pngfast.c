// pngfast.c — row filtering and segment-wise deflate for FilterGraph's PNG writer
// (see include/cpng_fast.h). libdeflate compresses the segments (zlib only combines Adler-32s and
// compresses the small iCCP payload); no libpng, no longjmp. The only state kept between calls is
// one libdeflate compressor per thread.
#include "cpng_fast.h"
#include "cpng_shim.h"

#include <limits.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <pthread.h>
#include <zlib.h>

/// Maps the user's compression level (zlib's 0…9 scale) to libdeflate's (0…12), which is
/// "zlib-like": the same number gives about zlib's ratio, much faster (measured on a 24 MP photo,
/// filter=all, 1 MiB segments: level 6 is 5 % smaller than zlib 6 on JPEG→PNG and 0.5 % larger on
/// a σ5 blur, in a third of zlib's CPU time). 0 stores (stored blocks only).
static int libdeflate_level(int level) { return level < 0 ? 0 : level > 9 ? 9 : level; }

// One compressor per thread and level, kept for the thread's life (allocating one costs about as
// much as compressing a small segment). Freed by the key's destructor when the thread exits.
static pthread_key_t compressor_key;
static pthread_once_t compressor_once = PTHREAD_ONCE_INIT;
typedef struct {
  struct libdeflate_compressor *compressor;
  int level;
} cached_compressor;

static void free_cached(void *pointer) {
  cached_compressor *cached = (cached_compressor *)pointer;
  if (cached == NULL) return;
  libdeflate_free_compressor(cached->compressor);
  free(cached);
}

static void make_key(void) { (void)pthread_key_create(&compressor_key, free_cached); }

static struct libdeflate_compressor *thread_compressor(int level) {
  const int wanted = libdeflate_level(level);
  pthread_once(&compressor_once, make_key);
  cached_compressor *cached = (cached_compressor *)pthread_getspecific(compressor_key);
  if (cached != NULL && cached->level == wanted) return cached->compressor;
  struct libdeflate_compressor *fresh = libdeflate_alloc_compressor(wanted);
  if (fresh == NULL) return NULL;
  if (cached == NULL) {
    cached = (cached_compressor *)malloc(sizeof *cached);
    if (cached == NULL || pthread_setspecific(compressor_key, cached) != 0) {
      free(cached);
      libdeflate_free_compressor(fresh);
      return NULL;
    }
  } else {
    libdeflate_free_compressor(cached->compressor);
  }
  cached->compressor = fresh;
  cached->level = wanted;
  return fresh;
}

int cpng_deflate_make_joinable(uint8_t *stream, size_t length, size_t capacity,
                               uint64_t expected_length, size_t *joined_length) {
  if (stream == NULL || joined_length == NULL) return CPNG_ERR_INVALID;
  *joined_length = 0;
  uint64_t header = 0, end = 0, decoded = 0;
  int status = cpng_deflate_scan(stream, length, &header, &end, &decoded);
  if (status != CPNG_OK) return status;
  // The final block must end in the stream's last byte and decode to exactly what was given.
  if (decoded != expected_length || (end + 7) / 8 != length) return CPNG_ERR_CORRUPT;
  // An empty stored block after `end`: 3 zero header bits, zero bits to the byte boundary, then
  // LEN = 0000, NLEN = FFFF (zlib's sync-flush marker). The header bits fit in the last byte's
  // padding when at most 5 bits of it are used; otherwise they spill into one more zero byte.
  const size_t aligned = (size_t)((end + 3 + 7) / 8);
  if (aligned + 4 > capacity) return CPNG_ERR_INVALID;
  stream[header / 8] &= (uint8_t)~(1u << (header % 8));  // BFINAL = 0
  if (end % 8 != 0) stream[end / 8] &= (uint8_t)((1u << (end % 8)) - 1);  // padding bits = 0
  for (size_t i = length; i < aligned; i++) stream[i] = 0;
  stream[aligned] = 0x00;
  stream[aligned + 1] = 0x00;
  stream[aligned + 2] = 0xFF;
  stream[aligned + 3] = 0xFF;
  *joined_length = aligned + 4;
  return CPNG_OK;
}

static int little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/// The sum of |residual| with residuals read as signed bytes (libpng's heuristic measure).
static inline uint32_t residual_cost(uint8_t v) { return v < 128 ? v : 256u - v; }

/// The heuristic cost of `n` filtered bytes: the sum of residual_cost over them. With SSE2,
/// |v| as a signed byte is min(v, −v) as unsigned bytes, and PSADBW sums 8 of them at a time
/// (the compiler's own vectorisation widened each byte to 64 bits: 4 bytes per step).
static uint64_t row_cost(const uint8_t *o, size_t n) {
  uint64_t s = 0;
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  __m128i total = zero;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(o + i));
    const __m128i a = _mm_min_epu8(v, _mm_sub_epi8(zero, v));
    total = _mm_add_epi64(total, _mm_sad_epu8(a, zero));
  }
  s = (uint64_t)_mm_cvtsi128_si64(total) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(total, total));
#endif
  for (; i < n; i++) s += residual_cost(o[i]);
  return s;
}

// Each filter writes `n` filtered bytes of row `x` (row above `p`, all zero for the first row)
// into `o` and returns the heuristic cost (sum of absolute signed residuals), or 0 if not asked.

static uint64_t filter_none(const uint8_t *x, uint8_t *o, size_t n, int cost) {
  memcpy(o, x, n);
  uint64_t s = 0;
  if (cost) s = row_cost(x, n);
  return s;
}

static uint64_t filter_sub(const uint8_t *x, uint8_t *o, size_t n, size_t bpp, int cost) {
  uint64_t s = 0;
  size_t head = bpp < n ? bpp : n;
  for (size_t i = 0; i < head; i++) o[i] = x[i];
  for (size_t i = bpp; i < n; i++) o[i] = (uint8_t)(x[i] - x[i - bpp]);
  if (cost) s = row_cost(o, n);
  return s;
}

static uint64_t filter_up(const uint8_t *x, const uint8_t *p, uint8_t *o, size_t n, int cost) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; i++) o[i] = (uint8_t)(x[i] - p[i]);
  if (cost) s = row_cost(o, n);
  return s;
}

static uint64_t filter_avg(const uint8_t *x, const uint8_t *p, uint8_t *o, size_t n, size_t bpp,
                           int cost) {
  uint64_t s = 0;
  size_t head = bpp < n ? bpp : n;
  for (size_t i = 0; i < head; i++) o[i] = (uint8_t)(x[i] - (p[i] >> 1));
  size_t i = bpp;
#if defined(__SSE2__)
  // floor((a + b) / 2) = PAVGB's rounded-up mean minus the low bit of a ^ b; 16 bytes at a time.
  const __m128i one = _mm_set1_epi8(1);
  for (; i + 16 <= n; i += 16) {
    const __m128i a = _mm_loadu_si128((const __m128i *)(x + i - bpp));
    const __m128i b = _mm_loadu_si128((const __m128i *)(p + i));
    const __m128i mean = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
    const __m128i v = _mm_loadu_si128((const __m128i *)(x + i));
    _mm_storeu_si128((__m128i *)(o + i), _mm_sub_epi8(v, mean));
  }
#endif
  for (; i < n; i++)
    o[i] = (uint8_t)(x[i] - (uint8_t)(((unsigned)x[i - bpp] + (unsigned)p[i]) >> 1));
  if (cost) s = row_cost(o, n);
  return s;
}

#if defined(__SSE2__)
static inline __m128i abs16(__m128i v) {
  const __m128i sign = _mm_srai_epi16(v, 15);
  return _mm_sub_epi16(_mm_xor_si128(v, sign), sign);
}
#endif

static inline uint8_t paeth(int a, int b, int c) {
  int pa = b - c, pb = a - c;
  int pc = pa + pb;
  pa = pa < 0 ? -pa : pa;
  pb = pb < 0 ? -pb : pb;
  pc = pc < 0 ? -pc : pc;
  if (pa <= pb && pa <= pc) return (uint8_t)a;
  if (pb <= pc) return (uint8_t)b;
  return (uint8_t)c;
}

static uint64_t filter_paeth(const uint8_t *x, const uint8_t *p, uint8_t *o, size_t n, size_t bpp,
                             int cost) {
  uint64_t s = 0;
  size_t head = bpp < n ? bpp : n;
  for (size_t i = 0; i < head; i++) o[i] = (uint8_t)(x[i] - p[i]);  // a = c = 0: predictor is b
  size_t i = bpp;
#if defined(__SSE2__)
  // Encoding has no serial dependency (a is the input's left byte), so 8 bytes go at a time in
  // 16-bit lanes, with the same comparisons as paeth() (ties prefer a, then b).
  const __m128i zero = _mm_setzero_si128();
  for (; i + 8 <= n; i += 8) {
    const __m128i a = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(x + i - bpp)), zero);
    const __m128i b = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(p + i)), zero);
    const __m128i c = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(p + i - bpp)), zero);
    const __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c);
    const __m128i pa = abs16(bc), pb = abs16(ac), pc = abs16(_mm_add_epi16(bc, ac));
    const __m128i not_a = _mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc));
    const __m128i not_b = _mm_cmpgt_epi16(pb, pc);
    const __m128i b_or_c = _mm_or_si128(_mm_and_si128(not_b, c), _mm_andnot_si128(not_b, b));
    const __m128i pred = _mm_or_si128(_mm_and_si128(not_a, b_or_c), _mm_andnot_si128(not_a, a));
    const __m128i x8 = _mm_loadl_epi64((const __m128i *)(x + i));
    _mm_storel_epi64((__m128i *)(o + i), _mm_sub_epi8(x8, _mm_packus_epi16(pred, zero)));
  }
#endif
  for (; i < n; i++) o[i] = (uint8_t)(x[i] - paeth(x[i - bpp], p[i], p[i - bpp]));
  if (cost) s = row_cost(o, n);
  return s;
}

/// Filters row `x` (above it `p`) into `out` (filter-type byte + n bytes). `scratch` holds 5 × n.
static void filter_row(const uint8_t *x, const uint8_t *p, size_t n, size_t bpp, int filters,
                       uint8_t *scratch, uint8_t *out) {
  static const int masks[5] = {CPNG_FILTER_NONE, CPNG_FILTER_SUB, CPNG_FILTER_UP, CPNG_FILTER_AVG,
                               CPNG_FILTER_PAETH};
  int count = 0, only = 0;
  for (int f = 0; f < 5; f++)
    if (filters & masks[f]) {
      count += 1;
      only = f;
    }
  if (count == 1) {
    out[0] = (uint8_t)only;
    uint8_t *o = out + 1;
    switch (only) {
    case 0: filter_none(x, o, n, 0); break;
    case 1: filter_sub(x, o, n, bpp, 0); break;
    case 2: filter_up(x, p, o, n, 0); break;
    case 3: filter_avg(x, p, o, n, bpp, 0); break;
    default: filter_paeth(x, p, o, n, bpp, 0); break;
    }
    return;
  }
  uint64_t best_cost = UINT64_MAX;
  int best = 0;
  for (int f = 0; f < 5; f++) {
    if (!(filters & masks[f])) continue;
    uint8_t *o = scratch + (size_t)f * n;
    uint64_t c;
    switch (f) {
    case 0: c = filter_none(x, o, n, 1); break;
    case 1: c = filter_sub(x, o, n, bpp, 1); break;
    case 2: c = filter_up(x, p, o, n, 1); break;
    case 3: c = filter_avg(x, p, o, n, bpp, 1); break;
    default: c = filter_paeth(x, p, o, n, bpp, 1); break;
    }
    if (c < best_cost) {
      best_cost = c;
      best = f;
    }
  }
  out[0] = (uint8_t)best;
  memcpy(out + 1, scratch + (size_t)best * n, n);
}

static void swap_copy(const uint8_t *src, uint8_t *dst, size_t n) {
  size_t i = 0;
  for (; i + 1 < n; i += 2) {
    dst[i] = src[i + 1];
    dst[i + 1] = src[i];
  }
  if (i < n) dst[i] = src[i];
}

int cpng_deflate_segment(const uint8_t *data, size_t length, int level, int last, uint8_t **out,
                         size_t *out_length) {
  if (out == NULL || out_length == NULL) return CPNG_ERR_INVALID;
  *out = NULL;
  *out_length = 0;
  if (data == NULL || length == 0 || level < 0 || level > 9) return CPNG_ERR_INVALID;
  struct libdeflate_compressor *compressor = thread_compressor(level);
  if (compressor == NULL) return CPNG_ERR_NO_MEMORY;
  // Room for the stream plus the empty stored block that ends a non-final segment.
  const size_t bound = libdeflate_deflate_compress_bound(compressor, length);
  uint8_t *buffer = (uint8_t *)malloc(bound + 8);
  if (buffer == NULL) return CPNG_ERR_NO_MEMORY;
  size_t produced = libdeflate_deflate_compress(compressor, data, length, buffer, bound);
  if (produced == 0) {  // cannot happen within the bound
    free(buffer);
    return CPNG_ERR_NO_MEMORY;
  }
  if (!last) {
    size_t joined = 0;
    int status = cpng_deflate_make_joinable(buffer, produced, bound + 8, length, &joined);
    if (status != CPNG_OK) {
      free(buffer);
      return status;
    }
    produced = joined;
  }
  *out = buffer;
  *out_length = produced;
  return CPNG_OK;
}

int cpng_segment_encode(const uint8_t *rows, size_t rowbytes, uint32_t total_rows, int prior_only,
                        uint32_t emit_rows, int bpp, int swap16, int filters, int level, int last,
                        uint8_t **out, size_t *out_length, uint32_t *adler,
                        size_t *filtered_length) {
  if (out == NULL || out_length == NULL || adler == NULL || filtered_length == NULL)
    return CPNG_ERR_INVALID;
  *out = NULL;
  *out_length = 0;
  *adler = 1;
  *filtered_length = 0;
  prior_only = prior_only ? 1 : 0;
  if (rows == NULL || rowbytes == 0 || bpp < 1 || bpp > 8 || level < 0 || level > 9 ||
      (filters & ~CPNG_FILTER_ALL) != 0 || filters == 0 || emit_rows == 0 ||
      total_rows < (uint32_t)prior_only + emit_rows || rowbytes > SIZE_MAX / 8 - 1)
    return CPNG_ERR_INVALID;
  const size_t stride = rowbytes + 1;
  // Segments are compressed without a preset dictionary (libdeflate has none), so only the
  // emitted rows are filtered; of the rows before them only the one above is read.
  const uint32_t first = total_rows - emit_rows;  // first row to filter
  const uint32_t count = emit_rows;
  if ((size_t)count > SIZE_MAX / stride) return CPNG_ERR_INVALID;
  const size_t emit_bytes = (size_t)emit_rows * stride;
  if (emit_bytes > (size_t)UINT_MAX) return CPNG_ERR_INVALID;  // keeps the bounds far from overflow

  const int swap = swap16 && little_endian();
  uint8_t *filtered = (uint8_t *)malloc(emit_bytes);
  uint8_t *scratch = (uint8_t *)malloc(rowbytes * 5);
  uint8_t *zero = (uint8_t *)calloc(1, rowbytes);
  uint8_t *cur = swap ? (uint8_t *)malloc(rowbytes) : NULL;
  uint8_t *above = swap ? (uint8_t *)malloc(rowbytes) : NULL;
  int status = CPNG_OK;
  if (filtered == NULL || scratch == NULL || zero == NULL || (swap && (cur == NULL || above == NULL))) {
    status = CPNG_ERR_NO_MEMORY;
    goto done;
  }
  for (uint32_t r = 0; r < count; r++) {
    const uint32_t row = first + r;
    const uint8_t *x = rows + (size_t)row * rowbytes;
    const uint8_t *p;
    if (row == 0) {
      p = zero;  // only reachable when !prior_only: the image's first row
    } else {
      p = rows + (size_t)(row - 1) * rowbytes;
    }
    if (swap) {
      if (row == 0) {
        memset(above, 0, rowbytes);
      } else {
        swap_copy(p, above, rowbytes);
      }
      swap_copy(x, cur, rowbytes);
      x = cur;
      p = above;
    }
    filter_row(x, p, rowbytes, (size_t)bpp, filters, scratch, filtered + (size_t)r * stride);
  }

  {
    *adler = (uint32_t)libdeflate_adler32(1, filtered, emit_bytes);
    *filtered_length = emit_bytes;
    status = cpng_deflate_segment(filtered, emit_bytes, level, last, out, out_length);
  }

done:
  free(filtered);
  free(scratch);
  free(zero);
  free(cur);
  free(above);
  return status;
}

void cpng_free(void *pointer) { free(pointer); }

uint32_t cpng_adler32_combine(uint32_t adler_a, uint32_t adler_b, uint64_t length_b) {
  // zlib's adler32_combine takes a z_off_t; split very long lengths (never expected).
  uint32_t a = adler_a;
  const uint64_t chunk = (uint64_t)1 << 30;
  if (length_b <= chunk) return (uint32_t)adler32_combine(a, adler_b, (z_off_t)length_b);
  // adler32_combine(a, b, len) is linear in the length only through len mod 65521.
  uint64_t reduced = length_b % 65521u + 65521u;
  return (uint32_t)adler32_combine(a, adler_b, (z_off_t)reduced);
}

uint32_t cpng_crc32(uint32_t crc, const uint8_t *data, size_t length) {
  while (length > 0) {
    uInt n = length > (1u << 30) ? (1u << 30) : (uInt)length;
    crc = (uint32_t)crc32(crc, data, n);
    data += n;
    length -= n;
  }
  return crc;
}

int cpng_zlib_uncompress(const uint8_t *data, size_t length, uint8_t *out, size_t capacity,
                         size_t *out_length) {
  if (out_length == NULL) return CPNG_ERR_INVALID;
  *out_length = 0;
  if ((data == NULL && length > 0) || (out == NULL && capacity > 0)) return CPNG_ERR_INVALID;
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit(&z) != Z_OK) return CPNG_ERR_NO_MEMORY;
  int rc = Z_OK;
  size_t in_left = length, out_left = capacity;
  z.next_in = (Bytef *)data;
  z.next_out = out;
  while (rc == Z_OK) {
    // zlib counts in 32 bits: feed at most 1 GiB at a time.
    uInt in_chunk = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
    uInt out_chunk = out_left > (1u << 30) ? (1u << 30) : (uInt)out_left;
    z.avail_in = in_chunk;
    z.avail_out = out_chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    in_left -= in_chunk - z.avail_in;
    out_left -= out_chunk - z.avail_out;
  }
  inflateEnd(&z);
  *out_length = capacity - out_left;
  // The whole input must be one complete stream (Adler-32 checked by zlib) and nothing more.
  return rc == Z_STREAM_END && in_left == 0 ? CPNG_OK : CPNG_ERR_CORRUPT;
}

int cpng_zlib_compress(const uint8_t *data, size_t length, int level, uint8_t **out,
                       size_t *out_length) {
  if (out == NULL || out_length == NULL) return CPNG_ERR_INVALID;
  *out = NULL;
  *out_length = 0;
  if ((data == NULL && length > 0) || length > (size_t)UINT_MAX / 2 || level < 0 || level > 9)
    return CPNG_ERR_INVALID;
  uLongf capacity = compressBound((uLong)length);
  uint8_t *buffer = (uint8_t *)malloc(capacity > 0 ? capacity : 1);
  if (buffer == NULL) return CPNG_ERR_NO_MEMORY;
  if (compress2(buffer, &capacity, data, (uLong)length, level) != Z_OK) {
    free(buffer);
    return CPNG_ERR_NO_MEMORY;
  }
  *out = buffer;
  *out_length = capacity;
  return CPNG_OK;
}
