// CustomKernelTests.swift — Swift closure kernels on straight RGBA.
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class CustomKernelTests: XCTestCase {
  let pixels = samplePixels(96)

  func testKernelSeesStraightValuesAndResultIsPremultipliedAgain() throws {
    let image = floatImage(pixels, width: 12).applyingKernel(name: "swap") { c in SIMD4(c.z, c.y * 0.5, c.x, c.w * 0.5) }
    let want = pixels.map { c in SIMD4(c.z, c.y * 0.5, c.x, c.w * 0.5) }
    assertPixelsClose(try renderFloat(image), want, tolerance: 2e-6)
  }

  func testKernelInLinearSpace() throws {
    let image = floatImage(pixels, width: 12).applyingKernel(workingSpace: .linear) { c in SIMD4(c.x * 0.5, c.y, c.z, c.w) }
    let want = pixels.map { c in SIMD4(SRGBCurve.encode(SRGBCurve.decode(c.x) * 0.5), c.y, c.z, c.w) }
    assertPixelsClose(try renderFloat(image), want, tolerance: 2e-5)
  }

  func testKernelsFuseButNeverMergeOrShareANode() throws {
    let base = floatImage(pixels, width: 12)
    let k1 = base.applyingKernel { $0 }.tinted(.white, amount: 0.5).applyingKernel { $0 }
    let fused = try XCTUnwrap(colorRenderer.optimized(k1).operation as? FusedPointOperation)
    XCTAssertEqual(fused.stages.count, 3)
    let a = base.applyingKernel(name: "same") { _ in SIMD4(1, 0, 0, 1) }
    let b = base.applyingKernel(name: "same") { _ in SIMD4(0, 1, 0, 1) }
    XCTAssertNotEqual(a.node.structuralKey, b.node.structuralKey)
  }

  func testTileParallelEqualsOneTile() throws {
    let image = Image(buffer: randomRGBA8(width: 150, height: 70))
      .applyingKernel { c in SIMD4(c.y, c.z, c.x, c.w) }.adjustingGamma(1.8).tinted(.white, amount: 0.2)
    XCTAssertTrue(try colorRenderer.render(image).hasSamePixels(as: try oneTileRenderer.render(image)))
  }
}
