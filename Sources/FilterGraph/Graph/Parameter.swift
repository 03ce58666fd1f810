// Parameter.swift — a parameter declared once and read back typed.
//
// A filter declares each parameter as a static typed key, in the operation's file:
//
//     static let sigma = Parameter<Double>("sigma", range: 0...500, help: "Standard deviation in pixels.")
//
// The key holds the table row (`spec`: name, kind, range, default, help); the operation's table
// lists the keys' rows, and that table drives recipes, `fgrun filters`, docs/Filters.md and cache
// keys. The filter's `apply` reads the value with the key — `arguments[GaussianBlurOperation.sigma]`
// is a `Double`, range applied — so a misspelt parameter does not compile, and reading a key the
// filter's table does not list stops the program in every build (`FilterArguments`). The Swift
// methods keep their inputs in range with the same key (`Self.sigma.clamped(sigma)`), and the
// operation writes its cache key with it (`Self.sigma.argument(sigma)`).

import PixelBufferModule

/// A Swift type a parameter reads back as.
public protocol ParameterType: Sendable {
  /// The value `parameterValue` holds, or nil when it is of another kind.
  init?(parameterValue: ParameterValue)
  /// The value in the table's untyped form.
  var parameterValue: ParameterValue { get }
}

extension Double: ParameterType {
  /// The number, or nil.
  public init?(parameterValue: ParameterValue) {
    guard case .number(let v) = parameterValue else { return nil }
    self = v
  }
  /// `.number(self)`.
  public var parameterValue: ParameterValue { .number(self) }
}

extension Int: ParameterType {
  /// The number rounded to the nearest whole number, or nil when it is not a finite number in
  /// `Int`'s range.
  public init?(parameterValue: ParameterValue) {
    guard case .number(let v) = parameterValue, let n = Int(exactly: v.rounded()) else { return nil }
    self = n
  }
  /// `.number(Double(self))`.
  public var parameterValue: ParameterValue { .number(Double(self)) }
}

extension Bool: ParameterType {
  /// The boolean, or nil.
  public init?(parameterValue: ParameterValue) {
    guard case .boolean(let v) = parameterValue else { return nil }
    self = v
  }
  /// `.boolean(self)`.
  public var parameterValue: ParameterValue { .boolean(self) }
}

extension Size: ParameterType {
  /// The size, or nil.
  public init?(parameterValue: ParameterValue) {
    guard case .size(let v) = parameterValue else { return nil }
    self = v
  }
  /// `.size(self)`.
  public var parameterValue: ParameterValue { .size(self) }
}

extension Point: ParameterType {
  /// The point, or nil.
  public init?(parameterValue: ParameterValue) {
    guard case .point(let v) = parameterValue else { return nil }
    self = v
  }
  /// `.point(self)`.
  public var parameterValue: ParameterValue { .point(self) }
}

extension Color: ParameterType {
  /// The colour, or nil.
  public init?(parameterValue: ParameterValue) {
    guard case .color(let v) = parameterValue else { return nil }
    self = v
  }
  /// `.color(self)`.
  public var parameterValue: ParameterValue { .color(self) }
}

/// A length: whole pixels, or a percentage of a size the filter names (`margin=2%`).
public enum Length: Hashable, Sendable, ParameterType {
  /// Whole pixels.
  case pixels(Int)
  /// A percentage (2 for 2 %) of the size the filter names.
  case percent(Double)

  /// The pixels this length is when the size it is a percentage of is `reference` (rounded to
  /// the nearest pixel).
  public func pixels(of reference: Int) -> Int {
    switch self {
    case .pixels(let n): return n
    case .percent(let p): return Int((Double(reference) * p / 100).rounded())
    }
  }

  /// `.number` (pixels) or `.percent`, or nil.
  public init?(parameterValue: ParameterValue) {
    switch parameterValue {
    case .number(let v): guard let n = Int(exactly: v.rounded()) else { return nil }; self = .pixels(n)
    case .percent(let p): self = .percent(p)
    default: return nil
    }
  }

  /// `.number` or `.percent`.
  public var parameterValue: ParameterValue {
    switch self {
    case .pixels(let n): return .number(Double(n))
    case .percent(let p): return .percent(p)
    }
  }
}

