// Renderer.swift — turns Image recipes into pixels: the context of the Core Image analogy.
//
// Rendering is demand-driven and tile-parallel: the output is cut into bands of tiles; each tile
// asks the graph for exactly its region, which asks its inputs for the regions they need
// (TileEvaluator); tiles run on the renderer's one fixed WorkerPool; finished bands go, in order,
// to the destination (a buffer, or an encoder) while workers compute ahead within a bound.

import Foundation
import ImageCodecs
import PixelBufferModule

/// Settings of a renderer.
public struct RendererOptions: Hashable, Sendable {
  /// Worker threads (default: one per core).
  public var threads: Int
  /// The tile size work is cut into (default 512 × 64).
  public var tileSize: Size
  /// The decode cache's byte limit (default 1 GiB).
  public var cacheLimitBytes: Int
  /// Rewrites applied before rendering.
  public var optimizer: OptimizerOptions
  /// How many bands of tiles may be in flight ahead of the one being written (default: 2 per thread).
  public var bandsInFlight: Int?
  /// JPEG sources at least this large once decoded (default 4 MiB) are streamed when the graph
  /// reads them in order: decoded on demand into a window of rows, never held whole (see
  /// `Renderer.streamingWindow`). Such a decode is counted in `DecodeStatistics.streamedDecodes`
  /// and is not cached. Smaller sources, sources already in the cache, and sources the graph
  /// reads out of order (rotations, flips, a source read by two branches) decode fully, once,
  /// through the decode cache. `Int.max` turns streaming off.
  public var streamingMinimumBytes: Int
  /// The most pixels the output or any image inside the graph may have (default 268,402,689 =
  /// 16383², the decoders' default input limit); larger graphs are refused before any decode.
  public var maxPixels: Int = DecodeLimits.defaultMaxPixels

  /// Creates options.
  public init(
    threads: Int = ProcessInfo.processInfo.activeProcessorCount, tileSize: Size = Size(width: 512, height: 64),
    cacheLimitBytes: Int = 1 << 30, optimizer: OptimizerOptions = OptimizerOptions(), bandsInFlight: Int? = nil,
    streamingMinimumBytes: Int = 4 << 20
  ) {
    self.streamingMinimumBytes = streamingMinimumBytes
    self.threads = max(1, threads)
    self.tileSize = Size(width: max(tileSize.width, 8), height: max(tileSize.height, 1))
    self.cacheLimitBytes = cacheLimitBytes
    self.optimizer = optimizer
    self.bandsInFlight = bandsInFlight
  }
}

/// Renders images: one worker pool and one decode cache, thread-safe and reusable.
///
/// ```swift
/// let renderer = Renderer()
/// let buffer = try renderer.render(photo.scaled(toFit: Size(width: 800, height: 800)))
/// try renderer.write(photo.blurred(sigma: 2), to: URL(fileURLWithPath: "out.png"))
/// print(renderer.statistics.decodes)
/// ```
public final class Renderer: @unchecked Sendable {
  /// The settings it was made with.
  public let options: RendererOptions
  let pool: WorkerPool
  let cache: DecodeCache
  /// Receives the sources' recoverable corrupt-data warnings (see `init`).
  let warningHandler: (@Sendable (String) -> Void)?

  /// Creates a renderer and starts its worker threads.
  ///
  /// - Parameter warningHandler: called with each corrupt-data warning a decoder recovered from
  ///   ("photo.jpg: Premature end of JPEG file": the rest of such an image is gray), once per
  ///   decode, from the thread that renders. Without one they are dropped. To make them errors
  ///   instead, load the sources with `LoadOptions(strict: true)`.
  public init(options: RendererOptions = RendererOptions(), warningHandler: (@Sendable (String) -> Void)? = nil) {
    self.options = options
    self.warningHandler = warningHandler
    self.pool = WorkerPool(threadCount: options.threads)
    self.cache = DecodeCache(byteLimit: options.cacheLimitBytes)
  }

  /// Decode counters: decodes, cache hits, bytes held.
  public var statistics: DecodeStatistics { cache.snapshot() }

  /// Empties the decode cache.
  public func clearCache() { cache.removeAll() }

  /// Drops `source`'s decoded pixels (at every decode scale) from the decode cache: a batch does
  /// this after each input, which no later file reads, and keeps what every file shares (a
  /// watermark) cached.
  public func removeFromCache(_ source: EncodedSource) { cache.remove(prefix: source.identity + "/") }

  /// The graph `image` runs as, after optimization.
  public func optimized(_ image: Image) -> ImageNode { Optimizer.optimize(image.node, options: options.optimizer) }

