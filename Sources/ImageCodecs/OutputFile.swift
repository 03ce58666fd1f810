// OutputFile.swift — write a file completely or not at all.
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes output files atomically: bytes go to a temporary file in the destination's folder, which
/// is flushed and renamed over the destination only once complete. A failure (full disk, encoder
/// error) removes the temporary file and leaves any existing destination untouched.
public enum OutputFile {
  /// Writes `data` to `url` atomically, refusing to overwrite any path in `protectedInputs`.
  public static func write(_ data: Data, to url: URL, protecting protectedInputs: [URL] = []) throws {
    try write(to: url, protecting: protectedInputs) { handle in
      try data.withUnsafeBytes { raw in try handle.writeAll(raw) }
    }
  }

  /// Streams into a temporary file through `body`, then renames it into place.
  public static func write(
    to url: URL, protecting protectedInputs: [URL] = [], _ body: (OutputHandle) throws -> Void
  ) throws {
    let target = url.standardizedFileURL.resolvingSymlinksInPath()
    for input in protectedInputs
    where input.standardizedFileURL.resolvingSymlinksInPath().path == target.path {
      throw CodecError(.invalidArgument, "Refusing to write over the input file \(url.path).")
    }
    // An existing destination that is not a regular file (/dev/null, /dev/stdout, a FIFO) is
    // written in place: renaming a temporary file over it would replace the device or pipe itself
    // (for root, /dev/null became a regular file).
    var status = stat()
    if stat(target.path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
      let fd = open(target.path, O_WRONLY)
      guard fd >= 0 else {
        throw CodecError(.io, "Cannot open \(url.path): \(String(cString: strerror(errno))).")
      }
      let handle = OutputHandle(fd: fd, path: url.path)
      defer { close(fd) }
      try body(handle)
      handle.closed = true
      return
    }
    let folder = url.deletingLastPathComponent()
    let template = folder.appendingPathComponent(".\(url.lastPathComponent).XXXXXX.tmp").path
    var pathBytes = Array(template.utf8CString)
    let fd = pathBytes.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
    guard fd >= 0 else {
      throw CodecError(.io, "Cannot create a file in \(folder.path): \(String(cString: strerror(errno))).")
    }
    let tempPath = String(
      decoding: pathBytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let handle = OutputHandle(fd: fd, path: url.path)
    do {
      try body(handle)
      guard fsync(fd) == 0 || errno == EINVAL else {
        throw CodecError(.io, "Cannot write \(url.path): \(String(cString: strerror(errno))).")
      }
      close(fd)
      handle.closed = true
      // Keep the usual permissions of a new file (mkstemp makes it 0600).
      let mask = umask(0)
      umask(mask)
      chmod(tempPath, 0o666 & ~mask)
      guard rename(tempPath, url.path) == 0 else {
        throw CodecError(.io, "Cannot move the output into place at \(url.path): \(String(cString: strerror(errno))).")
      }
    } catch {
      if !handle.closed { close(fd) }
      unlink(tempPath)
      throw error
    }
  }
}

/// A file being written by `OutputFile`.
public final class OutputHandle {
  let fd: Int32
  let path: String
  var closed = false

  init(fd: Int32, path: String) {
    self.fd = fd
    self.path = path
  }

  /// Standard output (descriptor 1, never closed): bytes written to it are not atomic, so a
  /// failure part-way leaves what was already written in the pipe or file.
  public static var standardOutput: OutputHandle { OutputHandle(fd: STDOUT_FILENO, path: "standard output") }

  /// The underlying descriptor (for C encoders that write through `FILE*` or `write`).
  public var fileDescriptor: Int32 { fd }

  /// Writes all bytes or throws `.io` (for example when the disk is full).
  public func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
    var offset = 0
    while offset < bytes.count {
      let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        throw CodecError(.io, "Cannot write \(path): \(String(cString: strerror(errno))).")
      }
      offset += n
    }
  }
}
