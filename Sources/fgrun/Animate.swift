// Animate.swift — animated inputs in `fgrun run` and batches: --frames, --frame, --fps, --speed,
// which become the job's frame options (`RenderJob.animation`) and `page` load option.
//
// The job decides the rest (RenderJob.swift): an animated GIF, WebP or PNG (APNG) written to an
// animated format (GIF, WebP, PNG as APNG) keeps every frame, its delays and loop count, the
// recipe applied to each frame (geometry decided on the first). Written to a still-only format,
// or with --frame N, one frame becomes a still (without --frame the decoder warns once that only
// frame 1 is read). A still input always gives a still output.

import ArgumentParser
import FilterGraph
import Foundation

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

extension AnimationFlags {
  /// Sets `job`'s frame options (the frame loop's; `--frame N` is its `page` load option).
  func apply(to job: inout RenderJob) throws {
    job.animation = try options()
    job.loadOptions = loadOptions(job.loadOptions)
  }

  /// Checks the flags against a prepared job: on a still input --frames, --fps and --speed do
  /// nothing (a warning, given to `warn`); on an animation written to a still-only format they ask
  /// for what cannot be (a usage error).
  func check(_ job: PreparedRenderJob, input name: String, warn: (String) -> Void) throws {
    guard asksForAnimation else { return }
    guard job.animation != nil else {
      return warn("\(name) is read as one still image; --frames, --fps and --speed do nothing.")
    }
    let format = try job.outputFormat()
    if !(try job.writesAnimation()) {
      throw Failure(
        status: ExitStatus.usage,
        message: "\(format.rawValue) cannot hold an animation; write GIF, WebP or PNG (APNG) to keep the frames, or choose one with --frame N.")
    }
  }
}
