// lastresort.c — fatal signals turned into a message and an exit status: see include/cprocess.h.

#define _GNU_SOURCE
#include "cprocess.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static char before_name[512], after_name[512];
static int exit_status;
/// The alternate stack the handler runs on (a signal for an overflowed stack needs another).
static char alternate_stack[64 * 1024];

/// Writes a NUL-terminated string to standard error (async-signal-safe).
static void say(const char *text) {
  size_t length = strlen(text), done = 0;
  while (done < length) {
    ssize_t n = write(STDERR_FILENO, text + done, length - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
}

static void end(int signal_number) {
  say(before_name);
  switch (signal_number) {
  case SIGABRT: say("SIGABRT"); break;
  case SIGILL: say("SIGILL"); break;
  case SIGTRAP: say("SIGTRAP"); break;
  case SIGSEGV: say("SIGSEGV"); break;
  default: say("SIGBUS"); break;
  }
  say(after_name);
  _exit(exit_status);
}

/// Copies `text` into `buffer` of `size` bytes, cut to fit.
static void keep(char *buffer, size_t size, const char *text) {
  size_t length = strlen(text);
  if (length >= size) length = size - 1;
  memcpy(buffer, text, length);
  buffer[length] = 0;
}

int fg_end_fatal_signals_with(const char *before, const char *after, int status) {
  keep(before_name, sizeof before_name, before);
  keep(after_name, sizeof after_name, after);
  exit_status = status;
  stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0};
  if (sigaltstack(&stack, NULL) != 0) return -1;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = end;
  action.sa_flags = SA_ONSTACK;
  sigfillset(&action.sa_mask);
  const int signals[] = {SIGABRT, SIGILL, SIGTRAP, SIGSEGV, SIGBUS};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
    if (sigaction(signals[i], &action, NULL) != 0) return -1;
  }
  return 0;
}
