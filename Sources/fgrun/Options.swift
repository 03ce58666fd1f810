// Options.swift — options shared by the subcommands, and loading the recipe they name.

import ArgumentParser
import FilterGraph
import Foundation
import ImageCodecs

/// Threads and limits: how the engine runs.
struct EngineOptions: ParsableArguments {
  // The numbers take their value unconditionally: `--max-pixels -1` is refused by `validate`
  // with its rule, not read as a missing value.
  @Option(parsing: .unconditional, help: ArgumentHelp("Worker threads (default: one per core).", valueName: "n"))
  var threads: Int?

  @Option(
    name: .customLong("max-pixels"), parsing: .unconditional,
    help: ArgumentHelp(
      "Refuse inputs, outputs and intermediate images with more pixels than this, checked before any decode (default 268402689 = 16383²).",
      valueName: "n"))
  var maxPixels: Int?

  @Option(
    name: .customLong("max-frames"), parsing: .unconditional,
    help: ArgumentHelp("Refuse animations with more frames than this, counted before any frame is decoded (default 10000).", valueName: "n"))
  var maxFrames: Int?

  @Option(
    name: .customLong("max-input-bytes"), parsing: .unconditional,
    help: ArgumentHelp(
      "Refuse an input that must be held in memory (a still WebP, a HEIF, standard input, a pipe: the files not read in place, as TIFF, PNG, JPEG, GIF and animated WebP are) once it is longer than this (default 1073741824 = 1 GiB).",
      valueName: "n"))
  var maxInputBytes: Int?

  @Flag(help: "Treat corrupt-data warnings (a truncated or damaged JPEG that libjpeg can patch up) as errors.")
  var strict = false

  func validate() throws {
    // Upper bounds refuse values no machine could honour (`--max-pixels 9223372036854775807` let a
    // 65535² image through to an allocation that aborted).
    if let threads, !(1...1024).contains(threads) { throw ValidationError("--threads must be between 1 and 1024.") }
    if let maxPixels, !(1...(1 << 32)).contains(maxPixels) {
      throw ValidationError("--max-pixels must be between 1 and 4294967296 (65536²).")
    }
    if let maxFrames, !(1...1_000_000).contains(maxFrames) { throw ValidationError("--max-frames must be between 1 and 1000000.") }
    if let maxInputBytes, !(1...(1 << 36)).contains(maxInputBytes) {
      throw ValidationError("--max-input-bytes must be between 1 and 68719476736 (64 GiB).")
    }
  }

  /// The renderer these options describe; its warnings go to `relay` (standard error by default).
  func makeRenderer(relay: WarningRelay = WarningRelay()) -> Renderer {
    var options = RendererOptions()
    if let threads { options.threads = threads }
    if let maxPixels { options.maxPixels = maxPixels }
    let renderer = Renderer(options: options) { relay.warn($0) }
    if let shortfall = renderer.workerShortfall { relay.warn(shortfall) }
    return renderer
  }

  /// How input files (and files a recipe loads) are read.
  var loadOptions: LoadOptions {
    var options = LoadOptions(strict: strict)
    options.limits = DecodeLimits(
      maxPixels: maxPixels ?? DecodeLimits.defaultMaxPixels, maxFrames: maxFrames ?? DecodeLimits.defaultMaxFrames,
      maxInputBytes: maxInputBytes ?? DecodeLimits.defaultMaxInputBytes)
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
        let contents = try RecipeFile.text(of: url, shown: path)
        source = RecipeSource(recipe: try Recipe.parse(contents, file: path), baseDirectory: url.deletingLastPathComponent())
      } else {
        throw ValidationError("Give a recipe file or -e 'RECIPE TEXT'.")
      }
      // A recipe that sets text has fontconfig load beside its check and the input's header.
      if source.recipe.statements.contains(where: { $0.verb.text == TextSourceOperation.table.name }) {
        FontConfiguration.loadInBackground()
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
struct ColorOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Output colour space: srgb (default: converted, no profile embedded), p3 (Display P3, its profile embedded), keep (the input's profile), or a path to an RGB or gray .icc profile.",
      valueName: "srgb|p3|keep|PATH"),
    transform: { try OutputProfile(argument: $0) })
  var profile: OutputProfile = .sRGB

  @Option(help: ArgumentHelp("Rendering intent of every ICC conversion.", valueName: "intent"))
  var intent: RenderingIntent = .relative

  @Flag(help: "Black-point compensation in ICC conversions (default off).")
  var bpc = false

  @Option(help: ArgumentHelp(
    "The colour an image with alpha is flattened onto when the output format has none (JPEG): a name or #RRGGBB (default white, as transparent images are mostly drawn for light pages; the flatten verb's default is black).",
    valueName: "color"))
  var background: Color = WriteOptions.defaultBackground

