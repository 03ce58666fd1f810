// PreparedRenderJob+Animation.swift — an animated input written as an animation: the frame loop
// (Renderer+Animation.swift) run with the job's recipe, output format, codec options, metadata
// and delivery, the same as a still's.
//
// Each frame is turned upright by the input file's EXIF orientation before the recipe, exactly as
// a still is (`Image(source:)`, unless `LoadOptions.autoOrient` is off), and carries the file's
// descriptive metadata into the recipe's graph, so the writer gets what a still's encoder would
// (`MetadataKinds.written`: EXIF made true of the upright written frames, XMP as read). Frames are
// rendered in sRGB and written without an ICC profile, and flattened onto the background when the
// format stores no alpha (`Renderer.flattened`). The writer's bytes go to the destination as the
// frames are encoded (`AnimationOutput`): to a file through `OutputFile` (an unnamed file moved
// into place once complete and vetted, as a still's), to a stream as they come, or collected in
// memory for a `.memory` destination.

import Foundation
import ImageCodecs
import PixelBufferModule

/// An animated input: its frames, where they are read from, and what the loop does with them.
struct AnimatedInput {
  /// The frames' canvas, delays and loop count.
  let info: AnimationInfo
  /// Which frames are written, how fast.
  let options: AnimationOptions
  /// The job's recipe, applied to frame 1 (later frames reuse its graph).
  let recipe: (Image) throws -> Image
}

extension PreparedRenderJob {
  /// Renders every selected frame of `frames` through the recipe into `encoding`'s writer and
  /// delivers the file, as `render(stop:written:vet:)` does a still (`options.format` is the
  /// format chosen).
  func renderAnimation(
    _ frames: AnimatedInput, as encoding: any AnimationEncoding.Type, options: WriteOptions, stop: (() -> Bool)?,
    written: (() -> Void)?, vet: ((_ warnings: [String], _ damage: [String]) throws -> Void)?
  ) throws -> RenderResult {
    let format = encoding.format
    let started = RenderTimings.now()
    var done: AnimationRender?
    var data: Data?
    var byteCount = 0
    do {
      let coding = try Renderer.encoding(format, options)
      guard let decoding = source.codec as? any AnimationDecoding.Type else {
        throw CodecError(.unsupported, "\(source.name) is not an animation \(source.codec.displayName) reads frame by frame.")
      }
      let stored = source.header.metadata
      let orientation = source.options.autoOrient ? stored.orientation : .up
      let carried = ImageMetadata(
        orientation: orientation, exif: stored.exif, xmp: stored.xmp, iptc: stored.iptc, comment: stored.comment,
        xmpExtension: stored.xmpExtension)
      // The metadata its reader left out that the animation would have kept, said once.
      let leftOut = try source.leftOutMetadataWarnings(kept: options.keptMetadata)
      leftOut.forEach { renderer.warningHandler?($0) }
      let recipe = frames.recipe
      let background = options.background
      // The frame loop into `handle` (nil: memory); the file's bytes for memory.
      func run(_ handle: OutputHandle?) throws -> Data? {
        let reader = try source.frameReader(decoding)
        let output = AnimationOutput(handle: handle, format: "animated \(encoding.displayName)")
        let render = try renderer.renderFrames(
          from: reader,
          applying: { frame in
            Renderer.flattened(try recipe(orientation == .up ? frame : frame.oriented(orientation)), for: coding, background: background)
          },
          options: frames.options, metadata: carried, stop: stop
        ) { size, layout, loops, count, metadata in
          try encoding.makeAnimationWriter(
            size: size, layout: layout, loopCount: loops, frameCount: count, options: coding.options,
            metadata: options.keptMetadata.written(from: metadata, size: size, profile: nil, format: format),
            executor: renderer.pool, output: output)
        }
        let bytes = try render.writer.finish()
        done = render
        done?.warnings = leftOut + render.warnings
        byteCount = output.count
        try vet?(leftOut + render.warnings, render.damage)
        written?()
        return bytes
      }
      switch destination {
      case .file(let url): try OutputFile.write(to: url, protecting: options.protectedInputs) { _ = try run($0) }
      case .memory: data = try run(nil)
      case .handle(let handle): _ = try run(handle)
      }
    } catch {
      throw RenderJobError(stage: .output, underlying: error)
    }
    guard let done else { throw RenderJobError(stage: .output, underlying: CodecError(.invalidArgument, "The animation was not written.")) }
    var isStream = false
    if case .handle = destination { isStream = true }
    var timings = self.timings
    timings.renderSeconds = RenderTimings.now() - started
    return RenderResult(
      data: data, format: format, size: done.summary.size, frameCount: done.summary.delays.count, inputSize: input.info.size,
      byteCount: isStream ? nil : byteCount, warnings: done.warnings, damage: done.damage, target: nil, timings: timings)
  }

  /// The image an animated input gives in a format that holds one picture, and the warning that
  /// says so (passed to the renderer's warning handler too): the recipe over frame 1 read as a page. The job, which knows the output format,
  /// gives the warning rather than the decoder, whose warnings report a damaged input.
  func firstFrame(of frames: AnimatedInput, as format: ImageFileFormat) throws -> (Image, [String]) {
    let image: Image
    do {
      image = try frames.recipe(Image(source: source.reading(page: 0)))
    } catch {
      throw RenderJobError(stage: .recipe, underlying: error)
    }
    let warning =
      "the \(source.codec.displayName) is an animation of \(frames.info.frameCount) frames; only frame 1 is read, as \(format.rawValue) "
      + "holds one picture (choose one with --frame N, or write an animated format (GIF, WebP or PNG) to keep them all)."
    renderer.warningHandler?(warning)
    return (image, [warning])
  }
}
