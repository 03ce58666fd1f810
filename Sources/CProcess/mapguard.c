// mapguard.c — file mappings whose pages past a shrunken file's end read as zeros instead of
// raising SIGBUS: see include/cprocess.h.

#define _GNU_SOURCE
#include "cprocess.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { guard_count = 64 };

/// A guarded range; `length` 0 marks a free slot (set last when a slot is taken, first when freed).
static struct {
  _Atomic uintptr_t base;
  _Atomic size_t length;
  atomic_int replaced;
} guards[guard_count];
static atomic_flag slot_lock = ATOMIC_FLAG_INIT;
static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static int install_status = -1;
static uintptr_t page_size;

static void on_bus_error(int signal_number, siginfo_t *info, void *context) {
  (void)context;
  uintptr_t address = (uintptr_t)info->si_addr;
  if (info->si_code > 0) {
    for (int i = 0; i < guard_count; i++) {
      size_t length = atomic_load(&guards[i].length);
      uintptr_t base = atomic_load(&guards[i].base);
      if (length == 0 || address < base || address - base >= length) continue;
      void *page = (void *)(address & ~(page_size - 1));
      if (mmap(page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
      atomic_store(&guards[i].replaced, 1);
      return;  // the read is retried on the page of zeros
    }
  }
  // Not a guarded page: the handler from before takes this signal (a fault repeats when the
  // instruction is retried; a signal sent by another process is raised again).
  sigaction(SIGBUS, &previous, NULL);
  if (info->si_code <= 0) raise(signal_number);
}

static void install(void) {
  page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_bus_error;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  install_status = sigaction(SIGBUS, &action, &previous);
}

int fg_map_guard_add(const void *base, size_t length) {
  if (length == 0 || pthread_once(&installed, install) != 0 || install_status != 0) return -1;
  while (atomic_flag_test_and_set(&slot_lock)) {}
  int found = -1;
  for (int i = 0; i < guard_count && found < 0; i++) {
    if (atomic_load(&guards[i].length) != 0) continue;
    atomic_store(&guards[i].replaced, 0);
    atomic_store(&guards[i].base, (uintptr_t)base);
    atomic_store(&guards[i].length, length);
    found = i;
  }
  atomic_flag_clear(&slot_lock);
  return found;
}

int fg_map_guard_replaced(int guard) {
  return guard >= 0 && guard < guard_count ? atomic_load(&guards[guard].replaced) : 0;
}

void fg_map_guard_remove(int guard) {
  if (guard >= 0 && guard < guard_count) atomic_store(&guards[guard].length, 0);
}
