// Renderer+Analysis.swift — computing analyses (Graph/Analysis.swift) before the tiles that need them.
//
// `prepare` first resolves the graph: inputs before the nodes that read them, every
// `AnalysedOperation` has its analysis computed on its (already resolved) input and is replaced
// by the ordinary operation it resolves to; nodes above are rebuilt so their sizes follow. A graph
// without analyses is returned as it is.
//
// An analysis runs on its own small render of the input (or of the downscaled view it asks for):
// the view is optimized and its sources decoded through the decode cache (or streamed) as for any
// render, then cut into bands of tiles sized so no tile pulls more than a few MB from any input
// (`tileSize(for:bounded:)`); a group of bands at a time goes to the worker pool (in
// order, which keeps a streamed source's window of rows valid), each tile reduced to a partial
// result on the worker that computed it, and the partials are merged in tile order on the calling
// thread — so the result does not depend on scheduling. Results are kept (`AnalysisCache`, the 64
// most recent, and of results that hold pixels at most a quarter of the decode cache's byte limit)
// under the analysis's label and the input's structural key, which includes each
// source file's identity (path, size, modification time) and each in-memory buffer's contents
// identity (never reused; `PixelStorage.contentsIdentity`): an analysis of the same input is
// computed once per render and once across renders while kept.

import Foundation
import Locking
import PixelBufferModule

/// Counters of the analyses a renderer computed (`fgrun --stats` prints them).
public struct AnalysisStatistics: Hashable, Sendable {
  /// Analyses computed.
  public var computed = 0
  /// Analyses answered from results kept from earlier (same input, same settings).
  public var reused = 0
  /// Wall-clock seconds spent computing analyses (views' decodes included).
  public var seconds = 0.0
  /// Each computed analysis, `label of input: seconds`, in the order they ran.
  public var timings: [String] = []
}

/// Results of analyses, keyed by analysis and input; thread-safe.
final class AnalysisCache: Sendable {
  /// How many results are kept.
  let capacity = 64
  /// How many bytes of results (`ImageAnalysis.retainedBytes`) are kept: a larger result is used
  /// for its render and dropped.
  let byteLimit: Int
  private let entries = Locked(Entries())

  private struct Entries {
    var results: [String: (value: any Sendable, bytes: Int)] = [:]
    /// Keys from least to most recently used.
    var order: [String] = []
    var counters = AnalysisStatistics()
    var bytesHeld = 0
  }

  init(byteLimit: Int) { self.byteLimit = byteLimit }

  func lookup(_ key: String) -> (any Sendable)? {
    entries.withLock { entries in
      guard let hit = entries.results[key] else { return nil }
      entries.counters.reuse()
      entries.order.removeAll { $0 == key }
      entries.order.append(key)
      return hit.value
    }
  }

  func store(_ value: any Sendable, for key: String, bytes: Int, label: String, seconds: Double) {
    let (capacity, byteLimit) = (capacity, byteLimit)
    entries.withLock { entries in
      entries.counters.computed += 1
      entries.counters.seconds += seconds
      entries.counters.timings.append(String(format: "%@: %.1f ms", label, seconds * 1000))
      guard bytes <= byteLimit else { return }
      if let old = entries.results.updateValue((value, bytes), forKey: key) {
        entries.bytesHeld -= old.bytes
      } else {
        entries.order.append(key)
      }
      entries.bytesHeld += bytes
      while entries.order.count > capacity || entries.bytesHeld > byteLimit {
        entries.bytesHeld -= entries.results.removeValue(forKey: entries.order.removeFirst())?.bytes ?? 0
      }
    }
  }

  /// Bytes of the results kept now.
  var retainedBytes: Int { entries.withLock { $0.bytesHeld } }

  var statistics: AnalysisStatistics { entries.withLock { $0.counters } }

  func removeAll() {
    entries.withLock { entries in
      entries.results = [:]
      entries.order = []
      entries.bytesHeld = 0
    }
  }
}

