// signalpipe.c — a signal turned into a byte on a pipe: see include/cprocess.h.

#define _GNU_SOURCE
#include "cprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/// The pipe's write end, per signal number (0: none).
static volatile int write_ends[65];

static void note(int signal_number) {
  int saved = errno;  // the interrupted code may be about to read errno
  unsigned char byte = (unsigned char)signal_number;
  if (signal_number > 0 && signal_number < 65 && write_ends[signal_number] > 0) {
    (void)write(write_ends[signal_number], &byte, 1);
  }
  errno = saved;
}

int fg_signal_pipe(int signal_number) {
  if (signal_number <= 0 || signal_number >= 65) return -1;
  int ends[2];
  if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  // The read end blocks (its reader waits for the signal); the write end never does (a second
  // signal before the first byte is read is the same news).
  int flags = fcntl(ends[0], F_GETFL);
  if (flags == -1 || fcntl(ends[0], F_SETFL, flags & ~O_NONBLOCK) != 0) {
    close(ends[0]);
    close(ends[1]);
    return -1;
  }
  write_ends[signal_number] = ends[1];
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = note;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(signal_number, &action, NULL) != 0) {
    write_ends[signal_number] = 0;
    close(ends[0]);
    close(ends[1]);
    return -1;
  }
  return ends[0];
}
