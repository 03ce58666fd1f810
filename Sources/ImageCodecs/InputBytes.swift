// InputBytes.swift — an input read into memory through its descriptor, never past a limit.
//
// Files read whole (every format but TIFF and still PNG), standard input and pipes come through
// here: the bytes are read in 1 MiB steps and the read stops, with an error, once `limit` bytes
// are held, so `- </dev/zero` or a 6 GB file costs at most the limit. A regular file's size is known
// before reading, so one over the limit is refused without reading it.
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

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
