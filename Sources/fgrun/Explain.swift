// Explain.swift — `fgrun explain RECIPE [INPUT]`: the graph as written and as the renderer runs it.

import ArgumentParser
import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule

/// Prints `Renderer.explain`: the graph as written and as optimized (fused point passes,
/// shrink-on-load, shared decodes).
struct Explain: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Shows the graph a recipe builds, as written and as optimized.",
    discussion: """
      Without INPUT a 6000×4000 solid-colour image stands in for the input; as it is not a file,
      the plan then shows no shrink-on-load for it. Nothing is decoded either way. --profile,
      --intent and --bpc show the colour conversions a run with them makes; --format (default:
      INPUT's format) and --background show the flattening of alpha a format without it needs.
      """)

  /// The stand-in input's size.
  static let placeholderSize = Size(width: 6000, height: 4000)

  @Option(
    name: [.customShort("e"), .customLong("expression")],
    help: ArgumentHelp("Recipe text given inline; the argument is then [INPUT].", valueName: "recipe"))
  var expression: String?

  @OptionGroup var engine: EngineOptions

  @OptionGroup var color: ColorOptions

  @Option(help: ArgumentHelp("The output format a run would write (default: INPUT's format).", valueName: "format"))
  var format: ImageFileFormat?

  @Argument(help: ArgumentHelp("RECIPE [INPUT] ([INPUT] with -e).", valueName: "files"))
  var files: [String] = []

  func validate() throws {
    let max = expression == nil ? 2 : 1
    if expression == nil, files.isEmpty { throw ValidationError("Give RECIPE [INPUT], or -e 'TEXT' [INPUT].") }
    if files.count > max { throw ValidationError("Too many arguments: give RECIPE [INPUT], or -e 'TEXT' [INPUT].") }
  }

  func run() throws {
    try runReportingFailures {
      let recipePath = expression == nil ? files.first : nil
      let inputPath = expression == nil ? files.dropFirst().first : files.first
      let source = try RecipeSource.load(path: recipePath, text: expression)
      let input: Image
      var inputFormat: ImageFileFormat?
      var lines: [String] = ["recipe: \(recipePath ?? "-e") (\(source.recipe.statements.count) statements)"]
      if let inputPath {
        let encoded: EncodedSource
        do {
          encoded = try EncodedSource(contentsOf: URL(fileURLWithPath: inputPath), options: engine.loadOptions)
        } catch {
          throw Failure(error, stage: .input)
        }
        input = Image(source: encoded)
        inputFormat = encoded.header.fileFormat
        let info = input.info
        lines.append("input: \(inputPath), \(info.size) \(info.layout) \(info.component)")
        if let animation = (try? ImageFileInfo(contentsOf: URL(fileURLWithPath: inputPath), options: engine.loadOptions))?.animation {
          lines.append(Explain.frameLoop(animation))
        }
      } else {
        input = Image(color: Color(white: 0.5), size: Explain.placeholderSize)
        lines.append(
          "input: none given; a \(Explain.placeholderSize) solid colour stands in (placeholder: no file, so no shrink-on-load for it)")
      }
      let image: Image
      do {
        image = try source.recipe.compile(input: input, context: source.context(loadOptions: engine.loadOptions))
      } catch {
        throw Failure(error, stage: .recipe)
      }
      let renderer = engine.makeRenderer()
      lines.append("output: \(image.info.size) \(image.info.layout) \(image.info.component)")
      lines.append("")
      let outputFormat = format ?? inputFormat
      do {
        lines.append(
          try renderer.explain(
            image, profile: color.outputProfile, intent: color.renderingIntent, bpc: color.bpc, format: outputFormat,
            background: color.background))
      } catch {
        // The graph's limits, refused as a run refuses them (with its exit status).
        throw Failure(error, stage: .output)
      }
      Console.out(lines.joined(separator: "\n"))
      return ExitStatus.ok
    }
  }
}

extension Explain {
  /// How an animated input runs: the graph once per frame, streamed.
  static func frameLoop(_ animation: AnimationInfo) -> String {
    "frame loop: \(animation.frameCount) frames on a \(animation.canvasSize) canvas, each composed in turn and run through the graph "
      + "below, one frame in memory at a time; trim and smartcrop windows are chosen on frame 1 and kept for every frame; "
      + "written as an animation to GIF, WebP or PNG (APNG), as frame 1 to still-only formats (or frame N with --frame N)"
  }
}
