// Renderer+Memory.swift — how many bytes a render of an image may hold at once, known before it
// starts, so a caller running several renders side by side (fgrun's batches) can keep their sum
// within a budget.
//
// A render runs in phases, one after another: the render of each analysis's view (a held blur's
// reduction, then its blur; a histogram's view), then the output's. The estimate is an upper
// bound of what writing the image holds of its own, from the graph alone (no decode, no
// analysis; rendering into a buffer adds the buffer), the sum of:
//
//   held       Σ held intermediates (a large blur's two reduced copies, an analysed operation's
//              small computed input: Renderer.heldInputSpace): height × row bytes
//              (16 a pixel, rows aligned), kept until the render ends
//   decoded    Σ distinct encoded sources decoded whole and not in the decode cache yet: their
//              decoded rows (the cache keeps them), and what their decoders hold while they
//              decode (`ImageHeader.decoderHeldBytes`: a GIF's screen under its frames)
//   window     the most rows of streamed sources any phase holds: Σ over the sources it
//              streams of the ring of rows, from the same rule and the same plan as that
//              phase's render (`streamedReads`, `renderPlan(for:analysis:rendering:)`), and
//              what their decoders hold (`ImageHeader.decoderHeldBytes`)
//   tiles      the most pooled tile memory any phase holds: threads (one for a sequential
//              plan) × the most one tile's evaluation holds (below), plus, in the output's
//              phase, the bands in flight: bandsInFlight(plan) × band height × output width × 16
//              (counted at float size whatever the output format). An analysis's phase holds
//              no bands: each tile is reduced as it finishes.
//
// (Phases run one after another, so taking the largest window and the largest tiles of any
// phases over-counts by at most the smaller of the two; each part can then be checked against
// what the renderer counts: `AnalysisCache.retainedBytes`, `DecodeStatistics.bytesHeld` and
// `largestStreamedWindowBytes`, `TileMemoryPool.peakBytesInUse`.)
//
// One tile's evaluation is followed as TileEvaluator runs it, without computing anything: while
// a node pulls an input it holds the tiles of the inputs it already pulled; then it holds its
// inputs, its output and one more block the size of its largest input (an operation's scratch,
// such as a separable blur's intermediate rows); a request reaching outside a node's extent is a
// copy beside the computed part; tiles of nodes read twice are kept for the whole tile; an operation
// taking a large input in bands holds its output, its scratch and one band's evaluation. Each
// block is counted as the tile pool counts it (its size class). The worst of five tiles (the
// grid's corners and centre) stands for all.
//
// The estimate does not know the output's format: a job (`PreparedRenderJob.estimatedMemory`)
// adds what its encoder holds of its own, which is the whole picture and more for libwebp,
// libheif and the GIF quantiser (`ImageCodec.encoderHeldBytes`).
//
// What a render shares with others — sources already cached, such as a batch's watermark; the
// analysis results kept from earlier renders; the tile pool's idle blocks (at most 32 MB) — is
// not counted: each has its own byte limit.

import ImageCodecs
import PixelBufferModule

extension Renderer {
  /// An upper bound, in bytes, of what writing `image` holds at once besides what the decode
  /// cache holds now (see Renderer+Memory.swift); `Int.max` for a graph over `GraphLimits`, which
  /// no render accepts.
  public func estimatedMemory(for image: Image) -> Int {
    guard (try? GraphLimits.check(image.node, maxPixels: options.maxPixels)) != nil else { return .max }
    return memoryEstimate(for: image).total
  }

  /// The parts of `estimatedMemory(for:)`.
  func memoryEstimate(for image: Image) -> MemoryEstimate {
    let image = scheduled(image)
    var estimate = MemoryEstimate()
    var cut = HeldInputsCut()
    var seen: Set<ObjectIdentifier> = []
    var pending = [image.node]
    while let node = pending.popLast() {
      guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
      pending.append(contentsOf: node.inputs)
      guard let analysed = node.operation.asAnalysed, let input = node.inputs.first else { continue }
      let analysis = analysed.analysis
      var read = cut.node(input)
      if Self.heldInputSpace(of: analysed, input: input) != nil {
        // The held copy's own render, then the copy, which the view and the tiles read.
        addPhase(read, analysis: true, to: &estimate)
        estimate.held = Self.saturated(estimate.held, plus: Self.floatBytes(input.info.size))
        read = ImageNode(operation: HeldStandIn(info: input.info), inputs: [])
      }
      let view = Self.view(of: Image(node: read), analysis.view, space: analysis.workingSpace)
      addPhase(view.node, analysis: true, to: &estimate)
      if node.operation is HeldInputOperation {
        estimate.held = Self.saturated(estimate.held, plus: Self.floatBytes(input.info.size))
      }
    }
    addPhase(cut.node(image.node), analysis: false, to: &estimate)
    return estimate
  }

