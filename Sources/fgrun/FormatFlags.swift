// FormatFlags.swift — the codecs' encode and decode options as fgrun flags.
//
// Each flag's help is read from the codecs' option tables (`FormatOption`), where every option is
// declared once; this file only gives each option name its flag. A test checks that every option
// of every registered codec has one.

import ArgumentParser
import FilterGraph
import ImageCodecs

/// `--quality`, `--lossless`, `--page`… : values for the output codec's encode options and the
/// input codec's decode options.
struct FormatFlags: ParsableArguments {
  @Option(name: [.customShort("q"), .long], help: FormatFlags.help("quality")) var quality: String?
  @Option(help: FormatFlags.help("compression")) var compression: String?
  @Option(name: [.customLong("bit-depth"), .customLong("depth")], help: FormatFlags.help("bit-depth")) var bitDepth: String?
  @Option(help: FormatFlags.help("chroma")) var chroma: String?
  @Option(help: FormatFlags.help("encoder")) var encoder: String?
  @Option(help: FormatFlags.help("filter")) var filter: String?
  @Option(help: FormatFlags.help("effort")) var effort: String?
  @Option(name: .customLong("near-lossless"), help: FormatFlags.help("near-lossless")) var nearLossless: String?
  @Option(name: .customLong("alpha-quality"), help: FormatFlags.help("alpha-quality")) var alphaQuality: String?
  @Flag(help: FormatFlags.help("progressive")) var progressive = false
  @Flag(name: .customLong("optimize-coding"), help: FormatFlags.help("optimize-coding")) var optimizeCoding = false
  @Flag(help: FormatFlags.help("lossless")) var lossless = false
  @Option(help: FormatFlags.help("page")) var page: String?
  @Flag(name: .customLong("gain-map"), help: FormatFlags.help("gain-map")) var gainMap = false
  @Option(help: FormatFlags.help("predictor")) var predictor: String?
  @Option(help: FormatFlags.help("tile")) var tile: String?
  @Option(help: FormatFlags.help("colors")) var colors: String?
  @Option(help: FormatFlags.help("dither")) var dither: String?

  /// The option names these flags cover, with the text given (booleans: "true" when set).
  var given: [String: String] {
    var values: [String: String] = [:]
    values["quality"] = quality
    values["compression"] = compression
    values["bit-depth"] = bitDepth
    values["chroma"] = chroma
    values["encoder"] = encoder
    values["filter"] = filter
    values["effort"] = effort
    values["near-lossless"] = nearLossless
    values["alpha-quality"] = alphaQuality
    if progressive { values["progressive"] = "true" }
    if optimizeCoding { values["optimize-coding"] = "true" }
    if lossless { values["lossless"] = "true" }
    values["page"] = page
    if gainMap { values["gain-map"] = "true" }
    values["predictor"] = predictor
    values["tile"] = tile
    values["colors"] = colors
    values["dither"] = dither
    return values
  }

  /// The boolean options: given alone (`--lossless`) or with a value, as the formats table
  /// writes them (`--lossless true`, `--lossless=false`).
  static let booleanNames = ["progressive", "optimize-coding", "lossless"]

  /// `arguments` with every `--NAME true|false` (or `--NAME=VALUE`) of a boolean option written
  /// as the parser reads it: `--NAME` for true, nothing for false. Arguments after `--` are kept.
  static func normalizingBooleans(_ arguments: [String]) -> [String] {
    var result: [String] = [], index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        result += arguments[(index - 1)...]
        break
      }
      let equals = argument.firstIndex(of: "=")
      let name = String(argument[..<(equals ?? argument.endIndex)])
      guard name.hasPrefix("--"), booleanNames.contains(String(name.dropFirst(2))) else {
        result.append(argument)
        continue
      }
      var value = equals.map { String(argument[argument.index(after: $0)...]) }
      if value == nil, index < arguments.count, let word = Self.boolean(arguments[index]) {
        value = word ? "true" : "false"
        index += 1
      }
      switch value.map(Self.boolean) {
      case .none, .some(.some(true)): result.append(name)
      case .some(.some(false)): break
      case .some(.none): result.append(argument)  // the parser reports the bad value
      }
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

  /// Every option name that has a flag here (checked against the codecs' tables by a test).
  static let names: Set<String> = [
    "quality", "compression", "bit-depth", "chroma", "encoder", "filter", "effort", "near-lossless", "alpha-quality",
    "progressive", "optimize-coding", "lossless", "page", "gain-map",
    "predictor", "tile", "colors", "dither",
  ]

  /// Each value must suit at least one codec that has the option (the output's codec checks it
  /// again when it is known).
  func validate() throws {
    for (name, text) in given.sorted(by: { $0.key < $1.key }) {
      let declarations = Self.declarations(of: name)
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

  /// The help of flag `name`, from the tables: the first declaration's help, then per format
  /// what it accepts and its default.
  static func help(_ name: String) -> ArgumentHelp {
    let declarations = declarations(of: name)
    guard let first = declarations.first else { return ArgumentHelp("(no registered format has this option)") }
    if name == FormatOption.page.name {
      return ArgumentHelp(first.option.help + " (\(first.option.kind.typeName)).", valueName: "n")
    }
    let formats = declarations.map { entry -> String in
      let fallback = entry.option.defaultValue.map { ", default \($0)" } ?? ""
      return "\(entry.codec.displayName): \(entry.option.kind.typeName)\(fallback)"
    }
    let text = first.option.help + " (" + formats.joined(separator: "; ") + ")"
    if case .boolean = first.option.kind { return ArgumentHelp(text + "; give it alone, or with true|false") }
    return ArgumentHelp(text, valueName: "value")
  }
}