/// The partial results of one group of tiles, filled by the workers.
private struct AnalysisSlots<Partial> {
  var partials: [Partial?]
  var failure: Error?
  init(_ n: Int) { partials = Array(repeating: nil, count: n) }
}

extension AnalysisStatistics {
  fileprivate mutating func reuse() { reused += 1 }
}

extension Renderer {
  /// Counters of the analyses computed and reused so far.
  public var analysisStatistics: AnalysisStatistics { analyses.statistics }

  /// Computes `analysis` of `image` (tile-parallel, on this renderer's workers), or returns the
  /// result kept from an earlier identical request.
  public func analyse<A: ImageAnalysis>(_ image: Image, _ analysis: A) throws -> A.Result {
    try analyse(image, analysis, stop: nil)
  }

  /// `analyse(_:_:)`, asking `stop` before each tile: once it returns true the tiles not yet
  /// started are dropped and `CancellationError` is thrown (a render's time limit reaches the
  /// analyses and held inputs computed before its first band, not only its bands).
  func analyse<A: ImageAnalysis>(_ image: Image, _ analysis: A, stop: (() -> Bool)?) throws -> A.Result {
    let resolvedImage = try resolved(image, stop: stop)
    let view = Self.view(of: resolvedImage, analysis.view, space: analysis.workingSpace)
    let key = "\(analysis.label) [\(analysis.view)] of \(resolvedImage.node.structuralKey)"
    if let kept = analyses.lookup(key) as? A.Result { return kept }
    let start = DispatchTime.now().uptimeNanoseconds
    let plan = try prepare(view, analysis: true, stop: stop)
    defer { passRasterWarnings(plan) }
    let evaluator = TileEvaluator(plan: plan)
    let viewSize = plan.root.info.size
    let space = analysis.workingSpace
    func read(_ rect: Rect) throws -> Tile {
      var memo: [TileEvaluator.MemoKey: Tile] = [:]
      return try evaluator.evaluate(plan.root, rect, space: space, memo: &memo)
    }
    let ready = try analysis.prepared(reading: read, viewSize: viewSize)
    var total: A.Partial?
    if !viewSize.isEmpty {
      let grid = plan.grid
      let across = grid.tilesAcross, bands = grid.bandCount
      let group = bandWindow
      var first = 0
      while first < bands {
        let count = min(group, bands - first) * across
        let slots = Locked(AnalysisSlots<A.Partial>(count))
        let firstBand = first
        pool.parallelFor(count) { i in
          let rect = grid.tile(i % across, ofBand: firstBand + i / across)
          do {
            if let stop, stop() { throw CancellationError() }
            let partial = ready.partial(of: try read(rect), viewSize: viewSize)
            slots.withLock { $0.partials[i] = partial }
          } catch {
            slots.withLock { if $0.failure == nil { $0.failure = error } }
          }
        }
        let filled = slots.withLock { $0 }
        if let failure = filled.failure { throw failure }
        for case let partial? in filled.partials { total = total.map { ready.merged($0, partial) } ?? partial }
        first += group
      }
    }
    guard let total else { throw FilterError("\(analysis.label): the image has no pixels to analyse") }
    let result = ready.result(total, viewSize: viewSize, imageSize: resolvedImage.size)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    analyses.store(result, for: key, bytes: ready.retainedBytes(of: result), label: analysis.label, seconds: seconds)
    return result
  }

  /// `image` with every analysis computed and every `AnalysedOperation` replaced by the operation
  /// it resolves to: the graph as it renders, with final sizes (a `trim`'s result size).
  public func resolved(_ image: Image) throws -> Image {
    try resolved(image, stop: nil)
  }

  /// `resolved(_:)`, its analyses asking `stop` before each tile (`analyse(_:_:stop:)`).
  func resolved(_ image: Image, stop: (() -> Bool)?) throws -> Image {
    var warnings: [String] = []
    return try resolved(image, only: { _ in true }, warnings: &warnings, stop: stop)
  }

