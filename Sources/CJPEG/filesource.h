// filesource.h — the decoder's source manager over a file descriptor (internal to the shim).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jpeglib.h>

/// The shim's own messages (libjpeg's add-on message table), past libjpeg's codes.
enum {
  /// The file's size differs from the size it had when it was opened.
  CJ_MSG_FILE_CHANGED = 1000,
  /// pread failed; the parameter string is strerror's.
  CJ_MSG_FILE_READ = 1001,
};

/// Makes `cinfo` read the regular file open on `fd` from offset 0 to `size` (its size when it was
/// opened) with pread, `buffer_size` bytes at a time, into a buffer from libjpeg's permanent pool.
/// The descriptor's own offset is neither used nor moved; it must stay open while `cinfo` reads.
/// Must be called inside the caller's setjmp (libjpeg's allocation may fail).
void cj_file_src(j_decompress_ptr cinfo, int fd, uint64_t size, size_t buffer_size);
