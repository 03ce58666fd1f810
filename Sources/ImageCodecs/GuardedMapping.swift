// GuardedMapping.swift — a regular file mapped read-only, safe from the file shrinking under it.
//
// A read of a mapped page past the end of a file that another process truncated raises SIGBUS,
// which would end the process. The mapping is registered with CProcess's guard
// (`fg_map_guard_add`), whose SIGBUS handler maps a page of zeros there instead and notes it:
// the reader gets zeros, and `wasTruncated` tells its caller to throw the result away.
//
// Pages a reader is done with can be given back (`release`): they leave the process's resident
// memory at once (MADV_DONTNEED; the mapping is private and never written, so they are read again
// from the file, or the page cache, should they be touched again).

import CProcess
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A read-only mapping of a whole regular file whose truncation is noticed, not fatal.
public final class GuardedMapping: @unchecked Sendable {  // immutable after init; the guard's flag is atomic
  private let base: UnsafeMutableRawPointer
  /// The file's size when it was mapped.
  public let byteCount: Int
  private let guardNumber: Int32
  /// The file, kept open to tell whether it shrank.
  private let file: FileHandle

  /// Maps the regular file open as `handle`; nil for other files, an empty file, or when the
  /// mapping or its guard is refused (then the file is read instead).
  public init?(_ handle: FileHandle) {
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
    (self.base, byteCount, guardNumber, file) = (base, size, number, handle)
  }

  deinit {
    fg_map_guard_remove(guardNumber)
    munmap(base, byteCount)
  }

  /// The file's bytes, in place; they keep the mapping alive.
  public var data: Data {
    Data(bytesNoCopy: base, count: byteCount, deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
  }

  /// True once a read went past the end of the file as it is now (and got zeros), or once the
  /// file is shorter than it was mapped: a read in the page the new end falls in gets zeros past
  /// it without a fault.
  public var wasTruncated: Bool {
    var info = stat()
    return fg_map_guard_replaced(guardNumber) != 0 || fstat(file.fileDescriptor, &info) != 0 || Int(info.st_size) < byteCount
  }

  /// The first byte, where `data` starts.
  var baseAddress: UnsafeRawPointer { UnsafeRawPointer(base) }

  /// Gives the pages of the mapping back: they stop counting in the process's resident memory
  /// until a read touches them again.
  func release() {
    madvise(base, byteCount, MADV_DONTNEED)
  }
}