  /// The graph as written and as optimized, for `fgrun explain`, with where colours are converted
  /// between profiles when written with `profile`.
  public func explain(_ image: Image, profile: OutputProfile = .sRGB, intent: RenderingIntent = .relative) -> String {
    let output = try? OutputColour.plan(image, profile: profile, intent: intent, bpc: false)
    let run = output?.image ?? image
    var text = "as written:\n" + GraphPrinter.describe(image.node) + "\n\nas optimized:\n" + GraphPrinter.describe(optimized(run))
    if let output {
      let embedded = output.embedded.map { data in
        (try? ICCProfile(data)).map { "'\($0.name)' embedded" } ?? "profile embedded"
      } ?? "no profile embedded (sRGB)"
      let stored = output.target.map { "stored through lcms2 into '\($0.name)' (\(intent.rawValue))" } ?? "stored as sRGB-encoded values"
      text += "\n\noutput colour: \(stored); \(embedded)"
    }
    return text
  }

  /// Renders `image` into a new buffer in its own format (or `format`, when given).
  /// Pixels of sources with an ICC profile are converted to sRGB (see `OutputProfile.sRGB`).
  public func render(_ image: Image, format: PixelFormat? = nil) throws -> PixelBuffer {
    let colour = try OutputColour.plan(image, profile: .sRGB, intent: .relative, bpc: false)
    let plan = try prepare(colour.image)
    let info = plan.root.info
    let outFormat = format ?? PixelFormat(layout: info.layout, component: info.component)
    let output = PixelBuffer(
      width: info.size.width, height: info.size.height, format: outFormat,
      colorSpace: info.colorSpace, metadata: ImageMetadata(iccProfile: colour.embedded))
    try run(
      plan, format: outFormat, band: { y, h in output.cropped(to: Rect(x: 0, y: y, width: info.size.width, height: h)) },
      eager: true, sink: { _, _ in })
    return output
  }

  /// Optimizes the graph, decodes its sources (once, through the cache) and finds the transforms
  /// that bring ICC-profiled sources into the working space (with `intent` and black-point
  /// compensation `bpc`).
  func prepare(_ image: Image, intent: RenderingIntent = .relative, bpc: Bool = false) throws -> RenderPlan {
    try GraphLimits.check(image.node, maxPixels: options.maxPixels)
    let plan = RenderPlan(root: optimized(image))
    for node in plan.nodes {
      guard let source = node.operation as? SourceOperation else { continue }
      if let encoded = source as? EncodedSourceOperation, let stream = try streamingSource(encoded, node: node, plan: plan) {
        plan.streamed[ObjectIdentifier(node)] = stream
        cache.recordStreamedDecode()
        continue
      }
      if source.isResident {
        plan.decoded[ObjectIdentifier(node)] = try source.decodePixels()
      } else if let pixels = try cache.pixels(for: source.identity, decode: {
        let (pixels, warnings) = try source.decodePixelsReportingWarnings()
        warnings.forEach { warningHandler?($0) }
        return pixels
      }) {
        plan.decoded[ObjectIdentifier(node)] = pixels
      }
    }
    try prepareSourceColour(plan, intent: intent, bpc: bpc)
    return plan
  }

  /// Warns about (or, for strict loads, refuses) sources whose profile cannot be used, and
  /// records the transforms of those whose profile is converted.
  private func prepareSourceColour(_ plan: RenderPlan, intent: RenderingIntent, bpc: Bool) throws {
    for node in plan.nodes {
      guard node.operation is SourceOperation else { continue }
      let id = ObjectIdentifier(node)
      if let encoded = node.operation as? EncodedSourceOperation, let problem = SourceColour.problem(encoded) {
        if encoded.source.options.strict { throw CodecError(.corrupt, problem) }
        warningHandler?(problem)
      }
      guard let format = plan.streamed[id]?.format ?? plan.decoded[id]?.format else { continue }
      do {
        plan.sourceTransforms[id] = try SourceColour.transform(for: node, format: format, intent: intent, bpc: bpc)
      } catch {
        warningHandler?("\(node.label): cannot convert from its ICC profile (\(error)); its colours are read as sRGB")
      }
    }
  }

