// log.c — libtiff's per-handle error and warning handlers (see log.h).
#include "log.h"

#include <stdio.h>
#include <string.h>

#include "ctiff_shim.h"

static void format_into(char *buffer, size_t capacity, const char *module, const char *format, va_list ap) {
  char text[CTIFF_MESSAGE_CAPACITY];
  vsnprintf(text, sizeof text, format, ap);
  if (module && *module) {
    snprintf(buffer, capacity, "%s: %s", module, text);
  } else {
    snprintf(buffer, capacity, "%s", text);
  }
}

int ctiff_log_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
  (void)tif;
  ctiff_log *log = user;
  if (log && !log->failed) {
    format_into(log->message, sizeof log->message, module, format, ap);
    log->failed = 1;
  }
  return 1;
}

int ctiff_log_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
  (void)tif;
  ctiff_log *log = user;
  if (!log) return 1;
  char text[CTIFF_WARNING_CAPACITY];
  format_into(text, sizeof text, module, format, ap);
  if (strstr(text, "IO error")) log->lost_tag = 1;
  if (log->warning_count >= CTIFF_MAX_WARNINGS) return 1;
  for (int i = 0; i < log->warning_count; i++) {
    if (strcmp(log->warnings[i], text) == 0) return 1;
  }
  memcpy(log->warnings[log->warning_count++], text, sizeof text);
  return 1;
}

void ctiff_log_reset(ctiff_log *log) {
  log->failed = 0;
  log->message[0] = 0;
  log->hit_end = 0;
}

int ctiff_log_fail(ctiff_log *log, int status, const char *format, ...) {
  if (!log->failed) {
    va_list ap;
    va_start(ap, format);
    vsnprintf(log->message, sizeof log->message, format, ap);
    va_end(ap);
    log->failed = 1;
  }
  return status;
}

int ctiff_log_status(const ctiff_log *log, int fallback) {
  const char *m = log->message;
  if (strstr(m, "beyond the") || strstr(m, "Out of memory") || strstr(m, "No space") || strstr(m, "annot allocate")) {
    return CTIFF_NO_MEMORY;
  }
  if (log->hit_end || strstr(m, "Read error") || strstr(m, "Not enough data") || strstr(m, "Cannot read TIFF header") ||
      strstr(m, "Premature end") || strstr(m, "Unexpected end")) {
    return CTIFF_TRUNCATED;
  }
  return fallback;
}

TIFFOpenOptions *ctiff_log_options(ctiff_log *log, uint64_t max_alloc) {
  TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
  if (!options) return NULL;
  TIFFOpenOptionsSetErrorHandlerExtR(options, ctiff_log_error, log);
  TIFFOpenOptionsSetWarningHandlerExtR(options, ctiff_log_warning, log);
  if (max_alloc > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_alloc);
  return options;
}
