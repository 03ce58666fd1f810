// GammaTests.swift — GammaOperation against c^(1/γ).
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class GammaTests: XCTestCase {
  let pixels = samplePixels(96)

  func testMatchesDefinition() throws {
    let got = try renderFloat(floatImage(pixels, width: 12).adjustingGamma(2.2))
    let want = pixels.map { c in SIMD4(powf(c.x, 1 / 2.2), powf(c.y, 1 / 2.2), powf(c.z, 1 / 2.2), c.w) }
    assertPixelsClose(got, want, tolerance: 2e-6)
    // 0.25 with γ = 2 is 0.5.
    assertPixelsClose(try renderFloat(floatImage([SIMD4(0.25, 1, 0, 1)], width: 1).adjustingGamma(2)), [SIMD4(0.5, 1, 0, 1)], tolerance: 1e-7)
  }

  func testTwoGammasMergeIntoTheirProduct() throws {
    let image = floatImage(pixels, width: 12).adjustingGamma(2).adjustingGamma(1.5)
    let fused = try XCTUnwrap(colourRenderer.optimized(image).operation as? FusedPointOperation)
    XCTAssertEqual(fused.stages.count, 1)
    XCTAssertEqual((fused.stages[0] as? GammaOperation)?.gamma, 3)
    let want = pixels.map { c in SIMD4(powf(c.x, 1 / 3), powf(c.y, 1 / 3), powf(c.z, 1 / 3), c.w) }
    assertPixelsClose(try renderFloat(image), want, tolerance: 2e-6)
  }

  func testClampsGamma() {
    XCTAssertEqual(GammaOperation(gamma: 0).gamma, 0.1)
    XCTAssertEqual(GammaOperation(gamma: 1e9).gamma, 10)
    XCTAssertEqual(GammaOperation(gamma: .nan).gamma, 1)
  }
}
