// StreamingPolicy.swift — which sources a render decodes in order, a window of rows at a time.
//
// A large source of a codec that streams rows is decoded on demand into a ring of rows
// (StreamingSource) when the graph reads it top to bottom: reached from the root by one path,
// and every band's reads lying within a window of rows smaller than the source. The window and
// each band's last row come from the regions the tiles will read (`Regions`), so a tile never
// asks for a row the ring has dropped. Everything else decodes fully, once, through the
// DecodeCache.
//
// Any window short of the whole height is worth streaming, not only a small one: besides holding
// fewer rows, a streamed source is decoded band by band while the workers compute the tiles of
// the bands already decoded, whereas a whole decode runs alone, on the calling thread, before any
// tile starts. (A 16:9 photo fit in 800 × 800 gives 450 output rows, whose band window of
// 4 × 64 rows reads 57 % of the source: decoded whole, its decode did not overlap its tiles.)
//
// A source whose codec decodes regions (TIFF) and of which the render reads only part (a crop,
// or the tiles of a crop) is decoded from that part alone (`sourceRegion`), streamed or whole.
//
// A strong reduction reads its whole input for each output tile, taking it in bands
// (`BandedInputReader`): band by band, each tile reads the source from its top to its bottom, and
// bands in flight side by side read far-apart rows, so no window short of the source serves them
// and the source would be decoded whole (a 260 KB 16383² PNG blurred and fit to 256 held 268 MB of
// rows). Such a render may instead run sequentially (`sequentialPlan`): bands one at a time, each
// one tile wide, so the source is read in the order one tile's evaluation reads it, and the
// window is the largest span between the lowest row a read needs and the last row decoded
// (`sequentialWindow`): the reduction's band, its kernel's reach and the operations' margins
// below it. It is chosen when it holds at least 16 × `streamingMinimumBytes` less than the
// parallel plan (64 MiB by default); its tiles then run on one worker at a time (same CPU time).

import ImageCodecs
import PixelBufferModule

extension Renderer {
  /// How many bands of tiles may be in flight at once: by default one per worker and one more, so
  /// a worker finding its band's tiles taken goes on to the next band while the oldest is handed
  /// to the sink. Each band costs its output rows and, for a streamed source, the decoded rows it
  /// reads (on the 24 MP photo, two workers: 2-3 MB less peak memory than two bands per worker,
  /// at the same times; docs/Performance.md).
  var bandWindow: Int { max(1, options.bandsInFlight ?? options.threads + 1) }

  /// The bands `plan` keeps in flight: `bandWindow`, or one for a sequential plan.
  func bandsInFlight(_ plan: RenderPlan) -> Int { plan.isSequential ? 1 : bandWindow }

  /// A streamed decoder for `source` (of `region` only, when given; CMYK converted with
  /// `rendering`) when the rules allow it (see `streamingMinimumBytes`).
  func streamingSource(
    _ source: EncodedSourceOperation, node: ImageNode, plan: RenderPlan, region: Rect?, rendering: ColorRendering
  ) throws -> StreamingSource? {
    let area = region ?? node.info.extent
    guard let reads = streamedReads(source, node: node, plan: plan, area: area, rendering: rendering),
      case let decoder = try source.source.startedDecoder(
        scaleDenominator: source.scaleDenominator, region: region, colorRendering: rendering)
    else { return nil }
    return try StreamingSource(
      decoder: decoder, capacity: reads.window, bandEnds: reads.bandEnds, origin: area.origin, name: source.source.name)
  }

  /// The window and band ends of a streamed decode of `area` of `source`, or nil when the rules
  /// decode it whole: its codec streams rows, it is at least `streamingMinimumBytes`, it is not
  /// cached (decoded with `rendering`), and the graph reads it in order (`streamingWindow`, or
  /// `sequentialWindow` for a sequential plan, whose decodes are not run ahead: no band ends).
  func streamedReads(
    _ source: EncodedSourceOperation, node: ImageNode, plan: RenderPlan, area: Rect, rendering: ColorRendering
  ) -> (window: Int, bandEnds: [Int])? {
    guard source.source.codec.streamsRows,
      area.width * area.height * node.info.layout.channelCount >= options.streamingMinimumBytes,
      !cache.contains(source.identity(rendering))
    else { return nil }
    if plan.isSequential { return sequentialWindow(plan, source: node, area: area).map { ($0, []) } }
    return streamingWindow(plan, source: node, area: area)
  }

