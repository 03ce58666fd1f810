// Animate.swift — animated inputs in `fgrun run`: --frames, --frame, --fps, --speed, and the
// frame loop (Renderer.renderAnimation) when the output format can hold an animation.
//
// An animated GIF, WebP or PNG (APNG) written to an animated format (GIF, WebP, PNG as APNG) keeps every frame, its delays and
// loop count, the recipe applied to each frame (geometry decided on the first). Written to a
// still-only format, or with --frame N, one frame becomes a still (without --frame the decoder
// warns once that only frame 1 is read). A still input always gives a still output.

import ArgumentParser
import FilterGraph
import Foundation
import ImageCodecs

/// Which frames of an animated input to write, and how fast.
struct AnimationFlags: ParsableArguments {
  @Option(help: ArgumentHelp("Animated input: write only frames N-M (counted from 1; N- to the end, or N).", valueName: "range"))
  var frames: String?

  @Option(help: ArgumentHelp("Animated input: write frame N (counted from 1) as a still image.", valueName: "n"))
  var frame: Int?

  @Option(help: ArgumentHelp("Animated output: show every frame for 1/fps seconds.", valueName: "fps"))
  var fps: Double?

  @Option(help: ArgumentHelp("Animated output: play this many times faster (0.5: half speed); delays are divided by it.", valueName: "factor"))
  var speed: Double?

  func validate() throws {
    if let frame, frame < 1 { throw ValidationError("--frame counts from 1.") }
    if let fps, !(fps > 0 && fps <= 1000) { throw ValidationError("--fps must be more than 0 and at most 1000.") }
    if let speed, !(speed > 0 && speed <= 1000) { throw ValidationError("--speed must be more than 0 and at most 1000.") }
    if frame != nil && (frames != nil || fps != nil || speed != nil) {
      throw ValidationError("--frame N writes one still frame; drop --frames, --fps and --speed.")
    }
    _ = try range()
  }

  /// `--frames` as zero-based frame indices.
  func range() throws -> ClosedRange<Int>? {
    guard let frames else { return nil }
    let parts = frames.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    let first = parts.first.flatMap { Int($0) }
    let last = parts.count == 1 ? first : parts.count == 2 ? (parts[1].isEmpty ? Int.max / 2 : Int(parts[1])) : nil
    guard let first, let last, first >= 1, last >= first else {
      throw ValidationError("--frames takes N-M, N- or N with 1 ≤ N ≤ M (frames count from 1), not '\(frames)'.")
    }
    return (first - 1)...(last - 1)
  }

  /// The frame loop's options.
  func options() throws -> AnimationOptions {
    AnimationOptions(frames: try range(), speed: speed ?? 1, framesPerSecond: fps)
  }

  /// True when a flag asks for something only an animation has.
  var asksForAnimation: Bool { frames != nil || fps != nil || speed != nil }

  /// `base` reading frame --frame (a page of the input) when given.
  func loadOptions(_ base: LoadOptions) -> LoadOptions {
    guard let frame else { return base }
    var options = base
    options.formatOptions["page"] = .integer(frame - 1)
    return options
  }
}

extension Run {
  /// Writes `inputURL`'s frames through the recipe to `outputURL` when the input is an animation
  /// of more than one frame, no single frame was asked for, and `format` can hold an animation;
  /// returns false (nothing written) otherwise.
  func writeAnimation(
    _ source: RecipeSource, input inputURL: URL, output outputURL: URL, format: ImageFileFormat, renderer: Renderer,
    loadOptions: LoadOptions
  ) throws -> Bool {
    guard animation.frame == nil, loadOptions.formatOptions["page"] == nil else { return false }
    // Only an animated format's file is read whole here: a still's first bytes tell it is none,
    // and its render reads the file itself (a TIFF strip by strip), so a copy here would be a
    // second one (a 118 MB TIFF's whole size on the peak memory).
    guard let handle = try? FileHandle(forReadingFrom: inputURL) else { return false }
    let head = try? handle.read(upToCount: CodecRegistry.sniffLength)
    try? handle.close()
    guard let head, CodecRegistry.sniff(head) is any AnimationDecoding.Type else { return false }
    // Mapped, not read; still held to the input limit the still path enforces.
    if let size = fileStatus(inputURL.path)?.st_size {
      do {
        try InputBytes.check(size: Int(size), name: "the input file \(inputURL.relativePath)", limit: loadOptions.limits.maxInputBytes)
      } catch {
        throw Failure(error, stage: .input)
      }
    }
    let data: Data
    do {
      data = try Data(contentsOf: inputURL, options: .mappedIfSafe)
    } catch {
      return false  // the still path reports the unreadable input
    }
    guard let decoding = CodecRegistry.sniff(data) as? any AnimationDecoding.Type else { return false }
    let info: AnimationInfo
    do {
      info = try decoding.readAnimation(data, limits: loadOptions.limits)
    } catch {
      throw Failure(error, stage: .input)
    }
    guard info.frameCount > 1 else {
      if animation.asksForAnimation { Console.error("fgrun: warning: \(inputURL.lastPathComponent) is a still image; --frames, --fps and --speed do nothing.") }
      return false
    }
    guard let encoding = format.codec as? any AnimationEncoding.Type else {
      if animation.asksForAnimation {
        throw Failure(status: ExitStatus.usage, message: "\(format.rawValue) cannot hold an animation; write GIF, WebP or PNG (APNG) to keep the frames, or choose one with --frame N.")
      }
      return false
    }
    var options = output.writeOptions
    let resolved: ResolvedFormatOptions
    do {
      options.formatOptions = try output.flags.encodeValues(for: format)
      resolved = try options.formatOptions.resolved(by: encoding.encodeOptions)
    } catch {
      throw Failure(error, stage: .output)
    }
    let header = try? decoding.readHeader(data, request: DecodeRequest(limits: loadOptions.limits))
    var metadata = ImageMetadata()
    if options.keptMetadata.contains(.exif) { metadata.exif = header?.metadata.exif }
    if options.keptMetadata.contains(.xmp) { metadata.xmp = header?.metadata.xmp }
    let context = source.context(loadOptions: loadOptions)
    fixMallocMapThreshold(256 << 10)
    do {
      let reader = try decoding.makeFrameReader(data, limits: loadOptions.limits)
      let (writer, _) = try renderer.renderAnimation(
        from: reader, applying: { try source.recipe.compile(input: $0, context: context) }, options: try animation.options()
      ) { size, layout, loops in
        try encoding.makeAnimationWriter(size: size, layout: layout, loopCount: loops, options: resolved, metadata: metadata)
      }
      try OutputFile.write(try writer.finish(), to: outputURL, protecting: [inputURL])
    } catch let failure as Failure {
      throw failure
    } catch let error as RecipeError {
      throw Failure(error, stage: .recipe)
    } catch {
      throw Failure(error, stage: .output)
    }
    return true
  }
}
