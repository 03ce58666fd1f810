// Manifest.swift — the inputs of a batch read from a file, one line at a time, and split into shards.
//
// A manifest line is `INPUT` or `INPUT<TAB>OUTPUT`; empty lines are ignored and a trailing `\r`
// is dropped. Lines are read through a fixed 64 KiB buffer and handed on one by one, so a list
// of millions of files costs memory for one line, not for the list; a line is at most 64 KiB.
//
// Shard K of N (1-based) holds the inputs whose hash h(INPUT) satisfies h mod N = K − 1, where h
// is the 64-bit FNV-1a hash of the input path's UTF-8 bytes exactly as written on the line: the
// same path always lands in the same shard, whatever the order of the list or the machine, so
// the N shards are disjoint and together cover the list.

import ArgumentParser
import Foundation

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

/// The lines of a manifest file (or standard input for `-`), read as they are needed.
final class ManifestReader: Sequence, IteratorProtocol {
  private let fd: Int32
  private let ownsDescriptor: Bool
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

  /// Opens `path`, or standard input for `-`.
  ///
  /// - Throws: `Failure` (usage) when the file cannot be opened.
  init(path: String) throws {
    self.path = path
    if path == "-" {
      fd = STDIN_FILENO
      ownsDescriptor = false
    } else {
      fd = open(path, O_RDONLY | O_CLOEXEC)
      guard fd >= 0 else {
        throw Failure(status: ExitStatus.usage, message: "Cannot open the manifest \(path): \(String(cString: strerror(errno))).")
      }
      ownsDescriptor = true
    }
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

  /// Counts the items the manifest holds (in `shard`, when given) by reading the file once more;
  /// nil for standard input, which can be read only once.
  static func count(path: String, shard: Shard?) -> Int? {
    guard path != "-", let reader = try? ManifestReader(path: path) else { return nil }
    var n = 0
    for item in reader where shard?.contains(item.input) ?? true { n += 1 }
    return n
  }

  /// The hashes (`Shard.hash`) of the inputs the manifest holds (in `shard`, when given), read
  /// once more: 8 bytes an input, not the paths.
  static func inputHashes(path: String, shard: Shard?) -> Set<UInt64> {
    guard let reader = try? ManifestReader(path: path) else { return [] }
    var hashes: Set<UInt64> = []
    for item in reader where shard?.contains(item.input) ?? true { hashes.insert(Shard.hash(item.input)) }
    return hashes
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
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
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
