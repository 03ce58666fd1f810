// RandomAccessBytes.swift — an encoded file's bytes read at offsets, from memory or through a
// file's descriptor a window at a time, for a parser that walks a file (an APNG's chunks) without
// holding it.
import CPNG
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Bytes read at offsets from the first byte of a file.
protocol RandomAccessBytes: AnyObject {
  /// The number of bytes (a file's size when it was opened).
  var byteCount: Int { get }
  /// The bytes at `range`, which lies within `byteCount`.
  ///
  /// - Throws: `CodecError.truncated` when a file ends before `range` does (it shrank).
  func bytes(_ range: Range<Int>) throws -> Data
}

extension RandomAccessBytes {
  /// zlib's CRC-32 of the bytes at `range`, read `FileWindow.capacity` bytes at a time.
  func crc32(_ range: Range<Int>) throws -> UInt32 {
    var crc: UInt32 = 0
    var at = range.lowerBound
    while at < range.upperBound {
      let end = min(range.upperBound, at + FileWindow.capacity)
      let piece = try bytes(at..<end)
      crc = piece.withUnsafeBytes { cpng_crc32(crc, $0.bindMemory(to: UInt8.self).baseAddress!, piece.count) }
      at = end
    }
    return crc
  }
}

/// Bytes in memory (a `Data`, sliced without a copy).
final class MemoryBytes: RandomAccessBytes {
  let data: Data
  init(_ data: Data) { self.data = data }
  var byteCount: Int { data.count }
  func bytes(_ range: Range<Int>) throws -> Data {
    data[data.startIndex + range.lowerBound..<data.startIndex + range.upperBound]
  }
}

/// A regular file read with `pread` through one window of `capacity` bytes: small reads near each
/// other (a chunk's header, then the next) are served from the window; a read larger than the
/// window gets a buffer of its own. What it holds is the window and the last large read's
/// buffer, whose most is `mostHeld`.
final class FileWindow: RandomAccessBytes {
  /// The window's size.
  static let capacity = 64 << 10
  /// The file; the caller keeps it open.
  let file: FileHandle
  let byteCount: Int
  private var window = Data()
  private var windowStart = 0
  /// The most bytes of the file held at once: the window and the largest read handed out.
  private(set) var mostHeld = 0

  /// The regular file open on `file` (of `size` bytes, `InputBytes.regularFileSize`).
  init(_ file: FileHandle, size: Int) {
    self.file = file
    byteCount = size
  }

  func bytes(_ range: Range<Int>) throws -> Data {
    if range.count > Self.capacity {
      let read = try Self.read(file.fileDescriptor, range)
      mostHeld = max(mostHeld, window.count + read.count)
      return read
    }
    if range.lowerBound < windowStart || range.upperBound > windowStart + window.count {
      windowStart = range.lowerBound
      window = try Self.read(file.fileDescriptor, windowStart..<min(byteCount, max(range.upperBound, windowStart + Self.capacity)))
      mostHeld = max(mostHeld, window.count)
    }
    return window.subdata(in: range.lowerBound - windowStart..<range.upperBound - windowStart)
  }

  /// The bytes at `range` of the file open on `fd`.
  private static func read(_ fd: Int32, _ range: Range<Int>) throws -> Data {
    guard let bytes = InputBytes.bytes(fd, count: range.count, at: range.lowerBound) else {
      throw CodecError(.truncated, "The file was truncated while it was read: it ends before byte \(range.upperBound).")
    }
    return Data(bytes)
  }
}
