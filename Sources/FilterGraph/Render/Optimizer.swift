// Optimizer.swift — rewrites a graph before it runs; every rewrite keeps the pixels the same
// (shrink-on-load keeps them within a stated PSNR; see the tests).
//
// Passes, in order:
//  1. identical subgraphs share one node (common-subexpression elimination);
//  2. consecutive orient operations combine into one (rotate ×4 disappears);
//  3. a downscale of a JPEG source (through any orient) decodes the JPEG at 1/2, 1/4 or 1/8
//     size, keeping at least twice the target size, and resamples only the rest;
//  4. chains of per-pixel operations fuse into one pass; colour matrices multiply together.

import PixelBufferModule

/// An operation that resamples to a target size, which the optimizer can feed from a
/// reduced-size decode.
public protocol ResampleOperation: ImageOperation {
  /// The output size (the input may shrink under it: the operation rescales from whatever it gets).
  var targetSize: Size { get }
  /// False when the user asked for exact full-resolution sampling.
  var allowsShrinkOnLoad: Bool { get }
}

/// Options for the optimizer.
public struct OptimizerOptions: Hashable, Sendable {
  /// Decode JPEGs at reduced size when the graph scales them down (default true).
  public var shrinkOnLoad = true
  /// Fuse per-pixel chains (default true).
  public var fusePointOperations = true

  /// Creates options.
  public init(shrinkOnLoad: Bool = true, fusePointOperations: Bool = true) {
    self.shrinkOnLoad = shrinkOnLoad
    self.fusePointOperations = fusePointOperations
  }
}

/// The rewrites applied before rendering.
public enum Optimizer {
  /// The optimized graph for `root`.
  public static func optimize(_ root: ImageNode, options: OptimizerOptions = OptimizerOptions()) -> ImageNode {
    var node = eliminateCommonSubgraphs(root)
    node = combineOrientations(node)
    if options.shrinkOnLoad { node = shrinkOnLoad(node) }
    if options.fusePointOperations { node = fusePointOperations(node) }
    return eliminateCommonSubgraphs(node)
  }

  /// Rebuilds the graph bottom-up with `transform` applied to each node (inputs first).
  static func rewrite(_ root: ImageNode, _ transform: (ImageNode) -> ImageNode) -> ImageNode {
    var done: [ObjectIdentifier: ImageNode] = [:]
    func visit(_ node: ImageNode) -> ImageNode {
      if let d = done[ObjectIdentifier(node)] { return d }
      let inputs = node.inputs.map(visit)
      let rebuilt = zip(inputs, node.inputs).allSatisfy({ $0 === $1 }) ? node : ImageNode(operation: node.operation, inputs: inputs)
      let result = transform(rebuilt)
      done[ObjectIdentifier(node)] = result
      return result
    }
    return visit(root)
  }

  static func eliminateCommonSubgraphs(_ root: ImageNode) -> ImageNode {
    var byKey: [String: ImageNode] = [:]
    return rewrite(root) { node in
      if let existing = byKey[node.structuralKey] { return existing }
      byKey[node.structuralKey] = node
      return node
    }
  }

  static func combineOrientations(_ root: ImageNode) -> ImageNode {
    rewrite(root) { node in
      guard let outer = node.operation as? OrientOperation else { return node }
      guard let inner = node.inputs[0].operation as? OrientOperation else {
        return outer.transform == OrientTransform(.up) ? node.inputs[0] : node
      }
      let both = inner.transform.followed(by: outer.transform)
      let below = node.inputs[0].inputs[0]
      return both == OrientTransform(.up) ? below : ImageNode(operation: OrientOperation(both), inputs: [below])
    }
  }

  static func shrinkOnLoad(_ root: ImageNode) -> ImageNode {
    rewrite(root) { node in
      guard let resample = node.operation as? any ResampleOperation, resample.allowsShrinkOnLoad else { return node }
      // Walk down through orientations to a full-size source whose codec decodes at reduced sizes.
      var chain: [ImageNode] = []
      var cursor = node.inputs[0]
      var swapped = false
      while let orient = cursor.operation as? OrientOperation {
        chain.append(cursor)
        if orient.transform.swapsAxes { swapped.toggle() }
        cursor = cursor.inputs[0]
      }
      guard let source = cursor.operation as? EncodedSourceOperation, source.scaleDenominator == 1,
        !source.source.reducedScaleDenominators.isEmpty
      else { return node }
      let target = swapped ? resample.targetSize.transposed : resample.targetSize
      var chosen = 1
      for d in source.source.reducedScaleDenominators.sorted(by: >) {
        let s = source.source.decodedSize(scaleDenominator: d)
        if s.width >= 2 * target.width && s.height >= 2 * target.height {
          chosen = d
          break
        }
      }
      guard chosen > 1 else { return node }
      var rebuilt = ImageNode(operation: EncodedSourceOperation(source: source.source, scaleDenominator: chosen), inputs: [])
      for orient in chain.reversed() { rebuilt = ImageNode(operation: orient.operation, inputs: [rebuilt]) }
      return ImageNode(operation: node.operation, inputs: [rebuilt] + node.inputs.dropFirst())
    }
  }

  static func fusePointOperations(_ root: ImageNode) -> ImageNode {
    let consumers = consumerCounts(root)
    var done: [ObjectIdentifier: ImageNode] = [:]
    func visit(_ node: ImageNode) -> ImageNode {
      if let d = done[ObjectIdentifier(node)] { return d }
      let result: ImageNode
      if let point = node.operation as? any PointOperation {
        // Gather the run of point operations below that nothing else reads.
        var stages: [any PointOperation] = [point]
        var below = node.inputs[0]
        while let inner = below.operation as? any PointOperation, consumers[ObjectIdentifier(below), default: 0] == 1 {
          stages.insert(inner, at: 0)
          below = below.inputs[0]
        }
        result = ImageNode(operation: FusedPointOperation(stages: stages), inputs: [visit(below)])
      } else {
        let inputs = node.inputs.map(visit)
        result = zip(inputs, node.inputs).allSatisfy({ $0 === $1 }) ? node : ImageNode(operation: node.operation, inputs: inputs)
      }
      done[ObjectIdentifier(node)] = result
      return result
    }
    return visit(root)
  }

  /// How many nodes read each node (the root counts as read once).
  static func consumerCounts(_ root: ImageNode) -> [ObjectIdentifier: Int] {
    var counts: [ObjectIdentifier: Int] = [ObjectIdentifier(root): 1]
    var seen: Set<ObjectIdentifier> = []
    func visit(_ node: ImageNode) {
      guard seen.insert(ObjectIdentifier(node)).inserted else { return }
      for input in node.inputs {
        counts[ObjectIdentifier(input), default: 0] += 1
        visit(input)
      }
    }
    visit(root)
    return counts
  }
}
