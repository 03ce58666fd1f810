// FilterDefinition.swift — a filter as recipes, `fgrun filters` and the docs know it.
//
// Each operation file declares its parameters once, as the properties of a `FilterParameters`
// struct (FilterParameters.swift), and its table from them (`OperationDescriptor`); a
// `FilterDefinition` checks a recipe line's arguments against that table, decodes them into the
// struct and applies it. Each folder lists its definitions (`ResampleFilters.all`, …) and
// `FilterRegistry` joins the lists. The recipe compiler calls `apply` — the same Swift methods
// users call — so a recipe and Swift code build the very same graph.

import Foundation
import PixelBufferModule

/// What a filter's `apply` may need besides its arguments.
public struct FilterContext: Sendable {
  /// The folder relative paths (`load path=logo.png`) are resolved against.
  public var baseDirectory: URL
  /// How files named in recipes are loaded.
  public var loadOptions: LoadOptions
  /// True while a source verb (`text`) is applied with no image to measure: the recipe runs
  /// without an input and the line names no `of=` image. Sizes relative to that image are then
  /// an error, not a guess.
  public var measuredImageIsAbsent = false

  /// Creates a context.
  public init(baseDirectory: URL, loadOptions: LoadOptions = LoadOptions()) {
    self.baseDirectory = baseDirectory
    self.loadOptions = loadOptions
  }

  /// `path` resolved against `baseDirectory` unless absolute.
  public func resolve(_ path: String) -> URL {
    path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
  }
}

/// A recipe verb: its parameter table and how to apply it to input images.
public struct FilterDefinition: Sendable {
  /// Name, summary, parameter table, example.
  public let descriptor: OperationDescriptor
  private let body: @Sendable (_ inputs: [Image], _ arguments: FilterArguments, _ context: FilterContext) throws -> Image

  /// Creates a definition whose table is `Parameters.table`. `apply` receives
  /// `descriptor.inputCount` images (the chain's current image first, then named images; then the
  /// reference image, when the table `measuresAgainstReference` and one is named) and the recipe
  /// line's arguments decoded into `Parameters`.
  public init<Parameters: FilterParameters>(
    _ descriptor: OperationDescriptor, reading: Parameters.Type,
    apply: @escaping @Sendable (_ inputs: [Image], _ parameters: Parameters, _ context: FilterContext) throws -> Image
  ) {
    precondition(descriptor.parameters == Parameters.table, "\(descriptor.name)'s table is not its parameters' table")
    self.descriptor = descriptor
    self.body = { inputs, arguments, context in try apply(inputs, Parameters(checking: arguments), context) }
  }

  /// Creates a definition whose table is `Parameters.table` followed by rows other tables
  /// declare (`load`'s codec decode options): `apply` also receives the checked values of the
  /// whole table, by name.
  init<Parameters: FilterParameters>(
    _ descriptor: OperationDescriptor, reading: Parameters.Type,
    apply: @escaping @Sendable (_ inputs: [Image], _ parameters: Parameters, _ values: Arguments, _ context: FilterContext) throws -> Image
  ) {
    precondition(descriptor.parameters.starts(with: Parameters.table), "\(descriptor.name)'s table does not start with its parameters' table")
    self.descriptor = descriptor
    self.body = { inputs, arguments, context in try apply(inputs, Parameters(checking: arguments), arguments.values, context) }
  }

  /// Builds the filtered image from `arguments` (name, value) pairs: each value is checked against
  /// its row (kind, then the one clamp), omitted rows take their defaults.
  ///
  /// - Throws: `FilterError` when a name is not in the table, a value is of the wrong kind, a
  ///   required parameter is missing or `inputs` has the wrong count; any error the filter throws.
  public func apply(_ inputs: [Image], _ arguments: Arguments, _ context: FilterContext) throws -> Image {
    let counts = descriptor.measuresAgainstReference ? descriptor.inputCount...descriptor.inputCount + 1 : descriptor.inputCount...descriptor.inputCount
    guard counts.contains(inputs.count) else {
      throw FilterError("\(descriptor.name) takes \(descriptor.inputCount) input images, \(inputs.count) given.")
    }
    return try body(inputs, FilterArguments(checking: arguments, against: descriptor), context)
  }
}

/// The arguments of one filter call, checked against its table: every row has a value here
/// except optional rows that were not given.
struct FilterArguments: Sendable {
  /// The checked values in table order: the filter's cache-key spelling.
  let values: Arguments

  /// Checks `arguments` against `descriptor` (see `FilterDefinition.apply`).
  init(checking arguments: Arguments, against descriptor: OperationDescriptor) throws {
    let name = descriptor.name
    for (key, _) in arguments.values where descriptor.parameter(named: key) == nil {
      throw FilterError("\(name) has no parameter '\(key)'.")
    }
    var checked: [(String, ParameterValue)] = []
    for spec in descriptor.parameters {
      if let value = arguments[spec.name] {
        guard spec.accepts(value) else {
          throw FilterError("\(name): \(spec.name)=\(value) is not a \(spec.kind.typeName).")
        }
        checked.append((spec.name, spec.clamped(value)))
      } else if let fallback = spec.defaultValue {
        checked.append((spec.name, fallback))
      } else if spec.isRequired {
        throw FilterError("\(name) needs \(spec.name)= (\(spec.kind.typeName)).")
      }
    }
    self.values = Arguments(checked)
  }
}
