// FilterError.swift — a filter's refusal of arguments that are valid one by one but not together.

/// Thrown by a `FilterDefinition.apply` when its arguments cannot be applied together (for
/// example `scale` given both `factor=` and `fit=`, or none). The recipe compiler reports it at
/// the recipe line that applied the filter.
public struct FilterError: Error, CustomStringConvertible {
  /// A complete sentence for the user.
  public let message: String

  /// Creates an error with a user-facing message.
  public init(_ message: String) { self.message = message }

  /// The message.
  public var description: String { message }
}
