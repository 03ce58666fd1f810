// RenderJob.swift — one image from request to bytes: read the input, build the image, render,
// encode, deliver.
//
// Every caller that turns an input into an output file goes through here — `fgrun run`, each file
// of a batch, the cluster's tasks (which run fgrun batches), an image server — so the output
// format is chosen, inputs are protected, alpha is flattened (Renderer+Write.swift) and warnings
// are collected in one place, for stills and animations alike. A job runs in two steps: `prepare`
// reads the input's header and builds the image (nothing is decoded yet); `PreparedRenderJob.render`
// renders and delivers it. A batch names its output and waits for a render slot between the two;
// everyone else calls `run`.
//
// An animated input (GIF, WebP, APNG of more than one frame, no `page` asked for) written to a
// format that holds animations goes through the frame loop (Renderer+Animation.swift,
// PreparedRenderJob+Animation.swift): every frame turned upright by the file's EXIF orientation,
// as a still is, then through the recipe. Written to a still-only format it is its first frame,
// and the decoder's warning says so.

import Foundation
import ImageCodecs

/// Where a job's input comes from.
public enum ImageInput: Sendable {
  /// A file, read with the renderer's limits (`LoadOptions`).
  case file(URL)
  /// Encoded bytes in memory, with the same limits and errors as a file.
  case data(Data)
  /// A stream read to its end first (standard input: `.handle(.standardInput)`).
  case handle(FileHandle)
}

/// Where a job's encoded output goes.
public enum ImageDestination {
  /// A file written atomically (`OutputFile`): it appears complete or not at all.
  case file(URL)
  /// Memory: `RenderResult.data` holds the bytes.
  case memory
  /// A stream, written band by band as the render goes; not atomic (standard output:
  /// `.handle(.standardOutput)`).
  case handle(OutputHandle)
}

/// An error of a job, with the step it happened in (a caller maps steps to its own classes:
/// fgrun's exit statuses, an HTTP status).
public struct RenderJobError: Error, CustomStringConvertible {
  /// The steps of a job.
  public enum Stage: Sendable {
    /// The output format or its options: a request that cannot be met, whatever the input.
    case options
    /// Reading the input.
    case input
    /// Building the image (the recipe).
    case recipe
    /// Rendering, encoding and writing.
    case output
  }

  /// The step that failed.
  public var stage: Stage
  /// The error thrown there (`CodecError`, `RecipeError`, `FilterError`, …).
  public var underlying: Error

  public var description: String { "\(underlying)" }
}

/// One input rendered to one output.
///
/// ```swift
/// let job = RenderJob(input: .data(upload), destination: .memory,
///                     options: WriteOptions(format: .jpeg, options: ["quality": 80])) {
///   $0.scaled(toFit: Size(width: 800, height: 800))
/// }
/// let result = try job.run(on: renderer)   // result.data: the JPEG; result.warnings
/// ```
public struct RenderJob {
  /// The input.
  public var input: ImageInput
  /// Where the encoded output goes.
  public var destination: ImageDestination
  /// How the output is encoded. `options.format` is the format asked for; without it a file
  /// destination's extension names it, and otherwise the input's format is kept
  /// (`PreparedRenderJob.outputFormat`). `options.protectedInputs` are never overwritten, and
  /// neither is a file input.
  public var options: WriteOptions
  /// How the input is read (limits, strictness, decode options such as `page`).
  public var loadOptions: LoadOptions
  /// Builds the output image from the input (a compiled recipe, or any Swift code). For an
  /// animation written as one, it builds each frame's (`animation`).
  public var recipe: (Image) throws -> Image
  /// Which frames of an animated input are written, and how fast, when the output format holds
  /// an animation (default: every frame as timed). A still input, or one frame read with the
  /// `page` load option, ignores it.
  public var animation = AnimationOptions()

  /// Creates a job; `recipe` defaults to the input unchanged.
  public init(
    input: ImageInput, destination: ImageDestination, options: WriteOptions = WriteOptions(),
    loadOptions: LoadOptions = LoadOptions(), recipe: @escaping (Image) throws -> Image = { $0 }
  ) {
    self.input = input
    self.destination = destination
    self.options = options
    self.loadOptions = loadOptions
    self.recipe = recipe
  }

  /// Prepares and renders the job.
  ///
  /// - Throws: `RenderJobError`, naming the step that failed.
  public func run(on renderer: Renderer) throws -> RenderResult {
    try prepare(on: renderer).render()
  }

