// BoxBlurTests.swift — box blur against the window mean, directly computed.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class BoxBlurTests: XCTestCase {
  typealias H = ConvolutionTestHelpers

  /// The blurred impulse is 1/(2r+1)² on the (2r+1)² square and 0 elsewhere.
  func testImpulseBecomesAUniformSquare() throws {
    let r = 3, n = 15, c = 7
    let image = H.floatImage(width: n, height: n) { x, y in x == c && y == c ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) }
    let out = try H.renderFloat(image.boxBlurred(radius: r, linearLight: false))
    let expected: Float = 1 / Float((2 * r + 1) * (2 * r + 1))
    for y in 0..<n {
      for x in 0..<n {
        let inside = abs(x - c) <= r && abs(y - c) <= r
        XCTAssertEqual(out[y][x].x, inside ? expected : 0, accuracy: 1e-7, "(\(x), \(y))")
        XCTAssertEqual(out[y][x].w, 1, accuracy: 1e-7)
      }
    }
  }

  /// Every pixel, borders included, is the mean of its window with coordinates clamped to the image.
  func testEqualsTheWindowMeanWithEdgesExtended() throws {
    let w = 23, h = 17, r = 4
    var rng = SeededGenerator(seed: 5)
    let values = (0..<(w * h)).map { _ in
      let a = Float.random(in: 0.2...1, using: &rng)
      return SIMD4(Float.random(in: 0...1, using: &rng) * a, Float.random(in: 0...1, using: &rng) * a, 0, a)
    }
    let image = H.floatImage(width: w, height: h) { x, y in values[y * w + x] }
    let out = try H.renderFloat(image.boxBlurred(radius: r, linearLight: false))
    for y in 0..<h {
      for x in 0..<w {
        var sum = SIMD4<Double>()
        for j in -r...r {
          for i in -r...r {
            let v = values[min(max(y + j, 0), h - 1) * w + min(max(x + i, 0), w - 1)]
            sum += SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w))
          }
        }
        let mean = sum / Double((2 * r + 1) * (2 * r + 1))
        for ch in 0..<4 { XCTAssertEqual(Double(out[y][x][ch]), mean[ch], accuracy: 1e-6, "(\(x), \(y)) channel \(ch)") }
      }
    }
  }

  func testTiledRenderEqualsOneTileRenderBitForBit() throws {
    let image = H.randomImage(width: 100, height: 70, seed: 9)
    try H.assertTilingInvariant(image.boxBlurred(radius: 2))
    try H.assertTilingInvariant(image.boxBlurred(radius: 40, linearLight: false))
  }

  func testRadiusZeroIsIdentityAndRadiusIsClamped() throws {
    let image = H.randomImage(width: 8, height: 8, seed: 1)
    XCTAssertTrue(image.boxBlurred(radius: 0).node === image.node)
    XCTAssertTrue(image.boxBlurred(radius: -5).node === image.node)
    XCTAssertEqual(image.boxBlurred(radius: 1_000_000).node.operation.arguments.description, "radius=1000 linear=true")
    let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/"))
    let blurred = try ConvolutionFilters.boxblur.apply([image], Arguments([("radius", .number(3)), ("linear", .boolean(true))]), context)
    XCTAssertEqual(blurred.node.label, "boxblur radius=3 linear=true")
  }
}
