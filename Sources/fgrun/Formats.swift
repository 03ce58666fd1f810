// Formats.swift — `fgrun formats [NAME]`: every file format, what it reads and writes, its options.

import ArgumentParser
import FilterGraph
import ImageCodecs

/// Lists the registered codecs, or shows one.
struct Formats: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Lists every image format with what it reads and writes and its options, or shows one.",
    discussion: "Option tables come from the codecs themselves; each option is also a flag (--quality 80) and, for decoding, a parameter of the recipe's load (load path=scan.tif page=1).")

  @Argument(help: ArgumentHelp("A format's name or extension (webp, jpg…).", valueName: "name"))
  var name: String?

  func run() throws {
    try runReportingFailures {
      if let name {
        guard let codec = CodecRegistry.codec(named: name) else {
          let names = CodecRegistry.codecs.map { $0.format.rawValue }.joined(separator: ", ")
          throw Failure(status: ExitStatus.usage, message: "unknown format '\(name)' (formats: \(names))")
        }
        Console.out(Formats.describe(codec).joined(separator: "\n"))
        return ExitStatus.ok
      }
      var lines: [String] = []
      for codec in CodecRegistry.codecs {
        if !lines.isEmpty { lines.append("") }
        lines.append(contentsOf: Formats.describe(codec))
      }
      lines.append("")
      lines.append("The input's format comes from its first bytes, never its name; the output's from its extension or --format.")
      Console.out(lines.joined(separator: "\n"))
      return ExitStatus.ok
    }
  }

  /// A codec's name, what it does, and one row per option.
  static func describe(_ codec: any ImageCodec.Type) -> [String] {
    let writes = codec.encoderUnavailableReason.map { "reads; does not write (\($0))" } ?? "reads and writes"
    var lines = [
      "\(codec.format.rawValue) — \(codec.displayName): \(writes)",
      "    extensions: " + codec.fileExtensions.map { "." + $0 }.joined(separator: " "),
      "    " + codec.summary,
    ]
    let decode = codec.decodeOptions, encode = codec.encoderUnavailableReason == nil ? codec.encodeOptions : []
    let all = decode + encode
    let nameWidth = max(all.map { $0.name.count + 2 }.max() ?? 0, 4)
    let typeWidth = all.map { $0.kind.typeName.count }.max() ?? 0
    let defaults = all.map { o in o.defaultValue.map { "default \($0)" } ?? "no default" }
    let defaultWidth = defaults.map(\.count).max() ?? 0
    func row(_ o: FormatOption, _ value: String) -> String {
      "      " + ("--" + o.name).padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
        + o.kind.typeName.padding(toLength: typeWidth, withPad: " ", startingAt: 0) + "  "
        + value.padding(toLength: defaultWidth, withPad: " ", startingAt: 0) + "  " + o.help
    }
    if !decode.isEmpty {
      lines.append("    reading:")
      lines.append(contentsOf: zip(decode, defaults).map(row))
    }
    if !encode.isEmpty {
      lines.append("    writing:")
      lines.append(contentsOf: zip(encode, defaults.dropFirst(decode.count)).map(row))
    }
    return lines
  }
}
