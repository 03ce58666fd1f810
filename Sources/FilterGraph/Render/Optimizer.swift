// Optimizer.swift — rewrites a graph before it runs; every rewrite keeps the pixels the same
// (shrink-on-load keeps them within a stated PSNR; see the tests).
//
// Passes, in order, each driven by a capability an operation adopts (Graph/Capabilities.swift):
//  1. identical subgraphs share one node (common-subexpression elimination);
//  2. folding operations merge with the one below (orientations compose; rotate ×4 disappears);
//  3. a downscale (`ResampleOperation`) of a source that decodes at reduced sizes
//     (`ReducibleSource`), through operations that commute with scaling, decodes it reduced,
//     keeping at least twice the target size, and resamples only the rest; at least the target
//     size only, when a strong low-pass (`LowPassOperation`: a blur of σ ≥ 2 output pixels) is
//     all that reads the downscale (`shrinkOnLoadUnderLowPass` states the rule);
//  4. chains of per-pixel operations fuse into one pass; colour matrices multiply together;
//  5. common-subexpression elimination again over the rewritten graph;
//  6. a resample that enlarges a computed image on some axis holds that input (`HeldInputOperation`):
//     every output tile reads a region of the input, overlapping its neighbours' by the kernel's
//     reach, and a strong enlargement (`scale size=65535x1; scale size=1x65535`: 1,024 bands, each
//     recomputing the 65535-pixel row below) would compute the same input pixels once per tile.

import PixelBufferModule

/// Options for the optimizer: which passes run (all by default).
public struct OptimizerOptions: Hashable, Sendable {
  /// Compute identical subgraphs once (default true).
  public var eliminateCommonSubgraphs = true
  /// Fold operations into the one below them: orientations compose (default true).
  public var foldOperations = true
  /// Decode sources at reduced size when the graph scales them down (default true).
  public var shrinkOnLoad = true
  /// Fuse per-pixel chains (default true).
  public var fusePointOperations = true
  /// Compute the input of an enlarging resample once, when it is not a source (default true).
  public var holdEnlargedInputs = true

  /// Creates options.
  public init(
    eliminateCommonSubgraphs: Bool = true, foldOperations: Bool = true, shrinkOnLoad: Bool = true,
    fusePointOperations: Bool = true, holdEnlargedInputs: Bool = true
  ) {
    self.eliminateCommonSubgraphs = eliminateCommonSubgraphs
    self.foldOperations = foldOperations
    self.shrinkOnLoad = shrinkOnLoad
    self.fusePointOperations = fusePointOperations
    self.holdEnlargedInputs = holdEnlargedInputs
  }

  /// No pass at all: the graph runs exactly as it was built.
  public static let none = OptimizerOptions(
    eliminateCommonSubgraphs: false, foldOperations: false, shrinkOnLoad: false, fusePointOperations: false,
    holdEnlargedInputs: false)
}

