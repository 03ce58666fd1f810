// Param.swift — a filter parameter declared once, as a property of the filter's parameters.
//
// A filter states each recipe parameter in one place, a property of its `FilterParameters`
// struct, in the spirit of swift-argument-parser's `@Option`:
//
//     @Param("sigma", range: 0...500, help: "Standard deviation in pixels.")
//     public var sigma = 2.0
//
// The attribute is the table row (name, range, help) and the initial value its default; a
// property without one is required (`@Param(...) public var size: Size`), and `@OptionalParam`
// may be left out (`nil`). Setting the property applies the row's range (`Parameter.clamped`),
// so a value read back is always one the table allows. The struct's table, its cache-key
// arguments and its decoding from a recipe line come from these properties (FilterParameters.swift).

import PixelBufferModule

/// What the parameters struct reads of each `@Param` and `@OptionalParam` property.
protocol ParameterField: Sendable {
  /// The table row.
  var spec: ParameterSpec { get }
  /// The value in the table's untyped form; nil when an optional parameter is absent or a
  /// required one has not been given yet.
  var untypedValue: ParameterValue? { get }
  /// The field with `value` (a value its row accepts, clamped), or with none.
  func with(_ value: ParameterValue?) -> Self
}

/// A parameter that always has a value: its default, or (without one) the value a recipe or the
/// Swift API must give.
@propertyWrapper
public struct Param<Value: ParameterType>: Sendable, Codable, ParameterField {
  /// The typed table row.
  public let parameter: Parameter<Value>
  private var value: Value?

  /// The value, in the row's range.
  public var wrappedValue: Value {
    get {
      guard let value else { preconditionFailure("the required parameter '\(parameter.name)' was read before it was given") }
      return value
    }
    set { value = parameter.clamped(newValue) }
  }

  /// The typed table row (`$sigma`).
  public var projectedValue: Parameter<Value> { parameter }

  /// A parameter with `row`, holding `value` (clamped) or, for a required row, nothing yet.
  public init(_ row: Parameter<Value>, value: Value?) {
    parameter = row
    self.value = value.map(row.clamped)
  }

  /// A parameter with another struct's `row` (`$mode`), at its default: two verbs sharing rows.
  public init(_ row: Parameter<Value>) { self.init(row, value: row.defaultValue) }

  /// Decoded by `FilterParameters.init(checking:)` only.
  public init(from decoder: Decoder) throws { self = try ParameterDecoder.field(decoder) }
  /// Encoded only to list the parameters (`ParameterCollector`).
  public func encode(to encoder: Encoder) throws { try ParameterCollector.collect(self, to: encoder) }

  var spec: ParameterSpec { parameter.spec }
  var untypedValue: ParameterValue? { value?.parameterValue }
  func with(_ value: ParameterValue?) -> Param { Param(parameter, value: value.flatMap(Value.init(parameterValue:))) }
}

/// A parameter a recipe and the Swift API may leave out: `nil` then.
@propertyWrapper
public struct OptionalParam<Value: ParameterType>: Sendable, Codable, ParameterField {
  /// The typed table row.
  public let parameter: Parameter<Value>
  private var value: Value?

  /// The value, in the row's range, or nil.
  public var wrappedValue: Value? {
    get { value }
    set { value = newValue.map(parameter.clamped) }
  }

  /// The typed table row.
  public var projectedValue: Parameter<Value> { parameter }

  /// A parameter with `row` (which must be optional), holding nothing.
  public init(_ row: Parameter<Value>) {
    parameter = row
    value = nil
  }

  /// Decoded by `FilterParameters.init(checking:)` only.
  public init(from decoder: Decoder) throws { self = try ParameterDecoder.field(decoder) }
  /// Encoded only to list the parameters (`ParameterCollector`).
  public func encode(to encoder: Encoder) throws { try ParameterCollector.collect(self, to: encoder) }

  var spec: ParameterSpec { parameter.spec }
  var untypedValue: ParameterValue? { value?.parameterValue }
  func with(_ value: ParameterValue?) -> OptionalParam {
    var field = OptionalParam(parameter)
    field.value = value.flatMap(Value.init(parameterValue:))
    return field
  }
}

// The rows, one initialiser per kind of `Parameter`: with `wrappedValue`, the initial value is
// the default; without, the parameter is required.

extension Param where Value == Double {
  /// A real number in `range`; `percent` says what `%` after it means (Parameter.swift).
  public init(wrappedValue: Double, _ name: String, range: ClosedRange<Double>, percent: PercentReading = .refused, help: String) {
    self.init(Parameter(name, range: range, default: wrappedValue, percent: percent, help: help), value: wrappedValue)
  }
  /// A required real number in `range`.
  public init(_ name: String, range: ClosedRange<Double>, percent: PercentReading = .refused, help: String) {
    self.init(Parameter(name, range: range, percent: percent, help: help), value: nil)
  }
}

extension Param where Value == Int {
  /// A whole number in `range`.
  public init(wrappedValue: Int, _ name: String, range: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, range: range, default: wrappedValue, help: help), value: wrappedValue)
  }
  /// A required whole number in `range`.
  public init(_ name: String, range: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, range: range, help: help), value: nil)
  }
}

extension Param where Value == Bool {
  /// A boolean.
  public init(wrappedValue: Bool, _ name: String, help: String) {
    self.init(Parameter(name, default: wrappedValue, help: help), value: wrappedValue)
  }
}

