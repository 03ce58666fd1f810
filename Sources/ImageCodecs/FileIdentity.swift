// FileIdentity.swift — a file by what it is (device and inode), not by the path that reaches it.
//
// Two paths name one file when stat(2) gives both the same device and inode: through symbolic
// links (to the file or to a folder on the way), `..`, hard links and bind mounts (a bind mount
// shows the same filesystem, so the same device number). Comparing resolved path strings misses
// the last two, so every "is this output one of the inputs?" question is asked by identity.
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A file's device and inode.
public struct FileIdentity: Hashable, Sendable {
  /// `st_dev`.
  public var device: UInt64
  /// `st_ino`.
  public var inode: UInt64

  /// The identity of the file `path` names (symbolic links followed); nil when it does not exist
  /// or cannot be examined.
  public init?(path: String) {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    self.init(status)
  }

  /// The identity of the file open on `descriptor`.
  public init?(descriptor: Int32) {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return nil }
    self.init(status)
  }

  init(_ status: stat) {
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
  }

  /// True when `a` and `b` name one file: the same identity when both exist, else the same path
  /// once `.`, `..` and symbolic links are resolved (a file that does not exist yet).
  public static func sameFile(_ a: URL, _ b: URL) -> Bool {
    if let first = FileIdentity(path: a.path), let second = FileIdentity(path: b.path) { return first == second }
    return a.standardizedFileURL.resolvingSymlinksInPath().path == b.standardizedFileURL.resolvingSymlinksInPath().path
  }
}
