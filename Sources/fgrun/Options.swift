// Options.swift — options shared by the subcommands, and loading the recipe they name.

import ArgumentParser
import FilterGraph
import Foundation
import ImageCodecs

/// Threads and limits: how the engine runs.
struct EngineOptions: ParsableArguments {
  @Option(help: ArgumentHelp("Worker threads (default: one per core).", valueName: "n"))
  var threads: Int?

  @Option(
    name: .customLong("max-pixels"),
    help: ArgumentHelp(
      "Refuse inputs, outputs and intermediate images with more pixels than this, checked before any decode (default 268402689 = 16383²).",
      valueName: "n"))
  var maxPixels: Int?

  @Option(
    name: .customLong("max-frames"),
    help: ArgumentHelp("Refuse animations with more frames than this, counted before any frame is decoded (default 10000).", valueName: "n"))
  var maxFrames: Int?

  @Flag(help: "Treat corrupt-data warnings (a truncated or damaged JPEG that libjpeg can patch up) as errors.")
  var strict = false

  func validate() throws {
    if let threads, threads < 1 { throw ValidationError("--threads must be at least 1.") }
    if let maxPixels, maxPixels < 1 { throw ValidationError("--max-pixels must be at least 1.") }
    if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1.") }
  }

  /// The renderer these options describe; its warnings go to `relay` (standard error by default).
  func makeRenderer(relay: WarningRelay = WarningRelay()) -> Renderer {
    var options = RendererOptions()
    if let threads { options.threads = threads }
    if let maxPixels { options.maxPixels = maxPixels }
    return Renderer(options: options) { relay.warn($0) }
  }

  /// How input files (and files a recipe loads) are read.
  var loadOptions: LoadOptions {
    var options = LoadOptions(strict: strict)
    options.limits = DecodeLimits(
      maxPixels: maxPixels ?? DecodeLimits.defaultMaxPixels, maxFrames: maxFrames ?? DecodeLimits.defaultMaxFrames)
    return options
  }
}

/// A recipe from a file or from `-e` text, with the folder its relative paths start from.
struct RecipeSource {
  /// The parsed recipe.
  var recipe: Recipe
  /// Where `load path=` looks for relative paths: the recipe file's folder, or the current
  /// directory for `-e`.
  var baseDirectory: URL

  /// Reads and parses the recipe file at `path` (as the user typed it), or the `-e` text,
  /// and checks it against the registered filters before any image is opened.
  static func load(path: String?, text: String?) throws -> RecipeSource {
    let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    let source: RecipeSource
    do {
      if let text {
        source = RecipeSource(recipe: try Recipe.parse(text, file: "-e"), baseDirectory: cwd)
      } else if let path {
        let url = URL(fileURLWithPath: path, relativeTo: cwd)
        let contents: String
        do {
          contents = try String(contentsOf: url, encoding: .utf8)
        } catch {
          let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read as UTF-8 text" : "does not exist"
          throw Failure(status: ExitStatus.usage, message: "The recipe file \(path) \(reason).")
        }
        source = RecipeSource(recipe: try Recipe.parse(contents, file: path), baseDirectory: url.deletingLastPathComponent())
      } else {
        throw ValidationError("Give a recipe file or -e 'RECIPE TEXT'.")
      }
      try source.recipe.check()
    } catch let error as ValidationError {
      throw error
    } catch {
      throw Failure(error, stage: .recipe)
    }
    return source
  }

  /// The context filters are applied in.
  func context(loadOptions: LoadOptions) -> FilterContext {
    FilterContext(baseDirectory: baseDirectory, loadOptions: loadOptions)
  }
}

/// The output colour space and how ICC conversions map colours (`run`, and `explain` to show them).
struct ColourOptions: ParsableArguments {
  @Option(help: ArgumentHelp(
    "Output colour space: srgb (default: converted, no profile embedded), p3 (Display P3, its profile embedded), keep (the input's profile), or a path to an RGB or gray .icc profile.",
    valueName: "srgb|p3|keep|PATH"))
  var profile: String = "srgb"

