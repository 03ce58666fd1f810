// Renderer+Animation.swift — the frame loop: a recipe applied to every frame of an animation,
// frames streamed from a reader through the graph into an animation writer one at a time.
//
// Frame k's image is the recipe's graph with the frame's pixels as its source: the graph is
// built once, on frame 1, and each later frame replaces the previous frame's source node in the
// previous frame's graph (every node above it is rebuilt, nothing else), so a watermark or overlay file is decoded once and composited on every
// frame. Geometry is decided once for the whole animation: the analyses that choose a window —
// `trim`'s border and `smartcrop`'s interest — are computed on the FIRST frame and their crop is
// kept for every frame, so the window never jumps (the union of all frames would need two passes
// over the file). Every other operation, colour, convolution, `normalize`'s histogram included,
// runs on each frame's own pixels.
//
// Memory is one frame: the reader's canvas (and GIF's saved canvas), the frame being rendered
// (its input and output buffers and the renderer's tiles; while the next frame is read, the
// previous one's input), the previous rendered frame while the pool encodes it (EncodeAheadWriter;
// a writer that encodes several frames at once counts those in its own state), the writer's
// reference canvases, and its output's buffer (`AnimationOutput`: the encoded bytes go to the
// file as each frame is written) — whatever the number of frames.
// `estimatedAnimationMemory` counts it (a job admits an animation by it,
// `PreparedRenderJob.estimatedMemory`).

import Foundation
import ImageCodecs
import PixelBufferModule

/// Which frames of an animation to write, and how fast.
public struct AnimationOptions: Hashable, Sendable {
  /// The zero-based frames to write (nil: all).
  public var frames: ClosedRange<Int>?
  /// Playback speed: every delay is divided by it (2 plays twice as fast).
  public var speed: Double
  /// When set, every frame is shown for 1000 / fps ms instead of its own delay.
  public var framesPerSecond: Double?
  /// How many times the output plays (0 forever); nil keeps the input's.
  public var loopCount: Int?

  /// Creates options; the defaults write every frame as timed in the input.
  public init(frames: ClosedRange<Int>? = nil, speed: Double = 1, framesPerSecond: Double? = nil, loopCount: Int? = nil) {
    self.frames = frames
    self.speed = speed
    self.framesPerSecond = framesPerSecond
    self.loopCount = loopCount
  }

  /// The delay (ms) of a frame stored with `delay` ms.
  public func retimed(_ delay: Int) -> Int {
    if let framesPerSecond, framesPerSecond > 0 { return Int((1000 / framesPerSecond).rounded()) }
    return Int((Double(delay) / (speed > 0 ? speed : 1)).rounded())
  }
}

/// What a frame loop wrote.
public struct AnimationSummary: Hashable, Sendable {
  /// The frames' size.
  public var size: Size
  /// Each written frame's delay in ms.
  public var delays: [Int]
  /// How many times the output plays (0 forever).
  public var loopCount: Int
  /// The renderer's estimate of the most bytes the loop held at once (one frame's, and the
  /// writer's output buffer).
  public var estimatedBytes: Int
}

/// What a frame loop gave: its writer (whose bytes are the caller's), what it wrote, and the
/// frames' warnings, each once.
struct AnimationRender {
  var writer: any AnimationFrameWriter
  var summary: AnimationSummary
  /// The warnings of every frame's render, each once, in order.
  var warnings: [String]
  /// The warnings among them that say a source's data is damaged.
  var damage: [String]
}

extension Renderer {
  /// Applies `recipe` to every frame `reader` gives (as `options` selects and retimes) and adds
  /// the results, rendered in sRGB, to the writer `makeWriter` starts for the output's size,
  /// layout, loop count and number of frames. The writer's bytes are the caller's (`finish()`). A warning the
  /// frames' renders give is passed to the warning handler once, not once per frame. `stop` is
  /// asked before each frame: once it returns true the loop ends with `CancellationError`.
  ///
  /// - Throws: the reader's, recipe's, renderer's or writer's first error; `.invalidArgument`
  ///   when `options.frames` selects no frame or the recipe's output size differs between frames.
  public func renderAnimation(
    from reader: any AnimationFrameReader, applying recipe: (Image) throws -> Image, options: AnimationOptions = AnimationOptions(),
    stop: (() -> Bool)? = nil, into makeWriter: (Size, ChannelLayout, Int, Int) throws -> any AnimationFrameWriter
  ) throws -> (writer: any AnimationFrameWriter, summary: AnimationSummary) {
    let done = try renderFrames(
      from: reader, applying: recipe, options: options, metadata: ImageMetadata(), stop: stop
    ) { size, layout, loops, count, _ in
      try makeWriter(size, layout, loops, count)
    }
    return (done.writer, done.summary)
  }