  /// Reads the input's header and builds the image; nothing is decoded yet. A file destination's
  /// format is checked first, so a request that cannot be met fails before the input is read.
  ///
  /// - Throws: `RenderJobError`: `.options` (the output format), `.input`, `.recipe`, or
  ///   `.output` when the destination is the input file.
  public func prepare(on renderer: Renderer) throws -> PreparedRenderJob {
    if case .file(let url) = destination {
      _ = try OutputFormatChoice.format(requested: options.format, destination: url, input: nil)
    }
    let started = RenderTimings.now()
    let encoded: EncodedSource
    var inputURL: URL?
    do {
      switch input {
      case .file(let url):
        inputURL = url
        encoded = try EncodedSource(contentsOf: url, options: loadOptions)
      case .data(let data):
        encoded = try EncodedSource(data: data, options: loadOptions)
      case .handle(let handle):
        let data = try InputBytes.read(descriptor: handle.fileDescriptor, name: "standard input", limit: loadOptions.limits.maxInputBytes)
        guard !data.isEmpty else { throw CodecError(.io, "Standard input is empty; expected a JPEG or PNG image.") }
        encoded = try EncodedSource(data: data, options: loadOptions)
      }
    } catch {
      throw RenderJobError(stage: .input, underlying: error)
    }
    if let inputURL, case .file(let url) = destination, FileIdentity.sameFile(inputURL, url) {
      throw RenderJobError(
        stage: .output,
        underlying: CodecError(.invalidArgument, "Refusing to write over the input file \(inputURL.relativePath); choose another output name."))
    }
    let frames: AnimationInfo?
    do {
      frames = try Self.animation(of: encoded)
    } catch {
      throw RenderJobError(stage: .input, underlying: error)
    }
    var timings = RenderTimings()
    timings.readSeconds = RenderTimings.now() - started
    let input = Image(source: encoded)
    let image: Image
    do {
      image = try recipe(input)
    } catch {
      throw RenderJobError(stage: .recipe, underlying: error)
    }
    timings.buildSeconds = RenderTimings.now() - started - timings.readSeconds
    var options = self.options
    options.protectedInputs = (inputURL.map { [$0] } ?? []) + options.protectedInputs
    return PreparedRenderJob(
      renderer: renderer, image: image, input: input, source: encoded, destination: destination, options: options, timings: timings,
      frames: frames.map { AnimatedInput(info: $0, options: animation, recipe: recipe) })
  }

  /// The frames of `source` when it is an animation of more than one frame read whole (no
  /// `page` asked for), else nil. Only a codec that reads animations is asked, from the bytes
  /// the source holds or its file read in place.
  ///
  /// - Throws: the codec's error for frames it refuses (over `maxFrames`).
  static func animation(of source: EncodedSource) throws -> AnimationInfo? {
    guard let decoding = source.codec as? any AnimationDecoding.Type, source.options.formatOptions[FormatOption.page.name] == nil
    else { return nil }
    let info = try source.animation(decoding)
    return info.frameCount > 1 ? info : nil
  }
}

/// The output format: the single place the rules live.
enum OutputFormatChoice {
  /// The format asked for (`requested`), else the one a file destination's extension names, else
  /// the input's. Nil only while the input is unknown and nothing else names a format.
  ///
  /// - Throws: `RenderJobError(.options)` when `requested` contradicts the file name, when a file
  ///   name names no format and none is asked for, or when the format cannot be written here.
  static func format(requested: ImageFileFormat?, destination: URL?, input: ImageFileFormat?) throws -> ImageFileFormat? {
    var format = requested
    if let destination {
      let named = ImageFileFormat(pathExtension: destination.pathExtension)
      if let requested, let named, named != requested {
        throw RenderJobError(
          stage: .options,
          underlying: CodecError(
            .invalidArgument,
            "The format asked for, \(requested.rawValue), contradicts the output name \(destination.relativePath); drop one of them."))
      }
      format = requested ?? named
      if format == nil {
        throw RenderJobError(
          stage: .options,
          underlying: CodecError(
            .invalidArgument,
            "Cannot tell the output format from '\(destination.relativePath)': name it \(CodecRegistry.writableExtensions), or give the format."))
      }
    }
    guard let chosen = format ?? input else { return nil }
    if let reason = chosen.codec?.encoderUnavailableReason {
      throw RenderJobError(stage: .options, underlying: CodecError(.unsupported, reason))
    }
    return chosen
  }
}
