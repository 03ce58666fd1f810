// InputBytes.swift — an input read into memory through its descriptor, never past a limit.
//
// Files read whole (every format but TIFF, still PNG and JPEG), standard input and pipes come
// through here: the bytes are read in 1 MiB steps and the read stops, with an error, once `limit` bytes
// are held, so `- </dev/zero` or a 6 GB file costs at most the limit. A regular file's size is known
// before reading, so one over the limit is refused without reading it.
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The start of a file a codec reads in place (`FileReadingCodec`): what its decoder needs before
/// it reads the rest through the descriptor (a PNG's chunks before the image data, a JPEG's
/// markers before the first scan).
struct FileHead {
  /// The file's first bytes.
  let bytes: Data
  /// The file's size when they were read.
  let fileSize: Int
}

/// Reads an input's bytes within a limit.
public enum InputBytes {
  /// The bytes of `descriptor` from its current position to its end, after `prefix` (bytes
  /// already read from it, such as a sniffed header).
  ///
  /// - Parameters:
  ///   - name: The input as messages name it, in lower case ("standard input", "the input file X").
  ///   - limit: The most bytes held (`DecodeLimits.maxInputBytes`).
  /// - Throws: `CodecError.tooLarge` past `limit`; `.io` when reading fails (a closed descriptor).
  public static func read(descriptor fd: Int32, prefix: Data = Data(), name: String, limit: Int) throws -> Data {
    var status = stat()
    var data = prefix
    if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
      let size = Int(status.st_size)
      if size > limit { throw tooLarge(name, limit: limit) }
      data.reserveCapacity(size + 1)
    }
    if data.count > limit { throw tooLarge(name, limit: limit) }
    let step = 1 << 20
    var chunk = [UInt8](repeating: 0, count: step)
    while true {
      let want = min(step, limit - data.count + 1)
      let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, want) }
      if got < 0 {
        if errno == EINTR { continue }
        throw CodecError(.io, "Cannot read \(name): \(String(cString: strerror(errno))).")
      }
      if got == 0 { return data }
      data.append(contentsOf: chunk[..<got])
      if data.count > limit { throw tooLarge(name, limit: limit) }
    }
  }

  /// The whole regular file open on `file`, read from its start (the handle is not moved), within
  /// `limit` bytes: for a codec reading files in place (`FileReadingCodec`) that needs one whole.
  ///
  /// - Throws: `CodecError` — `.tooLarge` over `limit`, `.io` when it cannot be read.
  public static func contents(of file: FileHandle, name: String, limit: Int) throws -> Data {
    var status = stat()
    let size = fstat(file.fileDescriptor, &status) == 0 ? Int(status.st_size) : -1
    try check(size: size, name: name, limit: limit)
    guard size >= 0, let all = bytes(file.fileDescriptor, count: size, at: 0) else {
      throw CodecError(.io, "\(name.prefix(1).uppercased() + name.dropFirst()) cannot be read.")
    }
    return Data(all)
  }

  /// The size of the regular file open on `fd`, or nil when it is not one (a pipe, a device).
  static func regularFileSize(_ fd: Int32) -> Int? {
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int(status.st_size)
  }

  /// The `count` bytes at `offset` of the file open on `fd`, or nil when it ends first.
  static func bytes(_ fd: Int32, count: Int, at offset: Int) -> [UInt8]? {
    var out = [UInt8](repeating: 0, count: count), done = 0
    while done < count {
      let got = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
      if got < 0 && errno == EINTR { continue }
      if got <= 0 { return nil }
      done += got
    }
    return out
  }

  /// Throws `.tooLarge` when an input of `size` bytes is over `limit`.
  public static func check(size: Int, name: String, limit: Int) throws {
    if size > limit { throw tooLarge(name, limit: limit) }
  }

  static func tooLarge(_ name: String, limit: Int) -> CodecError {
    CodecError(
      .tooLarge,
      "\(name.prefix(1).uppercased() + name.dropFirst()) is longer than \(limit) bytes, the most an input may hold in memory; raise the limit (--max-input-bytes) if you trust it.")
  }
}
