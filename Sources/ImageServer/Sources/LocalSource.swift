// LocalSource.swift — `local:///PATH` sources: files under the server's root, never outside it.
//
// The path is percent-decoded already; any `..` or `.` segment, NUL, or backslash is refused
// outright, and the real path (symlinks resolved by `realpath`) must still lie inside the root's
// real path, so a link pointing out of the root is refused too (403). A missing file is 404.

import Foundation

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
    guard let real = Self.realPath(joined) else {
      throw ServerError.notFound("The source local://\(path.prefix(200)) does not exist.")
    }
    guard real.hasPrefix(root + "/") else {
      throw ServerError.forbidden("The local path '\(path.prefix(200))' leads outside the root.")
    }
    var info = stat()
    guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
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

  /// The file's bytes (read whole; at most `maxBytes`, checked again on the open file).
  func read(_ url: URL) throws -> SourceBytes {
    guard let handle = try? FileHandle(forReadingFrom: url) else {
      throw ServerError.notFound("The source file can no longer be read.")
    }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: maxBytes + 1) ?? Data() else {
      throw ServerError.notFound("The source file can no longer be read.")
    }
    if data.count > maxBytes { throw ServerError.tooLarge("The source is over the limit of \(maxBytes) bytes.") }
    return SourceBytes(data: data, lastModified: nil)
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
