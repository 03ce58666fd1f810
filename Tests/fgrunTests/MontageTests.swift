// MontageTests.swift — `fgrun montage`: the sheet's size and each cell against the library's own
// fit of that input, placed where the grid says; usage and input errors.

import FilterGraph
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

extension FGRunTests {
  func testMontageHoldsEachInputFittedInItsCell() throws {
    let runner = self
    try runner.copyFixture("jpeg/testorig.jpg", as: "a.jpg")  // 227×149 → 100×66 in a 100×80 cell
    // b.png: a 32×32 sRGB gradient (not enlarged).
    var gradient = PixelBuffer(width: 32, height: 32, format: .rgb8)
    gradient.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<32 { for x in 0..<32 { p[row: y][3 * x] = UInt8(8 * x); p[row: y][3 * x + 1] = UInt8(8 * y); p[row: y][3 * x + 2] = 90 } }
    }
    try Renderer().write(Image(buffer: gradient), to: runner.file("b.png"))
    try runner.copyFixture("pngsuite/basn6a08.png", as: "c.png")  // 32×32 with alpha, on the background
    let run = try runner.fgrun(["montage", "a.jpg", "b.png", "c.png", "-o", "sheet.png", "--columns", "2", "--cell", "100x80", "--gap", "4"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let renderer = Renderer(options: RendererOptions(threads: 1))
    let sheet = try renderer.render(try Image(contentsOf: runner.file("sheet.png")), format: .rgb8)
    XCTAssertEqual(sheet.size, Size(width: 2 * 104 + 4, height: 2 * 84 + 4))
    // Cell 0: a.jpg fitted to 100×66, centred: rows 4 + 7 … 4 + 7 + 66.
    let fitted = try renderer.render(try Image(contentsOf: runner.file("a.jpg")).scaled(toFit: Size(width: 100, height: 80)), format: .rgb8)
    XCTAssertEqual(fitted.size, Size(width: 100, height: 66))
    XCTAssertTrue(sheet.cropped(to: Rect(x: 4, y: 11, width: 100, height: 66)).hasSamePixels(as: fitted))
    // Cell 1: b.png at its own 32×32, centred in the cell at (108, 4).
    let b = gradient
    let placed = try renderer.render(Image(buffer: sheet.cropped(to: Rect(x: 108 + 34, y: 4 + 24, width: 32, height: 32))), format: .rgb8)
    var worst = 0
    placed.withUnsafePixels(as: UInt8.self) { p in
      b.withUnsafePixels(as: UInt8.self) { q in
        for y in 0..<32 { for x in 0..<96 { worst = max(worst, abs(Int(p[row: y][x]) - Int(q[row: y][x]))) } }
      }
    }
    XCTAssertLessThanOrEqual(worst, 1, "b.png in its cell (composited in linear light: within one code)")
    // The gap and the empty fourth cell are the background (white).
    sheet.withUnsafePixels(as: UInt8.self) { p in
      let gapRow = p[row: 2], emptyCell = p[row: 130]
      XCTAssertEqual((0..<6).map { gapRow[$0] }, [255, 255, 255, 255, 255, 255])
      XCTAssertEqual((450..<453).map { emptyCell[$0] }, [255, 255, 255])
    }
  }

  func testMontageErrors() throws {
    let runner = self
    XCTAssertEqual(try runner.fgrun(["montage", "-o", "s.png", "--columns", "2", "--cell", "10x10"]).status, 64)
    let cell = try runner.fgrun(["montage", "in.png", "-o", "s.png", "--columns", "2", "--cell", "10by10"])
    XCTAssertEqual(cell.status, 64)
    XCTAssertTrue(cell.stderr.contains("--cell must be WIDTHxHEIGHT"), cell.stderr)
    let missing = try runner.fgrun(["montage", "in.png", "nothere.png", "-o", "s.png", "--columns", "2", "--cell", "10x10"])
    XCTAssertEqual(missing.status, 65)
    XCTAssertTrue(missing.stderr.contains("nothere.png does not exist"), missing.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: runner.file("s.png").path))
  }
}

extension FGRunTests {
  /// --labels: each file name, drawn by the text source in the label font and size, centred in a
  /// band under its cell; the sheet grows by that band per row.
  func testMontageLabelsEachCellWithItsFileName() throws {
    let runner = self
    try runner.copyFixture("pngsuite/basn6a08.png", as: "c.png")
    func arguments(_ sheet: String) -> [String] {
      ["montage", "in.png", "c.png", "in.png", "-o", sheet, "--columns", "2", "--cell", "70x40", "--gap", "2", "--labels", "--label-size", "12"]
    }
    let run = try runner.fgrun(arguments("sheet.png") + ["--label-font", "DejaVu Serif"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let renderer = Renderer(options: RendererOptions(threads: 1))
    let sheet = try renderer.render(try Image(contentsOf: runner.file("sheet.png")), format: .rgb8)
    let labels = try ["in.png", "c.png"].map { try Image(text: $0, font: "DejaVu Serif", size: 12) }
    let band = labels.map(\.size.height).max()!
    XCTAssertGreaterThan(band, 8)
    XCTAssertEqual(sheet.size, Size(width: 2 * 72 + 2, height: 2 * (40 + band + 2) + 2))
    // Under cell 1 (c.png): the label over the white background, centred.
    let label = labels[1]
    let expected = try renderer.render(label.composited(over: Image(color: .white, size: label.size)), format: .rgb8)
    let x = 2 + 72 + (70 - label.size.width) / 2, y = 2 + 40
    let placed = sheet.cropped(to: Rect(x: x, y: y, width: label.size.width, height: label.size.height))
    var worst = 0, inked = 0
    placed.withUnsafePixels(as: UInt8.self) { p in
      expected.withUnsafePixels(as: UInt8.self) { q in
        for r in 0..<label.size.height {
          for c in 0..<(3 * label.size.width) {
            worst = max(worst, abs(Int(p[row: r][c]) - Int(q[row: r][c])))
            if q[row: r][c] < 128 { inked += 1 }
          }
        }
      }
    }
    XCTAssertLessThanOrEqual(worst, 1, "the label under cell 1")
    XCTAssertGreaterThan(inked, 20, "the label has ink")
    // Another font draws other pixels; a bad size or font is refused before anything is written.
    XCTAssertEqual(try runner.fgrun(arguments("sans.png")).status, 0)
    XCTAssertNotEqual(try Data(contentsOf: runner.file("sans.png")), try Data(contentsOf: runner.file("sheet.png")))
    XCTAssertEqual(try runner.fgrun(arguments("big.png") + ["--label-size", "900"]).status, 64)
    let font = try runner.fgrun(arguments("nofont.png") + ["--label-font", "missing.ttf"])
    XCTAssertNotEqual(font.status, 0)
    XCTAssertFalse(FileManager.default.fileExists(atPath: runner.file("nofont.png").path))
  }
}
