// ShadowTests.swift — `shadow` against its definition (Shadow.swift): the canvas grows by
// ⌈3σ⌉ + the offset, the image sits at (m, m), its alpha in the shadow colour at (m + dx, m + dy).

import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class ShadowTests: XCTestCase {
  func rgba(_ image: Image) throws -> (bytes: [UInt8], width: Int) {
    let buffer = try Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 8, height: 4))).render(image, format: .rgba8)
    return (RecipeExamplesTests.packed(buffer), buffer.width)
  }

  func testAHardShadowIsTheAlphaInTheShadowColorAtTheOffset() throws {
    let square = Image(color: .white, size: Size(width: 10, height: 10))
    let shadowed = square.shadowed(sigma: 0, offset: Point(x: 3, y: 2), color: Color(white: 0, alpha: 0.5))
    XCTAssertEqual(shadowed.size, Size(width: 16, height: 16))  // m = 0 + max(3, 2) = 3
    let (p, w) = try rgba(shadowed)
    func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(p[(y * w + x) * 4..<(y * w + x) * 4 + 4]) }
    XCTAssertEqual(pixel(4, 4), [255, 255, 255, 255], "the image at (3, 3)")
    XCTAssertEqual(pixel(14, 13), [0, 0, 0, 128], "only the shadow, at (6, 5)…(16, 15)")
    XCTAssertEqual(pixel(1, 1), [0, 0, 0, 0], "nothing")
    XCTAssertEqual(pixel(15, 4), [0, 0, 0, 0], "right of the image, above the shadow")
  }

  func testASoftShadowIsBlurredAndNotClipped() throws {
    let square = Image(color: .white, size: Size(width: 20, height: 20))
    let shadowed = square.shadowed(sigma: 2, offset: Point(x: 2, y: 2), color: .black)
    XCTAssertEqual(shadowed.size, Size(width: 36, height: 36))  // m = 6 + 2
    let (p, w) = try rgba(shadowed)
    let alpha = { (x: Int, y: Int) in Int(p[(y * w + x) * 4 + 3]) }
    // The shadow's right edge is at x = m + dx + 20 = 30: the Gaussian-blurred step is Φ(±0.25)
    // on the pixels either side (0.60 and 0.40 of 255), about nothing 2.75σ beyond.
    XCTAssertEqual(alpha(29, 20), 153, accuracy: 4)
    XCTAssertEqual(alpha(30, 20), 102, accuracy: 4)
    XCTAssertLessThan(alpha(35, 20), 3)
    XCTAssertEqual(alpha(20, 20), 255, "the image over its shadow")
  }

  func testTheShadowEqualsItsDefinitionFromMaskBlurAndCompositeInAnyTiling() throws {
    // A ring with soft edges and a shadow offset up and left: the one-pass operation (alpha blurred
    // alone) against the definition composed of the general operations (four channels blurred).
    let ring = Image(color: Color(red: 0.9, green: 0.3, blue: 0.1, alpha: 0.8), size: Size(width: 23, height: 17))
      .masked(by: try Image(text: "O", font: "DejaVu Sans", size: 16, color: .white).scaled(to: Size(width: 23, height: 17)), source: .alpha)
    let (sigma, dx, dy, color) = (1.7, -2, 1, Color(red: 0.1, green: 0.2, blue: 0.6, alpha: 0.7))
    let m = 6 + 2
    let canvas = Image(color: .clear, size: Size(width: 23 + 2 * m, height: 17 + 2 * m))
    let silhouette = Image(color: color, size: ring.size).masked(by: ring, source: .alpha)
    let shade = silhouette.composited(over: canvas, at: Point(x: m + dx, y: m + dy)).blurred(sigma: sigma)
    let reference = try rgba(ring.composited(over: shade, at: Point(x: m, y: m)))
    let shadowed = ring.shadowed(sigma: sigma, offset: Point(x: dx, y: dy), color: color)
    XCTAssertEqual(shadowed.size, canvas.size)
    for tile in [Size(width: 8, height: 4), Size(width: 5, height: 3), Size(width: 64, height: 64)] {
      let buffer = try Renderer(options: RendererOptions(threads: 2, tileSize: tile)).render(shadowed, format: .rgba8)
      let bytes = RecipeExamplesTests.packed(buffer)
      let worst = zip(bytes, reference.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
      XCTAssertLessThanOrEqual(worst, 1, "tiles \(tile)")
      XCTAssertGreaterThan(Set(bytes).count, 100, "a soft, coloured shadow")
    }
  }
}