extension Parameter where Value == Length {
  /// Pixels in `range`, or a percentage; with a default.
  public init(_ name: String, pixels range: ClosedRange<Int>, default value: Int, help: String) {
    self.init(spec: ParameterSpec(name, .length(range), default: .number(Double(value)), help: help))
  }

  /// Pixels in `range`, or a percentage; with no default (`optional`: it may be left out).
  public init(_ name: String, pixels range: ClosedRange<Int>, optional: Bool, help: String) {
    self.init(spec: ParameterSpec(name, .length(range), optional: optional, help: help))
  }
}

/// An element of list parameters: numbers (`1,0,0`) and input:output pairs (`0:0,0.5:0.6`).
public protocol ParameterListElement: Sendable {
  /// The list `value` holds, or nil when it is of another kind.
  static func list(from value: ParameterValue) -> [Self]?
  /// The list in the table's untyped form.
  static func parameterValue(of list: [Self]) -> ParameterValue
}

extension Double: ParameterListElement {
  /// The numbers of `.numbers`, or nil.
  public static func list(from value: ParameterValue) -> [Double]? {
    guard case .numbers(let v) = value else { return nil }
    return v
  }
  /// `.numbers(list)`.
  public static func parameterValue(of list: [Double]) -> ParameterValue { .numbers(list) }
}

extension Array: ParameterType where Element: ParameterListElement {
  /// The list, or nil.
  public init?(parameterValue: ParameterValue) {
    guard let v = Element.list(from: parameterValue) else { return nil }
    self = v
  }
  /// The list as a value.
  public var parameterValue: ParameterValue { Element.parameterValue(of: self) }
}

/// Text parameters: a path, an image name or a word of a choice, as written.
extension String: ParameterType {
  /// The text of a path, image name or choice, or nil.
  public init?(parameterValue: ParameterValue) {
    switch parameterValue {
    case .path(let v), .text(let v), .image(let v), .choice(let v): self = v
    default: return nil
    }
  }
  /// `.choice(self)` (the cache key spells paths and choices alike).
  public var parameterValue: ParameterValue { .choice(self) }
}

/// A Swift enumeration read from one of a fixed set of words (`mode=multiply`).
public protocol ParameterChoice: ParameterType, CaseIterable {
  /// The word a recipe writes for this case.
  var recipeWord: String { get }
}

extension ParameterChoice where Self: RawRepresentable, RawValue == String {
  /// The raw value.
  public var recipeWord: String { rawValue }
}

extension ParameterChoice {
  /// The case whose word is the choice's, or nil.
  public init?(parameterValue: ParameterValue) {
    guard case .choice(let word) = parameterValue, let match = Self.allCases.first(where: { $0.recipeWord == word }) else {
      return nil
    }
    self = match
  }
  /// `.choice(recipeWord)`.
  public var parameterValue: ParameterValue { .choice(recipeWord) }
}

/// `space=encoded|linear`.
extension WorkingSpace: ParameterChoice {
  /// Both encodings.
  public static var allCases: [WorkingSpace] { [.encoded, .linear] }
}

/// One parameter of a filter: its table row, and the Swift type its value reads back as.
///
/// Declare it once, as a static property of the operation, and list `spec` in the table:
///
/// ```swift
/// enum Fade {
///   static let amount = Parameter<Double>("amount", range: 0...1, default: 1, help: "How much of the effect.")
///   static let table = OperationDescriptor(
///     name: "fade", category: .color, summary: "Fades the image.", parameters: [amount.spec], example: "fade amount=0.5")
/// }
/// ```
public struct Parameter<Value: ParameterType>: Sendable {
  /// The table row.
  public let spec: ParameterSpec

  /// A key over an existing row; `spec`'s kind must be one `Value` reads (the typed initialisers
  /// below guarantee it).
  public init(spec: ParameterSpec) { self.spec = spec }

  /// The recipe name.
  public var name: String { spec.name }

  /// The default, or nil when the parameter has none.
  public var defaultValue: Value? { spec.defaultValue.flatMap(Value.init(parameterValue:)) }

  /// `value` with the row's range applied (`ParameterSpec.clamped`: NaN becomes the default,
  /// or the lower end of the range without one).
  public func clamped(_ value: Value) -> Value {
    Value(parameterValue: spec.clamped(value.parameterValue)) ?? value
  }

