// GaussianBlurPyramidTests.swift — large blurs through a reduced copy equal the exact Gaussian
// within two 8-bit levels (six in the outermost k pixels), keep the image's size and tile-invariance, and are used only where
// they should be.
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class GaussianBlurPyramidTests: XCTestCase {
  /// Coloured rectangles, a disc and a gradient on 240 × 180: edges of every direction.
  private let scene = ConvolutionTestHelpers.floatImage(width: 240, height: 180) { x, y in
    if (40..<120).contains(x) && (30..<90).contains(y) { return SIMD4(0.9, 0.1, 0.1, 1) }
    let dx = Float(x - 170), dy = Float(y - 110)
    if dx * dx + dy * dy < 45 * 45 { return SIMD4(0.1, 0.2, 0.95, 1) }
    if x > 200 && y < 40 { return SIMD4(1, 1, 1, 1) }
    return SIMD4(Float(x) / 240, Float(y) / 180 * 0.5, 0.3, 1)
  }

  private func render8(_ image: Image) throws -> [Int] {
    try ConvolutionTestHelpers.oneTile().render(image, format: .rgba8).integerValues()
  }

  func testALargeBlurMatchesTheExactGaussianWithinTwoLevels() throws {
    for (sigma, linear) in [(40.0, true), (60.0, false)] {
      let pyramid = scene.blurred(sigma: sigma, linearLight: linear)
      XCTAssertNotNil(GaussianBlurOperation(sigma: sigma, linearLight: linear).pyramidFactor)
      let exact = scene.applying(GaussianBlurOperation(sigma: sigma, linearLight: linear, method: .exact))
      let a = try render8(pyramid), b = try render8(exact)
      XCTAssertEqual(a.count, b.count)
      let differences = zip(a, b).map { abs($0 - $1) }
      let mean = Double(differences.reduce(0, +)) / Double(differences.count)
      XCTAssertLessThan(mean, 0.35, "σ \(sigma)")
      // Within the outermost k pixels the reduced copy cannot follow the edge pixel exactly.
      let k = Int(sigma / 8)
      for (i, d) in differences.enumerated() {
        let x = i / 4 % 240, y = i / 4 / 240
        let inner = x >= k && x < 240 - k && y >= k && y < 180 - k
        XCTAssertLessThanOrEqual(d, inner ? 2 : 6, "σ \(sigma) at (\(x), \(y))")
        if d > (inner ? 2 : 6) { break }
      }
    }
  }

  func testThePyramidKeepsTheSizeAndIsTileInvariant() throws {
    let blurred = scene.blurred(sigma: 50)
    XCTAssertEqual(blurred.size, scene.size)
    try ConvolutionTestHelpers.assertTilingInvariant(blurred)
  }

  func testOnlyLargeAutomaticBlursUseThePyramid() throws {
    XCTAssertNil(GaussianBlurOperation(sigma: 32).pyramidFactor)
    XCTAssertEqual(GaussianBlurOperation(sigma: 33).pyramidFactor, 4)
    XCTAssertEqual(GaussianBlurOperation(sigma: 500).pyramidFactor, 62)
    XCTAssertNil(GaussianBlurOperation(sigma: 500, method: .exact).pyramidFactor)
    XCTAssertNil(GaussianBlurOperation(sigma: 500, method: .box).pyramidFactor)
    // The recipe verb builds the same graph as the Swift method.
    let recipe = try Recipe.parse("blur sigma=200", file: nil).compile(
      input: scene, context: FilterContext(baseDirectory: URL(fileURLWithPath: "/")))
    XCTAssertEqual(recipe.node.structuralKey, scene.blurred(sigma: 200).node.structuralKey)
    XCTAssertTrue(recipe.node.structuralKey.hasPrefix("scale"), recipe.node.structuralKey)
  }
}
