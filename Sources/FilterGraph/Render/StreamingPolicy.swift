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

import ImageCodecs
import PixelBufferModule

extension Renderer {
  /// How many bands of tiles may be in flight at once: by default one per worker and one more, so
  /// a worker finding its band's tiles taken goes on to the next band while the oldest is handed
  /// to the sink. Each band costs its output rows and, for a streamed source, the decoded rows it
  /// reads (on the 24 MP photo, two workers: 2-3 MB less peak memory than two bands per worker,
  /// at the same times; docs/Performance.md).
  var bandWindow: Int { max(1, options.bandsInFlight ?? options.threads + 1) }

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
  /// cached (decoded with `rendering`), and the graph reads it in order (`streamingWindow`).
  func streamedReads(
    _ source: EncodedSourceOperation, node: ImageNode, plan: RenderPlan, area: Rect, rendering: ColorRendering
  ) -> (window: Int, bandEnds: [Int])? {
    guard source.source.codec.streamsRows,
      area.width * area.height * node.info.layout.channelCount >= options.streamingMinimumBytes,
      !cache.contains(source.identity(rendering))
    else { return nil }
    return streamingWindow(plan, source: node, area: area)
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
