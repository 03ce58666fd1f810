// ImageNode.swift — one immutable node of the recipe graph.

import Locking
import PixelBufferModule

/// A node of the recipe graph: an operation applied to input nodes.
///
/// Nodes are immutable and shared: two `Image` values built from the same photo share its source
/// node, which is how the renderer knows to decode it once.
public final class ImageNode: @unchecked Sendable {  // `inputs` is written only by deinit, when no other reference is left
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
  /// and inputs), whatever object they are. An input's key longer than `longestSpelledKey`
  /// characters stands as its SHA-256 digest, so a key is at most its label and a digest per
  /// input long: spelled out in full, the keys of a graph that reuses its images
  /// (`nK = blend nK-1 nK-2`) double at every step. Computed on first use, inputs first without
  /// recursion, and kept: renders on several threads may share a node (a watermark), so the
  /// kept key is read and written under a lock.
  public var structuralKey: String {
    if let key = cachedKey.withLock({ $0 }) { return key }
    var stack: [(node: ImageNode, expanded: Bool)] = [(self, false)]
    while let (node, expanded) = stack.popLast() {
      if node.cachedKey.withLock({ $0 }) != nil { continue }
      let missing = node.inputs.filter { $0.cachedKey.withLock({ $0 }) == nil }
      if expanded || missing.isEmpty {
        let key = node.spelledKey()
        node.cachedKey.withLock { $0 = key }
      } else {
        stack.append((node, true))
        stack.append(contentsOf: missing.map { ($0, false) })
      }
    }
    return cachedKey.withLock { $0 } ?? spelledKey()
  }

  /// The longest input key spelled out inside a key; longer ones stand as their digest.
  static let longestSpelledKey = 512

  /// This node's key from its inputs' kept keys.
  private func spelledKey() -> String {
    var key = label
    if let source = operation.asSource { key += " #" + source.identity }
    if inputs.isEmpty { return key }
    let parts = inputs.map { input -> String in
      let inner = input.structuralKey
      return inner.utf8.count > Self.longestSpelledKey ? "sha256:" + sha256Hex(inner.utf8) : inner
    }
    return key + " (" + parts.joined(separator: ", ") + ")"
  }

  private let cachedKey = Locked<String?>(nil)
}
