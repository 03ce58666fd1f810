// PreparedRenderJob.swift — a job whose input is read and image built, ready to render; and
// what a render gives back.

import Foundation
import ImageCodecs
import PixelBufferModule

/// A `RenderJob` after `prepare`: the input's header is read and the image built, nothing decoded.
public struct PreparedRenderJob {
  /// The renderer it runs on.
  public let renderer: Renderer
  /// The image to render.
  public let image: Image
  /// The input image, as read (before the recipe).
  public let input: Image
  /// The input's file.
  public let source: EncodedSource
  /// Where the output goes (a batch names it only once the input's format is known).
  public var destination: ImageDestination
  /// How the output is encoded; `protectedInputs` includes a file input.
  public var options: WriteOptions
  /// The time spent so far.
  public let timings: RenderTimings
  /// The input's frames and what the frame loop does with them, for an animated input.
  let frames: AnimatedInput?

  init(
    renderer: Renderer, image: Image, input: Image, source: EncodedSource, destination: ImageDestination, options: WriteOptions,
    timings: RenderTimings, frames: AnimatedInput?
  ) {
    self.renderer = renderer
    self.image = image
    self.input = input
    self.source = source
    self.destination = destination
    self.options = options
    self.timings = timings
    self.frames = frames
  }

  /// The input's format.
  public var inputFormat: ImageFileFormat { source.header.fileFormat }

  /// The input's frames, canvas, delays and loop count when it is an animation of more than one
  /// frame read whole (no `page` asked for); nil for a still. `image` is then its first frame.
  public var animation: AnimationInfo? { frames?.info }

  /// True when `render` writes every frame (`RenderJob.animation` selects them): the input is an
  /// animation and the output format holds one (GIF, WebP, PNG as APNG).
  ///
  /// - Throws: `RenderJobError(.options)` as `outputFormat()` does.
  public func writesAnimation() throws -> Bool {
    guard frames != nil else { return false }
    return try outputFormat().codec is any AnimationEncoding.Type
  }

  /// The format the output is written in: `options.format`, else the one a file destination's
  /// extension names, else the input's.
  ///
  /// - Throws: `RenderJobError(.options)` when they contradict, a file name names no format, or
  ///   the format cannot be written here.
  public func outputFormat() throws -> ImageFileFormat {
    var file: URL?
    if case .file(let url) = destination { file = url }
    // With the input's format as the last choice there is always one.
    return try OutputFormatChoice.format(requested: options.format, destination: file, input: inputFormat) ?? inputFormat
  }

  /// An upper bound, in bytes, of what rendering and encoding the image hold at once: the
  /// render's (`Renderer.estimatedMemory(for:)`) plus what the output's encoder holds of its own
  /// (`ImageCodec.encoderHeldBytes`: a whole-picture encoder such as HEIC's holds the picture and
  /// its working copies). Batches and the server admit a job by it before anything is allocated.
  public var estimatedMemory: Int {
    if let frames, let format = try? outputFormat(), let encoding = format.codec as? any AnimationEncoding.Type {
      // The frame loop's: one frame's (and the frames the writer encodes at once, and the output's
      // buffer), whatever the count.
      let writerState = (try? Renderer.encoding(format, options)).map {
        encoding.animationWriterStateBytes(size: image.size, options: $0.options, threads: renderer.pool.threadCount)
      }
      return renderer.estimatedAnimationMemory(for: image, canvas: frames.info.canvasSize, writerState: writerState ?? .max)
    }
    let render = renderer.estimatedMemory(for: image)
    guard render != .max, let format = try? outputFormat(), let (codec, resolved) = try? Renderer.encoding(format, options) else {
      return render
    }
    let encoded = codec.encodedPixelFormat(layout: image.info.layout, component: image.info.component, options: resolved)
    return Renderer.saturated(render, plus: codec.encoderHeldBytes(for: image.size, format: encoded, options: resolved))
  }

