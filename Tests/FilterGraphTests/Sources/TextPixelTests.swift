// TextPixelTests.swift — the text source's pixels against pango-view, across tiles, in colour.
//
// pango-view (Debian pango1.0-tools: Pango shaping with HarfBuzz, cairo's FreeType rendering)
// draws the same string, font and size unhinted, with subpixel positions, on a transparent
// background; its alpha is the glyph coverage, as ours is, so the two compare without any
// gamma question. Both images start at the line box's top-left, so the ink's bounding boxes
// must agree within a pixel and the coverage be ≥ 30 dB PSNR over their union.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class TextPixelTests: XCTestCase {
  /// 8-bit RGBA rows of `image` (tiles of 64×16 on two threads unless told).
  static func rgba(_ image: Image, tile: Size = Size(width: 64, height: 16), threads: Int = 2) throws -> (bytes: [UInt8], size: Size) {
    let buffer = try Renderer(options: RendererOptions(threads: threads, tileSize: tile)).render(image, format: .rgba8)
    return (RecipeExamplesTests.packed(buffer), buffer.size)
  }

  /// The alpha plane of `image`.
  static func alpha(_ image: Image) throws -> (values: [UInt8], size: Size) {
    let (bytes, size) = try Self.rgba(image)
    return (stride(from: 3, to: bytes.count, by: 4).map { bytes[$0] }, size)
  }

  /// The bounding box (x0, y0, x1, y1; exclusive ends) of the alpha above 0.
  static func inkBox(_ a: [UInt8], _ size: Size) -> [Int] {
    var box = [Int.max, Int.max, -1, -1]
    for y in 0..<size.height {
      for x in 0..<size.width where a[y * size.width + x] > 0 {
        box = [min(box[0], x), min(box[1], y), max(box[2], x + 1), max(box[3], y + 1)]
      }
    }
    return box
  }

  /// PSNR of two alpha planes over the union of their ink boxes (pixels outside an image count
  /// as 0), and the two ink boxes.
  static func compare(_ ours: (values: [UInt8], size: Size), _ theirs: (values: [UInt8], size: Size)) -> (Double, [Int], [Int]) {
    let a = inkBox(ours.values, ours.size), b = inkBox(theirs.values, theirs.size)
    var squared = 0.0, count = 0.0
    for y in min(a[1], b[1])..<max(a[3], b[3]) {
      for x in min(a[0], b[0])..<max(a[2], b[2]) {
        let p = x < ours.size.width && y < ours.size.height ? Double(ours.values[y * ours.size.width + x]) : 0
        let q = x < theirs.size.width && y < theirs.size.height ? Double(theirs.values[y * theirs.size.width + x]) : 0
        squared += (p - q) * (p - q)
        count += 1
      }
    }
    return (10 * log10(255 * 255 / max(squared / count, 1e-9)), a, b)
  }

  func pangoView(_ text: String, font: String, size: Int) throws -> (values: [UInt8], size: Size) {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("pango-\(getpid())-\(size).png")
    defer { try? FileManager.default.removeItem(at: out) }
    let run = try ChildProcess.run(
      "/usr/bin/pango-view",
      ["-q", "--text=\(text)", "--font=\(font) \(size)", "--dpi=72", "--hinting=none", "--hint-metrics=off",
       "--subpixel-positions", "--antialias=gray", "--background=transparent", "--foreground=black", "--margin=0", "-o", out.path],
      in: FileManager.default.temporaryDirectory)
    XCTAssertEqual(run.status, 0, run.stderr)
    return try Self.alpha(Image(contentsOf: out))
  }

  func testCoverageMatchesPangoViewWithinAPixelAndAbove30dB() throws {
    let cases: [(String, String)] = [
      ("Hamburgefonstiv AVAffi, 0123", "DejaVu Sans"),
      ("مرحبا بالعالم", "Noto Sans Arabic"),
      ("नमस्ते दुनिया", "Noto Sans Devanagari"),
      ("สวัสดีชาวโลก", "Noto Sans Thai"),
    ]
    for (text, family) in cases {
      let ours = try Self.alpha(Image(text: text, font: family, size: 40))
      let theirs = try pangoView(text, font: family, size: 40)
      let (psnr, a, b) = Self.compare(ours, theirs)
      for k in 0..<4 { XCTAssertEqual(a[k], b[k], accuracy: 1, "\(family): ink box \(a) against pango-view's \(b)") }
      XCTAssertGreaterThanOrEqual(psnr, 30, "\(family): \(psnr) dB against pango-view")
      print("text: \(family) \(String(format: "%.1f", psnr)) dB against pango-view, ink boxes \(a) and \(b)")
    }
  }

  func testOneTileEqualsManyTilesAndOneWorkerEqualsTwo() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let caption = try Image(text: "Tiles: AVAffi سلام 😀\nsecond line, wrapped", font: "DejaVu Sans", size: 19, color: .white, width: 150)
    let image = caption.composited(over: photo, gravity: .southEast, margin: 3)
    let whole = try Self.rgba(image, tile: Size(width: 4096, height: 4096), threads: 1)
    XCTAssertEqual(try Self.rgba(image, tile: Size(width: 16, height: 8), threads: 2).bytes, whole.bytes)
    XCTAssertEqual(try Self.rgba(image, tile: Size(width: 37, height: 11), threads: 1).bytes, whole.bytes)
    XCTAssertEqual(try Self.rgba(caption, tile: Size(width: 4096, height: 4096), threads: 1).bytes, try Self.rgba(caption).bytes)
    // The caption is there: the bottom-right corner changed.
    XCTAssertNotEqual(whole.bytes, try Self.rgba(photo).bytes)
  }

  func testAnOperationChangingTheTextInPlaceLeavesTheRenderersCopyAsSet() throws {
    // Tiles of the text are views of the pixels the renderer holds for every render: a point
    // operation changes its tile in place, which must copy them, not change the held text.
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 32, height: 8)))
    let text = try Image(text: "Held", font: "DejaVu Sans", size: 30, color: Color(red: 0.2, green: 0.6, blue: 0.9))
    let set = RecipeExamplesTests.packed(try renderer.render(text, format: .rgba8))
    let brighter = try renderer.render(text.adjustingGamma(0.5, in: .linear), format: .rgba8)
    XCTAssertNotEqual(RecipeExamplesTests.packed(brighter), set)
    XCTAssertEqual(RecipeExamplesTests.packed(try renderer.render(text, format: .rgba8)), set)
  }

  func testOneRendererSetsEachTextItWasGiven() throws {
    // The decode cache keys text by what it shows: a text made after another was freed (its
    // memory perhaps reused) is never served the other's pixels; equal texts share one entry.
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 16)))
    var previous: [UInt8] = []
    for word in ["ill", "WWW", "ill", "mmm", "WWW"] {
      let buffer = try renderer.render(try Image(text: word, font: "DejaVu Sans", size: 30), format: .rgba8)
      let fresh = try Renderer(options: RendererOptions(threads: 1)).render(try Image(text: word, font: "DejaVu Sans", size: 30), format: .rgba8)
      XCTAssertEqual(RecipeExamplesTests.packed(buffer), RecipeExamplesTests.packed(fresh), word)
      XCTAssertNotEqual(RecipeExamplesTests.packed(buffer), previous, word)
      previous = RecipeExamplesTests.packed(buffer)
    }
  }

  func testColorEmojiKeepTheirColorsAndTakeTheTextAlpha() throws {
    // U+1F600 is a yellow face in Noto Color Emoji: its middle is far from the black text colour.
    let face = try Self.rgba(Image(text: "😀", size: 64, color: .black))
    let w = face.size.width, h = face.size.height
    let centre = (h / 2 * w + w / 2) * 4
    let (r, g, b, a) = (face.bytes[centre], face.bytes[centre + 1], face.bytes[centre + 2], face.bytes[centre + 3])
    XCTAssertEqual(a, 255)
    XCTAssertGreaterThan(Int(r), 200)
    XCTAssertGreaterThan(Int(g), 150)
    XCTAssertLessThan(Int(b), 100, "(\(r), \(g), \(b))")
    let half = try Self.rgba(Image(text: "😀", size: 64, color: Color(red: 0, green: 0, blue: 0, alpha: 0.5)))
    XCTAssertEqual(Double(half.bytes[centre + 3]), 127.5, accuracy: 1)
  }

  func testCoverageIsAlphaInLinearLight() throws {
    // White text at half opacity has exactly half the alpha of opaque white text (coverage
    // times colour alpha), and its colour stays white wherever it shows (premultiplied, so
    // unpremultiplying gives the colour back).
    let opaque = try Self.rgba(Image(text: "Mw", font: "DejaVu Sans", size: 30, color: .white))
    let half = try Self.rgba(Image(text: "Mw", font: "DejaVu Sans", size: 30, color: Color(red: 1, green: 1, blue: 1, alpha: 0.5)))
    XCTAssertEqual(opaque.size, half.size)
    var partial = 0
    for i in stride(from: 0, to: opaque.bytes.count, by: 4) {
      XCTAssertEqual(Double(half.bytes[i + 3]), Double(opaque.bytes[i + 3]) / 2, accuracy: 1)
      if opaque.bytes[i + 3] > 20 { XCTAssertGreaterThanOrEqual(opaque.bytes[i], 250) }
      if opaque.bytes[i + 3] > 0 && opaque.bytes[i + 3] < 255 { partial += 1 }
    }
    XCTAssertGreaterThan(partial, 20, "edges are anti-aliased")
  }
}
