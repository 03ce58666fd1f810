// Parameters.swift — the declarative parameter table every operation publishes.
//
// One table per operation (name, type, range, default, help) is read by the recipe parser,
// `fgrun filters`, the generated docs, `fgrun explain` and the renderer's cache keys: there is
// never a second hand-kept copy of an operation's parameters.

import PixelBufferModule

/// The type and accepted range of one parameter.
public enum ParameterKind: Hashable, Sendable {
  /// A real number in a closed range.
  case number(ClosedRange<Double>)
  /// A whole number in a closed range.
  case integer(ClosedRange<Int>)
  /// `WIDTHxHEIGHT`, each side in the range.
  case size(ClosedRange<Int>)
  /// `#RGB`, `#RRGGBB`, `#RRGGBBAA` or a colour name.
  case color
  /// One of a fixed set of words.
  case choice([String])
  /// `true`/`false` (also `yes`/`no`, `on`/`off`).
  case boolean
  /// A file path (relative paths are resolved against the recipe's folder).
  case path
  /// Free text, as written (a caption, a font family name); quote it when it has spaces.
  case text
  /// Another image of the graph (a recipe node name).
  case image
  /// A point `X,Y`.
  case point
  /// One of a fixed set of words, or a point `X,Y` (`scale fill=… focus=attention|120,80`).
  case choiceOrPoint([String])
  /// Whole pixels in a range, or a percentage of a size the filter names (`margin=2%`).
  case length(ClosedRange<Int>)
  /// Exactly `count` numbers separated by commas (`1,0,0,0,0,…`).
  case numbers(count: Int)
  /// A number of numbers in `counts`, separated by commas (a kernel's values); the filter checks
  /// the count against its other parameters.
  case numberList(counts: ClosedRange<Int>)
  /// Between `count.lowerBound` and `count.upperBound` pairs `A:B` separated by commas
  /// (`0:0,0.5:0.6,1:1`).
  case pairs(count: ClosedRange<Int>)

  /// A short human name for messages and `fgrun filters`.
  public var typeName: String {
    switch self {
    case .number(let r): return "number \(ParameterValue.format(r.lowerBound))…\(ParameterValue.format(r.upperBound))"
    case .integer(let r): return "integer \(r.lowerBound)…\(r.upperBound)"
    case .size: return "size WxH"
    case .color: return "colour"
    case .choice(let words): return words.joined(separator: "|")
    case .boolean: return "true|false"
    case .path: return "path"
    case .text: return "text"
    case .image: return "image"
    case .point: return "point X,Y"
    case .choiceOrPoint(let words): return (words + ["X,Y"]).joined(separator: "|")
    case .length(let r): return "pixels \(r.lowerBound)…\(r.upperBound) or N%"
    case .numbers(let n): return "\(n) numbers N,N,…"
    case .numberList(let counts): return "\(counts.lowerBound)…\(counts.upperBound) numbers N,N,…"
    case .pairs(let n): return "\(n.lowerBound)…\(n.upperBound) pairs A:B,A:B,…"
    }
  }
}

/// What a `%` after a number means for a `number` parameter (docs/Recipes.md, "Values").
public enum PercentReading: Hashable, Sendable {
  /// `%` is refused: the parameter has a unit of its own (pixels, degrees, stops, a divisor).
  case refused
  /// `30%` is 0.3: the parameter is a fraction or a factor whose whole is 1 (an amount, an
  /// opacity, a scale factor).
  case fraction
  /// `99%` is 99: the parameter's unit is percent (normalize's percentiles).
  case percent
}

/// A parameter's value.
public enum ParameterValue: Hashable, Sendable, CustomStringConvertible {
  /// A number (integers are numbers too).
  case number(Double)
  /// A size.
  case size(Size)
  /// A colour, straight (not premultiplied) RGBA in the sRGB encoding, 0…1.
  case color(Color)
  /// A word from a choice.
  case choice(String)
  /// A boolean.
  case boolean(Bool)
  /// A path, as written.
  case path(String)
  /// Free text, as written.
  case text(String)
  /// An image reference (filled by the recipe compiler).
  case image(String)
  /// A point.
  case point(Point)
  /// A list of numbers.
  case numbers([Double])
  /// A list of number pairs.
  case pairs([SIMD2<Double>])
  /// A percentage of a size the filter names (a `length` parameter's `2%`), as written: 2.
  case percent(Double)

  /// The recipe spelling of the value.
  public var description: String {
    switch self {
    case .number(let v): return ParameterValue.format(v)
    case .size(let s): return s.description
    case .color(let c): return c.hexString
    case .choice(let w): return w
    case .boolean(let b): return b ? "true" : "false"
    case .path(let p): return p
    case .text(let t): return "\"" + t + "\""
    case .image(let name): return name
    case .point(let p): return "\(p.x),\(p.y)"
    case .numbers(let v): return v.map(ParameterValue.format).joined(separator: ",")
    case .pairs(let v): return v.map { "\(ParameterValue.format($0.x)):\(ParameterValue.format($0.y))" }.joined(separator: ",")
    case .percent(let v): return ParameterValue.format(v) + "%"
    }
  }

  /// Formats a number without a trailing `.0`.
  public static func format(_ v: Double) -> String {
    if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
    var s = String(format: "%.6g", v)
    if s.contains("e") { s = String(v) }
    return s
  }
}

