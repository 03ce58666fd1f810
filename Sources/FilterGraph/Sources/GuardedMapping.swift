// GuardedMapping.swift — a regular file mapped read-only, safe from the file shrinking under it.
//
// A read of a mapped page past the end of a file that another process truncated raises SIGBUS,
// which would end the process. The mapping is registered with CProcess's guard
// (`fg_map_guard_add`), whose SIGBUS handler maps a page of zeros there instead and notes it:
// the reader gets zeros, and `wasTruncated` tells its caller to throw the result away.

import CProcess
import Foundation

/// A read-only mapping of a whole regular file whose truncation is noticed, not fatal.
final class GuardedMapping: @unchecked Sendable {  // immutable after init; the guard's flag is atomic
  private let base: UnsafeMutableRawPointer
  /// The file's size when it was mapped.
  let byteCount: Int
  private let guardNumber: Int32

  /// Maps the regular file open as `handle`; nil for other files, an empty file, or when the
  /// mapping or its guard is refused (then the file is read instead).
  init?(_ handle: FileHandle) {
    var info = stat()
    let fd = handle.fileDescriptor
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
    let size = Int(info.st_size)
    guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
    let number = fg_map_guard_add(base, size)
    guard number >= 0 else {
      munmap(base, size)
      return nil
    }
    (self.base, byteCount, guardNumber) = (base, size, number)
  }

  deinit {
    fg_map_guard_remove(guardNumber)
    munmap(base, byteCount)
  }

  /// The file's bytes, in place; they keep the mapping alive.
  var data: Data {
    Data(bytesNoCopy: base, count: byteCount, deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
  }

  /// True once a read went past the end of the file as it is now (and got zeros).
  var wasTruncated: Bool { fg_map_guard_replaced(guardNumber) != 0 }
}
