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
  /// Another image of the graph (a recipe node name).
  case image
  /// A point `X,Y`.
  case point
  /// Exactly `count` numbers separated by commas (`1,0,0,0,0,…`).
  case numbers(count: Int)

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
    case .image: return "image"
    case .point: return "point X,Y"
    case .numbers(let n): return "\(n) numbers N,N,…"
    }
  }
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
  /// An image reference (filled by the recipe compiler).
  case image(String)
  /// A point.
  case point(Point)
  /// A list of numbers.
  case numbers([Double])

  /// The recipe spelling of the value.
  public var description: String {
    switch self {
    case .number(let v): return ParameterValue.format(v)
    case .size(let s): return s.description
    case .color(let c): return c.hexString
    case .choice(let w): return w
    case .boolean(let b): return b ? "true" : "false"
    case .path(let p): return p
    case .image(let name): return name
    case .point(let p): return "\(p.x),\(p.y)"
    case .numbers(let v): return v.map(ParameterValue.format).joined(separator: ",")
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
public struct ParameterSpec: Hashable, Sendable {
  /// The name used in recipes (`sigma`, `fit`, `color`…).
  public var name: String
  /// Type and range.
  public var kind: ParameterKind
  /// The value used when the parameter is omitted; nil means the parameter is required.
  public var defaultValue: ParameterValue?
  /// One line of help.
  public var help: String

  /// Creates a parameter row.
  public init(_ name: String, _ kind: ParameterKind, default defaultValue: ParameterValue? = nil, help: String) {
    self.name = name
    self.kind = kind
    self.defaultValue = defaultValue
    self.help = help
  }

  /// True when a recipe must give the parameter.
  public var isRequired: Bool { defaultValue == nil }
}

/// The argument values one operation node was built with, in table order.
///
/// Values are validated against the table when they are set, so an `Arguments` value is always
/// in range; operations read them with the typed accessors.
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

  /// The numbers named `name` (empty when absent).
  public func numbers(_ name: String) -> [Double] {
    if case .numbers(let v)? = self[name] { return v }
    return []
  }

  /// `name=value …` in table order: the recipe spelling and the cache key.
  public var description: String {
    values.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
  }
}
