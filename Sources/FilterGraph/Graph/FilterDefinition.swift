// FilterDefinition.swift — a filter as recipes, `fgrun filters` and the docs know it.
//
// Each operation file declares its parameter table once (`OperationDescriptor`) and a
// `FilterDefinition` that applies it from validated `Arguments`; each folder lists its
// definitions (`ResampleFilters.all`, …) and `FilterRegistry` joins the lists. The recipe
// compiler calls `apply` — the same Swift methods users call — so a recipe and Swift code build
// the very same graph.

import Foundation
import PixelBufferModule

/// What a filter's `apply` may need besides its arguments.
public struct FilterContext: Sendable {
  /// The folder relative paths (`load path=logo.png`) are resolved against.
  public var baseDirectory: URL
  /// How files named in recipes are loaded.
  public var loadOptions: LoadOptions

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
  /// Builds the filtered image. `inputs` holds `descriptor.inputCount` images (the chain's
  /// current image first, then named images); `arguments` holds every parameter of the table,
  /// defaults filled in and values range-checked.
  public let apply: @Sendable (_ inputs: [Image], _ arguments: Arguments, _ context: FilterContext) throws -> Image

  /// Creates a definition.
  public init(
    _ descriptor: OperationDescriptor,
    apply: @escaping @Sendable (_ inputs: [Image], _ arguments: Arguments, _ context: FilterContext) throws -> Image
  ) {
    self.descriptor = descriptor
    self.apply = apply
  }
}

extension Arguments {
  /// The number named `name` (0 when absent: the recipe compiler fills every default first).
  public func number(_ name: String) -> Double {
    if case .number(let v)? = self[name] { return v }
    return 0
  }
  /// The number named `name`, or nil when absent.
  public func optionalNumber(_ name: String) -> Double? {
    if case .number(let v)? = self[name] { return v }
    return nil
  }
  /// The whole number named `name`.
  public func integer(_ name: String) -> Int { Int(number(name).rounded()) }
  /// The size named `name`, or nil.
  public func size(_ name: String) -> Size? {
    if case .size(let v)? = self[name] { return v }
    return nil
  }
  /// The colour named `name` (opaque black when absent).
  public func color(_ name: String) -> Color {
    if case .color(let v)? = self[name] { return v }
    return .black
  }
  /// The word named `name` ("" when absent).
  public func choice(_ name: String) -> String {
    if case .choice(let v)? = self[name] { return v }
    return ""
  }
  /// The boolean named `name` (false when absent).
  public func bool(_ name: String) -> Bool {
    if case .boolean(let v)? = self[name] { return v }
    return false
  }
  /// The path named `name`, or nil.
  public func path(_ name: String) -> String? {
    if case .path(let v)? = self[name] { return v }
    return nil
  }
  /// The point named `name`, or nil.
  public func point(_ name: String) -> Point? {
    if case .point(let v)? = self[name] { return v }
    return nil
  }
}