  /// The frame loop of `renderAnimation`, each frame carrying `metadata` into the recipe's graph;
  /// `makeWriter` is also given the metadata frame 1's graph carries out (as a still's graph
  /// carries its file's to the writer).
  func renderFrames(
    from reader: any AnimationFrameReader, applying recipe: (Image) throws -> Image, options: AnimationOptions, metadata: ImageMetadata,
    stop: (() -> Bool)?, into makeWriter: (Size, ChannelLayout, Int, Int, ImageMetadata) throws -> any AnimationFrameWriter
  ) throws -> AnimationRender {
    let info = reader.info
    let selected = options.frames ?? 0...max(0, info.frameCount - 1)
    guard selected.lowerBound >= 0, selected.lowerBound < info.frameCount else {
      throw CodecError(.invalidArgument, "The animation has \(info.frameCount) frames; frames \(selected.lowerBound + 1)… do not exist.")
    }
    // The frames written, as the headers count them (an APNG states the number before them).
    let frameCount = min(selected.upperBound, info.frameCount - 1) - selected.lowerBound + 1
    var template: (root: ImageNode, source: ImageNode)?
    // Frame k is encoded on the pool while frame k + 1 is decoded and rendered (by a writer that
    // encodes in parallel, or by `EncodeAheadWriter` around one that does not); a failed frame
    // ends the loop only after the frame encoding ahead has finished.
    var writer: (any AnimationFrameWriter)?
    var encodeAhead: EncodeAheadWriter?
    defer { try? encodeAhead?.waitForEncode() }
    var summary = AnimationSummary(size: Size(width: 0, height: 0), delays: [], loopCount: options.loopCount ?? info.loopCount, estimatedBytes: 0)
    var reported: Set<String> = []
    var warnings: [String] = [], damage: [String] = []
    var index = 0
    while index <= selected.upperBound {
      if let stop, stop() { throw CancellationError() }
      guard var frame = try reader.nextFrame() else { break }
      defer { index += 1 }
      guard index >= selected.lowerBound else { continue }
      frame.metadata = metadata
      let input = Image(buffer: frame)
      let output: Image
      if let template {
        output = Image(node: Renderer.replacing(template.source, with: input.node, in: template.root))
      } else {
        output = try Renderer.sRGB(try fixingWindows(try recipe(input)))
      }
      // The next frame's graph is built from this one's, which then holds no older frame.
      template = (output.node, input.node)
      let (pixels, plan) = try render(output, format: output.info.layout.hasAlpha ? .rgba8 : .rgb8, reported: reported)
      for warning in plan.warnings where reported.insert(warning).inserted {
        warnings.append(warning)
        if plan.damage.contains(warning) { damage.append(warning) }
      }
      if writer == nil {
        let inner = try makeWriter(pixels.size, pixels.format.layout, summary.loopCount, frameCount, output.info.metadata)
        if !inner.encodesInParallel { encodeAhead = EncodeAheadWriter(inner, pool: pool, frameBytes: pixels.rowBytes * pixels.height) }
        summary.size = pixels.size
        summary.estimatedBytes = estimatedAnimationMemory(for: output, canvas: info.canvasSize, writerState: inner.stateBytes)
        writer = encodeAhead ?? inner
      }
      guard pixels.size == summary.size else {
        throw CodecError(.invalidArgument, "Frame \(index + 1) renders at \(pixels.size), frame \(selected.lowerBound + 1) at \(summary.size); an animation's frames must be one size.")
      }
      let delay = options.retimed(index < info.delays.count ? info.delays[index] : 0)
      try writer?.add(pixels, delay: delay)
      summary.delays.append(delay)
    }
    guard let writer else { throw CodecError(.corrupt, "The animation gave no frame to write.") }
    try encodeAhead?.waitForEncode()
    return AnimationRender(writer: writer, summary: summary, warnings: warnings, damage: damage)
  }

  /// An upper bound, in bytes, of what the frame loop holds at once for frames on `canvas`
  /// rendered through `output` (a frame's graph), into a writer holding `writerState` bytes of
  /// its own: the frame's render (`estimatedMemory(for:)`), four canvases of 8-bit RGBA (the
  /// reader's, GIF's saved one, the frame handed out and the previous one, held while the next
  /// is read), two rendered frames (the one just rendered and the one the pool is encoding,
  /// `EncodeAheadWriter`; a writer encoding several frames at once counts them in `writerState`)
  /// and the output's buffer (`AnimationOutput.bufferCapacity`, what a writer holds of a file or
  /// stream it writes). Whatever the number of frames. An output to memory is the file itself,
  /// the caller's, and counted no more than a still's encoded bytes are.
  func estimatedAnimationMemory(for output: Image, canvas: Size, writerState: Int) -> Int {
    let render = estimatedMemory(for: output)
    guard render != .max else { return .max }
    let canvases = Renderer.saturated(4 * 4, times: [max(canvas.width, 0), max(canvas.height, 0)])
    let rendered = Renderer.saturated(2 * 4, times: [max(output.size.width, 0), max(output.size.height, 0)])
    return [canvases, rendered, writerState, AnimationOutput.bufferCapacity].reduce(render) { Renderer.saturated($0, plus: $1) }
  }

  /// `image` with its window-choosing analyses (`trim`, `smartcrop`) computed and replaced by
  /// the crops they resolve to; other analyses stay, to run on each frame.
  func fixingWindows(_ image: Image) throws -> Image {
    // The frames' renders report the graph's warnings; these would repeat them.
    var warnings: [String] = []
    return try resolved(image, only: { $0 is any WindowChoosingOperation }, warnings: &warnings)
  }

  /// The graph under `root` with `old` replaced by `new`: every node above `old` rebuilt, the
  /// rest shared.
  static func replacing(_ old: ImageNode, with new: ImageNode, in root: ImageNode) -> ImageNode {
    var done: [ObjectIdentifier: ImageNode] = [ObjectIdentifier(old): new]
    func visit(_ node: ImageNode) -> ImageNode {
      if let hit = done[ObjectIdentifier(node)] { return hit }
      let inputs = node.inputs.map(visit)
      let result = zip(inputs, node.inputs).contains(where: { $0 !== $1 }) ? ImageNode(operation: node.operation, inputs: inputs) : node
      done[ObjectIdentifier(node)] = result
      return result
    }
    return visit(root)
  }

  /// `image` in sRGB: animations are written without an ICC profile.
  static func sRGB(_ image: Image) -> Image {
    let space = image.info.colorSpace
    return space == .sRGB || space == .linearSRGB ? image : image.converted(to: .sRGB)
  }
}