  /// Runs the tiles of `plan`, writing each band into the buffer `band` gives and handing
  /// finished bands to `sink` in top-to-bottom order on the calling thread.
  ///
  /// `eager`: every band is queued at once and `sink` runs after the last tile (for a sink that
  /// does nothing, such as `render`'s: the calling thread then sleeps through the whole render
  /// instead of waking for every band). Not with streamed sources, whose row window assumes
  /// `bandWindow`; `run` falls back to the window then.
  ///
  /// Scheduling (measured on 2 cores, `perf sched timehist`): the calling thread is a third
  /// thread next to the workers, so every time it wakes it takes a core from one of them. It
  /// therefore sleeps until the band it waits for is complete (workers signal it only then, not
  /// on every tile), and a band's tiles go to the pool in one batch.
  ///
  /// `outputTransform`: tiles are evaluated in linear light and stored through it (an output ICC
  /// profile), unless the plan is a pass-through copy.
  func run(
    _ plan: RenderPlan, format: PixelFormat, band: (Int, Int) -> PixelBuffer,
    eager: Bool = false, outputTransform: ColourTransform? = nil, sink: (PixelBuffer, Int) throws -> Void
  ) throws {
    let size = plan.root.info.size
    if size.isEmpty { return }
    let evaluator = TileEvaluator(plan: plan)
    // Tiles are stored as they come: a linear-tagged image (`converted(to: .linearSRGB)`) is
    // evaluated in linear light so its values are written without the sRGB curve.
    let storeSpace: WorkingSpace = plan.root.info.colorSpace.isLinear ? .linear : .encoded
    // A root that computes in linear light and an 8-bit encoded output: the tiles stay linear and
    // go to codes through one table (TileConversion.storeLinear8), not encode-then-quantise.
    let linearStore = storeSpace == .encoded && TileConversion.storesLinear8(format) && Self.outputSpace(of: plan.root) == .linear
    let evaluationSpace: WorkingSpace = linearStore || outputTransform != nil ? .linear : storeSpace
    let passThrough = PassThrough(plan: plan, format: format)
    // Streamed sources decode ahead of the tiles, one band at a time (see StreamingSource).
    let streams = plan.streamed.values.filter { !$0.bandEnds.isEmpty }
    let tiles = tileSize(for: plan.root)
    let tileW = tiles.width, bandH = tiles.height
    let bandCount = (size.height + bandH - 1) / bandH
    let tilesAcross = (size.width + tileW - 1) / tileW
    let eager = eager && plan.streamed.isEmpty
    let window = eager ? bandCount : bandWindow

    /// One band's buffer and its count of unfinished tiles. `remaining` is guarded by `condition`.
    final class BandState: @unchecked Sendable {
      let buffer: PixelBuffer
      var remaining: Int
      init(buffer: PixelBuffer, remaining: Int) {
        self.buffer = buffer
        self.remaining = remaining
      }
    }
    /// What the workers and the calling thread share, guarded by `condition`.
    final class Progress: @unchecked Sendable {
      let condition = NSCondition()
      var failure: Error?
      var cancelled = false
      var inFlightJobs = 0
      /// The band the calling thread sleeps on (-1: none; `Int.max`: the last job of all).
      var awaited = -1
    }
    let progress = Progress()
    let condition = progress.condition
    var states: [Int: BandState] = [:]

    func launch(_ b: Int) {
      let y0 = b * bandH, h = min(bandH, size.height - y0)
      let state = BandState(buffer: band(y0, h), remaining: tilesAcross)
      states[b] = state
      let base = state.buffer.sharedStorage.baseAddress
      let bandOffset = state.buffer.withUnsafeBaseAddress { p, _ in UnsafeRawPointer(p) - UnsafeRawPointer(base) }
      let rowBytes = state.buffer.rowBytes
      for stream in streams {
        condition.lock()
        progress.inFlightJobs += 1
        condition.unlock()
        pool.submitUrgent {
          condition.lock()
          let skip = progress.cancelled
          condition.unlock()
          if !skip { stream.decodeAhead(forBand: b) }
          condition.lock()
          progress.inFlightJobs -= 1
          // Only a drain (or an eager render's end) waits on this count.
          if progress.inFlightJobs == 0 && (progress.cancelled || progress.awaited == .max) { condition.broadcast() }
          condition.unlock()
        }
      }
      var jobs: [() -> Void] = []
      jobs.reserveCapacity(tilesAcross)
      for t in 0..<tilesAcross {
        let rect = Rect(x: t * tileW, y: y0, width: min(tileW, size.width - t * tileW), height: h)
        jobs.append {
          condition.lock()
          let skip = progress.cancelled
          condition.unlock()
          var error: Error?
          if !skip {
            do {
              let dst = base + bandOffset + rect.x * format.bytesPerPixel
              if let passThrough {
                try passThrough.copy(rect, to: dst, rowBytes: rowBytes)
              } else {
                var memo: [TileEvaluator.MemoKey: Tile] = [:]
                let tile = try evaluator.evaluate(plan.root, rect, space: evaluationSpace, memo: &memo)
                if let outputTransform {
                  TileConversion.storeConverting(tile, into: dst, rowBytes: rowBytes, format: format, transform: outputTransform)
                } else if linearStore {
                  TileConversion.storeLinear8(tile, into: dst, rowBytes: rowBytes, format: format)
                } else {
                  TileConversion.store(tile, into: dst, rowBytes: rowBytes, format: format)
                }
              }
            } catch let e { error = e }
          }
          condition.lock()
          if let error, progress.failure == nil {
            progress.failure = error
            progress.cancelled = true
          }
          state.remaining -= 1
          progress.inFlightJobs -= 1
          // Wake the calling thread only when what it sleeps on has happened.
          let awaited = progress.awaited
          if error != nil || (awaited == b && state.remaining == 0) || (awaited == .max && progress.inFlightJobs == 0)
            || (progress.cancelled && progress.inFlightJobs == 0)
          {
            condition.broadcast()
          }
          condition.unlock()
          withExtendedLifetime(state) {}
        }
      }
      condition.lock()
      progress.inFlightJobs += tilesAcross
      condition.unlock()
      if eager {
        pending.append(contentsOf: jobs)
      } else {
        pool.submit(contentsOf: jobs)
      }
    }
    /// Eager renders queue all tiles in one batch (one lock, one wake-up) once every band is cut.
    var pending: [() -> Void] = []

    func drain() {
      condition.lock()
      progress.cancelled = true
      while progress.inFlightJobs > 0 { condition.wait() }
      condition.unlock()
    }

    for b in 0..<min(window, bandCount) { launch(b) }
    if eager {
      pool.submit(contentsOf: pending)
      pending = []
      condition.lock()
      progress.awaited = .max
      while progress.inFlightJobs > 0 && progress.failure == nil { condition.wait() }
      progress.awaited = -1
      condition.unlock()
    }
    for b in 0..<bandCount {
      condition.lock()
      progress.awaited = b
      while states[b]!.remaining > 0 && progress.failure == nil { condition.wait() }
      progress.awaited = -1
      let error = progress.failure
      let state = states.removeValue(forKey: b)!
      condition.unlock()
      if let error {
        drain()
        throw error
      }
      do {
        try sink(state.buffer, b * bandH)
      } catch {
        drain()
        throw error
      }
      if b + window < bandCount { launch(b + window) }
    }
    // Streamed sources are decoded by now: pass on what their decoders recovered from.
    if let warningHandler {
      for stream in plan.streamed.values { stream.warnings.forEach(warningHandler) }
    }
  }
}

