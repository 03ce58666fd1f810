// cprocess.h — process-level safety nets that need a signal handler, which Swift cannot write
// safely (a handler may only make async-signal-safe calls: no allocation, no locks).
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Makes SIGABRT, SIGILL, SIGTRAP, SIGSEGV and SIGBUS end the process with `status` after
/// writing `before`, the signal's name and `after` (each copied, at most 511 bytes) to standard
/// error, instead of a core dump or a signal status. For a process under an address-space limit,
/// where an allocation the limit refuses stops code that cannot fail cleanly (the Swift runtime,
/// Foundation, C libraries). The handler runs on an alternate stack on the thread that calls
/// this, so a stack overflow there is caught too. Returns 0, or -1 when a handler could not be
/// installed.
int fg_end_fatal_signals_with(const char *before, const char *after, int status);

/// Guards the file mapping [`base`, `base` + `length`): if the file shrinks while it is mapped,
/// a read of a page past its new end gets a page of zeros (and the guard notes it) instead of
/// SIGBUS killing the process. A SIGBUS elsewhere goes to the handler that was there before.
/// Returns the guard's number, or -1 when all 64 are in use or the handler cannot be installed.
int fg_map_guard_add(const void *base, size_t length);

/// 1 when a page of guard `guard`'s mapping was replaced with zeros (its file shrank), else 0.
int fg_map_guard_replaced(int guard);

/// Ends guard `guard` (call it before unmapping).
void fg_map_guard_remove(int guard);

/// Makes `signal_number` write one byte to a pipe instead of its default action, and returns the
/// pipe's read end (blocking, close-on-exec), for a thread that reads it and acts outside the
/// handler; -1 when the pipe or the handler cannot be made (the signal's action is then as before).
int fg_signal_pipe(int signal_number);

#ifdef __cplusplus
}
#endif
