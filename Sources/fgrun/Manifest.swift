// Manifest.swift — the inputs of a batch read from a file, one line at a time, and split into shards.
//
// A manifest line is `INPUT` or `INPUT<TAB>OUTPUT`; empty lines are ignored and a trailing `\r`
// is dropped. Lines are read through a fixed 64 KiB buffer and handed on one by one, so a list
// of millions of files costs memory for one line, not for the list; a line is at most 64 KiB.
//
// A manifest is read more than once (its inputs are protected in a first pass, InputProtection.swift),
// so standard input (`-`) is first copied, as it arrives, to an unnamed temporary file in $TMPDIR
// (`O_TMPFILE`, else a name removed at once): no file is left behind whatever ends the process.
// The copy stops, refused, at a line over 64 KiB or past `--max-input-bytes`.
//
// Shard K of N (1-based) holds the inputs whose hash h(INPUT) satisfies h mod N = K − 1, where h
// is the 64-bit FNV-1a hash of the input path's UTF-8 bytes exactly as written on the line: the
// same path always lands in the same shard, whatever the order of the list or the machine, so
// the N shards are disjoint and together cover the list.

import ArgumentParser
import Foundation
import ImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

/// One file of a batch: where it is read from and, when the manifest names it, where it goes.
struct BatchItem {
  /// The input path as written.
  var input: String
  /// The output path from an `INPUT<TAB>OUTPUT` line; nil means `-o DIR`'s naming.
  var output: String?
}

/// `--shard K/N`: one of N disjoint parts of a list.
struct Shard {
  /// The part, 1...count.
  var index: Int
  /// The number of parts.
  var count: Int

  /// Parses `K/N`.
  ///
  /// - Throws: `ValidationError` unless 1 ≤ K ≤ N.
  init(parsing argument: String) throws {
    let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else {
      throw ValidationError("a shard is K/N with 1 ≤ K ≤ N.")
    }
    index = k
    count = n
  }

  /// True when `path` belongs to this shard.
  func contains(_ path: String) -> Bool {
    Int(Shard.hash(path) % UInt64(count)) == index - 1
  }

  /// 64-bit FNV-1a of the UTF-8 bytes of `path`.
  static func hash(_ path: String) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in path.utf8 {
      h ^= UInt64(byte)
      h = h &* 0x0000_0100_0000_01b3
    }
    return h
  }
}

/// A batch's list of inputs: a file, or standard input copied to a temporary file first.
struct Manifest {
  /// The path as given (`-`: standard input).
  let path: String
  /// The copy of standard input.
  private let spool: ManifestSpool?

  /// The manifest at `path`; for `-`, standard input read to its end and kept.
  ///
  /// - Throws: `Failure` (exit 65) when standard input cannot be read, holds a line over 64 KiB or
  ///   more than `maxBytes` bytes; (exit 73) when no temporary file can be made.
  init(path: String, maxBytes: Int) throws {
    self.path = path
    spool = path == "-" ? try ManifestSpool(copying: STDIN_FILENO, maxBytes: maxBytes) : nil
  }

  /// A reader of the lines from the first.
  ///
  /// - Throws: `Failure` (usage) when the file cannot be opened.
  func lines() throws -> ManifestReader {
    if let spool { return ManifestReader(spool: spool) }
    return try ManifestReader(path: path)
  }

  /// Counts the items the manifest holds (in `shard`, when given) by reading it once more; nil
  /// when it cannot be read again (a pipe given by name).
  func count(shard: Shard?) -> Int? {
    guard isRereadable, let reader = try? lines() else { return nil }
    var n = 0
    for item in reader where shard?.contains(item.input) ?? true { n += 1 }
    return n
  }

  /// The hashes (`Shard.hash`) of the inputs the manifest holds (in `shard`, when given), read
  /// once more: 8 bytes an input, not the paths.
  func inputHashes(shard: Shard?) -> Set<UInt64> {
    guard isRereadable, let reader = try? lines() else { return [] }
    var hashes: Set<UInt64> = []
    for item in reader where shard?.contains(item.input) ?? true { hashes.insert(Shard.hash(item.input)) }
    return hashes
  }

  /// True when the lines can be read more than once: standard input's copy, a regular file.
  var isRereadable: Bool {
    spool != nil || fileStatus(path).map { $0.st_mode & S_IFMT == S_IFREG } ?? false
  }
}

/// Standard input copied to an unnamed temporary file, read back with `pread`.
final class ManifestSpool {
  /// The temporary file (open for reading and writing; it has no name).
  let fd: Int32

  /// Copies `input` to its end into a new unnamed file in $TMPDIR.
  ///
  /// - Throws: see `Manifest.init(path:maxBytes:)`.
  init(copying input: Int32, maxBytes: Int) throws {
    fd = try ManifestSpool.unnamedFile()
    do {
      try ManifestSpool.copy(input, to: fd, maxBytes: maxBytes)
    } catch {
      close(fd)
      throw error
    }
  }

  deinit { close(fd) }