  /// `resolved(_:)`, collecting the warnings of the graph's `WarningOperation`s, each given its
  /// inputs as resolved (their final sizes).
  func resolved(_ image: Image, warnings: inout [String], stop: (() -> Bool)? = nil) throws -> Image {
    try resolved(image, only: { _ in true }, warnings: &warnings, stop: stop)
  }

  /// `image` with the analysed operations `chosen` selects resolved, the others left as they are;
  /// the warnings of its `WarningOperation`s are appended to `warnings`.
  func resolved(
    _ image: Image, only chosen: (any AnalysedOperation) -> Bool, warnings: inout [String], stop: (() -> Bool)? = nil
  ) throws -> Image {
    var done: [ObjectIdentifier: ImageNode] = [:]
    func visit(_ node: ImageNode) throws -> ImageNode {
      if let hit = done[ObjectIdentifier(node)] { return hit }
      let inputs = try node.inputs.map(visit)
      if let warned = node.operation.asWarning, let warning = warned.warning(inputs: inputs.map(\.info)) {
        warnings.append(warning)
      }
      var result = node
      if let analysed = node.operation.asAnalysed, chosen(analysed) {
        result = try resolve(analysed, inputs: inputs, stop: stop)
      } else if zip(inputs, node.inputs).contains(where: { $0 !== $1 }) {
        result = ImageNode(operation: node.operation, inputs: inputs)
      }
      done[ObjectIdentifier(node)] = result
      return result
    }
    let root = try visit(image.node)
    return root === image.node ? image : Image(node: root)
  }

  private func resolve<O: AnalysedOperation>(_ operation: O, inputs: [ImageNode], stop: (() -> Bool)?) throws -> ImageNode {
    var inputs = inputs
    if let space = Self.heldInputSpace(of: operation, input: inputs[0]) {
      let pixels = try analyse(Image(node: inputs[0]), HeldPixelsAnalysis(workingSpace: space), stop: stop)
      inputs[0] = HeldPixelsAnalysis.source(holding: pixels, of: inputs[0], space: space)
    }
    let result = try analyse(Image(node: inputs[0]), operation.analysis, stop: stop)
    return operation.resolvedNode(with: result, inputs: inputs)
  }

  /// The most pixels of a computed input an analysed operation holds (64 MiB of float pixels).
  static let heldAnalysedInputPixels = 1 << 22

  /// The space `operation`'s input is held in, or nil when it is not held. An analysed operation
  /// reads its input twice, its analysis's view before the tiles and the resolved operation in
  /// them, so a computed input (a scale, a blur: not a source, which the decode cache serves) of
  /// at most `heldAnalysedInputPixels` is computed whole once, like a held blur's reduction, and
  /// both read it: one decode and one resample instead of two, and no input pixel computed twice
  /// for the halo of a blur above. It is held in the space it computes in, so the pixels read
  /// from it are the ones its tiles would have given; an input that takes whichever space it is
  /// asked for (a crop of a source) is not held.
  static func heldInputSpace(of operation: any AnalysedOperation, input: ImageNode) -> WorkingSpace? {
    let size = input.info.size
    guard !(operation is HeldInputOperation), input.operation.asSource == nil,
      size.width * size.height <= heldAnalysedInputPixels
    else { return nil }
    return outputSpace(of: input)
  }

  /// The pixels `view` asks for: the image itself, or the image scaled to fit the pixel budget
  /// (box-averaged in `space`, the encoding the analysis reads).
  static func view(of image: Image, _ view: AnalysisView, space: WorkingSpace) -> Image {
    guard case .reduced(let budget) = view else { return image }
    let size = image.size
    let pixels = Double(size.width) * Double(size.height)
    guard pixels > Double(budget), budget > 0 else { return image }
    let f = (Double(budget) / pixels).squareRoot()
    let target = Size(width: max(1, Int(Double(size.width) * f)), height: max(1, Int(Double(size.height) * f)))
    return image.scaled(to: target, kernel: .box, linearLight: space == .linear)
  }
}
