// ColorMatrixTests.swift — ColorMatrix, its presets and ColorMatrixOperation.
import CBLAS
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class ColorMatrixTests: XCTestCase {
  let pixels = samplePixels(96)
  /// A matrix that changes alpha (general path).
  let general = ColorMatrix(
    red: SIMD4(0.9, 0.2, -0.1, 0.1), green: SIMD4(0.05, 0.8, 0.1, 0), blue: SIMD4(0.3, -0.2, 1.1, 0.2),
    alpha: SIMD4(0.1, 0, 0, 0.7), bias: SIMD4(0.02, -0.03, 0.05, 0.1))
  /// Keeps alpha but reads it (premultiplied path with the a² term).
  let alphaColumn = ColorMatrix(
    red: SIMD4(1.1, 0, 0, 0.2), green: SIMD4(0, 0.9, 0.1, -0.1), blue: SIMD4(0, 0, 1, 0.3), bias: SIMD4(0.05, 0, -0.02, 0))

  func testOperationMatchesDefinitionOnEachPath() throws {
    for m in [general, alphaColumn, ColorMatrix.saturation(1.3), ColorMatrix.invert] {
      let got = try renderFloat(floatImage(pixels, width: 12).applyingColorMatrix(m))
      let want = pixels.map { c -> SIMD4<Float> in
        let o = m.apply(to: c)
        return o.w > 0 ? o : .zero
      }
      assertPixelsClose(got, want, tolerance: 3e-6, "\(m)")
    }
  }

  func testPresetsAgainstTheirFormulas() {
    let c = SIMD4<Float>(0.2, 0.5, 0.8, 1)
    XCTAssertEqual(ColorMatrix.saturation(1), .identity)
    XCTAssertEqual(ColorMatrix.contrast(1), .identity)
    XCTAssertEqual(ColorMatrix.brightness(0), .identity)
    XCTAssertEqual(ColorMatrix.exposure(ev: 0), .identity)
    XCTAssertEqual(ColorMatrix.sepia(intensity: 0), .identity)
    XCTAssertEqual(ColorMatrix.saturation(0), .grayscale)
    let lum: Float = 0.2126 * 0.2 + 0.7152 * 0.5 + 0.0722 * 0.8
    assertPixelsClose([ColorMatrix.grayscale.apply(to: c)], [SIMD4(lum, lum, lum, 1)], tolerance: 1e-7)
    assertPixelsClose([ColorMatrix.saturation(2).apply(to: c)], [SIMD4(2 * 0.2 - lum, 2 * 0.5 - lum, 2 * 0.8 - lum, 1)], tolerance: 1e-6)
    assertPixelsClose([ColorMatrix.contrast(2).apply(to: c)], [SIMD4(-0.1, 0.5, 1.1, 1)], tolerance: 1e-6)
    assertPixelsClose([ColorMatrix.brightness(0.1).apply(to: c)], [SIMD4(0.3, 0.6, 0.9, 1)], tolerance: 1e-6)
    assertPixelsClose([ColorMatrix.exposure(ev: 1).apply(to: c)], [SIMD4(0.4, 1, 1.6, 1)], tolerance: 1e-6)
    assertPixelsClose([ColorMatrix.exposure(ev: -2).apply(to: c)], [SIMD4(0.05, 0.125, 0.2, 1)], tolerance: 1e-7)
    assertPixelsClose([ColorMatrix.invert.apply(to: c)], [SIMD4(0.8, 0.5, 0.2, 1)], tolerance: 1e-6)
    let sepia = ColorMatrix.sepia().apply(to: c)
    assertPixelsClose([sepia], [SIMD4(0.393 * 0.2 + 0.769 * 0.5 + 0.189 * 0.8, 0.349 * 0.2 + 0.686 * 0.5 + 0.168 * 0.8, 0.272 * 0.2 + 0.534 * 0.5 + 0.131 * 0.8, 1)], tolerance: 1e-6)
  }

  func testValuesRoundTripAndRejectBadInput() {
    XCTAssertEqual(ColorMatrix(values: general.values), general)
    XCTAssertNil(ColorMatrix(values: [1, 2, 3]))
    XCTAssertNil(ColorMatrix(values: Array(repeating: .nan, count: 20)))
    XCTAssertEqual(ColorMatrix.identity.values, [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0])
  }

  /// `a.concatenated(with: b)` equals a then b, numerically and when rendered; the optimizer merges
  /// the two operations into one matrix stage.
  func testCompositionEqualsSequentialApplication() throws {
    let a = general, b = alphaColumn.concatenated(with: .saturation(1.4))
    let ab = a.concatenated(with: b)
    assertPixelsClose(pixels.map { ab.apply(to: $0) }, pixels.map { b.apply(to: a.apply(to: $0)) }, tolerance: 2e-6)

    let image = floatImage(pixels, width: 12).applyingColorMatrix(a).adjustingSaturation(1.5).adjustingContrast(1.2)
    let fusedNode = colorRenderer.optimized(image)
    let fused = try XCTUnwrap(fusedNode.operation as? FusedPointOperation)
    XCTAssertEqual(fused.stages.count, 1)
    let stage = try XCTUnwrap(fused.stages.first as? ColorMatrixOperation)
    XCTAssertEqual(stage.matrix, a.concatenated(with: .saturation(1.5)).concatenated(with: .contrast(1.2)))

    let unfused = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32), optimizer: OptimizerOptions(fusePointOperations: false)))
    assertPixelsClose(try renderFloat(image), try renderFloat(image, renderer: unfused), tolerance: 3e-6)
  }

  /// Matrices in different working spaces never merge.
  func testDifferentSpacesStaySeparate() throws {
    let image = floatImage(pixels, width: 12).adjustingExposure(ev: 0.5).adjustingContrast(1.2)
    let fused = try XCTUnwrap(colorRenderer.optimized(image).operation as? FusedPointOperation)
    XCTAssertEqual(fused.stages.count, 2)
    // Exposure in linear light: each straight value v becomes enc(dec(v) · 2^0.5).
    let got = try renderFloat(floatImage(pixels, width: 12).adjustingExposure(ev: 0.5))
    let f = Float(2.0.squareRoot())
    let want = pixels.map { c in SIMD4(SRGBCurve.encode(SRGBCurve.decode(c.x) * f), SRGBCurve.encode(SRGBCurve.decode(c.y) * f), SRGBCurve.encode(SRGBCurve.decode(c.z) * f), c.w) }
    assertPixelsClose(got, want, tolerance: 2e-5)
  }

  /// The operation on premultiplied pixels against the definition computed by BLAS on straight
  /// values: out[n×4] = c[n×4] · Mᵀ + bias (`cblas_sgemm`), alpha clamped, premultiplied again.
  func testOperationEqualsBLASReference() {
    for m in [general, alphaColumn, ColorMatrix.sepia(intensity: 0.7)] {
      let rows: [Float] = [m.red, m.green, m.blue, m.alpha].flatMap { [$0.x, $0.y, $0.z, $0.w] }
      var product = [SIMD4<Float>](repeating: m.bias, count: pixels.count)
      pixels.withUnsafeBytes { c in
        product.withUnsafeMutableBytes { out in
          cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasTrans, Int32(pixels.count), 4, 4, 1,
            c.baseAddress!.assumingMemoryBound(to: Float.self), 4, rows, 4, 1,
            out.baseAddress!.assumingMemoryBound(to: Float.self), 4)
        }
      }
      let want = product.map { o -> SIMD4<Float> in
        let a = min(max(o.w, 0), 1)
        return SIMD4(o.x * a, o.y * a, o.z * a, a)
      }
      var got = pixels.map { SIMD4($0.x * $0.w, $0.y * $0.w, $0.z * $0.w, $0.w) }
      got.withUnsafeMutableBufferPointer { ColorMatrixOperation(m).apply(to: $0.baseAddress!, count: $0.count) }
      assertPixelsClose(got, want, tolerance: 1e-6, "\(m)")
    }
  }

  func testSwiftAPIClampsIntoTheTable() {
    let base = floatImage(pixels, width: 12)
    XCTAssertEqual(base.adjustingSaturation(100).node.label, "saturate amount=4 space=encoded")
    XCTAssertEqual(base.adjustingContrast(-3).node.label, "contrast amount=0 space=encoded")
    XCTAssertEqual(base.adjustingExposure(ev: .nan).node.label, "exposure ev=0.5 space=linear")
    XCTAssertEqual(base.sepiaToned(intensity: 2).node.label, "sepia intensity=1 space=encoded")
  }

  func testTileParallelEqualsOneTile() throws {
    let image = Image(buffer: randomRGBA8(width: 150, height: 70)).applyingColorMatrix(general).sepiaToned(intensity: 0.6).inverted()
    XCTAssertTrue(try colorRenderer.render(image).hasSamePixels(as: try oneTileRenderer.render(image)))
  }
}