  /// The plan a render of `root` runs: its grid (`tileGrid(for:bounded:)`), or, for an output's
  /// render (not an analysis's), the sequential plan when that holds at least 16 ×
  /// `streamingMinimumBytes` fewer bytes of decoded sources (see the file comment).
  func renderPlan(for root: ImageNode, analysis: Bool, rendering: ColorRendering) -> RenderPlan {
    let plan = RenderPlan(root: root, grid: tileGrid(for: root, bounded: analysis))
    let size = plan.grid.size
    guard !analysis, !size.isEmpty, plan.grid.tilesAcross > 1 || bandWindow > 1,
      plan.nodes.contains(where: { $0.operation is any BandedInputReader }),
      plan.nodes.contains(where: { ($0.operation as? EncodedSourceOperation)?.source.codec.streamsRows == true })
    else { return plan }
    let sequential = RenderPlan(
      root: root, grid: TileGrid(size: size, tileSize: Size(width: size.width, height: plan.grid.tileSize.height)), isSequential: true)
    let saving = sourceBytesHeld(plan, rendering: rendering) - sourceBytesHeld(sequential, rendering: rendering)
    return saving > 0 && saving >= Self.saturated(options.streamingMinimumBytes, times: [16]) ? sequential : plan
  }

  /// The bytes of decoded rows `plan`'s encoded sources hold: each streamed one's window, each
  /// other's decoded rows (of its region, or all of it).
  private func sourceBytesHeld(_ plan: RenderPlan, rendering: ColorRendering) -> Int {
    var total = 0
    for node in plan.nodes {
      guard let encoded = node.operation as? EncodedSourceOperation else { continue }
      let area = sourceRegion(encoded, node: node, plan: plan, rendering: rendering) ?? node.info.extent
      let rowBytes = PixelBuffer.alignedRowBytes(
        width: area.width, format: PixelFormat(layout: node.info.layout, component: node.info.component))
      let rows = streamedReads(encoded, node: node, plan: plan, area: area, rendering: rendering)?.window ?? area.height
      total = Self.saturated(total, plus: Self.saturated(rows, times: [rowBytes]))
    }
    return total
  }

  /// The rows of `area` of `source` a sequential plan (`RenderPlan.isSequential`) must hold at
  /// once, or nil when that is all of them. The reads are followed in the order one tile's
  /// evaluation makes them, band after band: down the only path to the source
  /// (`onlyPath`), each node asking its input for one region, except an operation taking a large
  /// input in bands (`BandedInputReader`, as `TileEvaluator` decides), which asks for each band
  /// of rows in turn. Rows are decoded up to the end of each read; the window is the largest span
  /// from a read's first row to the last row decoded so far. Nil too when no such operation takes
  /// its input in bands: the parallel plan's window serves those reads.
  func sequentialWindow(_ plan: RenderPlan, source: ImageNode, area: Rect) -> Int? {
    guard let path = Self.onlyPath(in: plan, to: source), plan.grid.tilesAcross == 1, area.height > 0 else { return nil }
    var decoded = Int.min, window = 0, banded = false
    func read(_ rect: Rect, step: Int) {
      let inside = Regions.computed(rect, extent: (step < path.count ? path[step].node : source).info.extent)
      guard step < path.count else {
        guard !inside.isEmpty else { return }
        decoded = max(decoded, inside.maxY - area.y)
        window = max(window, decoded - (inside.y - area.y))
        return
      }
      let (node, input) = path[step]
      let region = Regions.input(input, of: node, for: inside)
      guard node.operation is any BandedInputReader, node.inputs.count == 1,
        TileEvaluator.pixels(in: region) > TileEvaluator.largestWholeInput
      else { return read(region, step: step + 1) }
      let rows = TileEvaluator.bandRows(forWidth: region.width)
      banded = true
      for top in stride(from: region.y, to: region.maxY, by: rows) {
        read(Rect(x: region.x, y: top, width: region.width, height: min(rows, region.maxY - top)), step: step + 1)
      }
    }
    for b in 0..<plan.grid.bandCount { read(plan.grid.tile(0, ofBand: b), step: 0) }
    return banded && window < area.height ? max(window, 1) : nil
  }

