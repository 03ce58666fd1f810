// FormatFlags.swift — the codecs' encode and decode options as fgrun flags.
//
// The flags are the codecs' option tables (`FormatOption`, every option declared once in its
// codec): `--NAME VALUE`, `--NAME=VALUE`, and for a boolean option `--NAME` alone or followed by
// true|false. fgrun keeps no list of them: before parsing, `FGRun.main` rewrites each into the one
// declared option `--format-option NAME=VALUE` (`FormatFlags.rewritten`), so a codec that adds an
// option has its flag, its help (listed under --format-option) and its did-you-mean at once.

import ArgumentParser
import FilterGraph
import Foundation
import ImageCodecs

/// `--quality`, `--lossless`, `--page`… : values for the output codec's encode options and the
/// input codec's decode options.
struct FormatFlags: ParsableArguments {
  @Option(name: .customLong("format-option"), parsing: .singleValue, help: FormatFlags.help)
  var options: [String] = []

  /// The option names given, with their text (booleans: "true" or "false"); a later value wins.
  var given: [String: String] {
    var values: [String: String] = [:]
    for option in options {
      let parts = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      values[String(parts[0])] = parts.count == 2 ? String(parts[1]) : ""
    }
    return values
  }

  /// Every option name of every registered codec, decode options first.
  static var names: [String] { (CodecRegistry.allDecodeOptions + CodecRegistry.allEncodeOptions).map(\.name) }

  /// Shorter spellings fgrun also accepts: `-q` as cwebp, avifenc and heif-enc spell quality.
  static let aliases = ["q": "quality", "depth": "bit-depth"]

  /// The option `flag` (`--quality`, `-q`, `--depth`) names, or nil for a flag that is not a format option.
  static func option(named flag: Substring) -> FormatOption? {
    let name: String
    if flag.hasPrefix("--") {
      // A one-letter alias is a short flag only (`-q`, not `--q`).
      let long = String(flag.dropFirst(2))
      name = long.count > 1 ? aliases[long] ?? long : long
    } else if flag.hasPrefix("-"), flag.count == 2, let long = aliases[String(flag.dropFirst())] {
      name = long
    } else {
      return nil
    }
    return declarations(of: name).first?.option
  }

