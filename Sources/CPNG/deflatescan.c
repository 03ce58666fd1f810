// deflatescan.c — walks the blocks of a raw deflate stream without producing its output (see
// cpng_deflate_scan in include/cpng_fast.h). The PNG writer uses it to find, in each segment that
// libdeflate compressed on its own, where the final block's header and end are, so the segments
// can be joined into one stream.
//
// Decoding follows RFC 1951: a 64-bit little-endian bit buffer refilled a word at a time, one
// table lookup per Huffman symbol for codes of up to TABLE_BITS bits and a canonical bit-by-bit
// decode for the rare longer ones. Every length, count and distance is checked, and reads past the
// end of the input stop the walk, so a malformed stream is reported, never overrun.
#include "cpng_fast.h"
#include "cpng_shim.h"

#include <string.h>

#define TABLE_BITS 10
#define TABLE_SIZE (1u << TABLE_BITS)
#define MAX_BITS 15

/// A canonical Huffman code: counts per length and symbols in canonical order for the slow path,
/// and a direct lookup table (entry = symbol << 4 | length; 0 = code longer than TABLE_BITS or
/// unused).
typedef struct {
  uint16_t count[MAX_BITS + 1];
  uint16_t symbol[320];
  uint16_t table[TABLE_SIZE];
} huffman;

typedef struct {
  const uint8_t *data;
  size_t length;
  size_t next;     // next byte to load (may run up to 8 past length: virtual zero bytes)
  uint64_t buffer; // bits not yet consumed, lowest first
  unsigned count;  // valid bits in buffer
} bit_reader;