/// One row of an operation's parameter table.
///
/// Filters declare rows as the `@Param` properties of their parameters struct (Param.swift); the
/// struct's table lists them. `ParameterSpec` is the untyped form the recipe compiler, `fgrun
/// filters`, the docs and the codecs' option tables share.
public struct ParameterSpec: Hashable, Sendable {
  /// The name used in recipes (`sigma`, `fit`, `color`…).
  public var name: String
  /// Type and range.
  public var kind: ParameterKind
  /// The value used when the parameter is omitted; nil when it has none (required, or optional).
  public var defaultValue: ParameterValue?
  /// True when the parameter may be omitted although it has no default: one of several
  /// alternatives the filter checks itself (`scale factor=` or `fit=` or …).
  public var isOptional: Bool
  /// One line of help.
  public var help: String
  /// What `%` after a number means (numbers only; every other kind refuses `%`).
  public var percent: PercentReading

  /// Creates a parameter row; without a default it is required unless `optional` is true. A
  /// number refuses `%` unless `percent` says how to read it.
  public init(
    _ name: String, _ kind: ParameterKind, default defaultValue: ParameterValue? = nil, optional: Bool = false,
    percent: PercentReading = .refused, help: String
  ) {
    self.name = name
    self.kind = kind
    self.defaultValue = defaultValue
    self.isOptional = optional
    self.percent = percent
    self.help = help
  }

  /// The kind's name, with how `%` reads when a number takes it (`number 0…1 or %`: 30% is
  /// 0.3; `percent 0…100`: 99% is 99): `fgrun filters`, docs/Filters.md and messages.
  public var typeName: String {
    guard case .number = kind else { return kind.typeName }
    switch percent {
    case .refused: return kind.typeName
    case .fraction: return kind.typeName + " or %"
    case .percent: return "percent" + kind.typeName.dropFirst("number".count)
    }
  }

  /// True when a recipe must give the parameter.
  public var isRequired: Bool { defaultValue == nil && !isOptional }

  /// `value` brought into the row's range: the one clamp every filter uses.
  ///
  /// Numbers and whole numbers are clamped into their range (whole numbers also rounded to the
  /// nearest, halves away from zero); each side of a size is clamped into its range. A NaN counts
  /// as not given: it becomes the default, or the lower end of the range when there is no
  /// default. Other kinds are returned unchanged.
  public func clamped(_ value: ParameterValue) -> ParameterValue {
    switch (kind, value) {
    case (.number(let range), .number(let v)):
      return .number(clamp(v, range))
    case (.integer(let range), .number(let v)), (.length(let range), .number(let v)):
      return .number(clamp(v, Double(range.lowerBound)...Double(range.upperBound)).rounded())
    case (.length, .percent(let v)):
      return .percent(v.isNaN ? 0 : min(max(v, 0), 100))
    case (.size(let range), .size(let s)):
      func side(_ n: Int) -> Int { min(max(n, range.lowerBound), range.upperBound) }
      return .size(Size(width: side(s.width), height: side(s.height)))
    default:
      return value
    }
  }

  /// The number rule of `clamped`.
  private func clamp(_ v: Double, _ range: ClosedRange<Double>) -> Double {
    if v.isNaN {
      if case .number(let d)? = defaultValue { return d }
      return range.lowerBound
    }
    return min(max(v, range.lowerBound), range.upperBound)
  }

  /// True when `value` is of this row's kind (ranges aside).
  public func accepts(_ value: ParameterValue) -> Bool {
    switch (kind, value) {
    case (.number, .number), (.integer, .number), (.size, .size), (.color, .color), (.boolean, .boolean),
      (.path, .path), (.text, .text), (.image, .image), (.point, .point):
      return true
    case (.choice(let words), .choice(let w)), (.choiceOrPoint(let words), .choice(let w)):
      return words.contains(w)
    case (.choiceOrPoint, .point), (.length, .number), (.length, .percent):
      return true
    case (.numbers(let n), .numbers(let v)):
      return v.count == n
    case (.numberList(let counts), .numbers(let v)):
      return counts.contains(v.count)
    case (.pairs(let n), .pairs(let v)):
      return n.contains(v.count)
    default:
      return false
    }
  }
}

/// The argument values one operation node was built with, in table order.
///
/// Operations publish theirs (`ImageOperation.arguments`: their parameters struct's `arguments`,
/// or pairs spelt with its rows' `argument(_:)`): their text is the node's cache key and its label
/// in `fgrun explain`. Filters read the checked values of a recipe line as the typed properties of
/// their parameters struct, never by name.
public struct Arguments: Hashable, Sendable, CustomStringConvertible {
  /// The (name, value) pairs in the order of the parameter table.
  public private(set) var values: [(String, ParameterValue)]

  /// Creates arguments from pairs already validated.
  public init(_ values: [(String, ParameterValue)] = []) { self.values = values }

  public static func == (a: Arguments, b: Arguments) -> Bool {
    a.values.count == b.values.count && zip(a.values, b.values).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
  }

  public func hash(into hasher: inout Hasher) {
    for (k, v) in values {
      hasher.combine(k)
      hasher.combine(v)
    }
  }

  /// The value of `name`, or nil.
  public subscript(name: String) -> ParameterValue? {
    values.first { $0.0 == name }?.1
  }

  /// `name=value …` in table order: the recipe spelling and the cache key.
  public var description: String {
    values.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
  }
}
