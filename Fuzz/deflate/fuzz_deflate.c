// fuzz_deflate.c — the PNG writer's deflate block walker (Sources/CPNG/deflatescan.c) on
// arbitrary bytes: it must never read outside its input, whatever the stream.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpng_fast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t header = 0, end = 0, decoded = 0;
  cpng_deflate_scan(data, size, &header, &end, &decoded);
  // make_joinable writes into its buffer: give it an exact-size copy plus the 5 bytes it may add.
  uint8_t *copy = malloc(size + 5);
  if (copy == NULL) return 0;
  memcpy(copy, data, size);
  size_t joined = 0;
  cpng_deflate_make_joinable(copy, size, size + 5, decoded, &joined);
  free(copy);
  return 0;
}