  /// Renders, encodes and delivers the image.
  ///
  /// - Parameters:
  ///   - stop: asked before each tile and after each band; once it returns true the render ends
  ///     with the tiles running, `CancellationError` is thrown (as `RenderJobError(.output)`) and
  ///     a file destination is left as it was.
  ///   - written: called once every byte is written, before a file is flushed to disk and moved
  ///     into place (a batch hands its render slot on then).
  ///   - vet: called with the render's warnings and the damage among them (`RenderResult`) once
  ///     the image is encoded, before a file is moved into place or memory handed back; what it
  ///     throws fails the job and a file destination is left as it was. A stream has been
  ///     written by then: its error comes too late to hold the bytes back.
  /// - Throws: `RenderJobError`: `.options` for the format, `.output` for anything after.
  public func render(
    stop: (() -> Bool)? = nil, written: (() -> Void)? = nil, vet: ((_ warnings: [String], _ damage: [String]) throws -> Void)? = nil
  ) throws -> RenderResult {
    let format = try outputFormat()
    var options = self.options
    options.format = format
    var image = self.image
    var notes: [String] = []
    if let frames {
      if let encoding = format.codec as? any AnimationEncoding.Type {
        if options.target != nil {
          throw RenderJobError(
            stage: .options,
            underlying: CodecError(
              .invalidArgument, "A target is met by encoding a still image again; give an animation a quality instead, or read one frame (the page option)."))
        }
        return try renderAnimation(frames, as: encoding, options: options, stop: stop, written: written, vet: vet)
      }
      if frames.options != AnimationOptions() {
        throw RenderJobError(
          stage: .options,
          underlying: CodecError(
            .invalidArgument,
            "\(format.rawValue) cannot hold an animation: write GIF, WebP or PNG (APNG) to keep the frames, or read one frame (the page option)."))
      }
      (image, notes) = try firstFrame(of: frames, as: format)
    }
    let started = RenderTimings.now()
    var data: Data?
    var byteCount: Int?
    var warnings: [String] = []
    var damage: [String] = []
    var target: TargetOutcome?
    do {
      if let bytes = try renderer.ultraHDRBytes(image, format: format, options: options) {
        try vet?([], [])
        // An Ultra HDR JPEG is assembled whole in memory (its MPF index needs the base's length).
        data = try deliver(bytes, protecting: options.protectedInputs)
        byteCount = bytes.count
        written?()
      } else {
        let output = try renderer.outputPlan(image, format: format, options: options, stop: stop)
        switch destination {
        case .file(let url):
          try OutputFile.write(to: url, protecting: options.protectedInputs) { handle in
            try renderer.encode(output, handle: handle, stop: stop)
            if let stop, stop() { throw CancellationError() }
            try vet?(notes + output.plan.warnings, output.plan.damage)
            written?()
          }
          byteCount = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
        case .memory:
          data = try renderer.encode(output, handle: nil, stop: stop)
          try vet?(notes + output.plan.warnings, output.plan.damage)
          byteCount = data?.count
          written?()
        case .handle(let handle):
          try renderer.encode(output, handle: handle, stop: stop)
          try vet?(notes + output.plan.warnings, output.plan.damage)
          written?()
        }
        warnings = notes + output.plan.warnings
        damage = output.plan.damage
        target = output.plan.targetOutcome
      }
    } catch {
      throw RenderJobError(stage: .output, underlying: error)
    }
    var timings = self.timings
    timings.renderSeconds = RenderTimings.now() - started
    return RenderResult(
      data: data, format: format, size: image.info.size, inputSize: input.info.size, byteCount: byteCount,
      warnings: warnings, damage: damage, target: target, timings: timings)
  }

  /// Sends a file encoded whole in memory to the destination; returns the bytes for `.memory`.
  func deliver(_ bytes: Data, protecting inputs: [URL]) throws -> Data? {
    switch destination {
    case .file(let url): try OutputFile.write(bytes, to: url, protecting: inputs)
    case .memory: return bytes
    case .handle(let handle): try bytes.withUnsafeBytes { try handle.writeAll($0) }
    }
    return nil
  }
}

/// What a job produced.
public struct RenderResult: Sendable {
  /// The encoded bytes, for a `.memory` destination.
  public var data: Data?
  /// The format written.
  public var format: ImageFileFormat
  /// The output's size in pixels (an animation's frames').
  public var size: Size
  /// The frames written: 1 for a still, every frame selected for an animation written as one.
  public var frameCount = 1
  /// The input's size in pixels.
  public var inputSize: Size
  /// The bytes written (nil for a stream).
  public var byteCount: Int?
  /// What the decoders recovered from and the colour problems worked around ("photo.jpg:
  /// Premature end of JPEG file"), in order: the output may look fine and still be wrong.
  public var warnings: [String]
  /// The warnings that say an input's data is damaged: a decoder patched up corrupt or truncated
  /// data, so pixels (often the bottom of the image) are not the ones the file was meant to hold.
  public var damage: [String]
  /// What a write with `WriteOptions.target` chose (quality, score, bytes, encodes), or nil.
  public var target: TargetOutcome?
  /// Time per step.
  public var timings: RenderTimings
}

/// Seconds spent in each step of a job.
public struct RenderTimings: Sendable {
  /// Reading the input's header.
  public var readSeconds = 0.0
  /// Building the image (compiling the recipe).
  public var buildSeconds = 0.0
  /// Decoding, rendering, encoding and writing.
  public var renderSeconds = 0.0

  /// Seconds on a monotonic clock.
  static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