extension Renderer {
  /// The space `node` leaves its pixels in when asked for its own: its last stage's working
  /// space, looking through operations that take whichever space they are asked for; nil for
  /// sources and operations that have none.
  static func outputSpace(of node: ImageNode) -> WorkingSpace? {
    let op = node.operation
    // A source with an ICC profile is loaded through lcms2 into linear light.
    if op is SourceOperation {
      if case .icc = node.info.colorSpace { return .linear }
      return nil
    }
    if let fused = op as? FusedPointOperation {
      if let last = fused.stages.last(where: { $0.workingSpace != nil }) { return last.workingSpace }
    } else if let space = op.workingSpace {
      return space
    }
    return node.inputs.count == 1 ? outputSpace(of: node.inputs[0]) : nil
  }

  /// Bytes of working pixels one tile may ask of any single input, above which tiles narrow.
  static let inputTileByteLimit = 3 << 20

  /// The tile size a render of `root` uses: `options.tileSize`, halved in width (down to 128
  /// columns at most) while some input region of a tile exceeds `inputTileByteLimit` — a strong downscale
  /// reads ratio² times its tile's pixels (W1 at 1/3.75: 8 MB per 512 × 64 tile; narrowing
  /// costs little, the kernels' margins are a small part of such wide regions) — and then evened
  /// out over the width so the last tile is not a sliver. Bands keep their height.
  func tileSize(for root: ImageNode) -> Size {
    let size = root.info.size
    let h = options.tileSize.height
    var w = options.tileSize.width
    guard size.width > 128 else { return options.tileSize }
    while w > 128 && Self.largestInputBytes(root, Rect(x: 0, y: 0, width: min(w, size.width), height: min(h, size.height))) > Self.inputTileByteLimit {
      w = max(128, w / 2)
    }
    if w == options.tileSize.width { return options.tileSize }
    let across = (size.width + w - 1) / w
    return Size(width: (size.width + across - 1) / across, height: h)
  }

