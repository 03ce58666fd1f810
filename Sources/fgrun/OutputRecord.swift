// OutputRecord.swift — what made a batch's output, kept with the file, so `--resume` skips only
// outputs made exactly as this run would make them.
//
// The record is the extended attribute `user.fgrun.made` of the output file: a JSON object with
// the digest below and the render's warnings. An attribute, rather than the report or a sidecar
// file, because it lives and dies with the file it describes: renaming or replacing the output
// carries it along or drops it, nothing can fall out of step, no second file lands in a folder
// that may be published as it is, and a batch need not read back a report of millions of lines
// to start. Where the filesystem keeps no user attributes (some network and FAT filesystems, a
// copy made without `cp -a`) an output has no record and `--resume` makes it again: the safe
// direction, and fgrun says so once. The attribute is set just after the output is moved into
// place, so a crash in between leaves an output without record, which is made again too.
//
// The digest is SHA-256 over, one a line: fgrun's version; the recipe text; every output option
// (format, codec flags, colour, background, metadata, HDR, --fail-on, --strict); the identity
// (path, size, modification time to the nanosecond) of every file the recipe or --profile names
// (a watermark, a LUT, a profile); and the input's size and modification time. Anything that
// can change the bytes written changes the digest; threads, --jobs, --memory and --timeout do not.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule

#if canImport(Glibc)
  import Glibc
#endif

/// The record kept with an output.
struct OutputRecord: Codable, Equatable {
  /// `ResumeDigest.digest` of what made it.
  var digest: String
  /// The render's warnings.
  var warnings: [String]
  /// True when its input was damaged.
  var damaged: Bool

  /// The extended attribute's name.
  static let attribute = "user.fgrun.made"

  /// The record of the file at `path`, or nil when it has none (or an unreadable one).
  static func read(path: String) -> OutputRecord? {
    guard let getxattr = Attributes.get else { return nil }
    var bytes = [UInt8](repeating: 0, count: 65_536)
    let n = getxattr(path, attribute, &bytes, bytes.count)
    guard n > 0 else { return nil }
    return try? JSONDecoder().decode(OutputRecord.self, from: Data(bytes[..<n]))
  }

  /// Stores the record with the file at `path`; the errno of a failure, or nil.
  func write(path: String) -> Int32? {
    guard let setxattr = Attributes.set else { return ENOTSUP }
    var record = self
    // Attributes are limited (4 KiB on ext4): long warning lists are cut, the digest never.
    while true {
      guard let data = try? JSONEncoder().encode(record) else { return EINVAL }
      if data.count <= 3_072 || record.warnings.isEmpty {
        let status = data.withUnsafeBytes { setxattr(path, Self.attribute, $0.baseAddress, $0.count, 0) }
        return status == 0 ? nil : errno
      }
      record.warnings.removeLast()
    }
  }
}

/// glibc's `getxattr` and `setxattr`, declared in <sys/xattr.h>, which Swift's Glibc module does
/// not import: looked up by name (nil on a libc without them, where no record is kept).
private enum Attributes {
  typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
  typealias Set = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
  static let get: Get? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getxattr").map { unsafeBitCast($0, to: Get.self) }
  static let set: Set? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setxattr").map { unsafeBitCast($0, to: Set.self) }
}

/// The digest of everything that decides a batch's output bytes (see the file header).
struct ResumeDigest {
  /// Everything but the input and the output format, as text.
  private let common: String

  /// `--profile` as a line: its name, or the digest of an ICC file's bytes.
  private static func describe(_ profile: OutputProfile) -> String {
    switch profile {
    case .sRGB: return "srgb"
    case .displayP3: return "p3"
    case .keep: return "keep"
    case .icc(let bytes): return "icc " + sha256Hex(bytes)
    }
  }

  init(source: RecipeSource, output: OutputOptions, animation: AnimationFlags, failOn: FailOn, strict: Bool) {
    var lines = ["fgrun \(FGRun.version)", "recipe:"] + source.recipe.sourceLines + ["end of recipe"]
    let color = output.color
    lines += [
      "format \(output.format?.rawValue ?? "-")", "profile \(Self.describe(color.profile))", "intent \(color.intent)", "bpc \(color.bpc)",
      "background \(color.background)", "keep \(output.keep)", "strip \(output.strip)", "hdr \(output.hdr)",
      "target \(output.target.map(\.description) ?? "-")",
      "fail-on \(failOn.rawValue)", "strict \(strict)",
    ]
    lines += output.flags.given.sorted { $0.key < $1.key }.map { "flag \($0.key)=\($0.value)" }
    if animation.asksForAnimation || animation.frame != nil {
      lines.append("frames \(animation.frames ?? "-") frame \(animation.frame.map(String.init) ?? "-") fps \(animation.fps.map { "\($0)" } ?? "-") speed \(animation.speed.map { "\($0)" } ?? "-")")
    }
    // Every value of the recipe that names an existing file (--profile's bytes are in its line).
    var named: [URL] = []
    for statement in source.recipe.statements {
      for argument in statement.arguments {
        switch argument {
        case .keyed(_, let value), .bare(let value): named.append(URL(fileURLWithPath: value.text, relativeTo: source.baseDirectory))
        }
      }
    }
    for url in named {
      guard let status = fileStatus(url.path), (status.st_mode & mode_t(S_IFMT)) == mode_t(S_IFREG) else { continue }
      lines.append("file \(url.path) \(Self.identity(status))")
    }
    common = lines.joined(separator: "\n")
  }

  /// The digest for an input with `inputStatus`, written as `format`.
  func digest(inputStatus: stat, format: ImageFileFormat) -> String {
    sha256Hex(Array((common + "\nwritten as \(format.rawValue)\ninput \(Self.identity(inputStatus))").utf8))
  }

  /// Size and modification time to the nanosecond.
  private static func identity(_ status: stat) -> String {
    "\(status.st_size) bytes, modified \(status.st_mtim.tv_sec).\(String(format: "%09ld", status.st_mtim.tv_nsec))"
  }
}
