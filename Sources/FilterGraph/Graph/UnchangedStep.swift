// UnchangedStep.swift — a step kept in the graph as it was written, although it changes nothing.
//
// A filter method whose request comes to nothing on this image (a `smartcrop` window as large as
// the whole image, once clamped to it) would return its input, and the step would vanish from
// `explain`'s graph "as written". Instead it returns the input under an `UnchangedStepOperation`
// labelled as the step was written: explain shows it, with its warning, the renderer reports the
// warning, and the optimizer removes the node (a `FoldingOperation` that is an identity), so the
// pixels are the input's, untouched.

import PixelBufferModule

/// The step `descriptor arguments`, as written, over an input it leaves unchanged; `warning` says
/// why it changes nothing, given the input's size.
public struct UnchangedStepOperation: FoldingOperation, WarningOperation {
  /// The table of the step as written (its name and parameters).
  public let descriptor: OperationDescriptor
  /// The arguments as written.
  public let arguments: Arguments
  /// Why the step changes nothing on an input of a size, or nil when it needs no saying.
  let explanation: @Sendable (Size) -> String?

  /// Creates the marker of a step (`descriptor`, `arguments`) whose `explanation` of an input's
  /// size says what became of it.
  public init(
    _ descriptor: OperationDescriptor, arguments: Arguments, explanation: @escaping @Sendable (Size) -> String?
  ) {
    self.descriptor = descriptor
    self.arguments = arguments
    self.explanation = explanation
  }

  public var workingSpace: WorkingSpace? { nil }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    // Only runs when the optimizer is off: the input's pixels, shared.
    output.buffer = inputs[0].buffer
  }

  public func folded(after inner: any ImageOperation) -> (any ImageOperation)? { nil }
  public var isIdentity: Bool { true }

  public func warning(inputs: [ImageInfo]) -> String? { explanation(inputs[0].size) }
}