/// The rewrites applied before rendering.
public enum Optimizer {
  /// The optimized graph for `root`.
  public static func optimize(_ root: ImageNode, options: OptimizerOptions = OptimizerOptions()) -> ImageNode {
    var node = root
    if options.eliminateCommonSubgraphs { node = eliminateCommonSubgraphs(node) }
    if options.foldOperations { node = foldOperations(node) }
    if options.shrinkOnLoad { node = shrinkOnLoad(shrinkOnLoadUnderLowPass(node)) }
    if options.fusePointOperations { node = fusePointOperations(node) }
    if options.eliminateCommonSubgraphs { node = eliminateCommonSubgraphs(node) }
    if options.holdEnlargedInputs { node = holdEnlargedInputs(node) }
    return node
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

  static func foldOperations(_ root: ImageNode) -> ImageNode {
    rewrite(root) { node in
      guard let outer = node.operation.asFolding else { return node }
      let inner = node.inputs[0]
      guard inner.inputs.count == 1, let both = outer.folded(after: inner.operation) else {
        return outer.isIdentity ? inner : node
      }
      let below = inner.inputs[0]
      if let folded = both.asFolding, folded.isIdentity { return below }
      return ImageNode(operation: both, inputs: [below])
    }
  }

  static func shrinkOnLoad(_ root: ImageNode) -> ImageNode {
    rewrite(root) { shrunk($0, margin: 2) }
  }

  /// The σ, in the resample's output pixels, of the weakest Gaussian that lets a resample read
  /// only through it keep no margin (`shrinkOnLoadUnderLowPass`).
  static let lowPassSigmaWithoutMargin = 2.0

  /// Shrink-on-load with no margin (a reduced decode at least the target size, never enlarged)
  /// for a resample whose output only a `LowPassOperation` of σ ≥ `lowPassSigmaWithoutMargin`
  /// reads, directly or through windows of it (`WindowOperation`, `WindowChoosingOperation`)
  /// that nothing else reads. The margin of twice the target keeps the resample's own low-pass
  /// in charge of the frequencies between half the output's Nyquist limit and the limit
  /// (0.25–0.5 cycles per output pixel), where a reduced decode read at 1–2 pixels per output
  /// pixel differs from the full-size resample; a Gaussian of σ output pixels scales frequency f
  /// by exp(−2π²σ²f²), at most exp(−π²/8 · σ²) ≈ −43 dB over that band for σ = 2, so the
  /// difference is blurred away (the social card, blur σ 12 over a 1/4 decode instead of 1/2:
  /// PSNR stated in docs/Performance.md). Runs before analyses are resolved (`Renderer.scheduled`),
  /// so an analysis between the resample and the blur (smartcrop) sees the same reduced decode.
  static func shrinkOnLoadUnderLowPass(_ root: ImageNode) -> ImageNode {
    // Without a resample there is nothing to mark, and no node need be asked whether it is a
    // low pass or a window (each cast's first answer for a type scans every conformance record).
    guard containsResample(root) else { return root }
    let consumers = consumerCounts(root)
    var marked: Set<ObjectIdentifier> = []
    var seen: Set<ObjectIdentifier> = []
    func find(_ node: ImageNode) {
      guard seen.insert(ObjectIdentifier(node)).inserted else { return }
      if let lowPass = node.operation as? any LowPassOperation, lowPass.lowPassSigma >= lowPassSigmaWithoutMargin,
        node.inputs.count == 1
      {
        var below = node.inputs[0]
        while below.operation is any WindowOperation || below.operation is any WindowChoosingOperation,
          below.inputs.count == 1, consumers[ObjectIdentifier(below)] == 1
        {
          below = below.inputs[0]
        }
        if below.operation.asResample != nil, consumers[ObjectIdentifier(below)] == 1 { marked.insert(ObjectIdentifier(below)) }
      }
      node.inputs.forEach(find)
    }
    find(root)
    guard !marked.isEmpty else { return root }
    var done: [ObjectIdentifier: ImageNode] = [:]
    func visit(_ node: ImageNode) -> ImageNode {
      if let d = done[ObjectIdentifier(node)] { return d }
      let inputs = node.inputs.map(visit)
      var result = zip(inputs, node.inputs).allSatisfy({ $0 === $1 }) ? node : ImageNode(operation: node.operation, inputs: inputs)
      if marked.contains(ObjectIdentifier(node)) { result = shrunk(result, margin: 1) }
      done[ObjectIdentifier(node)] = result
      return result
    }
    return visit(root)
  }

  /// True when a node of the graph resamples.
  static func containsResample(_ root: ImageNode) -> Bool {
    var seen: Set<ObjectIdentifier> = []
    func visit(_ node: ImageNode) -> Bool {
      guard seen.insert(ObjectIdentifier(node)).inserted else { return false }
      return node.operation.asResample != nil || node.inputs.contains(where: visit)
    }
    return visit(root)
  }

  /// `node`, when it is a resample allowing it of a source that decodes reduced (through
  /// `ScaleCommutingOperation`s), reading the source decoded at the strongest reduction still at
  /// least `margin` times the target size (times the codec's own margin).
  static func shrunk(_ node: ImageNode, margin: Int) -> ImageNode {
    guard let resample = node.operation.asResample, resample.allowsShrinkOnLoad else { return node }
    // Walk down through operations that commute with scaling to a source that decodes reduced.
    var chain: [ImageNode] = []
    var cursor = node.inputs[0]
    var swapped = false
    while let step = cursor.operation as? any ScaleCommutingOperation, cursor.inputs.count == 1 {
      chain.append(cursor)
      if step.swapsAxes { swapped.toggle() }
      cursor = cursor.inputs[0]
    }
    let target = swapped ? resample.targetSize.transposed : resample.targetSize
    // A reduction ending in a partial block is taken when the resample reads the source
    // directly (it then maps positions as on the full image); an orientation between them
    // could move that block to the start of a side, so through one only whole reductions.
    guard let source = cursor.operation as? any ReducibleSource,
      let found = source.reduced(
        toAtLeast: Size(width: margin * target.width, height: margin * target.height), allowingPartialBlocks: chain.isEmpty)
    else { return node }
    var rebuilt = ImageNode(operation: found.source, inputs: [])
    for step in chain.reversed() { rebuilt = ImageNode(operation: step.operation, inputs: [rebuilt]) }
    let full = node.inputs[0].info.size, size = rebuilt.info.size
    var operation = node.operation
    if let d = found.blocks, chain.isEmpty, size.width * d != full.width || size.height * d != full.height {
      operation = resample.reading(full, reducedBy: d)
    }
    return ImageNode(operation: operation, inputs: [rebuilt] + node.inputs.dropFirst())
  }

  /// The most pixels an enlarged input is held with (64 MiB of float pixels).
  static let largestHeldEnlargedInput = 1 << 22

  static func holdEnlargedInputs(_ root: ImageNode) -> ImageNode {
    rewrite(root) { node in
      guard let resample = node.operation.asResample, node.inputs.count == 1,
        let input = node.inputs.first, input.operation.asSource == nil
      else { return node }
      let from = input.info.size, to = resample.targetSize
      guard to.width >= 2 * from.width || to.height >= 2 * from.height,
        from.width * from.height <= largestHeldEnlargedInput
      else { return node }
      return ImageNode(operation: HeldInputOperation(operation: resample), inputs: [input])
    }
  }

  static func fusePointOperations(_ root: ImageNode) -> ImageNode {
    let consumers = consumerCounts(root)
    var done: [ObjectIdentifier: ImageNode] = [:]
    func visit(_ node: ImageNode) -> ImageNode {
      if let d = done[ObjectIdentifier(node)] { return d }
      let result: ImageNode
      if let point = node.operation.asPositionalPoint {
        // Gather the run of point operations below that nothing else reads.
        var stages: [any PositionalPointOperation] = [point]
        var below = node.inputs[0]
        while let inner = below.operation.asPositionalPoint, consumers[ObjectIdentifier(below), default: 0] == 1 {
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