  /// Adds one phase, a render of `node` (of an analysis's view, or the output's).
  private func addPhase(_ node: ImageNode, analysis: Bool, to estimate: inout MemoryEstimate) {
    let root = optimized(Image(node: node))
    // The default rendering: only a CMYK file decodes differently (and is cached apart) for
    // another intent, and the estimate is made before the caller's write options are known.
    let rendering = ColorRendering()
    let plan = renderPlan(for: root, analysis: analysis, rendering: rendering)
    let grid = plan.grid
    if grid.size.isEmpty { return }
    var window = 0
    for source in plan.nodes {
      guard let encoded = source.operation as? EncodedSourceOperation else { continue }
      let region = sourceRegion(encoded, node: source, plan: plan, rendering: rendering)
      let area = region ?? source.info.extent
      let rowBytes = PixelBuffer.alignedRowBytes(
        width: area.width, format: PixelFormat(layout: source.info.layout, component: source.info.component))
      let decoderBytes = encoded.source.header.decoderHeldBytes
      if let reads = streamedReads(encoded, node: source, plan: plan, area: area, rendering: rendering) {
        let rows = Self.saturated(max(1, min(reads.window, area.height)), times: [rowBytes])
        window = Self.saturated(window, plus: Self.saturated(rows, plus: decoderBytes))
        continue
      }
      let key = encoded.identity(rendering) + (region.map { "@\($0)" } ?? "")
      if !cache.contains(key), estimate.decodedSources.insert(key).inserted {
        let rows = Self.saturated(area.height, times: [rowBytes])
        estimate.decoded = Self.saturated(estimate.decoded, plus: Self.saturated(rows, plus: decoderBytes))
      }
    }
    // A sequential plan evaluates one tile at a time.
    var tiles = Self.saturated(plan.isSequential ? 1 : options.threads, times: [Self.tileFootprint(plan)])
    if !analysis {
      tiles = Self.saturated(tiles, plus: Self.saturated(bandsInFlight(plan), times: [grid.tileSize.height, grid.size.width, 16]))
    }
    estimate.window = max(estimate.window, window)
    estimate.tiles = max(estimate.tiles, tiles)
  }

  /// The most pooled bytes one tile of `plan` holds while it is evaluated (see the file comment):
  /// the worst of the grid's corner and centre tiles.
  static func tileFootprint(_ plan: RenderPlan) -> Int {
    let grid = plan.grid
    let across = grid.tilesAcross, bands = grid.bandCount
    let picks = [(0, 0), (across - 1, 0), (0, bands - 1), (across - 1, bands - 1), (across / 2, bands / 2)]
    return picks.map { column, band in
      var footprint = TileFootprint(plan: plan)
      let peak = footprint.evaluate(plan.root, grid.tile(column, ofBand: band))
      return saturated(peak, plus: footprint.memoBytes)
    }.max()!
  }

  /// The bytes of a float premultiplied RGBA buffer of `size` (rows aligned as allocated).
  static func floatBytes(_ size: Size) -> Int {
    saturated(PixelBuffer.alignedRowBytes(width: size.width, format: .rgbaFloatPremultiplied), times: [size.height])
  }

  /// `a + b`, or `Int.max` when that overflows.
  static func saturated(_ a: Int, plus b: Int) -> Int {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? .max : sum
  }

  /// `a × factors`, or `Int.max` when that overflows (a caller's tile height or band count can be
  /// anything).
  static func saturated(_ a: Int, times factors: [Int]) -> Int {
    factors.reduce(a) { product, factor in
      let (p, overflow) = product.multipliedReportingOverflow(by: factor)
      return overflow ? .max : p
    }
  }
}

/// The parts of a render's memory estimate (see Renderer+Memory.swift).
struct MemoryEstimate {
  /// Held intermediates.
  var held = 0
  /// Sources decoded whole.
  var decoded = 0
  /// The most rows of streamed sources one phase holds.
  var window = 0
  /// The most pooled tile memory (tiles being evaluated, bands in flight) one phase holds.
  var tiles = 0
  /// The sources (and regions of sources) counted in `decoded`.
  var decodedSources: Set<String> = []

  /// The estimate: the sum of the parts.
  var total: Int { [decoded, window, tiles].reduce(held) { Renderer.saturated($0, plus: $1) } }
}

/// The graph with each `HeldInputOperation` replaced by its operation reading a stand-in for the
/// held pixels, and each analysed operation whose input is held reading one: what the phases
/// after the held copy's own render read (nothing below it).
private struct HeldInputsCut {
  private var done: [ObjectIdentifier: ImageNode] = [:]

