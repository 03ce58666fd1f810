// AttributedTextTests.swift — an attributed string (runs with their own font, size, colour,
// weight) set as one text: pixels against pango-view's markup, one line-breaking pass over the
// runs, each run in its colour.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class AttributedTextTests: XCTestCase {
  /// pango-view's coverage of Pango markup (DejaVu fonts, 72 dpi, unhinted, as TextPixelTests).
  func pangoMarkup(_ markup: String) throws -> (values: [UInt8], size: Size) {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("pango-markup-\(getpid()).png")
    defer { try? FileManager.default.removeItem(at: out) }
    let run = try ChildProcess.run(
      "/usr/bin/pango-view",
      ["-q", "--markup", "--text=\(markup)", "--dpi=72", "--hinting=none", "--hint-metrics=off", "--subpixel-positions",
       "--antialias=gray", "--background=transparent", "--foreground=black", "--margin=0", "-o", out.path],
      in: FileManager.default.temporaryDirectory)
    XCTAssertEqual(run.status, 0, run.stderr)
    return try TextPixelTests.alpha(Image(contentsOf: out))
  }

  func testRunsOfOtherFontsSizesAndWeightsMatchPangoMarkup() throws {
    let cases: [([TextRun], String)] = [
      ([TextRun("Roses "), TextRun("of the ", font: "DejaVu Serif", italic: true), TextRun("Garden", weight: .bold)],
       "<span font='DejaVu Sans 40'>Roses </span><span font='DejaVu Serif Italic 40'>of the </span><span font='DejaVu Sans Bold 40'>Garden</span>"),
      ([TextRun("small "), TextRun("Big", size: 64), TextRun(" مرحبا")],
       "<span font='DejaVu Sans 40'>small </span><span font='DejaVu Sans 64'>Big</span><span font='DejaVu Sans 40'> مرحبا</span>"),
    ]
    for (runs, markup) in cases {
      let ours = try TextPixelTests.alpha(Image(attributedText: runs, style: TextStyle(font: "DejaVu Sans", size: 40)))
      let (psnr, a, b) = TextPixelTests.compare(ours, try pangoMarkup(markup))
      for k in 0..<4 { XCTAssertEqual(a[k], b[k], accuracy: 1, "\(markup): ink box \(a) against pango-view's \(b)") }
      XCTAssertGreaterThanOrEqual(psnr, 30, markup)
      print("attributed text: \(String(format: "%.1f", psnr)) dB against pango-view markup, ink boxes \(a) and \(b)")
    }
  }

  func testOneLineBreakingPassOverTheRuns() throws {
    // "Hello" spans two runs: a wrap that fits "Hello" but not "Hello world" breaks after it, not
    // at the run boundary, and the lines are those of the same string in one run.
    let style = TextStyle(font: "DejaVu Sans", size: 30, width: 120)
    let layout = try TextLayout(runs: [TextRun("Hel"), TextRun("lo world again", color: Color(red: 1, green: 0, blue: 0))], style: style)
    let plain = try TextLayout(string: "Hello world again", style: style)
    XCTAssertEqual(layout.lineCount, plain.lineCount)
    XCTAssertEqual(layout.glyphs.map(\.line), plain.glyphs.map(\.line))
    XCTAssertEqual(layout.glyphs.map(\.x), plain.glyphs.map(\.x))
    XCTAssertEqual(layout.glyphs.map(\.run), [0, 0, 0] + Array(repeating: 1, count: plain.glyphs.count - 3))
    XCTAssertEqual(layout.size, plain.size)
  }

  func testEachRunIsDrawnInItsColor() throws {
    let image = try Image(
      attributedText: [TextRun("IIII", color: Color(red: 1, green: 0, blue: 0)), TextRun("IIII", color: Color(red: 0, green: 0, blue: 1))],
      style: TextStyle(font: "DejaVu Sans", size: 40))
    let (bytes, size) = try TextPixelTests.rgba(image)
    var left = (red: 0, blue: 0), right = (red: 0, blue: 0)
    for y in 0..<size.height {
      for x in 0..<size.width {
        let i = (y * size.width + x) * 4
        guard bytes[i + 3] == 255 else { continue }
        let isRed = bytes[i] == 255 && bytes[i + 2] == 0, isBlue = bytes[i] == 0 && bytes[i + 2] == 255
        if x < size.width / 2 { left.red += isRed ? 1 : 0; left.blue += isBlue ? 1 : 0 } else { right.red += isRed ? 1 : 0; right.blue += isBlue ? 1 : 0 }
      }
    }
    XCTAssertGreaterThan(left.red, 100)
    XCTAssertEqual(left.blue, 0)
    XCTAssertGreaterThan(right.blue, 100)
    XCTAssertEqual(right.red, 0)
  }

  func testBadRunsAreClearErrors() throws {
    func message(_ body: () throws -> Any) -> String {
      do { _ = try body(); return "" } catch { return "\(error)" }
    }
    XCTAssertTrue(message { try Image(attributedText: [TextRun("a"), TextRun("b", font: "/nonexistent/x.ttf")], style: TextStyle(size: 20)) }
      .contains("does not exist"))
    XCTAssertTrue(message { try Image(attributedText: [TextRun("a"), TextRun("b", size: 0)], style: TextStyle(size: 20)) }
      .contains("size"))
    // 65 different sizes: past the limit of 64 fonts, refused before 65 font sets are opened.
    let many = (1...65).map { TextRun("x", size: Double($0 + 10)) }
    XCTAssertTrue(message { try Image(attributedText: many, style: TextStyle(size: 20)) }.contains("different fonts"))
    // No runs, or only empty ones: an empty text, like Image(text: "").
    XCTAssertEqual(try Image(attributedText: [], style: TextStyle(size: 20)).size, try Image(text: "", size: 20).size)
  }
}

extension AttributedTextTests {
  /// docs/Text.md's attributed-text program, exactly as printed, compiles without a warning.
  func testTheTextArticleExampleCompilesAsPrinted() throws {
    let article = try String(contentsOf: Repository.url("docs/Text.md"), encoding: .utf8)
    let block = try XCTUnwrap(fencedBlocks(article, language: "swift").first { $0.contains("attributedText:") })
    XCTAssertTrue(block.hasPrefix("import FilterGraph\nimport Foundation\n"))
    let check = try SwiftProgram.typecheck(block)
    XCTAssertEqual(check.status, 0, check.stderr)
    XCTAssertEqual(check.stderr, "")
  }
}