extension Param where Value == Size {
  /// `WIDTHxHEIGHT`, each side in `sides`.
  public init(wrappedValue: Size, _ name: String, sides: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, sides: sides, default: wrappedValue, help: help), value: wrappedValue)
  }
  /// A required size.
  public init(_ name: String, sides: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, sides: sides, help: help), value: nil)
  }
}

extension Param where Value == Color {
  /// A colour.
  public init(wrappedValue: Color, _ name: String, help: String) {
    self.init(Parameter(name, default: wrappedValue, help: help), value: wrappedValue)
  }
  /// A required colour.
  public init(_ name: String, help: String) {
    self.init(Parameter(name, help: help), value: nil)
  }
}

extension Param where Value == Point {
  /// A point `X,Y`.
  public init(wrappedValue: Point, _ name: String, help: String) {
    self.init(Parameter(name, default: wrappedValue, help: help), value: wrappedValue)
  }
}

extension Param where Value == Length {
  /// Pixels in `range` or a percentage, required.
  public init(_ name: String, pixels range: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, pixels: range, optional: false, help: help), value: nil)
  }
  /// Pixels in `range`, or a percentage.
  public init(wrappedValue: Length, _ name: String, pixels range: ClosedRange<Int>, help: String) {
    let pixels: Int
    switch wrappedValue {
    case .pixels(let n): pixels = n
    case .percent: preconditionFailure("a length's default is in pixels")
    }
    self.init(Parameter(name, pixels: range, default: pixels, help: help), value: wrappedValue)
  }
}

extension Param where Value == [Double] {
  /// Exactly `count` numbers.
  public init(wrappedValue: [Double], _ name: String, count: Int, help: String) {
    self.init(Parameter(name, count: count, default: wrappedValue, help: help), value: wrappedValue)
  }
  /// Exactly `count` numbers, required.
  public init(_ name: String, count: Int, help: String) {
    self.init(Parameter(name, count: count, help: help), value: nil)
  }
  /// Between `counts.lowerBound` and `counts.upperBound` numbers, required.
  public init(_ name: String, counts: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, counts: counts, help: help), value: nil)
  }
}

extension Param where Value == String {
  /// A file path (required).
  public init(path name: String, help: String) {
    self.init(Parameter(path: name, help: help), value: nil)
  }
  /// Free text.
  public init(wrappedValue: String, text name: String, help: String) {
    self.init(Parameter(text: name, default: wrappedValue, help: help), value: wrappedValue)
  }
  /// Free text, required.
  public init(text name: String, help: String) {
    self.init(Parameter(text: name, help: help), value: nil)
  }
  /// Another image of the recipe, by name (required).
  public init(image name: String, help: String) {
    self.init(Parameter(image: name, help: help), value: nil)
  }
  /// One of `words`.
  public init(wrappedValue: String, _ name: String, words: [String], help: String) {
    self.init(Parameter(name, words: words, default: wrappedValue, help: help), value: wrappedValue)
  }
}

extension Param where Value: ParameterChoice {
  /// One of `cases` (every case by default).
  public init(wrappedValue: Value, _ name: String, cases: [Value] = Array(Value.allCases), help: String) {
    self.init(Parameter(name, cases: cases, default: wrappedValue, help: help), value: wrappedValue)
  }
  /// One of `cases`, required.
  public init(_ name: String, cases: [Value] = Array(Value.allCases), help: String) {
    self.init(Parameter(name, cases: cases, help: help), value: nil)
  }
}

extension OptionalParam where Value == Double {
  /// A real number in `range`, or nothing.
  public init(_ name: String, range: ClosedRange<Double>, percent: PercentReading = .refused, help: String) {
    self.init(Parameter(name, range: range, optional: true, percent: percent, help: help))
  }
}

extension OptionalParam where Value == Int {
  /// A whole number in `range`, or nothing.
  public init(_ name: String, range: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, range: range, optional: true, help: help))
  }
}

extension OptionalParam where Value == Size {
  /// `WIDTHxHEIGHT`, or nothing.
  public init(_ name: String, sides: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, sides: sides, optional: true, help: help))
  }
}

extension OptionalParam where Value == Color {
  /// A colour, or nothing.
  public init(_ name: String, help: String) {
    self.init(Parameter(name, optional: true, help: help))
  }
}

extension OptionalParam where Value == Length {
  /// Pixels in `range` or a percentage, or nothing.
  public init(_ name: String, pixels range: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, pixels: range, optional: true, help: help))
  }
}

extension OptionalParam where Value == [Double] {
  /// Between `counts.lowerBound` and `counts.upperBound` numbers, or nothing.
  public init(_ name: String, counts: ClosedRange<Int>, help: String) {
    self.init(Parameter(name, counts: counts, optional: true, help: help))
  }
}

extension OptionalParam where Value == String {
  /// Free text, or nothing.
  public init(text name: String, help: String) {
    self.init(Parameter(text: name, optional: true, help: help))
  }
  /// A file path, or nothing.
  public init(path name: String, help: String) {
    self.init(Parameter(spec: ParameterSpec(name, .path, optional: true, help: help)))
  }
}

extension OptionalParam where Value: ParameterChoice {
  /// One of `cases` (every case by default), or nothing.
  public init(_ name: String, cases: [Value] = Array(Value.allCases), help: String) {
    self.init(Parameter(spec: ParameterSpec(name, .choice(cases.map(\.recipeWord)), optional: true, help: help)))
  }
}