  /// `node` with every held input below it cut (nodes shared stay shared).
  mutating func node(_ node: ImageNode) -> ImageNode {
    if let hit = done[ObjectIdentifier(node)] { return hit }
    var result = node
    if let held = node.operation as? HeldInputOperation, let input = node.inputs.first {
      result = ImageNode(operation: held.operation, inputs: [ImageNode(operation: HeldStandIn(info: input.info), inputs: [])])
    } else if let analysed = node.operation.asAnalysed, let input = node.inputs.first,
      Renderer.heldInputSpace(of: analysed, input: input) != nil
    {
      result = ImageNode(operation: node.operation, inputs: [ImageNode(operation: HeldStandIn(info: input.info), inputs: [])])
    } else {
      let inputs = node.inputs.map { self.node($0) }
      if zip(inputs, node.inputs).contains(where: { $0 !== $1 }) { result = ImageNode(operation: node.operation, inputs: inputs) }
    }
    done[ObjectIdentifier(node)] = result
    return result
  }
}

/// Stands for a held intermediate in an estimate: an image of `info` already in memory (counted
/// as lasting), which no phase decodes. Never rendered.
private struct HeldStandIn: SourceOperation {
  let info: ImageInfo

  var descriptor: OperationDescriptor { HeldPixelsSource.table }
  var arguments: Arguments { Arguments([("size", .size(info.size))]) }
  var identity: String { "held stand-in" }
  var isResident: Bool { true }

  func outputInfo(inputs: [ImageInfo]) -> ImageInfo { info }

  func decodePixels() throws -> PixelBuffer? { nil }
}

/// The bytes one tile's evaluation holds, following TileEvaluator without computing pixels (see
/// Renderer+Memory.swift).
private struct TileFootprint {
  let plan: RenderPlan
  /// Regions of nodes read twice already counted, which the evaluator keeps for the whole tile.
  private var memo: Set<TileEvaluator.MemoKey> = []
  /// Their bytes.
  private(set) var memoBytes = 0

  init(plan: RenderPlan) { self.plan = plan }

  /// The pool's count for a float tile of `rect` (its size class; small blocks as they are).
  static func bytes(_ rect: Rect) -> Int {
    let n = Renderer.saturated(PixelBuffer.alignedRowBytes(width: rect.width, format: .rgbaFloatPremultiplied), times: [rect.height])
    return n >= TileMemoryPool.minimumPooled && n < Int.max / 2 ? TileMemoryPool.sizeClass(n) : n
  }

  /// The most held while evaluating `rect` of `node`, its result included.
  mutating func evaluate(_ node: ImageNode, _ rect: Rect) -> Int {
    let inside = Regions.computed(rect, extent: node.info.extent)
    let peak = compute(node, inside)
    return inside == rect ? peak : max(peak, Renderer.saturated(Self.bytes(inside), plus: Self.bytes(rect)))
  }

  private mutating func compute(_ node: ImageNode, _ rect: Rect) -> Int {
    if plan.consumerCount[ObjectIdentifier(node), default: 0] > 1 {
      // The space is not known here: one entry per region stands for the evaluator's per space.
      guard memo.insert(TileEvaluator.MemoKey(node: ObjectIdentifier(node), rect: rect, space: .linear)).inserted else { return 0 }
      memoBytes = Renderer.saturated(memoBytes, plus: Self.bytes(rect))
    }
    let op = node.operation
    if op.asSource != nil { return Self.bytes(rect) }
    if op.asPositionalPoint != nil { return evaluate(node.inputs[0], rect) }
    if op is any BandedInputReader, node.inputs.count == 1 {
      let region = Regions.input(0, of: node, for: rect)
      if TileEvaluator.pixels(in: region) > TileEvaluator.largestWholeInput {
        // The output, the first pass's sums and their transposed copy (each a band's width × the
        // output's height), and the evaluation of one band with a memo of its own.
        let bandRect = Rect(x: region.x, y: region.y, width: region.width, height: TileEvaluator.bandRows(forWidth: region.width))
        var band = TileFootprint(plan: plan)
        let bandPeak = Renderer.saturated(band.evaluate(node.inputs[0], bandRect), plus: band.memoBytes)
        let scratch = Self.bytes(Rect(x: 0, y: 0, width: region.width, height: rect.height))
        return Renderer.saturated(bandPeak, plus: Renderer.saturated(Self.bytes(rect), plus: Renderer.saturated(scratch, times: [2])))
      }
    }
    var held = 0, peak = 0, largest = 0
    for i in node.inputs.indices {
      let region = Regions.input(i, of: node, for: rect)
      peak = max(peak, Renderer.saturated(held, plus: evaluate(node.inputs[i], region)))
      held = Renderer.saturated(held, plus: Self.bytes(region))
      largest = max(largest, Self.bytes(region))
    }
    return max(peak, Renderer.saturated(held, plus: Renderer.saturated(Self.bytes(rect), plus: largest)))
  }
}