  @Option(help: ArgumentHelp(
    "Rendering intent of every ICC conversion: relative (default), perceptual, saturation, absolute.", valueName: "intent"))
  var intent: String = "relative"

  @Flag(help: "Black-point compensation in ICC conversions (default off).")
  var bpc = false

  @Option(help: ArgumentHelp(
    "The colour an image with alpha is flattened onto when the output format has none (JPEG): a name or #RRGGBB (default white, as transparent images are mostly drawn for light pages; the flatten verb's default is black).",
    valueName: "color"))
  var background: Color = WriteOptions.defaultBackground

  func validate() throws {
    do { _ = try OutputProfile(argument: profile) } catch { throw ValidationError("\(error)") }
    if RenderingIntent(rawValue: intent.lowercased()) == nil {
      throw ValidationError("--intent must be relative, perceptual, saturation or absolute, not '\(intent)'.")
    }
  }

  /// The profile `--profile` names (validated).
  var outputProfile: OutputProfile { (try? OutputProfile(argument: profile)) ?? .sRGB }
  /// The intent `--intent` names (validated).
  var renderingIntent: RenderingIntent { RenderingIntent(rawValue: intent.lowercased()) ?? .relative }
}

/// The output format and the codecs' option flags.
struct OutputOptions: ParsableArguments {
  @Option(help: ArgumentHelp(
    "Output format for batches and standard output, and for output names without a known extension (default: the input's format).",
    valueName: CodecRegistry.codecs.filter { $0.canEncode }.map { $0.fileExtensions[0] }.joined(separator: "|")))
  var format: String?

  @OptionGroup var colour: ColourOptions

  @Option(help: ArgumentHelp(
    "Metadata the output keeps: all (default), none, or a comma-separated list of exif, xmp, iptc, icc, comment. EXIF is written with Orientation 1, the output's pixel dimensions and no thumbnail.",
    valueName: "all|none|LIST"))
  var keep: String = "all"

  @Flag(help: "Write no metadata at all (--keep none).")
  var strip = false

  @Option(help: ArgumentHelp(
    "A source's HDR gain map: keep (default) writes it again where the format carries it (JPEG: Ultra HDR) and warns where it cannot; sdr writes the SDR image alone; hdr writes the HDR rendition (base × map at full headroom) as a linear float TIFF.",
    valueName: "keep|sdr|hdr"))
  var hdr: HDROutput = .keep

  @OptionGroup var flags: FormatFlags

  func validate() throws {
    do { _ = try MetadataKinds(argument: keep) } catch { throw ValidationError("\(error)") }
    if strip && keep.lowercased() != "all" && keep.lowercased() != "none" {
      throw ValidationError("--strip keeps no metadata; it cannot be given with --keep \(keep).")
    }
    if let format {
      guard let codec = CodecRegistry.codec(named: format) else {
        throw ValidationError("--format must be one of \(CodecRegistry.codecs.map { $0.format.rawValue }.joined(separator: ", ")), not '\(format)'.")
      }
      if let reason = codec.encoderUnavailableReason { throw ValidationError("--format \(format): \(reason)") }
    }
  }

  /// The format `--format` names, or nil.
  var requestedFormat: ImageFileFormat? { format.flatMap { CodecRegistry.codec(named: $0)?.format } }

  /// Writer settings: the format asked for (nil: the job chooses), colour and metadata. The
  /// codec's own options are added once the output format is known (`FormatFlags.encodeValues`).
  var writeOptions: WriteOptions {
    var options = WriteOptions(format: requestedFormat)
    options.profile = colour.outputProfile
    options.intent = colour.renderingIntent
    options.blackPointCompensation = colour.bpc
    options.background = colour.background
    options.keptMetadata = strip ? .none : (try? MetadataKinds(argument: keep)) ?? .all
    options.hdr = hdr
    return options
  }
}

extension Color: ExpressibleByArgument {
  /// A colour name recipes accept (`white`) or `#RRGGBB[AA]`.
  public init?(argument: String) {
    guard let color = Color(hex: argument) else { return nil }
    self = color
  }
}
