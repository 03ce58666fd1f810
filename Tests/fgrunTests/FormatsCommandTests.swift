// FormatsCommandTests.swift — `fgrun formats`, docs/Formats.md, format flags and --page.

import FilterGraph
import Foundation
import ImageCodecs
import XCTest

extension FGRunTests {
  /// docs/Formats.md holds exactly what `fgrun formats` prints (scripts/gen-format-docs.sh writes it).
  func testFormatsPageIsTheCurrentFormatsOutput() throws {
    let all = try fgrun(["formats"])
    XCTAssertEqual(all.status, 0, all.stderr)
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let page = try String(contentsOf: root.appendingPathComponent("docs/Formats.md"), encoding: .utf8)
    XCTAssertTrue(
      page.contains("```\n" + all.text.trimmingCharacters(in: .newlines) + "\n```"),
      "docs/Formats.md is stale: run scripts/gen-format-docs.sh")
  }

  /// Every registered format is listed with whether it writes, and every option of its tables.
  func testFormatsListsEveryCodecAndOption() throws {
    let all = try fgrun(["formats"])
    XCTAssertEqual(all.status, 0, all.stderr)
    for codec in CodecRegistry.codecs {
      XCTAssertTrue(all.text.contains("\(codec.format.rawValue) — \(codec.displayName): reads"), "\(codec.format)")
      for option in codec.decodeOptions + (codec.canEncode ? codec.encodeOptions : []) {
        XCTAssertTrue(all.text.contains("--\(option.name) "), "\(codec.format) --\(option.name)")
      }
    }
    let one = try fgrun(["formats", "jpg"])
    XCTAssertEqual(one.status, 0, one.stderr)
    XCTAssertTrue(one.text.hasPrefix("jpeg — JPEG: reads and writes"), one.text)
    XCTAssertEqual(try fgrun(["formats", "bmp"]).status, 64)
  }

  /// Every option in every codec's table is an fgrun flag, with the table's help.
  func testEveryFormatOptionIsAFlag() throws {
    let help = try fgrun(["run", "--help"])
    XCTAssertEqual(help.status, 0, help.stderr)
    let text = help.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    for option in CodecRegistry.allEncodeOptions + CodecRegistry.allDecodeOptions {
      XCTAssertTrue(text.contains("--\(option.name)"), "fgrun run --help does not list --\(option.name) (FormatFlags.help)")
      let firstWords = option.help.split(separator: " ").prefix(3).joined(separator: " ")
      XCTAssertTrue(text.contains(firstWords), "--\(option.name)'s help does not come from its table")
    }
  }

  /// Format flags reach the encoder; values out of every table's range are usage errors.
  func testFormatFlagsReachTheEncoder() throws {
    XCTAssertEqual(try fgrun(["-e", "flip", "--quality", "20", "in.png", "low.jpg"]).status, 0)
    XCTAssertEqual(try fgrun(["-e", "flip", "--quality", "98", "in.png", "high.jpg"]).status, 0)
    let low = try Data(contentsOf: file("low.jpg")), high = try Data(contentsOf: file("high.jpg"))
    XCTAssertLessThan(low.count, high.count)
    XCTAssertEqual(try fgrun(["-e", "flip", "--progressive", "in.png", "p.jpg"]).status, 0)
    let progressive = try Data(contentsOf: file("p.jpg"))
    XCTAssertTrue(progressive.windowContains([0xFF, 0xC2]), "no SOF2 marker in a --progressive JPEG")
    let bad = try fgrun(["-e", "flip", "--chroma", "411", "in.png", "x.jpg"])
    XCTAssertEqual(bad.status, 64, bad.stderr)
    XCTAssertTrue(bad.stderr.contains("chroma"), bad.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("x.jpg").path))
    // --format decides standard output's format.
    let piped = try fgrun(["-e", "flip", "--format", "jpg", "in.png", "-"])
    XCTAssertEqual(piped.status, 0, piped.stderr)
    XCTAssertEqual(Array(piped.stdout.prefix(3)), [0xFF, 0xD8, 0xFF])
  }

  /// `--page` selects a page; single-page formats have only page 0, and a still PNG (PNG's pages
  /// are an APNG's frames) has one.
  func testPageOfASinglePageFormat() throws {
    XCTAssertEqual(try fgrun(["-e", "flip", "in.png", "in.jpg"]).status, 0)
    XCTAssertEqual(try fgrun(["-e", "flip", "--page", "0", "in.jpg", "p0.png"]).status, 0)
    let second = try fgrun(["-e", "flip", "--page", "1", "in.jpg", "p1.png"])
    XCTAssertEqual(second.status, 65, second.stderr)
    XCTAssertTrue(second.stderr.contains("only page 0"), second.stderr)
    try write("logo = load path=in.jpg page=1\noutput = logo", to: "r.txt")
    let recipe = try fgrun(["r.txt", "in.png", "r.png"])
    XCTAssertNotEqual(recipe.status, 0)
    XCTAssertTrue(recipe.stderr.contains("only page 0"), recipe.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("r.png").path))
    let png = try fgrun(["-e", "flip", "--page", "1", "in.png", "p1.png"])
    XCTAssertEqual(png.status, 65, png.stderr)
    XCTAssertTrue(png.stderr.contains("The PNG has 1 image; page 1 does not exist"), png.stderr)
  }
}

extension Data {
  fileprivate func windowContains(_ pattern: [UInt8]) -> Bool {
    let bytes = [UInt8](self)
    guard bytes.count >= pattern.count else { return false }
    return (0...(bytes.count - pattern.count)).contains { Array(bytes[$0..<$0 + pattern.count]) == pattern }
  }
}
