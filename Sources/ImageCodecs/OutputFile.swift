// OutputFile.swift — write a file completely or not at all, and leave nothing else behind.
import Foundation
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// Writes output files durably and atomically.
///
/// The bytes go to an **unnamed** file in the destination's folder (`O_TMPFILE`), which is
/// flushed (`fsync`), given a name only once complete, renamed over the destination, and the
/// folder flushed too. Whatever stops the process — an error, SIGKILL, a power cut, a full disk —
/// leaves either the old destination or the new one, complete, and no other file: an unnamed file
/// vanishes with its last descriptor.
///
/// Where the filesystem refuses `O_TMPFILE` (some network and FUSE filesystems), a named
/// temporary `.NAME.fgrun-PID.XXXXXX.tmp` is used instead; those left by processes that no longer
/// run (of any NAME) are removed by the next write into that folder. A process lists each folder
/// once, at its first write there (listing it at every write made a batch of n files into one
/// folder cost n listings of up to n entries), so temporaries abandoned after that are left to
/// the next process.
///
/// Concurrent writers to one path: each renames a complete file into place, so the last to finish
/// wins and the path always holds one complete file.
public enum OutputFile {
  /// Writes `data` to `url` atomically, refusing to overwrite any file in `protectedInputs` (by
  /// device and inode, so also through hard links and bind mounts).
  public static func write(_ data: Data, to url: URL, protecting protectedInputs: [URL] = []) throws {
    try write(to: url, protecting: protectedInputs) { handle in
      try data.withUnsafeBytes { raw in try handle.writeAll(raw) }
    }
  }

  /// Streams into an unnamed file through `body`, then moves it into place.
  public static func write(
    to url: URL, protecting protectedInputs: [URL] = [], _ body: (OutputHandle) throws -> Void
  ) throws {
    let target = url.standardizedFileURL.resolvingSymlinksInPath()
    for input in protectedInputs where FileIdentity.sameFile(input, target) {
      throw CodecError(.invalidArgument, "Refusing to write over the input file \(url.path).")
    }
    // An existing destination that is not a regular file (/dev/null, /dev/stdout, a FIFO) is
    // written in place: renaming a file over it would replace the device or pipe itself.
    var status = stat()
    if stat(target.path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
      let fd = try openInPlace(target.path, isPipe: status.st_mode & S_IFMT == S_IFIFO, shown: url.path)
      let handle = OutputHandle(fd: fd, path: url.path)
      defer { close(fd) }
      try body(handle)
      handle.closed = true
      return
    }

    let folder = url.deletingLastPathComponent()
    let folderFD = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard folderFD >= 0 else { throw ioError("Cannot open the folder \(folder.path)") }
    defer { close(folderFD) }
    let name = url.lastPathComponent
    removeAbandonedTemporaries(in: folderFD, folder: folder.path)

    var file = try PendingFile(folderFD: folderFD, folder: folder, name: name)
    let handle = OutputHandle(fd: file.fd, path: url.path)
    do {
      try body(handle)
      guard fsync(file.fd) == 0 || errno == EINVAL else { throw ioError("Cannot write \(url.path)") }
      try file.moveIntoPlace(as: name, in: folderFD, displayPath: url.path)
      handle.closed = true
      // The rename is durable only once the folder's entry is on disk.
      _ = fsync(folderFD)
    } catch {
      file.discard(in: folderFD)
      handle.closed = true
      throw error
    }
  }

