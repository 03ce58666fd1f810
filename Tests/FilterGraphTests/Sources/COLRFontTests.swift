// COLRFontTests.swift — a COLRv0 colour glyph drawn with its layers' colours in their places,
// against the font's own definition and against Pillow drawing the same glyph.
//
// The font (Fixtures/text/colr-squares.ttf, made by scripts/make-colr-font.py) maps "A" to one
// em-sized square of three layers: red everywhere, a blue inner square (the middle half on each
// axis), then green at 50 % over the left quarter. At 40 px its ascent is 40 and its descent 0,
// so the text image is exactly the 40 × 40 square. The installed Noto Color Emoji is CBDT
// bitmaps, so this is the only COLR font the tests see.

import Foundation
import TestSupport
import XCTest

@testable import FilterGraph

final class COLRFontTests: XCTestCase {
  static let font = Fixtures.url("text/colr-squares.ttf").path

  /// Pillow's drawing of `text` in the font at `size` px from the image's top-left (BASIC
  /// layout, `embedded_color=True`: FreeType composes the layers), 8-bit RGBA rows.
  func pillow(_ text: String, size: Int, width: Int, height: Int) throws -> [UInt8] {
    let python = "/usr/bin/python3"
    guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("no python3") }
    let script = """
      import sys
      from PIL import Image, ImageDraw, ImageFont
      font = ImageFont.truetype(sys.argv[1], \(size), layout_engine=ImageFont.Layout.BASIC)
      im = Image.new("RGBA", (\(width), \(height)), (0, 0, 0, 0))
      ImageDraw.Draw(im).text((0, 0), sys.argv[2], font=font, fill=(0, 0, 0, 255), embedded_color=True)
      sys.stdout.buffer.write(im.tobytes())
      """
    let run = try ChildProcess.run(python, ["-c", script, Self.font, text], in: FileManager.default.temporaryDirectory)
    XCTAssertEqual(run.status, 0, run.stderr)
    return [UInt8](run.stdout)
  }

  func testLayersComeOutInTheirColorsAndPlaces() throws {
    let image = try Image(text: "A", font: Self.font, size: 40, color: .black)
    let (ours, size) = try TextPixelTests.rgba(image)
    XCTAssertEqual(size, Size(width: 40, height: 40))
    func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<4).map { Int(ours[(y * size.width + x) * 4 + $0]) } }
    func assertNear(_ p: [Int], _ q: [Int], _ what: String, line: UInt = #line) {
      for k in 0..<4 { XCTAssertEqual(Double(p[k]), Double(q[k]), accuracy: 1, "\(what): \(p) against \(q)", line: line) }
    }
    // From the font's definition: red outside the inner square and the strip, blue inside it,
    // green at half over red on the strip (FreeType blends the layers on sRGB bytes), in the
    // corners too; none of it in the text colour (black).
    for (x, y) in [(35, 5), (35, 35), (20, 3), (20, 36), (12, 5)] { assertNear(pixel(x, y), [255, 0, 0, 255], "red at (\(x), \(y))") }
    for (x, y) in [(20, 20), (12, 12), (28, 28), (12, 28)] { assertNear(pixel(x, y), [0, 0, 255, 255], "blue at (\(x), \(y))") }
    for (x, y) in [(2, 2), (5, 20), (8, 37)] { assertNear(pixel(x, y), [128, 128, 0, 255], "green over red at (\(x), \(y))") }
    // Every pixel as Pillow draws the same glyph.
    let theirs = try pillow("A", size: 40, width: 40, height: 40)
    XCTAssertEqual(theirs.count, ours.count)
    var worst = 0
    for i in 0..<min(ours.count, theirs.count) { worst = max(worst, abs(Int(ours[i]) - Int(theirs[i]))) }
    XCTAssertLessThanOrEqual(worst, 1, "largest difference from Pillow's drawing")
  }

  func testTheTextAlphaScalesEveryLayer() throws {
    // Colour glyphs keep their colours and take only the text colour's alpha.
    let half = try TextPixelTests.rgba(Image(text: "A", font: Self.font, size: 40, color: Color(red: 1, green: 1, blue: 1, alpha: 0.5)))
    let centre = (20 * 40 + 20) * 4, corner = (5 * 40 + 35) * 4
    for (i, expected, what) in [(centre, [0, 0, 255, 128], "blue"), (corner, [255, 0, 0, 128], "red")] {
      for k in 0..<4 { XCTAssertEqual(Double(half.bytes[i + k]), Double(expected[k]), accuracy: 1, "\(what) at half alpha") }
    }
  }
}
