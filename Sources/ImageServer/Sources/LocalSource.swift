// LocalSource.swift — `local:///PATH` sources: files under the server's root, never outside it.
//
// The path is percent-decoded already; any `..` or `.` segment, NUL, or backslash is refused
// outright, and the real path (symlinks resolved by `realpath`) must still lie inside the root's
// real path, so a link pointing out of the root is refused too (403). A missing file is 404.
// A system call that fails for want of memory, descriptors or another resource of the moment
// (ENOMEM, EAGAIN, EMFILE, ENFILE, ENOBUFS) says nothing about the file: that is 503 with
// Retry-After, and an I/O error 500, never "does not exist".

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Resolves `local:///` sources under a root.
struct LocalSource: Sendable {
  /// The root's real path (symlinks resolved), ending without "/".
  let root: String
  /// The largest file served.
  let maxBytes: Int

  init(root: URL, maxBytes: Int) throws {
    guard let real = Self.realPath(root.path) else {
      throw ServerError(500, "The root folder \(root.path) does not exist.")
    }
    self.root = real == "/" ? "" : real
    self.maxBytes = maxBytes
  }

  /// The reference for `path` (what follows `local://`).
  func reference(_ path: String) throws -> SourceReference {
    let segments = path.split(separator: "/")
    guard path.hasPrefix("/"), !segments.isEmpty,
      !segments.contains(where: { $0 == ".." || $0 == "." }), !path.contains("\0"), !path.contains("\\")
    else {
      throw ServerError.forbidden("The local path '\(path.prefix(200))' is not allowed: no '.', '..' or empty paths.")
    }
    let joined = root + "/" + segments.joined(separator: "/")
    guard let real = Self.realPath(joined) else { throw Self.failure(errno, path) }
    guard real.hasPrefix(root + "/") else {
      throw ServerError.forbidden("The local path '\(path.prefix(200))' leads outside the root.")
    }
    var info = stat()
    guard stat(real, &info) == 0 else { throw Self.failure(errno, path) }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      throw ServerError.notFound("The source local://\(path.prefix(200)) is not a file.")
    }
    if Int(info.st_size) > maxBytes {
      throw ServerError.tooLarge("The source is \(info.st_size) bytes, over the limit of \(maxBytes).")
    }
    let mtime = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    return SourceReference(
      identity: "local:\(real)@\(info.st_size)@\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)", lastModified: mtime,
      location: .file(URL(fileURLWithPath: real)))
  }

  /// The file's bytes (read whole; at most `maxBytes`, checked again on the open file). The
  /// buffer is allocated where a refusal is an error (503), not the end of the process.
  func read(_ url: URL) throws -> SourceBytes {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw Self.failure(errno, nil) }
    defer { close(fd) }
    var info = stat()
    // One byte more than the file's size, to see it end (or grow).
    var capacity = fstat(fd, &info) == 0 ? min(Int(info.st_size), maxBytes) + 1 : 1 << 16
    guard var buffer = malloc(capacity) else { throw Self.failure(ENOMEM, nil) }
    var count = 0
    while count <= maxBytes {
      if count == capacity {
        capacity = min(capacity * 2, maxBytes + 1)
        guard let grown = realloc(buffer, capacity) else {
          free(buffer)
          throw Self.failure(ENOMEM, nil)
        }
        buffer = grown
      }
      let n = Glibc.read(fd, buffer + count, capacity - count)
      if n == 0 { break }
      if n < 0 {
        if errno == EINTR { continue }
        let code = errno
        free(buffer)
        throw Self.failure(code, nil)
      }
      count += n
    }
    let data = Data(bytesNoCopy: buffer, count: count, deallocator: .free)
    if count > maxBytes { throw ServerError.tooLarge("The source is over the limit of \(maxBytes) bytes.") }
    return SourceBytes(data: data, lastModified: nil)
  }

  /// The answer for a call on the source (`path`, as the URL gave it; nil once it was found) that
  /// failed with `code`: the system's shortage of the moment is 503 with Retry-After, an I/O
  /// error 500, and anything else means the file is not there to read (404).
  static func failure(_ code: Int32, _ path: String?) -> ServerError {
    let name = path.map { "The source local://\($0.prefix(200))" } ?? "The source file"
    switch code {
    case ENOMEM, EAGAIN, EMFILE, ENFILE, ENOBUFS:
      return ServerError(
        503, "\(name) cannot be read now: the server is short of \(code == ENOMEM || code == ENOBUFS ? "memory" : "resources") (\(String(cString: strerror(code)))). Retry later.",
        retryAfter: 1)
    case EIO:
      return ServerError(500, "\(name) could not be read (an I/O error).")
    default:
      return .notFound(path == nil ? "The source file can no longer be read." : "\(name) does not exist.")
    }
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
