// ImageNode.swift — one immutable node of the recipe graph.

import PixelBufferModule

/// A node of the recipe graph: an operation applied to input nodes.
///
/// Nodes are immutable and shared: two `Image` values built from the same photo share its source
/// node, which is how the renderer knows to decode it once.
public final class ImageNode: @unchecked Sendable {
  /// What this node computes.
  public let operation: any ImageOperation
  /// The nodes it reads.
  public private(set) var inputs: [ImageNode]
  /// Size and format of its result.
  public let info: ImageInfo

  /// Creates a node; its info is computed from the inputs' now, before any pixel.
  public init(operation: any ImageOperation, inputs: [ImageNode]) {
    self.operation = operation
    self.inputs = inputs
    self.info = operation.outputInfo(inputs: inputs.map(\.info))
  }

  /// Releases the nodes below one at a time. The default release recurses once per node, and a
  /// chain of some tens of thousands of filters overflowed the stack when its last image was
  /// dropped; a node no one else holds gives its inputs to this loop before it goes.
  deinit {
    var pending = inputs
    inputs = []
    while var node = pending.popLast() {
      guard isKnownUniquelyReferenced(&node) else { continue }
      pending.append(contentsOf: node.inputs)
      node.inputs = []
    }
  }

  /// `name arg=value …` — how the node reads in `explain` output and in cache keys.
  public var label: String {
    let args = operation.arguments.description
    return args.isEmpty ? operation.descriptor.name : "\(operation.descriptor.name) \(args)"
  }

  /// A structural key: equal for nodes that compute the same pixels (same operation, arguments
  /// and inputs), whatever object they are.
  public private(set) lazy var structuralKey: String = {
    var key = label
    if let source = operation as? SourceOperation { key += " #" + source.identity }
    if !inputs.isEmpty { key += " (" + inputs.map(\.structuralKey).joined(separator: ", ") + ")" }
    return key
  }()
}