  /// `arguments` with every format flag written as `--format-option NAME=VALUE`; a boolean given
  /// alone is true, and takes a following true|false (yes|no, on|off, 1|0) as its value, as the
  /// formats table writes them. Arguments after `--` are kept as they are.
  static func rewritten(_ arguments: [String]) -> [String] {
    var result: [String] = [], index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        result += arguments[(index - 1)...]
        break
      }
      let equals = argument.firstIndex(of: "=")
      let flag = argument[..<(equals ?? argument.endIndex)]
      guard let option = option(named: flag) else {
        result.append(argument)
        continue
      }
      var value = equals.map { String(argument[argument.index(after: $0)...]) }
      if case .boolean = option.kind {
        if value == nil, index < arguments.count, Self.boolean(arguments[index]) != nil {
          value = arguments[index]
          index += 1
        }
        value = value ?? "true"
      } else if value == nil, index < arguments.count, !arguments[index].hasPrefix("--") {
        value = arguments[index]
        index += 1
      }
      // A flag without its value (last, or followed by another flag) reaches validation as an
      // empty value, which it names.
      result += ["--format-option", "\(option.name)=\(value ?? "")"]
    }
    return result
  }

  /// `true`/`yes`/`on`/`1` or `false`/`no`/`off`/`0` (as recipes read booleans), else nil.
  private static func boolean(_ word: String) -> Bool? {
    switch word.lowercased() {
    case "true", "yes", "on", "1": return true
    case "false", "no", "off", "0": return false
    default: return nil
    }
  }

  /// The closest format flag to an unknown `--flag` the parser refused, when one is close.
  static func suggestion(for unknown: String) -> String? {
    guard unknown.hasPrefix("--") else { return nil }
    return RecipeError.suggestion(for: String(unknown.dropFirst(2)), among: names).map { "--" + $0 }
  }

  /// Each value must suit at least one codec that has the option (the output's codec checks it
  /// again when it is known).
  func validate() throws {
    for (name, text) in given.sorted(by: { $0.key < $1.key }) {
      let declarations = Self.declarations(of: name)
      guard !declarations.isEmpty else {
        let hint = Self.suggestion(for: "--" + name).map { "; did you mean '\($0)'?" } ?? ""
        throw ValidationError("--format-option \(name): no format has this option\(hint)")
      }
      guard !text.isEmpty else { throw ValidationError("--\(name) needs a value.") }
      var firstError: Error?
      var accepted = false
      for (_, option) in declarations {
        do {
          _ = try option.parse(text)
          accepted = true
        } catch {
          firstError = firstError ?? error
        }
      }
      if !accepted, let firstError { throw ValidationError("--\(name): \(firstError)") }
    }
  }

  /// The encode option values for a file written as `format`: only the options its codec has.
  ///
  /// - Throws: `Failure` (usage) when a value does not suit that codec.
  func encodeValues(for format: ImageFileFormat) throws -> FormatOptionValues {
    try values(in: format.codec?.encodeOptions ?? [])
  }

  /// `base` with the decode options (`--page`) for the run's inputs (not for files a recipe
  /// loads, which say their own).
  func inputLoadOptions(_ base: LoadOptions) throws -> LoadOptions {
    var options = base
    options.formatOptions = try values(in: CodecRegistry.allDecodeOptions)
    return options
  }

  private func values(in table: [FormatOption]) throws -> FormatOptionValues {
    var values = FormatOptionValues()
    for option in table {
      guard let text = given[option.name] else { continue }
      do {
        values[option.name] = try option.parse(text)
      } catch {
        throw Failure(status: ExitStatus.usage, message: "--\(option.name): \(error)")
      }
    }
    return values
  }

  /// Every codec declaring option `name`, with its declaration (decode options first).
  static func declarations(of name: String) -> [(codec: any ImageCodec.Type, option: FormatOption)] {
    var found: [(codec: any ImageCodec.Type, option: FormatOption)] = []
    if name == FormatOption.page.name { found.append((JPEGCodec.self, FormatOption.page)) }
    for codec in CodecRegistry.codecs {
      for option in codec.decodeOptions + codec.encodeOptions where option.name == name && name != FormatOption.page.name {
        found.append((codec, option))
      }
    }
    return found
  }

  /// `--format-option`'s help: every format option as its own flag, with the first declaration's
  /// help, then per format what it accepts and its default. Built once: the parser creates
  /// `FormatFlags` several times a run, and building it walks every codec's option tables.
  static let help: ArgumentHelp = {
    var lines: [String] = []
    var seen: Set<String> = []
    for name in names where seen.insert(name).inserted {
      let declarations = declarations(of: name)
      guard let first = declarations.first else { continue }
      let spelled = (aliases.filter { $0.value == name }.keys.sorted().map { $0.count == 1 ? "-\($0)" : "--\($0)" } + ["--\(name)"])
        .joined(separator: ", ")
      let value: String
      if case .boolean = first.option.kind { value = " [true|false]" } else { value = " <value>" }
      let accepts: String
      if name == FormatOption.page.name {
        accepts = first.option.kind.typeName
      } else {
        accepts = declarations.map { entry in
          "\(entry.codec.displayName): \(entry.option.kind.typeName)" + (entry.option.defaultValue.map { ", default \($0)" } ?? "")
        }.joined(separator: "; ")
      }
      lines.append(spelled + value + ": " + first.option.help + " (" + accepts + ")")
    }
    return ArgumentHelp(
      "A format's option, NAME=VALUE; each is also a flag of its own, as listed below (`fgrun formats` gives them per format).",
      discussion: lines.joined(separator: "\n\n"), valueName: "name=value")
  }()
}
