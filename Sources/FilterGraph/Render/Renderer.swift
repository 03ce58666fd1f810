// Renderer.swift — turns Image recipes into pixels: the context of the Core Image analogy.
//
// Rendering is demand-driven and tile-parallel. `prepare` optimizes the graph, picks the tile
// grid (TileGrid.swift) and decodes the sources, or streams them (StreamingPolicy.swift); `run`
// (BandScheduler.swift) cuts the output into bands of tiles on the renderer's one WorkerPool;
// each tile asks the graph for exactly its region (TileEvaluator, following Regions.swift) and is
// stored in the output's format (TileWriter.swift); finished bands go, in order, to a buffer
// (`render`) or an encoder (Renderer+Write.swift).

import Foundation
import ImageCodecs
import Locking
import PixelBufferModule

/// Renders images: one worker pool and one decode cache, thread-safe and reusable.
///
/// ```swift
/// let renderer = Renderer()
/// let buffer = try renderer.render(photo.scaled(toFit: Size(width: 800, height: 800)))
/// try renderer.write(photo.blurred(sigma: 2), to: URL(fileURLWithPath: "out.png"))
/// print(renderer.statistics.decodes)
/// ```
public final class Renderer: Sendable {
  /// The settings it was made with.
  public let options: RendererOptions
  let pool: WorkerPool
  let cache: DecodeCache
  /// Results of analyses, kept across renders (Renderer+Analysis.swift); those holding pixels
  /// within a quarter of the decode cache's byte limit.
  let analyses: AnalysisCache
  /// The threads the async `render` and `write` run their calling side on.
  let drivers: DriverThreads
  /// Receives the sources' recoverable corrupt-data warnings (see `init`).
  let warningHandler: (@Sendable (String) -> Void)?

  /// Creates a renderer and starts its worker threads.
  ///
  /// - Parameters:
  ///   - options: threads, tile size, memory limits and optimizer switches (`RendererOptions`).
  ///   - warningHandler: called with each corrupt-data warning a decoder recovered from
  ///     ("photo.jpg: Premature end of JPEG file": the rest of such an image is gray), once per
  ///     decode, from the thread that renders. Without one they are dropped. To make them errors
  ///     instead, load the sources with `LoadOptions(strict: true)`.
  public init(options: RendererOptions = RendererOptions(), warningHandler: (@Sendable (String) -> Void)? = nil) {
    self.options = options
    self.warningHandler = warningHandler
    self.pool = WorkerPool(threadCount: options.threads)
    self.cache = DecodeCache(byteLimit: options.cacheLimitBytes)
    self.analyses = AnalysisCache(byteLimit: options.cacheLimitBytes / 4)
    self.drivers = DriverThreads(count: options.threads)
  }

  /// True when its worker threads have no job queued or running: no render is computing
  /// pixels (one may still be waiting, as for a write that a reader does not take).
  public var isIdle: Bool { pool.isIdle }

  /// A sentence for the user when the system refused some of the worker threads asked for (a
  /// pids cgroup, a low address-space limit): the renders still run, on fewer threads or on the
  /// calling thread alone. Nil when every thread started.
  public var workerShortfall: String? {
    guard pool.threadCount < pool.requestedThreadCount else { return nil }
    let running = pool.threadCount == 0 ? "rendering on the calling thread alone" : "rendering with \(pool.threadCount)"
    return "only \(pool.threadCount) of \(pool.requestedThreadCount) worker threads could be started (the system refused more); \(running)."
  }

  /// Decode counters: decodes, cache hits, bytes held.
  public var statistics: DecodeStatistics { cache.snapshot() }

  /// Empties the decode cache and drops the analyses' kept results (each is computed again).
  public func clearCache() {
    cache.removeAll()
    analyses.removeAll()
  }

  /// Drops `source`'s decoded pixels (at every decode scale) from the decode cache: a batch does
  /// this after each input, which no later file reads, and keeps what every file shares (a
  /// watermark) cached.
  public func removeFromCache(_ source: EncodedSource) { cache.remove(prefix: source.identity + "/") }

  /// The graph `image` runs as, after optimization.
  public func optimized(_ image: Image) -> ImageNode { Optimizer.optimize(image.node, options: options.optimizer) }

  /// `image` with the inputs the optimizer holds whole (`Optimizer.holdEnlargedInputs`) marked
  /// before its analyses are resolved, so that holding them is an analysis like any other: computed
  /// before the tiles and counted by the memory estimate.
  /// A downscale read only through a strong low-pass takes its reduced decode here too
  /// (`Optimizer.shrinkOnLoadUnderLowPass`), so an analysis between them reads that decode.
  func scheduled(_ image: Image) -> Image {
    var node = image.node
    if options.optimizer.shrinkOnLoad { node = Optimizer.shrinkOnLoadUnderLowPass(node) }
    if options.optimizer.holdEnlargedInputs { node = Optimizer.holdEnlargedInputs(node) }
    return node === image.node ? image : Image(node: node)
  }

