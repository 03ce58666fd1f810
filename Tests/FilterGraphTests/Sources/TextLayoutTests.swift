// TextLayoutTests.swift — the text source's layout against HarfBuzz's own tool and UAX #14.
//
// Glyph ids, clusters and advances of whole strings in seven scripts equal what `hb-shape`
// (Debian libharfbuzz-bin) prints for the same font and scale: this checks the layout's runs
// (bidi levels, scripts, fonts, directions) and its cluster bookkeeping, not HarfBuzz itself.
// Line breaks fall only where UAX #14 allows them (the cases below are worked from its rules).
// Bad input (garbage font, huge strings, zero-width boxes) is a clear error in bounded time.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class TextLayoutTests: XCTestCase {
  static let fonts = "/usr/share/fonts/truetype/"

  /// (glyph, cluster, advance) as hb-shape prints them at `--font-size=65536` (1/1024 pixels of
  /// a 64 px em, the layout's own units); its clusters count characters (code points).
  func hbShape(_ font: String, _ text: String) throws -> [[Int]] {
    let out = try ChildProcess.run(
      "/usr/bin/hb-shape", ["--font-size=65536", "--no-glyph-names", "--output-format=json", font, text],
      in: URL(fileURLWithPath: "/tmp"))
    XCTAssertEqual(out.status, 0, out.stderr)
    let rows = try JSONSerialization.jsonObject(with: out.stdout) as? [[String: Any]] ?? []
    return rows.map { [$0["g"] as? Int ?? -1, $0["cl"] as? Int ?? -1, $0["ax"] as? Int ?? -1] }
  }

  func testGlyphsClustersAndAdvancesEqualHbShapeInSevenScripts() throws {
    let cases: [(font: String, text: String)] = [
      ("dejavu/DejaVuSans.ttf", "AVAffi Typography, kerning: To Wa."),
      ("noto/NotoSansArabic-Regular.ttf", "مرحبا بالعالم، كيف حالك؟"),
      ("noto/NotoSansHebrew-Regular.ttf", "שָׁלוֹם עוֹלָם"),
      ("noto/NotoSansDevanagari-Regular.ttf", "नमस्ते दुनिया क्षत्रिय"),
      ("noto/NotoSansThai-Regular.ttf", "สวัสดีชาวโลก"),
      ("droid/DroidSansFallbackFull.ttf", "你好，世界。日本語のテキスト"),
      ("noto/NotoColorEmoji.ttf", "😀👍🏽👨‍👩‍👧🇫🇷"),
    ]
    for (font, text) in cases {
      let path = Self.fonts + font
      let layout = try TextLayout(string: text, style: TextStyle(font: path, size: 64))
      XCTAssertEqual(layout.lineCount, 1, font)
      let bytes = Array(text.utf8)
      let character = { (byte: Int) in bytes[..<byte].filter { $0 & 0xC0 != 0x80 }.count }
      let ours = layout.glyphs.map { [Int($0.glyph), character($0.cluster), Int($0.advance)] }
      XCTAssertEqual(ours, try hbShape(path, text), "\(font): \(text)")
      XCTAssertTrue(layout.glyphs.allSatisfy { $0.fontFile == path }, "\(font): a glyph came from a fallback font")
    }
  }

  func testMixedDirectionsAreInVisualOrderUAX9() throws {
    // "abc ABC 123 def" where ABC is Hebrew: an LTR paragraph; the Hebrew word and the number
    // after it (EN after R resolves to R's run by W/N rules: "123" stays LTR inside an RTL run)
    // are reordered: the Hebrew letters right to left, the digits left to right, the
    // Hebrew run placed with the digits on its left.
    let text = "abc אבג 123 def"
    let layout = try TextLayout(string: text, style: TextStyle(font: Self.fonts + "dejavu/DejaVuSans.ttf", size: 20))
    let glyphs = layout.glyphs
    let xs = glyphs.map(\.x)
    XCTAssertEqual(xs, xs.sorted(), "glyphs are listed left to right")
    let clusters = glyphs.map(\.cluster)
    let bytes = Array(text.utf8)
    let visual = clusters.map { c -> String in
      var end = c + 1
      while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
      return String(decoding: bytes[c..<end], as: UTF8.self)
    }.joined()
    XCTAssertEqual(visual, "abc 123 גבא def")
  }

  /// The lines of `text` wrapped at `width` px, as strings (trailing spaces dropped).
  func lines(_ text: String, width: Double, size: Double = 20) throws -> [String] {
    let layout = try TextLayout(string: text, style: TextStyle(font: Self.fonts + "droid/DroidSansFallbackFull.ttf", size: size, width: width))
    let bytes = Array(text.utf8)
    var starts = [Int](repeating: bytes.count, count: layout.lineCount)
    for g in layout.glyphs { starts[g.line] = min(starts[g.line], g.cluster) }
    return starts.indices.map { i in
      let end = starts[(i + 1)...].min() ?? bytes.count
      return String(decoding: bytes[starts[i]..<max(end, starts[i])], as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
  }

  /// The advance width of `text` set on one line, in pixels.
  func advanceWidth(_ text: String, size: Double = 20) throws -> Double {
    let layout = try TextLayout(string: text, style: TextStyle(font: Self.fonts + "droid/DroidSansFallbackFull.ttf", size: size))
    return layout.glyphs.reduce(0) { $0 + Double($1.advance) / 1024 }
  }

  /// Checks `text` wrapped into a box as wide as the widest expected line breaks into exactly
  /// `expected`: every break is at an opportunity, and none is missed where the next piece
  /// would not fit.
  func assertBreaks(_ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
    let width = try expected.map { try advanceWidth($0) }.max()! + 0.5
    XCTAssertEqual(try lines(text, width: width), expected, file: file, line: line)
  }

  func testLinesBreakOnlyWhereUAX14Allows() throws {
    // Rules (UAX #14): LB13 no break before "!" or "," (EX, IS) or a closing bracket or "。" (CL);
    // LB14 none after an opening bracket (OP); LB18 break after spaces; LB21 break after a hyphen
    // (HY) but not before it; LB25 none inside "1,000.5"; LB30 none inside "(cost)"; LB31
    // between ideographs (ID ÷ ID) and between an ideograph and an opening bracket.
    try assertBreaks("Hello, world!", ["Hello,", "world!"])
    try assertBreaks("e-mail", ["e-", "mail"])
    try assertBreaks("(cost) 1,000.5 ok", ["(cost)", "1,000.5 ok"])
    try assertBreaks("你好世界", ["你", "好", "世", "界"])
    try assertBreaks("你「好」。", ["你", "「好」。"])
    try assertBreaks("aa bb cc dd", ["aa bb", "cc dd"])
    // A word wider than the box alone is cut between clusters (never inside one).
    XCTAssertEqual(try lines("abc", width: 1), ["a", "b", "c"])
    // Hard breaks: a line feed ends a line; an empty paragraph is an empty line.
    XCTAssertEqual(try TextLayout(string: "a\n\nb", style: TextStyle(size: 12)).lineCount, 3)
  }

  func testUnwrappedLinesEndWhereICUsIteratorEndsThem() throws {
    // Without a width, lines end at UAX #14's mandatory breaks only, found without ICU's line
    // break iterator; wrapped into a box no line fills, the iterator finds them. Both must give
    // the same lines and glyphs: BK (VT, FF, U+2028, U+2029), CR alone, NEL, a break as the
    // paragraph's last character, a combining mark after a break, and CR LF (one break).
    let font = Self.fonts + "dejavu/DejaVuSans.ttf"
    let texts = [
      "one\u{0B}two\u{0C}three", "a\u{2028}b\u{2029}c", "cr\ralone", "nel\u{85}x", "end\u{2028}",
      "mark\u{2028}\u{301}e", "crlf\r\nnext", "plain words, no break", "x\r",
    ]
    for text in texts {
      let unwrapped = try TextLayout(string: text, style: TextStyle(font: font, size: 20))
      let boxed = try TextLayout(string: text, style: TextStyle(font: font, size: 20, width: 60000))
      XCTAssertEqual(unwrapped.lineCount, boxed.lineCount, text.debugDescription)
      XCTAssertEqual(unwrapped.glyphs.map { [$0.line, $0.cluster, Int($0.glyph)] }, boxed.glyphs.map { [$0.line, $0.cluster, Int($0.glyph)] }, text.debugDescription)
    }
    XCTAssertEqual(try TextLayout(string: "one\u{0B}two\u{0C}three", style: TextStyle(font: font, size: 20)).lineCount, 3)
    XCTAssertEqual(try TextLayout(string: "cr\ralone", style: TextStyle(font: font, size: 20)).lineCount, 2)
  }

  func testAlignmentAndJustification() throws {
    let font = Self.fonts + "dejavu/DejaVuSans.ttf"
    func firstX(_ align: TextAlignment, line: Int) throws -> (Double, Double) {
      let layout = try TextLayout(string: "aa bb cc dd ee ff gg", style: TextStyle(font: font, size: 20, width: 150, alignment: align))
      let glyphs = layout.glyphs.filter { $0.line == line }
      return (glyphs.first!.x, glyphs.last!.x + Double(glyphs.last!.advance) / 1024)
    }
    let left = try firstX(.left, line: 0), right = try firstX(.right, line: 0), centre = try firstX(.centre, line: 0)
    XCTAssertEqual(left.0, 0, accuracy: 1)
    XCTAssertEqual(right.1, 150, accuracy: 1)
    XCTAssertEqual(centre.0, (right.0 + left.0) / 2, accuracy: 0.5)
    let justified = try firstX(.justify, line: 0)
    XCTAssertEqual(justified.0, 0, accuracy: 1)
    XCTAssertEqual(justified.1, 150, accuracy: 0.01, "a justified line fills the box")
  }

  func testBadInputIsAClearErrorInBoundedTime() throws {
    let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("garbage-\(getpid()).ttf")
    try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: garbage)
    defer { try? FileManager.default.removeItem(at: garbage) }
    func message(_ body: () throws -> Any) -> String {
      do { _ = try body(); return "" } catch { return String(describing: error) }
    }
    XCTAssertTrue(message { try TextLayout(string: "x", style: TextStyle(font: garbage.path, size: 20)) }.contains("is not a font"))
    XCTAssertTrue(message { try TextLayout(string: "x", style: TextStyle(font: "/nonexistent/a.ttf", size: 20)) }.contains("does not exist"))
    XCTAssertTrue(message { try TextLayout(string: "x", style: TextStyle(size: 20, width: 0)) }.contains("at least 1 pixel"))
    // A megabyte of text on one line is far wider than 65535 pixels.
    let megabyte = String(repeating: "word ", count: (1 << 20) / 5)
    XCTAssertTrue(message { try TextLayout(string: megabyte, style: TextStyle(size: 12)) }.contains("over the limit"))
    // Ten thousand lines are taller than 65535 pixels at 12 px…
    let tenThousand = Array(repeating: "line", count: 10_000).joined(separator: "\n")
    XCTAssertTrue(message { try TextLayout(string: tenThousand, style: TextStyle(size: 12)) }.contains("10000 lines"))
    // …and fit at 3 px.
    XCTAssertEqual(try TextLayout(string: tenThousand, style: TextStyle(size: 3)).lineCount, 10_000)
    XCTAssertTrue(message { try TextLayout(string: megabyte + "more", style: TextStyle(size: 12)) }.contains("the limit is 1048576"))
    // A zero-width box in a recipe is refused by the parameter's range.
    XCTAssertTrue(message { try Recipe.parse("text string=x size=12 width=0", file: nil).compile(input: Image(color: .white, size: Size(width: 8, height: 8)), context: FilterContext(baseDirectory: URL(fileURLWithPath: "/tmp"))) }
      .contains("width=0 is out of range"))
  }

  func testAMissingFamilyIsReplacedWithAWarning() throws {
    let layout = try TextLayout(string: "x", style: TextStyle(font: "No Such Family Anywhere", size: 20))
    XCTAssertEqual(layout.warning?.contains("'No Such Family Anywhere' is not installed"), true, layout.warning ?? "no warning")
    XCTAssertNil(try TextLayout(string: "x", style: TextStyle(font: "DejaVu Sans", size: 20)).warning)
  }

  /// A font file rewritten at its path between two renders on one renderer: the second text is
  /// set and drawn in the new font (it was served the old font's cached pixels, of another size,
  /// and the render stopped on a precondition; found by fuzz-text).
  func testAFontFileRewrittenAtItsPathIsNotServedFromTheCache() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("rewritten-\(UUID().uuidString).ttf")
    defer { try? FileManager.default.removeItem(at: path) }
    let renderer = Renderer(options: RendererOptions(threads: 1))
    let style = TextStyle(font: path.path, size: 40)
    try Data(contentsOf: URL(fileURLWithPath: Self.fonts + "dejavu/DejaVuSans.ttf")).write(to: path)
    let first = try renderer.render(try Image(text: "AAA", style: style))
    try Data(contentsOf: URL(fileURLWithPath: Self.fonts + "dejavu/DejaVuSans-Bold.ttf")).write(to: path)
    let text = try Image(text: "AAA", style: style)
    let second = try renderer.render(text)
    XCTAssertNotEqual(first.width, second.width, "the bold face is wider")
    XCTAssertEqual(Size(width: second.width, height: second.height), text.size)
  }
}