  /// The profile `--profile` names.
  var outputProfile: OutputProfile { profile }
  /// The intent `--intent` names.
  var renderingIntent: RenderingIntent { intent }
}

/// The output format and the codecs' option flags.
struct OutputOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Output format for batches and standard output, and for output names without a known extension (default: the input's format).",
      valueName: CodecRegistry.codecs.filter { $0.canEncode }.map { $0.fileExtensions[0] }.joined(separator: "|")))
  var format: ImageFileFormat?

  @OptionGroup var color: ColorOptions

  @Option(
    help: ArgumentHelp(
      "Metadata the output keeps: all (default), none, or a comma-separated list of exif, xmp, iptc, icc, comment. EXIF is written with Orientation 1, the output's pixel dimensions and no thumbnail.",
      valueName: "all|none|LIST"),
    transform: { try MetadataKinds(argument: $0) })
  var keep: MetadataKinds = .all

  @Flag(help: "Write no metadata at all (--keep none).")
  var strip = false

  @Option(help: ArgumentHelp(
    "A source's HDR gain map: keep (default) writes it again where the format carries it (JPEG: Ultra HDR) and warns where it cannot; sdr writes the SDR image alone; hdr writes the HDR rendition (base × map at full headroom) as a linear float TIFF, a 12-bit PQ AVIF/HEIC or a 16-bit PQ PNG (BT.2020, SDR white at 203 cd/m²; mastering display and MaxCLL/MaxFALL declared). PQ/HLG AVIF/HEIC sources are tone-mapped to SDR (BT.2446 method A) and carry a gain map that restores their HDR light.",
    valueName: "keep|sdr|hdr"))
  var hdr: HDROutput = .keep

  @Option(
    name: .customLong("hdr-transfer"),
    help: ArgumentHelp(
      "The transfer of --hdr hdr's AVIF, HEIC or PNG: pq (default; SMPTE ST 2084, up to 10000 cd/m²) or hlg (ITU-R BT.2100 hybrid log-gamma for a 1000 cd/m² display; SDR white at the 75 % signal).",
      valueName: "pq|hlg"))
  var hdrTransfer: HDRTransfer = .pq

  @Option(
    help: ArgumentHelp(
      "Write the smallest file scoring at least N, its --quality chosen in at most 3 encodes (lossy JPEG, WebP or AVIF), aiming at N…N+1. SSIMULACRA2: 90 very high, 70 high, 50 medium quality. The score, quality and bytes are printed (a batch's --report gets them); a warning says when the file scores above N+1 (no encode landed nearer) or below N (N is out of reach).",
      valueName: "ssimulacra2=N"),
    transform: { try QualityTarget(parsing: $0) })
  var target: QualityTarget?

  @OptionGroup var flags: FormatFlags

  func validate() throws {
    if target != nil && flags.given["quality"] != nil { throw ValidationError("--target chooses the quality: give --target or --quality, not both.") }
    if let format, let reason = format.codec?.encoderUnavailableReason { throw ValidationError("--format \(format): \(reason)") }
    if strip && keep != .all && keep != .none {
      throw ValidationError("--strip keeps no metadata; it cannot be given with --keep \(keep).")
    }
    if hdrTransfer != .pq && hdr != .hdr {
      throw ValidationError("--hdr-transfer \(hdrTransfer.rawValue) chooses the transfer of --hdr hdr's output; give --hdr hdr with it.")
    }
  }

  /// The format `--format` names, or nil.
  var requestedFormat: ImageFileFormat? { format }

  /// Writer settings: the format asked for (nil: the job chooses), colour and metadata. The
  /// codec's own options are added once the output format is known (`FormatFlags.encodeValues`).
  var writeOptions: WriteOptions {
    var options = WriteOptions(format: requestedFormat)
    options.profile = color.outputProfile
    options.intent = color.renderingIntent
    options.blackPointCompensation = color.bpc
    options.background = color.background
    options.keptMetadata = strip ? .none : keep
    options.hdr = hdr
    options.hdrTransfer = hdrTransfer
    options.target = target
    return options
  }
}

extension RenderingIntent: ExpressibleByArgument {}

extension ImageFileFormat: ExpressibleByArgument {
  /// A registered format by name or extension (`jpeg`, `jpg`, `tif`…).
  public init?(argument: String) {
    guard let format = CodecRegistry.codec(named: argument)?.format else { return nil }
    self = format
  }

  /// The registered formats' names, listed in help and in the error for another word.
  public static var allValueStrings: [String] { CodecRegistry.codecs.map { $0.format.rawValue } }
}

extension Color: ExpressibleByArgument {
  /// A colour name recipes accept (`white`) or `#RRGGBB[AA]`.
  public init?(argument: String) {
    guard let color = Color(hex: argument) else { return nil }
    self = color
  }
}