  /// The graph as written and as optimized, for `fgrun explain`, with where colours are converted
  /// between profiles when written with `profile`, `intent` and black-point compensation `bpc`,
  /// and, when written as `format`, whether alpha is flattened onto `background`. Throws what a
  /// render would for a graph over the limits (`GraphLimits`), before any walk.
  public func explain(
    _ image: Image, profile: OutputProfile = .sRGB, intent: RenderingIntent = .relative, bpc: Bool = false,
    format: ImageFileFormat? = nil, background: Color = WriteOptions.defaultBackground
  ) throws -> String {
    try GraphLimits.check(image.node, maxPixels: options.maxPixels)
    var flat = image
    if let format, let encoding = try? Renderer.encoding(format, WriteOptions(format: format)) {
      flat = Renderer.flattened(image, for: encoding, background: background)
    }
    let output = try? OutputColor.plan(flat, profile: profile, intent: intent, bpc: bpc)
    let run = output?.image ?? flat
    let rendering = ColorRendering(intent: intent, blackPointCompensation: bpc)
    var text = "as written:\n" + GraphPrinter.describe(image.node, rendering: rendering) + "\n\nas optimized:\n"
      + GraphPrinter.describe(optimized(run), rendering: rendering)
    if let output {
      let embedded = output.embedded.map { data in
        (try? ICCProfile(data)).map { "'\($0.name)' embedded" } ?? "profile embedded"
      } ?? "no profile embedded (sRGB)"
      let stored = output.target.map { "stored through lcms2 into '\($0.name)' (\(output.intent.rawValue))" } ?? "stored as sRGB-encoded values"
      text += "\n\noutput colour: \(stored); \(embedded)"
    }
    if let format, flat.node !== image.node {
      text += "\noutput alpha: \(format.rawValue) stores none, so the image is flattened onto \(background) (flatten, in linear light)"
    }
    return text + GainMapBranch.explanation(of: image, rendering: rendering)
  }

  /// Renders `image` into a new buffer in its own format (or `format`, when given).
  /// Pixels of sources with an ICC profile are converted to sRGB (see `OutputProfile.sRGB`).
  public func render(_ image: Image, format: PixelFormat? = nil) throws -> PixelBuffer {
    try render(image, format: format, reported: []).buffer
  }

  /// `render(_:format:)`, with the plan (its warnings); warnings in `reported` are recorded in
  /// the plan but not passed to the warning handler again (a frame loop says each once).
  func render(_ image: Image, format: PixelFormat?, reported: Set<String>) throws -> (buffer: PixelBuffer, plan: RenderPlan) {
    // An image converted to an ICC profile (`convert profile=`) comes back in sRGB: only a
    // written file is stored through the profile.
    let sRGB = ProfileConversionOperation.requested(in: image) == nil ? image : image.converted(to: .sRGB)
    let colour = try OutputColor.plan(sRGB, profile: .sRGB, intent: .relative, bpc: false)
    let plan = try prepare(colour.image, reported: reported)
    let info = plan.root.info
    let outFormat = format ?? PixelFormat(layout: info.layout, component: info.component)
    let output: PixelBuffer
    do {
      output = try PixelBuffer.allocate(
        width: info.size.width, height: info.size.height, format: outFormat,
        colorSpace: info.colorSpace, metadata: ImageMetadata(iccProfile: colour.embedded))
    } catch {
      throw CodecError(
        .tooLarge, "There is not enough memory for the \(info.size.width)×\(info.size.height) result (\(error.amount) could not be allocated).")
    }
    try run(
      plan, format: outFormat, band: { y, h in output.cropped(to: Rect(x: 0, y: y, width: info.size.width, height: h)) },
      eager: true, sink: { _, _ in })
    return (output, plan)
  }