  /// The (name, value) pair an operation lists in its `arguments`.
  public func argument(_ value: Value) -> (String, ParameterValue) { (spec.name, value.parameterValue) }
}

extension Parameter where Value == Double {
  /// A real number in `range`; required unless it has a default or is `optional`. `percent` says
  /// what `%` after it means in a recipe: refused (the default: a unit of its own, such as pixels),
  /// a fraction (`30%` = 0.3) or percent (`99%` = 99).
  public init(
    _ name: String, range: ClosedRange<Double>, default value: Double? = nil, optional: Bool = false,
    percent: PercentReading = .refused, help: String
  ) {
    self.init(
      spec: ParameterSpec(
        name, .number(range), default: value.map(ParameterValue.number), optional: optional, percent: percent, help: help))
  }
}

extension Parameter where Value == Int {
  /// A whole number in `range`; required unless it has a default or is `optional`.
  public init(_ name: String, range: ClosedRange<Int>, default value: Int? = nil, optional: Bool = false, help: String) {
    self.init(
      spec: ParameterSpec(name, .integer(range), default: value.map { .number(Double($0)) }, optional: optional, help: help))
  }
}

extension Parameter where Value == Size {
  /// `WIDTHxHEIGHT`, each side in `sides`; required unless it has a default or is `optional`.
  public init(_ name: String, sides: ClosedRange<Int>, default value: Size? = nil, optional: Bool = false, help: String) {
    self.init(spec: ParameterSpec(name, .size(sides), default: value.map(ParameterValue.size), optional: optional, help: help))
  }
}

extension Parameter where Value == Color {
  /// A colour; required unless it has a default or is `optional`.
  public init(_ name: String, default value: Color? = nil, optional: Bool = false, help: String) {
    self.init(spec: ParameterSpec(name, .color, default: value.map(ParameterValue.color), optional: optional, help: help))
  }
}

extension Parameter where Value == Bool {
  /// A boolean with a default.
  public init(_ name: String, default value: Bool, help: String) {
    self.init(spec: ParameterSpec(name, .boolean, default: .boolean(value), help: help))
  }
}

extension Parameter where Value == Point {
  /// A point `X,Y`; required unless it has a default.
  public init(_ name: String, default value: Point? = nil, help: String) {
    self.init(spec: ParameterSpec(name, .point, default: value.map(ParameterValue.point), help: help))
  }
}

extension Parameter where Value == [Double] {
  /// Exactly `count` numbers; required unless it has a default.
  public init(_ name: String, count: Int, default value: [Double]? = nil, help: String) {
    self.init(spec: ParameterSpec(name, .numbers(count: count), default: value.map(ParameterValue.numbers), help: help))
  }

  /// Between `counts.lowerBound` and `counts.upperBound` numbers; required unless `optional`.
  public init(_ name: String, counts: ClosedRange<Int>, optional: Bool = false, help: String) {
    self.init(spec: ParameterSpec(name, .numberList(counts: counts), optional: optional, help: help))
  }
}

extension Parameter where Value == String {
  /// A file path (required).
  public init(path name: String, help: String) {
    self.init(spec: ParameterSpec(name, .path, help: help))
  }
  /// Free text; required unless it has a default or is optional.
  public init(text name: String, default value: String? = nil, optional: Bool = false, help: String) {
    self.init(spec: ParameterSpec(name, .text, default: value.map(ParameterValue.text), optional: optional, help: help))
  }
  /// Another image of the recipe, by name (required; the compiler passes it as an input image).
  public init(image name: String, help: String) {
    self.init(spec: ParameterSpec(name, .image, help: help))
  }
  /// One of `words`; required unless it has a default.
  public init(_ name: String, words: [String], default value: String? = nil, help: String) {
    self.init(spec: ParameterSpec(name, .choice(words), default: value.map(ParameterValue.choice), help: help))
  }
}

extension Parameter where Value: ParameterChoice {
  /// One of `cases` (every case by default), written as their `recipeWord`s; required unless it
  /// has a default.
  public init(_ name: String, cases: [Value] = Array(Value.allCases), default value: Value? = nil, help: String) {
    self.init(spec: ParameterSpec(name, .choice(cases.map(\.recipeWord)), default: value.map(\.parameterValue), help: help))
  }
}
