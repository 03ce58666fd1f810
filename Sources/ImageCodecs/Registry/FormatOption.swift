// FormatOption.swift — the declarative option table every codec publishes.
//
// One table per codec and direction (decode, encode): name, kind and range, default, help. It is
// read by fgrun (its format flags and their help), `fgrun formats`, the generated
// docs/Formats.md, the recipe's `load` and the codecs themselves (through `ResolvedFormatOptions`),
// so an option is declared once. Options with the same name in several codecs mean the same thing
// (`quality` is always 1…100, higher is better), so one fgrun flag serves them all.

/// The type and accepted values of one format option.
public enum FormatOptionKind: Hashable, Sendable {
  /// A whole number in a closed range.
  case integer(ClosedRange<Int>)
  /// A real number in a closed range.
  case number(ClosedRange<Double>)
  /// `true`/`false` (fgrun: a flag without a value).
  case boolean
  /// One of a fixed set of words.
  case choice([String])

  /// A short human name: `integer 1…100`, `true|false`, `none|lzw|deflate`.
  public var typeName: String {
    switch self {
    case .integer(let r): return "integer \(r.lowerBound)…\(r.upperBound)"
    case .number(let r): return "number \(FormatOptionValue.number(r.lowerBound))…\(FormatOptionValue.number(r.upperBound))"
    case .boolean: return "true|false"
    case .choice(let words): return words.joined(separator: "|")
    }
  }
}

/// A format option's value.
public enum FormatOptionValue: Hashable, Sendable, CustomStringConvertible,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByStringLiteral
{
  /// A whole number.
  case integer(Int)
  /// A real number.
  case number(Double)
  /// A boolean.
  case boolean(Bool)
  /// A word of a choice.
  case choice(String)

  public init(integerLiteral value: Int) { self = .integer(value) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(booleanLiteral value: Bool) { self = .boolean(value) }
  public init(stringLiteral value: String) { self = .choice(value) }

  /// The spelling used on the command line and in recipes.
  public var description: String {
    switch self {
    case .integer(let v): return String(v)
    case .number(let v): return v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    case .boolean(let b): return b ? "true" : "false"
    case .choice(let w): return w
    }
  }
}

/// One row of a codec's option table.
public struct FormatOption: Hashable, Sendable {
  /// The name: fgrun's flag is `--name`, the recipe's `load` parameter is `name=`.
  public var name: String
  /// Type and accepted values.
  public var kind: FormatOptionKind
  /// The value used when the option is not given; nil when the default depends on the image
  /// (`help` then says what happens, for example "the image's own depth").
  public var defaultValue: FormatOptionValue?
  /// One line of help.
  public var help: String

  /// Creates an option row.
  public init(_ name: String, _ kind: FormatOptionKind, default defaultValue: FormatOptionValue? = nil, help: String) {
    self.name = name
    self.kind = kind
    self.defaultValue = defaultValue
    self.help = help
  }

  /// The decode option multi-page codecs (TIFF, HEIF…) list: which page, image or frame to read.
  /// Every file has page 0; asking a single-page format for another is an error.
  public static let page = FormatOption(
    "page", .integer(0...65535), default: 0,
    help: "The page (image, frame) to read, counting from 0; files of single-page formats have only page 0.")

  /// The decode option of formats that carry HDR (PQ/HLG) images (AVIF, HEIC, PNG with cICP): read
  /// the gain map that restores the HDR light from the tone-mapped SDR rendition instead of the image.
  public static let gainMap = FormatOption(
    "gain-map", .boolean, default: .boolean(false),
    help: "For an HDR (PQ/HLG) image: decode the 8-bit gain map that restores its HDR light from its tone-mapped SDR rendition (how an HDR source is written as Ultra HDR JPEG), instead of the image.")