  private static func copy(_ input: Int32, to fd: Int32, maxBytes: Int) throws {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var total = 0
    var lineLength = 0
    while true {
      let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw Failure(status: ExitStatus.input, message: "Reading the manifest - failed: \(String(cString: strerror(errno))).")
      }
      if n == 0 { return }
      total += n
      guard total <= maxBytes else {
        throw Failure(
          status: ExitStatus.input,
          message: "The manifest on standard input is longer than \(maxBytes) bytes; raise the limit (--max-input-bytes) if you trust it.")
      }
      var rest = buffer[..<n]
      while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
        guard lineLength + (newline - rest.startIndex) <= ManifestReader.maxLineBytes else { throw lineTooLong() }
        lineLength = 0
        rest = rest[(newline + 1)...]
      }
      lineLength += rest.count
      guard lineLength <= ManifestReader.maxLineBytes else { throw lineTooLong() }
      var written = 0
      while written < n {
        let w = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + written, n - written) }
        if w < 0 && errno == EINTR { continue }
        guard w > 0 else {
          throw Failure(
            status: ExitStatus.output, message: "Cannot keep the manifest read from standard input in \(temporaryFolder): \(String(cString: strerror(errno))).")
        }
        written += w
      }
    }
  }

  private static func lineTooLong() -> Failure {
    Failure(
      status: ExitStatus.input,
      message: "The manifest - has a line longer than \(ManifestReader.maxLineBytes) bytes; a line is INPUT or INPUT<TAB>OUTPUT.")
  }

  /// $TMPDIR, or /tmp.
  static var temporaryFolder: String {
    let folder = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
    return folder.isEmpty ? "/tmp" : folder
  }

  /// A new file in `temporaryFolder` with no name: `O_TMPFILE`, else `mkstemp` and `unlink` at once.
  private static func unnamedFile() throws -> Int32 {
    let folder = temporaryFolder
    let unnamed = open(folder, OutputFile.openUnnamed | O_RDWR | O_CLOEXEC, 0o600)
    if unnamed >= 0 { return unnamed }
    var template = Array((folder + "/" + OutputFile.temporaryPrefix(of: "manifest") + "XXXXXX.tmp").utf8CString)
    let named = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
    guard named >= 0 else {
      throw Failure(
        status: ExitStatus.output, message: "Cannot keep the manifest read from standard input in \(folder): \(String(cString: strerror(errno))).")
    }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    _ = fcntl(named, F_SETFD, FD_CLOEXEC)
    return named
  }
}

/// The lines of a manifest file (or of standard input's copy), read as they are needed.
final class ManifestReader: Sequence, IteratorProtocol {
  private let fd: Int32
  private let ownsDescriptor: Bool
  /// Where the next read starts in a spooled manifest (read with `pread`, so readers share its
  /// descriptor); nil for a file read through its own descriptor.
  private var offset: off_t?
  /// Keeps a spooled manifest's file open.
  private let spool: ManifestSpool?
  private var buffer = [UInt8](repeating: 0, count: 65_536)
  private var start = 0
  private var end = 0
  private var pending: [UInt8] = []
  private var atEnd = false
  /// The path as given (for messages).
  let path: String
  /// Set when reading failed part-way (the items before it were handed out).
  private(set) var readError: String?
  /// The longest line read (two paths of PATH_MAX and a tab, with room to spare): `/dev/zero` as a
  /// manifest ends here instead of filling memory.
  static let maxLineBytes = 65_536

  /// Opens the manifest file `path`.
  ///
  /// - Throws: `Failure` (usage) when the file cannot be opened.
  init(path: String) throws {
    self.path = path
    fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw Failure(status: ExitStatus.usage, message: "Cannot open the manifest \(path): \(String(cString: strerror(errno))).")
    }
    ownsDescriptor = true
    offset = nil
    spool = nil
  }

  /// Reads standard input's copy from its start.
  init(spool: ManifestSpool) {
    path = "-"
    fd = spool.fd
    ownsDescriptor = false
    offset = 0
    self.spool = spool
  }

  deinit { if ownsDescriptor { close(fd) } }

  /// The next non-empty line as an item, or nil at the end of the file.
  func next() -> BatchItem? {
    while let line = nextLine() {
      var text = String(decoding: line, as: UTF8.self)
      if text.hasSuffix("\r") { text.removeLast() }
      if text.isEmpty { continue }
      if let tab = text.firstIndex(of: "\t") {
        let output = String(text[text.index(after: tab)...])
        return BatchItem(input: String(text[..<tab]), output: output.isEmpty ? nil : output)
      }
      return BatchItem(input: text, output: nil)
    }
    return nil
  }

  private func nextLine() -> [UInt8]? {
    while true {
      if let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
        let line = pending + buffer[start..<newline]
        pending.removeAll(keepingCapacity: true)
        start = newline + 1
        return line
      }
      pending += buffer[start..<end]
      start = 0
      end = 0
      if pending.count > ManifestReader.maxLineBytes {
        readError = "The manifest \(path) has a line longer than \(ManifestReader.maxLineBytes) bytes; a line is INPUT or INPUT<TAB>OUTPUT."
        pending.removeAll()
        atEnd = true
        return nil
      }
      if atEnd {
        if pending.isEmpty { return nil }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
      }
      let n = buffer.withUnsafeMutableBytes { bytes in
        guard let at = offset else { return read(fd, bytes.baseAddress, bytes.count) }
        let n = pread(fd, bytes.baseAddress, bytes.count, at)
        if n > 0 { offset = at + off_t(n) }
        return n
      }
      if n < 0 {
        if errno == EINTR { continue }
        readError = "Reading the manifest \(path) failed: \(String(cString: strerror(errno)))."
        atEnd = true
      } else if n == 0 {
        atEnd = true
      } else {
        end = n
      }
    }
  }
}