  /// Optimizes the graph, decodes its sources (once, through the cache) and finds the transforms
  /// that bring ICC-profiled sources into the working space (with `intent` and black-point
  /// compensation `bpc`; CMYK files are converted by their decoders with the same). `analysis`:
  /// the render of an analysis's view, whose tiles are sized so none pulls more than
  /// `inputTileByteLimit` from an input (`tileSize(for:bounded:)`). Warnings in `reported` are
  /// not passed to the warning handler (`RenderPlan.reported`). The analyses and held inputs
  /// computed here ask `stop` before each tile.
  func prepare(
    _ image: Image, intent: RenderingIntent = .relative, bpc: Bool = false, analysis: Bool = false, reported: Set<String> = [],
    stop: (() -> Bool)? = nil
  ) throws -> RenderPlan {
    try GraphLimits.check(image.node, maxPixels: options.maxPixels)
    var warnings: [String] = []
    let root = optimized(try resolved(scheduled(image), warnings: &warnings, stop: stop))
    // An analysis's view is part of a graph whose render reports its warnings.
    let rendering = ColorRendering(intent: intent, blackPointCompensation: bpc)
    let plan = renderPlan(for: root, analysis: analysis, rendering: rendering)
    plan.reported = reported
    if !analysis { warnings.forEach { warn($0, in: plan) } }
    for node in plan.nodes {
      guard let source = node.operation.asSource else { continue }
      if let encoded = source as? EncodedSourceOperation {
        let region = sourceRegion(encoded, node: node, plan: plan, rendering: rendering)
        if let stream = try streamingSource(encoded, node: node, plan: plan, region: region, rendering: rendering) {
          plan.streamed[ObjectIdentifier(node)] = stream
          cache.recordStreamedDecode(region: region != nil, windowBytes: stream.windowBytes)
          continue
        }
        if let region {
          plan.decoded[ObjectIdentifier(node)] = try cache.pixels(for: encoded.identity(rendering) + "@\(region)") {
            let (pixels, warnings) = try encoded.source.decodeReportingWarnings(
              scaleDenominator: encoded.scaleDenominator, region: region, colorRendering: rendering)
            warnings.forEach { warn("\(encoded.source.name): \($0)", in: plan, damage: true) }
            cache.recordRegionDecode()
            return pixels
          }
          plan.decodedOrigins[ObjectIdentifier(node)] = region.origin
          continue
        }
        if let pixels = try cache.pixels(for: encoded.identity(rendering), decode: {
          let (pixels, warnings) = try encoded.decodePixelsReportingWarnings(colorRendering: rendering)
          warnings.forEach { warn($0, in: plan, damage: true) }
          return pixels
        }) {
          plan.decoded[ObjectIdentifier(node)] = pixels
        }
        continue
      }
      if let rasterized = source.asRasterized {
        let cache = cache
        plan.rasters[ObjectIdentifier(node)] = HandedWork {
          var warnings: [String] = []
          let pixels = try cache.pixels(for: rasterized.identity) {
            let made = try rasterized.rasterize()
            warnings = made.warnings
            return made.pixels
          }
          guard let pixels else { throw CodecError(.invalidArgument, "\(node.label): no raster was made") }
          return (pixels, warnings)
        }
      } else if source.isResident {
        plan.decoded[ObjectIdentifier(node)] = try source.decodePixels()
      } else if let pixels = try cache.pixels(for: source.identity, decode: {
        let (pixels, warnings) = try source.decodePixelsReportingWarnings()
        warnings.forEach { warn($0, in: plan, damage: true) }
        return pixels
      }) {
        plan.decoded[ObjectIdentifier(node)] = pixels
      }
    }
    try prepareSourceColor(plan, intent: intent, bpc: bpc)
    return plan
  }

  /// Warns about (or, for strict loads, refuses) sources whose profile cannot be used — the
  /// problems their headers report (`ImageHeader.warnings`) and the profiles lcms2 cannot use —
  /// and records the transforms of those whose profile is converted.
  private func prepareSourceColor(_ plan: RenderPlan, intent: RenderingIntent, bpc: Bool) throws {
    for node in plan.nodes {
      guard node.operation.asSource != nil else { continue }
      let id = ObjectIdentifier(node)
      if let encoded = node.operation as? EncodedSourceOperation {
        let source = encoded.source
        for problem in source.header.warnings.map({ "\(source.name): \($0)" }) + [SourceColor.problem(encoded)].compactMap({ $0 }) {
          if source.options.strict { throw CodecError(.corrupt, problem) }
          warn(problem, in: plan)
        }
      }
      guard let format = plan.streamed[id]?.format ?? plan.decoded[id]?.format else { continue }
      do {
        plan.sourceTransforms[id] = try SourceColor.transform(for: node, format: format, intent: intent, bpc: bpc)
      } catch {
        warn("\(node.label): cannot convert from its ICC profile (\(error)); its colours are read as sRGB", in: plan)
      }
    }
  }

  /// Passes on the warnings of the rasters the render made (`RasterizedSource`), in the graph's
  /// order; a raster no tile read is not made for them.
  func passRasterWarnings(_ plan: RenderPlan) {
    guard !plan.rasters.isEmpty else { return }
    for node in plan.nodes {
      guard let work = plan.rasters[ObjectIdentifier(node)] else { continue }
      work.abandon()
      guard let made = try? work.result() else { continue }
      made.warnings.forEach { warn($0, in: plan, damage: true) }
    }
  }

  /// Records `message` in `plan`'s warnings (a job's result carries them) and passes it to the
  /// warning handler. `damage` marks a decoder's report that it patched up corrupt or truncated
  /// data: the pixels themselves are not what the file was meant to hold.
  func warn(_ message: String, in plan: RenderPlan, damage: Bool = false) {
    plan.warnings.append(message)
    if damage { plan.damage.append(message) }
    if !plan.reported.contains(message) { warningHandler?(message) }
  }
}
