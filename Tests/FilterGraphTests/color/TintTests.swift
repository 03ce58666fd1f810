// TintTests.swift — TintOperation against its definition on straight encoded values.
import Foundation
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class TintTests: XCTestCase {
  let pixels = samplePixels(96)
  let orange = Color(hex: "#FF8000")!

  /// The file's definition, on straight RGBA.
  func expected(_ c: SIMD4<Float>, _ t: Color, amount: Float, mode: TintMode) -> SIMD4<Float> {
    let rgb = SIMD3(c.x, c.y, c.z), tint = SIMD3(t.red, t.green, t.blue)
    let k = amount * t.alpha
    let out: SIMD3<Float>
    var a = c.w
    switch mode {
    case .mix: out = rgb + k * (tint - rgb)
    case .multiply: out = rgb + k * (rgb * tint - rgb)
    case .monochrome:
      let lum = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z
      out = rgb + k * (lum * tint - rgb)
    case .template:
      out = rgb + amount * (tint - rgb)
      a = c.w * t.alpha
    }
    return SIMD4(out.x, out.y, out.z, a)
  }

  func check(_ mode: TintMode, color: Color, amount: Float, file: StaticString = #filePath, line: UInt = #line) throws {
    let image = floatImage(pixels, width: 12).tinted(color, amount: Double(amount), mode: mode)
    let got = try renderFloat(image)
    assertPixelsClose(got, pixels.map { expected($0, color, amount: amount, mode: mode) }, tolerance: 2e-6, "\(mode)", file: file, line: line)
  }

  func testMixMatchesDefinition() throws {
    try check(.mix, color: orange, amount: 0.3)
    try check(.mix, color: Color(red: 0.2, green: 0.9, blue: 0.4, alpha: 0.5), amount: 0.8)
    // Known pixel: mid-gray tinted toward #FF8000 by 30 %: 0.5 + 0.3·(1 − 0.5) = 0.65, …
    let one = try renderFloat(floatImage([SIMD4(0.5, 0.5, 0.5, 1)], width: 1).tinted(orange, amount: 0.3))
    assertPixelsClose(one, [SIMD4(0.65, 0.5 + 0.3 * (128.0 / 255 - 0.5), 0.35, 1)], tolerance: 1e-6)
  }

  func testMultiplyMatchesDefinition() throws {
    try check(.multiply, color: orange, amount: 1)
    try check(.multiply, color: Color(red: 0.5, green: 0.25, blue: 1, alpha: 0.6), amount: 0.7)
  }

  func testMonochromeMatchesDefinition() throws {
    try check(.monochrome, color: orange, amount: 1)
    try check(.monochrome, color: Color(red: 0.3, green: 0.6, blue: 0.9), amount: 0.4)
    // Pure green becomes 0.7152 × the tint.
    let g = try renderFloat(floatImage([SIMD4(0, 1, 0, 1)], width: 1).tinted(orange, mode: .monochrome))
    assertPixelsClose(g, [SIMD4(0.7152, 0.7152 * 128 / 255, 0, 1)], tolerance: 1e-6)
  }

  func testTemplateMatchesDefinition() throws {
    try check(.template, color: orange, amount: 1)
    try check(.template, color: Color(red: 0.1, green: 0.7, blue: 0.3, alpha: 0.8), amount: 0.6)
  }

  /// An 8-bit icon painted with an opaque tint keeps every alpha byte and gets the tint's bytes.
  func testTemplateKeepsAlphaBitForBit() throws {
    let input = randomRGBA8(width: 100, height: 40)
    let out = try colorRenderer.render(Image(buffer: input).tinted(orange, mode: .template))
    XCTAssertEqual(out.format, .rgba8)
    var alphaMismatches = 0, colorMismatches = 0, opaqueSeen = 0, transparentSeen = 0
    input.withUnsafePixels(as: UInt8.self) { src in
      out.withUnsafePixels(as: UInt8.self) { dst in
        for y in 0..<40 {
          for x in 0..<100 {
            let a = src[row: y][4 * x + 3]
            if a == 255 { opaqueSeen += 1 }
            if a == 0 { transparentSeen += 1; continue }
            if dst[row: y][4 * x + 3] != a { alphaMismatches += 1 }
            if (dst[row: y][4 * x], dst[row: y][4 * x + 1], dst[row: y][4 * x + 2]) != (255, 128, 0) { colorMismatches += 1 }
          }
        }
      }
    }
    XCTAssertGreaterThan(opaqueSeen, 0)
    XCTAssertGreaterThan(transparentSeen, 0)
    XCTAssertEqual(alphaMismatches, 0)
    XCTAssertEqual(colorMismatches, 0)
  }

  func testAmountIsClampedAndVerbMatchesSwiftAPI() throws {
    let base = floatImage(pixels, width: 12)
    XCTAssertEqual(try renderFloat(base.tinted(orange, amount: 7)), try renderFloat(base.tinted(orange, amount: 1)))
    XCTAssertEqual(base.tinted(orange, amount: -.infinity).node.label, "tint color=#FF8000 amount=0 mode=mix")
    // NaN counts as not given: the table's default, 1.
    XCTAssertEqual(base.tinted(orange, amount: .nan).node.label, "tint color=#FF8000 amount=1 mode=mix")
    let verb = try ColorFilters.tint.apply(
      [base], arguments(TintOperation.table, ["color": .color(orange), "amount": .number(0.3)]), FilterContext(baseDirectory: URL(fileURLWithPath: "/")))
    XCTAssertEqual(verb.node.structuralKey, base.tinted(orange, amount: 0.3).node.structuralKey)
    XCTAssertEqual(try renderFloat(verb), try renderFloat(base.tinted(Color(hex: "#FF8000")!, amount: 0.3)))
  }

  /// Tiles on two threads give the same bytes as one tile on one thread.
  func testTileParallelEqualsOneTile() throws {
    let image = Image(buffer: randomRGBA8(width: 150, height: 70)).tinted(orange, amount: 0.3).tinted(orange, mode: .monochrome)
    let a = try colorRenderer.render(image), b = try oneTileRenderer.render(image)
    XCTAssertTrue(a.hasSamePixels(as: b))
  }
}