static inline void refill(bit_reader *r) {
  if (r->next + 8 <= r->length) {
    uint64_t word;
    memcpy(&word, r->data + r->next, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    word = __builtin_bswap64(word);
#endif
    r->buffer |= word << r->count;
    r->next += (63 - r->count) >> 3;
    r->count |= 56;
    return;
  }
  while (r->count <= 56) {
    if (r->next < r->length) r->buffer |= (uint64_t)r->data[r->next] << r->count;
    r->next += 1;  // past the end: zero bits, caught by overrun()
    r->count += 8;
  }
}

/// True once the reader has consumed bits beyond the input.
static inline int overrun(const bit_reader *r) {
  return (uint64_t)r->next * 8 - r->count > (uint64_t)r->length * 8;
}

static inline uint32_t take(bit_reader *r, unsigned n) {  // n ≤ 32, needs count ≥ n
  uint32_t v = (uint32_t)(r->buffer & ((1ull << n) - 1));
  r->buffer >>= n;
  r->count -= n;
  return v;
}

/// Builds `h` from code lengths. Returns 0, or -1 for an over-subscribed or empty code.
static int build(huffman *h, const uint8_t *lengths, unsigned n) {
  memset(h->count, 0, sizeof h->count);
  for (unsigned s = 0; s < n; s++) h->count[lengths[s]] += 1;
  if (h->count[0] == n) return -1;
  int left = 1;
  for (unsigned len = 1; len <= MAX_BITS; len++) {
    left <<= 1;
    left -= h->count[len];
    if (left < 0) return -1;
  }
  uint16_t offsets[MAX_BITS + 2];
  uint16_t next_code[MAX_BITS + 1];
  offsets[1] = 0;
  unsigned code = 0;
  for (unsigned len = 1; len <= MAX_BITS; len++) {
    offsets[len + 1] = (uint16_t)(offsets[len] + h->count[len]);
    code = (code + (len > 1 ? h->count[len - 1] : 0)) << 1;
    next_code[len] = (uint16_t)code;
  }
  memset(h->table, 0, sizeof h->table);
  for (unsigned s = 0; s < n; s++) {
    unsigned len = lengths[s];
    if (len == 0) continue;
    h->symbol[offsets[len]++] = (uint16_t)s;
    unsigned c = next_code[len]++;
    if (len > TABLE_BITS) continue;
    unsigned reversed = 0;
    for (unsigned b = 0; b < len; b++) reversed |= ((c >> b) & 1u) << (len - 1 - b);
    const uint16_t entry = (uint16_t)(s << 4 | len);
    for (unsigned i = reversed; i < TABLE_SIZE; i += 1u << len) h->table[i] = entry;
  }
  return 0;
}

/// Decodes one symbol. Needs count ≥ MAX_BITS. Returns the symbol or -1.
static inline __attribute__((always_inline)) int decode(bit_reader *r, const huffman *h) {
  uint16_t e = h->table[r->buffer & (TABLE_SIZE - 1)];
  if (e != 0) {
    take(r, e & 15u);
    return e >> 4;
  }
  // Canonical decode, one bit at a time (codes longer than TABLE_BITS, or invalid ones).
  int code = 0, first = 0, index = 0;
  for (unsigned len = 1; len <= MAX_BITS; len++) {
    code |= (int)((r->buffer >> (len - 1)) & 1u);
    int count = h->count[len];
    if (code - count < first) {
      take(r, len);
      return h->symbol[index + (code - first)];
    }
    index += count;
    first += count;
    first <<= 1;
    code <<= 1;
  }
  return -1;
}

static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                         31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,
                                       33,  49,  65,  97,  129, 193,  257,  385,  513,  769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/// Walks the symbols of one Huffman-coded block up to its end-of-block code.
///
/// The buffer is refilled only when fewer than 48 bits remain (a length/distance pair needs at
/// most 15 + 5 + 15 + 13 = 48), so one refill serves several literals.
static int walk_codes(bit_reader *reader, const huffman *lit, const huffman *dist,
                      uint64_t *produced) {
  // A local copy the compiler can keep in registers (through the pointer it stays in memory).
  bit_reader local = *reader;
  bit_reader *r = &local;
  uint64_t out = *produced;
  const uint16_t *table = lit->table;
  for (;;) {
    if (r->count < 48) {
      refill(r);
      if (r->next > r->length + 16) return -1;  // far past the end: garbage
    }
    int sym;  // (fast path of decode() inlined)
    const uint16_t e = table[r->buffer & (TABLE_SIZE - 1)];
    if (e != 0) {
      r->buffer >>= e & 15u;
      r->count -= e & 15u;
      sym = e >> 4;
    } else {
      sym = decode(r, lit);
      if (sym < 0) return -1;
    }
    if (sym < 256) {
      out += 1;
      continue;
    }
    if (sym == 256) break;
    sym -= 257;
    if (sym >= 29) return -1;
    unsigned len = length_base[sym] + take(r, length_extra[sym]);
    int d = decode(r, dist);
    if (d < 0 || d >= 30) return -1;
    uint64_t distance = dist_base[d] + take(r, dist_extra[d]);
    if (distance > out) return -1;  // reaches before the start of the stream
    out += len;
  }
  *produced = out;
  *reader = local;
  return overrun(r) ? -1 : 0;
}

static int fixed_tables(huffman *lit, huffman *dist) {
  uint8_t lengths[320];
  unsigned s = 0;
  for (; s < 144; s++) lengths[s] = 8;
  for (; s < 256; s++) lengths[s] = 9;
  for (; s < 280; s++) lengths[s] = 7;
  for (; s < 288; s++) lengths[s] = 8;
  if (build(lit, lengths, 288) != 0) return -1;
  for (s = 0; s < 30; s++) lengths[s] = 5;
  return build(dist, lengths, 30);
}

static int dynamic_tables(bit_reader *r, huffman *lit, huffman *dist) {
  static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  refill(r);
  unsigned nlen = take(r, 5) + 257, ndist = take(r, 5) + 1, ncode = take(r, 4) + 4;
  if (nlen > 286 || ndist > 30) return -1;
  uint8_t lengths[320];
  memset(lengths, 0, 19);
  for (unsigned i = 0; i < ncode; i++) {
    refill(r);
    lengths[order[i]] = (uint8_t)take(r, 3);
  }
  huffman *lencode = dist;  // borrowed as scratch: built again below
  if (build(lencode, lengths, 19) != 0) return -1;
  unsigned index = 0;
  while (index < nlen + ndist) {
    refill(r);
    if (r->next > r->length + 16) return -1;
    int sym = decode(r, lencode);
    if (sym < 0) return -1;
    if (sym < 16) {
      lengths[index++] = (uint8_t)sym;
      continue;
    }
    uint8_t value = 0;
    unsigned repeat;
    if (sym == 16) {
      if (index == 0) return -1;
      value = lengths[index - 1];
      repeat = 3 + take(r, 2);
    } else if (sym == 17) {
      repeat = 3 + take(r, 3);
    } else {
      repeat = 11 + take(r, 7);
    }
    if (index + repeat > nlen + ndist) return -1;
    while (repeat--) lengths[index++] = value;
  }
  if (overrun(r) || lengths[256] == 0) return -1;
  if (build(lit, lengths, nlen) != 0) return -1;
  // A distance code may be incomplete or empty (a block of literals only): accept an empty one;
  // an unusable distance code then fails in decode().
  uint8_t dlengths[30];
  memcpy(dlengths, lengths + nlen, ndist);
  int all_zero = 1;
  for (unsigned i = 0; i < ndist; i++) all_zero &= dlengths[i] == 0;
  if (all_zero) {
    memset(dist->count, 0, sizeof dist->count);
    memset(dist->table, 0, sizeof dist->table);
    return 0;
  }
  return build(dist, dlengths, ndist);
}

int cpng_deflate_scan(const uint8_t *data, size_t length, uint64_t *final_header_bit,
                      uint64_t *end_bit, uint64_t *decoded_length) {
  if (data == NULL || final_header_bit == NULL || end_bit == NULL || decoded_length == NULL)
    return CPNG_ERR_INVALID;
  *final_header_bit = 0;
  *end_bit = 0;
  *decoded_length = 0;
  bit_reader r = {data, length, 0, 0, 0};
  huffman lit, dist;
  uint64_t produced = 0;
  for (;;) {
    refill(&r);
    const uint64_t header = (uint64_t)r.next * 8 - r.count;
    const unsigned final = take(&r, 1);
    const unsigned type = take(&r, 2);
    if (overrun(&r)) return CPNG_ERR_CORRUPT;
    if (type == 0) {
      // Stored: skip to the byte boundary, then LEN, NLEN and LEN bytes.
      uint64_t bit = (uint64_t)r.next * 8 - r.count;
      size_t at = (size_t)((bit + 7) / 8);
      if (at + 4 > length) return CPNG_ERR_CORRUPT;
      unsigned len = data[at] | (unsigned)data[at + 1] << 8;
      unsigned nlen = data[at + 2] | (unsigned)data[at + 3] << 8;
      if ((len ^ 0xFFFFu) != nlen || len > length - at - 4) return CPNG_ERR_CORRUPT;
      produced += len;
      r.next = at + 4 + len;
      r.buffer = 0;
      r.count = 0;
    } else if (type == 1) {
      if (fixed_tables(&lit, &dist) != 0 || walk_codes(&r, &lit, &dist, &produced) != 0)
        return CPNG_ERR_CORRUPT;
    } else if (type == 2) {
      if (dynamic_tables(&r, &lit, &dist) != 0 || walk_codes(&r, &lit, &dist, &produced) != 0)
        return CPNG_ERR_CORRUPT;
    } else {
      return CPNG_ERR_CORRUPT;
    }
    if (final) {
      *final_header_bit = header;
      *end_bit = (uint64_t)r.next * 8 - r.count;
      *decoded_length = produced;
      return CPNG_OK;
    }
  }
}
