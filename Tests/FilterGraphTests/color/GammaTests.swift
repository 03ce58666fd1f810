// GammaTests.swift — GammaOperation against c^(1/γ).
import Foundation
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
    let fused = try XCTUnwrap(colorRenderer.optimized(image).operation as? FusedPointOperation)
    XCTAssertEqual(fused.stages.count, 1)
    XCTAssertEqual((fused.stages[0] as? GammaOperation)?.gamma, 3)
    let want = pixels.map { c in SIMD4(powf(c.x, 1 / 3), powf(c.y, 1 / 3), powf(c.z, 1 / 3), c.w) }
    assertPixelsClose(try renderFloat(image), want, tolerance: 2e-6)
  }

  func testClampsGamma() {
    func applied(_ gamma: Double) -> Double? {
      (floatImage([SIMD4(0.5, 0.5, 0.5, 1)], width: 1).adjustingGamma(gamma).node.operation as? GammaOperation)?.gamma
    }
    XCTAssertEqual(applied(0), 0.1)
    XCTAssertEqual(applied(1e9), 10)
    // NaN counts as not given: the table's default (ParameterSpec.clamped).
    XCTAssertEqual(applied(.nan), 2.2)
  }

  /// Two merged curves apply γ₁·γ₂ exactly and spell it so, even beyond the row's 0.1…10.
  func testMergedGammaLeavesTheRange() throws {
    let image = floatImage([SIMD4(0.5, 0.25, 0.75, 1)], width: 1).adjustingGamma(8).adjustingGamma(4)
    let fused = try XCTUnwrap(colorRenderer.optimized(image).operation as? FusedPointOperation)
    let merged = try XCTUnwrap(fused.stages.first as? GammaOperation)
    XCTAssertEqual(merged.gamma, 32)
    XCTAssertEqual(merged.arguments.description, "value=32 space=encoded")
    assertPixelsClose(try renderFloat(image), [SIMD4(powf(0.5, 1 / 32), powf(0.25, 1 / 32), powf(0.75, 1 / 32), 1)], tolerance: 2e-6)
  }

  /// Partly transparent pixels (the curve applies to straight colour) and an odd pixel count.
  func testPartlyTransparentAndTail() throws {
    let px: [SIMD4<Float>] = [SIMD4(0.1, 0.2, 0.3, 0.5), SIMD4(0.7, 0.001, 0, 0.25), SIMD4(0.04, 0.5, 0.9, 1)]
    let got = try renderFloat(floatImage(px, width: 3).adjustingGamma(2.2))
    let e = Float(1 / 2.2)
    let want = px.map { c in SIMD4(powf(c.x, e), powf(c.y, e), powf(c.z, e), c.w) }
    assertPixelsClose(got, want, tolerance: 2e-6)
  }

  /// The table curve against Double pow over 0…4 (dense near 0, subnormals included), negatives
  /// (odd extension) and the γ range 0.1…10: relative error ≤ 1.5·10⁻⁶ where the result is at
  /// least 2⁻¹²⁶; 0 ↦ 0 exactly.
  func testTablePowerAccuracy() {
    // The smallest subnormal, a subnormal near 1e-40 and the smallest normal, as exact bit patterns.
    let edges: [Float] = [.leastNonzeroMagnitude, Float(bitPattern: 71362), .leastNormalMagnitude]
    var xs: [Float] = [0, -0, 1, 0.25, 0.5] + edges + [1e-30, 1e-10, 4, 2, 1.9999999]
    var v: Float = 1e-12
    while v < 4 { xs.append(v); xs.append(-v); v *= 1.0137 }
    for k in 0...8192 { xs.append(Float(k) / 8192) }
    for g in [0.1, 0.3, 1 / 2.2, 0.9, 1.5, 2.2, 3, 10] as [Double] {
      let e = Float(1 / g)
      let table = GammaTable.shared(for: e)
      var worst = 0.0
      var at: Float = 0
      table.mantissa.withUnsafeBufferPointer { m in
        table.scale.withUnsafeBufferPointer { sc in
          for x in xs {
            let got = Double(GammaTable.power(x, e, m.baseAddress!, sc.baseAddress!))
            let xd = Double(x)
            let want = xd < 0 ? -Foundation.pow(-xd, Double(e)) : Foundation.pow(xd, Double(e))
            let err = abs(got - want)
            let rel = abs(want) >= 0x1p-126 ? err / abs(want) : (err <= 0x1p-126 ? 0 : 1)
            if rel > worst { (worst, at) = (rel, x) }
          }
          XCTAssertEqual(GammaTable.power(0, e, m.baseAddress!, sc.baseAddress!), 0)
        }
      }
      XCTAssertLessThanOrEqual(worst, 1.5e-6, "gamma \(g): worst relative error at \(at)")
    }
  }
}
