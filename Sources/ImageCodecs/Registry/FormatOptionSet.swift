// FormatOptionSet.swift — a codec's options as a typed struct, each field bound to a table row.
//
// A codec's encode options are a Swift struct (`JPEGEncodeOptions`, `WebPEncodeSettings`…) whose
// `init()` holds the defaults. Its `fields` bind each row of the codec's option table to one stored
// property by key path, as libvips binds each argument of an operation to a field of its struct:
// a row is the option's name, kind, help and key path, and its default is read from `init()`. The
// codec's table is `fields.map(\.option)`, and `init(_:)` sets each field from the values a caller
// gave (checked against that table). Name, range, default and help are each written once.

/// A codec's options as a typed struct whose `fields` are its option table.
public protocol FormatOptionSet: Equatable, Sendable {
  /// The defaults (each row's default in the table).
  init()
  /// One field per table row, in the table's order.
  static var fields: [FormatField<Self>] { get }
}

extension FormatOptionSet {
  /// The option table: one row per field, its default read from `init()`.
  public static var table: [FormatOption] { fields.map(\.option) }

  /// The options `values` (resolved by `table`) give; each value absent keeps its default.
  public init(_ values: ResolvedFormatOptions) {
    self.init()
    for field in Self.fields {
      if let value = values.values[field.option.name] { field.assign(&self, value) }
    }
  }

  /// The options `values` give, checked against `table`.
  ///
  /// - Throws: `CodecError(.invalidArgument)` for a value of the wrong kind or out of range.
  public init(_ values: FormatOptionValues) throws {
    self.init(try values.resolved(by: Self.table))
  }
}

/// One row of a codec's option table bound to a stored property of its options struct.
public struct FormatField<Root: FormatOptionSet>: Sendable {
  /// The table row.
  public let option: FormatOption
  /// Stores a value of the row's kind (already checked against the row) in its property.
  let assign: @Sendable (inout Root, FormatOptionValue) -> Void
  /// The property's value as a table value (nil: decided elsewhere); the row's default is
  /// `value(Root())`.
  public let value: @Sendable (Root) -> FormatOptionValue?

  private init(
    _ name: String, _ kind: FormatOptionKind, help: String, value: @escaping @Sendable (Root) -> FormatOptionValue?,
    assign: @escaping @Sendable (inout Root, FormatOptionValue) -> Void
  ) {
    option = FormatOption(name, kind, default: value(Root()), help: help)
    self.value = value
    self.assign = assign
  }

  /// An integer option in `range`; its default is `Root()`'s value.
  public static func integer(
    _ name: String, _ keyPath: WritableKeyPath<Root, Int> & Sendable, in range: ClosedRange<Int>, help: String
  ) -> FormatField {
    FormatField(name, .integer(range), help: help, value: { .integer($0[keyPath: keyPath]) }) {
      if case .integer(let v) = $1 { $0[keyPath: keyPath] = v }
    }
  }

  /// An integer option in `range` whose default (nil) is decided elsewhere, as `help` says.
  public static func integer(
    _ name: String, _ keyPath: WritableKeyPath<Root, Int?> & Sendable, in range: ClosedRange<Int>, help: String
  ) -> FormatField {
    FormatField(name, .integer(range), help: help, value: { $0[keyPath: keyPath].map { .integer($0) } }) {
      if case .integer(let v) = $1 { $0[keyPath: keyPath] = v }
    }
  }

  /// A real-number option in `range`; its default is `Root()`'s value.
  public static func number(
    _ name: String, _ keyPath: WritableKeyPath<Root, Double> & Sendable, in range: ClosedRange<Double>, help: String
  ) -> FormatField {
    FormatField(name, .number(range), help: help, value: { .number($0[keyPath: keyPath]) }) {
      if case .number(let v) = $1 { $0[keyPath: keyPath] = v }
    }
  }

  /// A `true`/`false` option; its default is `Root()`'s value.
  public static func boolean(_ name: String, _ keyPath: WritableKeyPath<Root, Bool> & Sendable, help: String) -> FormatField {
    FormatField(name, .boolean, help: help, value: { .boolean($0[keyPath: keyPath]) }) {
      if case .boolean(let v) = $1 { $0[keyPath: keyPath] = v }
    }
  }

  /// A choice of `words`, each standing for a value of the property; the default is the word of
  /// `Root()`'s value (none when no word stands for it, for example nil: decided elsewhere).
  public static func choice<Value: Equatable & Sendable>(
    _ name: String, _ keyPath: WritableKeyPath<Root, Value> & Sendable, _ words: [(word: String, value: Value)],
    help: String
  ) -> FormatField {
    FormatField(
      name, .choice(words.map(\.word)), help: help,
      value: { root in words.first { $0.value == root[keyPath: keyPath] }.map { .choice($0.word) } }
    ) { root, value in
      guard case .choice(let w) = value, let entry = words.first(where: { $0.word == w }) else { return }
      root[keyPath: keyPath] = entry.value
    }
  }

  /// A choice of `cases`, spelled by their raw values; the default is `Root()`'s case.
  public static func choice<Value: RawRepresentable & Equatable & Sendable>(
    _ name: String, _ keyPath: WritableKeyPath<Root, Value> & Sendable, _ cases: [Value], help: String
  ) -> FormatField where Value.RawValue == String {
    choice(name, keyPath, cases.map { (word: $0.rawValue, value: $0) }, help: help)
  }
}

/// The options of a codec that has none (GIF output, which is not written).
public struct NoFormatOptions: FormatOptionSet {
  public init() {}
  public static let fields: [FormatField<NoFormatOptions>] = []
}