  /// The part of `source` the render reads, when its codec decodes regions and that part is
  /// smaller than the whole: the union of what every tile of the grid reads of it, following
  /// the same regions the tiles will (`Regions.walk`). Nil: decode it all (or it is cached with
  /// `rendering`).
  func sourceRegion(_ source: EncodedSourceOperation, node: ImageNode, plan: RenderPlan, rendering: ColorRendering) -> Rect? {
    guard source.source.codec.decodesRegions, !cache.contains(source.identity(rendering)) else { return nil }
    let extent = node.info.extent, grid = plan.grid
    var read = Rect(x: 0, y: 0, width: 0, height: 0)
    for b in 0..<grid.bandCount {
      for t in 0..<grid.tilesAcross {
        Regions.walk(from: plan.root, grid.tile(t, ofBand: b)) { reader, input, region in
          let next = reader.inputs[input]
          if next === node { read = read.union(Regions.computed(region, extent: extent)) }
          return next !== node
        }
        if plan.root === node { read = read.union(Regions.computed(grid.tile(t, ofBand: b), extent: extent)) }
        if read == extent { return nil }
      }
    }
    return read.isEmpty ? nil : read
  }

  /// The rows of `source` a render must hold at once when it decodes rows of `area` (a part of
  /// it, or all of it) in order (`window`), and the row of `area` each band reads up to
  /// (`bandEnds`, for decoding ahead), or nil when the graph does not read it in order within a
  /// window smaller than the area's height.
  ///
  /// The rule: `source` is reached from the root by one path only (every node on it read once),
  /// and, following the regions the tiles will read, band `b` reads rows `lo[b]..<hi[b]`. With
  /// `W` bands in flight (band `b + W` starts only once band `b` is done), rows up to
  /// `max(hi[..<b+W])` may be decoded while band `b` still reads from `min(lo[b..<b+W])`: the
  /// window is the largest such span.
  func streamingWindow(_ plan: RenderPlan, source: ImageNode, area: Rect) -> (window: Int, bandEnds: [Int])? {
    guard let path = Self.onlyPath(in: plan, to: source) else { return nil }
    let grid = plan.grid, sourceHeight = area.height
    if grid.size.isEmpty || sourceHeight == 0 { return nil }
    let bandCount = grid.bandCount
    var lo = [Int](repeating: .max, count: bandCount), hi = [Int](repeating: .min, count: bandCount)
    for b in 0..<bandCount {
      for t in 0..<grid.tilesAcross {
        var rect = grid.tile(t, ofBand: b)
        for step in path {
          rect = Regions.input(step.input, of: step.node, for: Regions.computed(rect, extent: step.node.info.extent))
        }
        rect = Regions.computed(rect, extent: source.info.extent)
        lo[b] = min(lo[b], rect.y - area.y)
        hi[b] = max(hi[b], rect.maxY - area.y)
      }
    }
    let w = bandWindow
    var window = 0
    var highest = Int.min
    for b in 0..<min(w - 1, bandCount) { highest = max(highest, hi[b]) }
    for b in 0..<bandCount {
      if b + w - 1 < bandCount { highest = max(highest, hi[b + w - 1]) }
      let lowest = lo[b..<min(b + w, bandCount)].min()!
      window = max(window, highest - lowest)
    }
    guard window < sourceHeight else { return nil }
    return (max(window, 1), hi.map { min(max($0, 0), sourceHeight) })
  }

  /// The nodes (and which of their inputs to follow) from the root down to `source`, when that
  /// is the only way the graph reaches it: every node on the path, and the source, read once.
  static func onlyPath(in plan: RenderPlan, to source: ImageNode) -> [(node: ImageNode, input: Int)]? {
    var path: [(node: ImageNode, input: Int)] = []
    var missed: Set<ObjectIdentifier> = []  // nodes known not to reach `source`
    func find(_ node: ImageNode) -> Bool {
      if node === source { return true }
      guard !missed.contains(ObjectIdentifier(node)) else { return false }
      for (i, input) in node.inputs.enumerated() {
        path.append((node, i))
        if find(input) { return true }
        path.removeLast()
      }
      missed.insert(ObjectIdentifier(node))
      return false
    }
    guard find(plan.root) else { return nil }
    for step in path.dropFirst() where plan.consumerCount[ObjectIdentifier(step.node), default: 0] != 1 { return nil }
    guard plan.consumerCount[ObjectIdentifier(source), default: 0] == 1 else { return nil }
    return path
  }
}