  /// The largest input region (in working bytes) any node reads for `rect` of `root`, following
  /// the inputs' regions as the tiles will (the first few dozen nodes only).
  static func largestInputBytes(_ root: ImageNode, _ rect: Rect) -> Int {
    var largest = 0, visits = 0
    func visit(_ node: ImageNode, _ rect: Rect) {
      visits += 1
      if visits > 64 { return }
      let rect = TileEvaluator.computedRegion(rect, extent: node.info.extent)
      let op = node.operation
      let point = op is FusedPointOperation || op is any PointOperation
      let infos = node.inputs.map(\.info)
      for (i, input) in node.inputs.enumerated() {
        let region = point ? rect : op.inputRegion(for: rect, input: i, inputs: infos)
        largest = max(largest, region.width * region.height * MemoryLayout<SIMD4<Float>>.stride)
        visit(input, region)
      }
    }
    visit(root, rect)
    return largest
  }

  /// How many bands of tiles may be in flight at once.
  var bandWindow: Int { max(1, options.bandsInFlight ?? 2 * options.threads) }

  /// A streamed decoder for `source` when the rules allow it (see `streamingMinimumBytes`).
  func streamingSource(_ source: EncodedSourceOperation, node: ImageNode, plan: RenderPlan) throws -> StreamingSource? {
    let info = node.info
    guard source.source.codec.streamsRows,
      info.size.width * info.size.height * info.layout.channelCount >= options.streamingMinimumBytes,
      !cache.contains(source.identity),
      let reads = streamingWindow(plan, source: node),
      case let decoder = try source.source.startedDecoder(scaleDenominator: source.scaleDenominator)
    else { return nil }
    return StreamingSource(decoder: decoder, capacity: reads.window, bandEnds: reads.bandEnds, name: source.source.name)
  }

  /// The rows of `source` a render must hold at once when it decodes them in order (`window`),
  /// and the rows each band reads up to (`bandEnds`, for decoding ahead), or nil when the graph
  /// does not read it in order within a window of at most half its height.
  ///
  /// The rule: `source` is reached from the root by one path only (every node on it read once),
  /// and, following the graph's own `inputRegion`s exactly as the tiles will, band `b` reads rows
  /// `lo[b]..<hi[b]`. With `W` bands in flight (band `b + W` starts only once band `b` is done),
  /// rows up to `max(hi[..<b+W])` may be decoded while band `b` still reads from
  /// `min(lo[b..<b+W])`: the window is the largest such span.
  func streamingWindow(_ plan: RenderPlan, source: ImageNode) -> (window: Int, bandEnds: [Int])? {
    // The path from the root to the source, each node read once.
    var path: [(node: ImageNode, input: Int)] = []
    func find(_ node: ImageNode) -> Bool {
      if node === source { return true }
      for (i, input) in node.inputs.enumerated() {
        path.append((node, i))
        if find(input) { return true }
        path.removeLast()
      }
      return false
    }
    guard find(plan.root) else { return nil }
    for step in path.dropFirst() where plan.consumerCount[ObjectIdentifier(step.node), default: 0] != 1 { return nil }
    guard plan.consumerCount[ObjectIdentifier(source), default: 0] == 1 else { return nil }

    let size = plan.root.info.size, sourceHeight = source.info.size.height
    if size.isEmpty || sourceHeight == 0 { return nil }
    let tiles = tileSize(for: plan.root)
    let tileW = tiles.width, bandH = tiles.height
    let bandCount = (size.height + bandH - 1) / bandH
    let tilesAcross = (size.width + tileW - 1) / tileW
    var lo = [Int](repeating: .max, count: bandCount), hi = [Int](repeating: .min, count: bandCount)
    for b in 0..<bandCount {
      let y0 = b * bandH, h = min(bandH, size.height - y0)
      for t in 0..<tilesAcross {
        var rect = Rect(x: t * tileW, y: y0, width: min(tileW, size.width - t * tileW), height: h)
        for step in path {
          rect = TileEvaluator.computedRegion(rect, extent: step.node.info.extent)
          let op = step.node.operation
          if op is FusedPointOperation || op is any PointOperation { continue }
          rect = op.inputRegion(for: rect, input: step.input, inputs: step.node.inputs.map(\.info))
        }
        rect = TileEvaluator.computedRegion(rect, extent: source.info.extent)
        lo[b] = min(lo[b], rect.y)
        hi[b] = max(hi[b], rect.maxY)
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
    guard window <= sourceHeight / 2 else { return nil }
    return (max(window, 1), hi.map { min(max($0, 0), sourceHeight) })
  }
}
