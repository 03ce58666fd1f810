// cpu.c — whether the CPU runs AVX2 (`fg_kernels_have_avx2`), asked by every kernel here and by
// FilterGraph's TileConversion+Linear8.swift; see include/ckernels.h.

#include "ckernels.h"

#if defined(__x86_64__) || defined(__i386__)

int fg_kernels_have_avx2(void) {
  // Workers ask at once on a render's first tiles: the answer is cached atomically (racing
  // first callers compute and store the same value).
  static int cached = -1;
  int answer = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (answer < 0) {
    __builtin_cpu_init();
    answer = __builtin_cpu_supports("avx2") ? 1 : 0;
    __atomic_store_n(&cached, answer, __ATOMIC_RELAXED);
  }
  return answer;
}

#else

int fg_kernels_have_avx2(void) { return 0; }

#endif