  /// Parses `text` (as typed on the command line or in a recipe) into a value of this option's
  /// kind, checking its range.
  ///
  /// - Throws: `CodecError(.invalidArgument)` naming the option and what it accepts.
  public func parse(_ text: String) throws -> FormatOptionValue {
    let value: FormatOptionValue?
    switch kind {
    case .integer: value = Int(text).map { .integer($0) }
    case .number: value = Double(text).map { .number($0) }
    case .boolean:
      switch text.lowercased() {
      case "true", "yes", "on", "1": value = .boolean(true)
      case "false", "no", "off", "0": value = .boolean(false)
      default: value = nil
      }
    case .choice: value = .choice(text.lowercased())
    }
    guard let value else { throw rejection(text) }
    return try validated(value)
  }

  /// `value` when it has this option's kind and is in range (an integer is accepted for a number
  /// option and converted).
  ///
  /// - Throws: `CodecError(.invalidArgument)` naming the option and what it accepts.
  public func validated(_ value: FormatOptionValue) throws -> FormatOptionValue {
    switch (kind, value) {
    case (.integer(let range), .integer(let v)) where range.contains(v): return value
    case (.number(let range), .number(let v)) where range.contains(v): return value
    case (.number(let range), .integer(let v)) where range.contains(Double(v)): return .number(Double(v))
    case (.boolean, .boolean): return value
    case (.choice(let words), .choice(let w)) where words.contains(w): return value
    default: throw rejection(value.description)
    }
  }

  private func rejection(_ text: String) -> CodecError {
    CodecError(.invalidArgument, "The format option \(name) must be \(kind.typeName), not '\(text)'.")
  }
}

/// Format option values chosen by a caller, by option name: `["quality": 80, "lossless": true]`.
///
/// Values are checked against a codec's table when that codec uses them (`resolved(by:)`); a value
/// for an option the codec does not have is ignored, so one set of values can serve a batch that
/// writes several formats.
public struct FormatOptionValues: Hashable, Sendable, ExpressibleByDictionaryLiteral {
  /// The values given, by option name.
  public var values: [String: FormatOptionValue]

  /// Creates values from `name: value` pairs.
  public init(_ values: [String: FormatOptionValue] = [:]) { self.values = values }

  public init(dictionaryLiteral elements: (String, FormatOptionValue)...) {
    self.values = Dictionary(elements, uniquingKeysWith: { _, last in last })
  }

  /// The value given for `name`, or nil.
  public subscript(name: String) -> FormatOptionValue? {
    get { values[name] }
    set { values[name] = newValue }
  }

  /// Every option of `table` with the value given, or its default (absent when it has none),
  /// checked against the table.
  ///
  /// - Throws: `CodecError(.invalidArgument)` for a value of the wrong kind or out of range.
  public func resolved(by table: [FormatOption]) throws -> ResolvedFormatOptions {
    var resolved: [String: FormatOptionValue] = [:]
    for option in table {
      if let given = values[option.name] {
        resolved[option.name] = try option.validated(given)
      } else if let fallback = option.defaultValue {
        resolved[option.name] = fallback
      }
    }
    return ResolvedFormatOptions(values: resolved)
  }
}

/// Option values checked against one codec's table, defaults filled in: what a codec reads.
public struct ResolvedFormatOptions: Hashable, Sendable {
  /// The values by option name (an option without default and without value is absent).
  public let values: [String: FormatOptionValue]

  /// The integer option `name`, or nil when it is absent.
  public func integer(_ name: String) -> Int? {
    if case .integer(let v)? = values[name] { return v }
    return nil
  }

  /// The number option `name`, or nil when it is absent.
  public func number(_ name: String) -> Double? {
    switch values[name] {
    case .number(let v)?: return v
    case .integer(let v)?: return Double(v)
    default: return nil
    }
  }

  /// The boolean option `name` (false when absent).
  public func boolean(_ name: String) -> Bool {
    if case .boolean(let v)? = values[name] { return v }
    return false
  }

  /// The choice option `name`, or nil when it is absent.
  public func choice(_ name: String) -> String? {
    if case .choice(let v)? = values[name] { return v }
    return nil
  }
}
