// Montage.swift — `fgrun montage IN… -o SHEET --columns N --cell WxH`: a contact sheet.

import ArgumentParser
import FilterGraph
import Foundation
import PixelBufferModule

/// Lays inputs out on a grid, each fitted inside its cell (never enlarged) and centred, on a
/// background colour, optionally with its file name under it (drawn by the `text` source); the
/// sheet is written as one file in the format its name says.
struct Montage: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Makes a contact sheet: the inputs in a grid of cells, each fitted and centred in its cell.",
    discussion: """
      The sheet has --columns cells across and as many rows as the inputs need; each input is
      scaled to fit its cell (Lanczos in linear light, shrink-on-load, never enlarged) and centred
      on the background, in the order given. Each input is decoded once. With --labels each
      cell has its file name centred under it (the recipe verb text's shaping and font fallback;
      a name wider than the cell is cut at the cell's edge). Example:

        fgrun montage photos/*.jpg -o sheet.jpg --columns 6 --cell 300x300 --labels --label-size 16
      """)

  @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("The sheet to write.", valueName: "file"))
  var output: String

  @Option(help: ArgumentHelp("Cells across (1…1000).", valueName: "n"))
  var columns: Int

  @Option(help: ArgumentHelp("The size of each cell, WIDTHxHEIGHT.", valueName: "WxH"))
  var cell: String

  @Option(help: ArgumentHelp("Pixels between cells and around the sheet (0…1000).", valueName: "n"))
  var gap: Int = 0

  @Option(help: ArgumentHelp("The colour behind the cells (#RRGGBB or a name).", valueName: "colour"))
  var background: String = "white"

  @Flag(help: "Write each input's file name under its cell.")
  var labels = false

  @Option(
    name: .customLong("label-font"),
    help: ArgumentHelp("The labels' font: a family (fc-list lists them) or a font file (default sans-serif).", valueName: "font"))
  var labelFont = "sans-serif"

  @Option(name: .customLong("label-size"), help: ArgumentHelp("The labels' em size in pixels (4…200, default 14).", valueName: "px"))
  var labelSize: Double = 14

  @Option(name: .customLong("label-color"), help: ArgumentHelp("The labels' colour (default black).", valueName: "colour"))
  var labelColor: String = "black"

  @OptionGroup var engine: EngineOptions

  @Argument(help: ArgumentHelp("The images, in sheet order.", valueName: "inputs"))
  var inputs: [String] = []

  /// The cell size, or nil when `cell` is not WxH with sides 1…16383.
  var cellSize: Size? {
    let sides = cell.split(omittingEmptySubsequences: false) { $0 == "x" || $0 == "X" || $0 == "×" }.compactMap { Int($0) }
    guard sides.count == 2, (1...16383).contains(sides[0]), (1...16383).contains(sides[1]) else { return nil }
    return Size(width: sides[0], height: sides[1])
  }

  func validate() throws {
    if inputs.isEmpty { throw ValidationError("Give the images to lay out: fgrun montage IN… -o SHEET --columns N --cell WxH.") }
    if !(1...1000).contains(columns) { throw ValidationError("--columns must be 1…1000, not \(columns).") }
    if !(0...1000).contains(gap) { throw ValidationError("--gap must be 0…1000 pixels, not \(gap).") }
    if cellSize == nil { throw ValidationError("--cell must be WIDTHxHEIGHT with sides 1…16383, like 300x300, not '\(cell)'.") }
    if Color(hex: background) == nil { throw ValidationError("--background '\(background)' is not a colour: write #RRGGBB or a name.") }
    if !(4...200).contains(labelSize) { throw ValidationError("--label-size must be 4…200 pixels, not \(labelSize).") }
    if Color(hex: labelColor) == nil { throw ValidationError("--label-color '\(labelColor)' is not a colour: write #RRGGBB or a name.") }
  }

  /// The sheet: `images` fitted into `cell`s, `columns` across, `gap` apart, on `background`;
  /// with `labels` (one per image) each label centred in a band as tall as the tallest label under
  /// its cell, cut to the cell's width.
  static func sheet(of images: [Image], labels: [Image] = [], columns: Int, cell: Size, gap: Int, background: Color) -> Image {
    let across = min(columns, images.count), rows = (images.count + columns - 1) / columns
    let band = labels.map(\.size.height).max() ?? 0
    let pitch = Size(width: cell.width + gap, height: cell.height + band + gap)
    let size = Size(width: across * pitch.width + gap, height: rows * pitch.height + gap)
    var sheet = Image(color: background, size: size)
    for (i, image) in images.enumerated() {
      let fitted = image.scaled(toFit: cell, allowsEnlargement: false)
      let left = gap + (i % columns) * pitch.width, top = gap + (i / columns) * pitch.height
      let x = left + (cell.width - fitted.size.width) / 2
      let y = top + (cell.height - fitted.size.height) / 2
      sheet = fitted.composited(over: sheet, at: Point(x: x, y: y))
      guard i < labels.count else { continue }
      var label = labels[i]
      if label.size.width > cell.width { label = label.cropped(to: Rect(x: 0, y: 0, width: cell.width, height: label.size.height)) }
      sheet = label.composited(over: sheet, at: Point(x: left + (cell.width - label.size.width) / 2, y: top + cell.height))
    }
    return sheet
  }

  /// Each input's file name drawn by the `text` source in the label font, size and colour.
  func labelImages() throws -> [Image] {
    guard labels else { return [] }
    return try inputs.map { path in
      do {
        return try Image(text: URL(fileURLWithPath: path).lastPathComponent, font: labelFont, size: labelSize, color: Color(hex: labelColor)!)
      } catch {
        throw Failure(error, stage: .recipe)
      }
    }
  }

  func run() throws {
    try runReportingFailures {
      let images = try inputs.map { path in
        do {
          return try Image(contentsOf: URL(fileURLWithPath: path), options: engine.loadOptions)
        } catch {
          throw Failure(error, stage: .input)
        }
      }
      let sheet = Self.sheet(of: images, labels: try labelImages(), columns: columns, cell: cellSize!, gap: gap, background: Color(hex: background)!)
      do {
        try engine.makeRenderer().write(sheet, to: URL(fileURLWithPath: output))
      } catch {
        throw Failure(error, stage: .output)
      }
      return ExitStatus.ok
    }
  }
}
