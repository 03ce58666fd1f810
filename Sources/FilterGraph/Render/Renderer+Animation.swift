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
// previous one's input), the previous rendered frame while the pool encodes it (EncodeAheadWriter),
// the writer's reference canvases, and the encoded bytes so far — whatever the number of frames.
// `AnimationSummary.estimatedBytes` counts it.

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
  /// The renderer's estimate of the most bytes the loop held at once (one frame's).
  public var estimatedBytes: Int
}

extension Renderer {
  /// Applies `recipe` to every frame `reader` gives (as `options` selects and retimes) and adds
  /// the results, rendered in sRGB, to the writer `makeWriter` starts for the output's size,
  /// layout and loop count. The writer's bytes are the caller's (`finish()`).
  ///
  /// - Throws: the reader's, recipe's, renderer's or writer's first error; `.invalidArgument`
  ///   when `options.frames` selects no frame or the recipe's output size differs between frames.
  public func renderAnimation(
    from reader: any AnimationFrameReader, applying recipe: (Image) throws -> Image, options: AnimationOptions = AnimationOptions(),
    into makeWriter: (Size, ChannelLayout, Int) throws -> any AnimationFrameWriter
  ) throws -> (writer: any AnimationFrameWriter, summary: AnimationSummary) {
    let info = reader.info
    let selected = options.frames ?? 0...max(0, info.frameCount - 1)
    guard selected.lowerBound >= 0, selected.lowerBound < info.frameCount else {
      throw CodecError(.invalidArgument, "The animation has \(info.frameCount) frames; frames \(selected.lowerBound + 1)… do not exist.")
    }
    var template: (root: ImageNode, source: ImageNode)?
    // Frame k is encoded on the pool while frame k + 1 is decoded and rendered; a failed frame
    // ends the loop only after the frame in flight has finished.
    var writer: EncodeAheadWriter?
    defer { try? writer?.waitForEncode() }
    var summary = AnimationSummary(size: Size(width: 0, height: 0), delays: [], loopCount: options.loopCount ?? info.loopCount, estimatedBytes: 0)
    var index = 0
    while index <= selected.upperBound, let frame = try reader.nextFrame() {
      defer { index += 1 }
      guard index >= selected.lowerBound else { continue }
      let input = Image(buffer: frame)
      let output: Image
      if let template {
        output = Image(node: Renderer.replacing(template.source, with: input.node, in: template.root))
      } else {
        output = try Renderer.sRGB(try fixingWindows(try recipe(input)))
      }
      // The next frame's graph is built from this one's, which then holds no older frame.
      template = (output.node, input.node)
      let pixels = try render(output, format: output.info.layout.hasAlpha ? .rgba8 : .rgb8)
      if writer == nil {
        let started = EncodeAheadWriter(
          try makeWriter(pixels.size, pixels.format.layout, summary.loopCount), pool: pool, frameBytes: pixels.rowBytes * pixels.height)
        summary.size = pixels.size
        summary.estimatedBytes = Renderer.saturated(
          estimatedMemory(for: output),
          plus: frame.rowBytes * frame.height + pixels.rowBytes * pixels.height + started.stateBytes)
        writer = started
      }
      guard pixels.size == summary.size else {
        throw CodecError(.invalidArgument, "Frame \(index + 1) renders at \(pixels.size), frame \(selected.lowerBound + 1) at \(summary.size); an animation's frames must be one size.")
      }
      let delay = options.retimed(index < info.delays.count ? info.delays[index] : 0)
      try writer?.add(pixels, delay: delay)
      summary.delays.append(delay)
    }
    guard let writer else { throw CodecError(.corrupt, "The animation gave no frame to write.") }
    try writer.waitForEncode()
    return (writer, summary)
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
