// Montage.swift — `fgrun montage IN… -o SHEET --columns N --cell WxH`: a contact sheet.

import ArgumentParser
import FilterGraph
import Foundation
import PixelBufferModule

/// Lays inputs out on a grid, each fitted inside its cell (never enlarged) and centred, on a
/// background colour; the sheet is written as one file in the format its name says.
struct Montage: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Makes a contact sheet: the inputs in a grid of cells, each fitted and centred in its cell.",
    discussion: """
      The sheet has --columns cells across and as many rows as the inputs need; each input is
      scaled to fit its cell (Lanczos in linear light, shrink-on-load, never enlarged) and centred
      on the background, in the order given. Each input is decoded once. Example:

        fgrun montage photos/*.jpg -o sheet.jpg --columns 6 --cell 300x300
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
  }

  /// The sheet: `images` fitted into `cell`s, `columns` across, `gap` apart, on `background`.
  static func sheet(of images: [Image], columns: Int, cell: Size, gap: Int, background: Color) -> Image {
    let across = min(columns, images.count), rows = (images.count + columns - 1) / columns
    let size = Size(width: across * (cell.width + gap) + gap, height: rows * (cell.height + gap) + gap)
    var sheet = Image(color: background, size: size)
    for (i, image) in images.enumerated() {
      let fitted = image.scaled(toFit: cell, allowsEnlargement: false)
      let x = gap + (i % columns) * (cell.width + gap) + (cell.width - fitted.size.width) / 2
      let y = gap + (i / columns) * (cell.height + gap) + (cell.height - fitted.size.height) / 2
      sheet = fitted.composited(over: sheet, at: Point(x: x, y: y))
    }
    return sheet
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
      let sheet = Self.sheet(of: images, columns: columns, cell: cellSize!, gap: gap, background: Color(hex: background)!)
      do {
        try engine.makeRenderer().write(sheet, to: URL(fileURLWithPath: output))
      } catch {
        throw Failure(error, stage: .output)
      }
      return ExitStatus.ok
    }
  }
}