  /// Opens a device or pipe for writing. A pipe is opened without waiting: with no process
  /// reading it, `open` would block forever; it fails then (`ENXIO`) and is refused.
  private static func openInPlace(_ path: String, isPipe: Bool, shown: String) throws -> Int32 {
    let fd = open(path, O_WRONLY | O_CLOEXEC | (isPipe ? O_NONBLOCK : 0))
    if fd < 0, isPipe, errno == ENXIO {
      throw CodecError(.io, "Cannot write \(shown): it is a named pipe (FIFO) that no process is reading.")
    }
    guard fd >= 0 else { throw ioError("Cannot open \(shown)") }
    // Once open, writes wait for the reader as usual.
    if isPipe { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
    return fd
  }

  /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`, the same value on every Linux architecture Swift
  /// runs on); Glibc's module does not export the composite macro.
  public static let openUnnamed: Int32 = 0o20_000_000 | O_DIRECTORY

  /// `AT_EMPTY_PATH`: `linkat` on the descriptor itself (for processes without /proc).
  static let linkDescriptor: Int32 = 0x1000

  /// The prefix of this process's named temporaries for `name`: `.NAME.fgrun-PID.`.
  public static func temporaryPrefix(of name: String, pid: Int32 = getpid()) -> String { ".\(name).fgrun-\(pid)." }

  /// Removes the `.NAME.fgrun-PID.*.tmp` files (any NAME) in the folder whose process no longer
  /// runs, at this process's first write into the folder.
  static func removeAbandonedTemporaries(in folderFD: Int32, folder: String) {
    var status = stat()
    guard fstat(folderFD, &status) == 0 else { return }
    let key = FolderKey(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), path: FolderKey.hash(folder))
    for entry in abandoned.take(folder: key, list: { abandonedTemporaries(in: folderFD) }) {
      unlinkat(folderFD, entry, 0)
    }
  }

  /// The folders listed so far.
  private static let abandoned = AbandonedTemporaries()

  /// The folder's `.NAME.fgrun-PID.*.tmp` files whose process no longer runs.
  static func abandonedTemporaries(in folderFD: Int32) -> [String] {
    var found: [String] = []
    let dupFD = dup(folderFD)
    guard dupFD >= 0, let dir = fdopendir(dupFD) else {
      if dupFD >= 0 { close(dupFD) }
      return found
    }
    defer { closedir(dir) }
    while let entry = readdir(dir) {
      // The name is read in place up to its NUL: readdir's record is only as long as the name, so
      // copying the whole 256-byte `d_name` field read past it (AddressSanitizer, make test-asan).
      let entryName = withUnsafePointer(to: &entry.pointee.d_name) { field in
        String(cString: UnsafeRawPointer(field).assumingMemoryBound(to: CChar.self))
      }
      guard entryName.hasPrefix("."), entryName.hasSuffix(".tmp"), let marker = entryName.range(of: ".fgrun-", options: .backwards)
      else { continue }
      let rest = entryName[marker.upperBound...]
      guard let dot = rest.firstIndex(of: "."), let pid = Int32(rest[..<dot]), pid > 0 else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH {
        found.append(entryName)
      }
    }
    return found
  }

  static func ioError(_ what: String) -> CodecError {
    CodecError(.io, "\(what): \(String(cString: strerror(errno))).")
  }
}

/// The file being written: unnamed until `moveIntoPlace`, or named where `O_TMPFILE` is refused.
private struct PendingFile {
  let fd: Int32
  /// The temporary name in the folder, if the file has one.
  var temporaryName: String?
  var isOpen = true

  init(folderFD: Int32, folder: URL, name: String) throws {
    // Mode 0666 less the umask, as for any new file.
    let unnamed = openat(folderFD, ".", OutputFile.openUnnamed | O_WRONLY | O_CLOEXEC, 0o666)
    if unnamed >= 0 {
      fd = unnamed
      return
    }
    guard [EOPNOTSUPP, EISDIR, EINVAL, ENOENT].contains(errno) else {
      throw OutputFile.ioError("Cannot create a file in \(folder.path)")
    }
    let path = folder.appendingPathComponent(OutputFile.temporaryPrefix(of: name) + "XXXXXX.tmp").path
    var pathBytes = Array(path.utf8CString)
    let named = pathBytes.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
    guard named >= 0 else { throw OutputFile.ioError("Cannot create a file in \(folder.path)") }
    fd = named
    let created = String(decoding: pathBytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    temporaryName = URL(fileURLWithPath: created).lastPathComponent
    let mask = umask(0)
    umask(mask)
    fchmod(named, 0o666 & ~mask)
  }

  /// Gives the complete file its final name, replacing any file there, and closes it.
  mutating func moveIntoPlace(as name: String, in folderFD: Int32, displayPath: String) throws {
    if temporaryName == nil {
      // Link the unnamed file under a private name, then rename that over the destination: a
      // link cannot replace an existing file, a rename can (atomically).
      let linked = OutputFile.temporaryPrefix(of: name) + "\(UInt32.random(in: 0...UInt32.max)).tmp"
      guard linkat(AT_FDCWD, "/proc/self/fd/\(fd)", folderFD, linked, AT_SYMLINK_FOLLOW) == 0
        || linkat(fd, "", folderFD, linked, OutputFile.linkDescriptor) == 0
      else { throw OutputFile.ioError("Cannot give the output a name at \(displayPath)") }
      temporaryName = linked
    }
    isOpen = false
    guard close(fd) == 0 else { throw OutputFile.ioError("Cannot write \(displayPath)") }
    guard renameat(folderFD, temporaryName!, folderFD, name) == 0 else {
      throw OutputFile.ioError("Cannot move the output into place at \(displayPath)")
    }
    temporaryName = nil
  }

  /// Drops the file after a failure (closing an unnamed file frees it).
  func discard(in folderFD: Int32) {
    if isOpen { close(fd) }
    if let temporaryName { unlinkat(folderFD, temporaryName, 0) }
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

/// A folder, by device, inode and a hash of its path (an inode is reused once its folder is
/// deleted; the path alone would follow a rename).
struct FolderKey: Hashable {
  var device: UInt64
  var inode: UInt64
  var path: UInt64

  /// 64-bit FNV-1a of the path's UTF-8 bytes.
  static func hash(_ path: String) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in path.utf8 {
      h ^= UInt64(byte)
      h = h &* 0x0000_0100_0000_01b3
    }
    return h
  }
}

/// The folders this process has listed for dead processes' temporaries: about 40 bytes each.
final class AbandonedTemporaries: Sendable {
  private let listed = Locked<Set<FolderKey>>([])

  /// What `list` finds in `folder` the first time it is asked about; nothing later.
  func take(folder: FolderKey, list: () -> [String]) -> [String] {
    listed.withLock { $0.insert(folder).inserted ? list() : [] }
  }
}
