// log.h — where libtiff's error and warning handlers put their words, for one reader or writer.
#ifndef CTIFF_LOG_H
#define CTIFF_LOG_H

#include <stdarg.h>
#include <tiffio.h>

enum { CTIFF_MESSAGE_CAPACITY = 512, CTIFF_WARNING_CAPACITY = 256, CTIFF_MAX_WARNINGS = 8 };

/// The first error since `ctiff_log_reset`, and the first few warnings of the handle's life.
typedef struct {
  char message[CTIFF_MESSAGE_CAPACITY];
  int failed;
  char warnings[CTIFF_MAX_WARNINGS][CTIFF_WARNING_CAPACITY];
  int warning_count;
  int hit_end;  ///< a read asked for bytes past the end of the data
  int lost_tag; ///< a warning said a tag could not be read (libtiff then ignores it)
} ctiff_log;

/// libtiff error handler (user data: a ctiff_log); returns 1 so the global handlers stay silent.
int ctiff_log_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap);
/// libtiff warning handler (user data: a ctiff_log).
int ctiff_log_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap);
/// Forgets the last error (a lost tag is remembered: the file is damaged).
void ctiff_log_reset(ctiff_log *log);
/// Records a failure of the shim's own (kept only when libtiff gave none), returning `status`.
int ctiff_log_fail(ctiff_log *log, int status, const char *format, ...) __attribute__((format(printf, 3, 4)));
/// The status a libtiff failure maps to: truncated data, memory, or `fallback`.
int ctiff_log_status(const ctiff_log *log, int fallback);
/// Options with this log's handlers installed (and `max_alloc` when non-zero); free with TIFFOpenOptionsFree.
TIFFOpenOptions *ctiff_log_options(ctiff_log *log, uint64_t max_alloc);

#endif
