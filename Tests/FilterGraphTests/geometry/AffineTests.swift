// Tests of rotate (any angle) and affine against their definition (Affine.swift): a direct
// reference implementation in Double, the exact 90° rotations, tiling, region of interest, verbs.

import FilterGraph
import Foundation
import PixelBufferModule
import XCTest

final class AffineTests: XCTestCase {
  typealias T = ResampleTestSupport
  typealias G = GeometryTestSupport

  /// Straight encoded RGBA 0…1 of an 8-bit image's pixels, `[y][x]`.
  func straight(_ image: Image) throws -> [[SIMD4<Double>]] {
    let px = try T.bytes(image, format: .rgba8, renderer: T.single)
    return px.map { row in
      stride(from: 0, to: row.count, by: 4).map { (i: Int) -> SIMD4<Double> in
        let v = SIMD4<Double>(Double(row[i]), Double(row[i + 1]), Double(row[i + 2]), Double(row[i + 3]))
        return v / 255
      }
    }
  }

  /// The definition evaluated directly: out(x, y) = Σ k·k·in′ / Σ k·k in linear premultiplied light,
  /// for the clockwise rotation by `degrees` onto its bounding box. Returns straight encoded RGBA.
  func referenceRotation(
    of pixels: [[SIMD4<Double>]], degrees: Double, kernel: ResampleKernel, background: Color
  ) -> [[SIMD4<Double>]] {
    let h = pixels.count, w = pixels[0].count
    let r = degrees * .pi / 180, cs = cos(r), sn = sin(r)
    let W = Int((Double(w) * abs(cs) + Double(h) * abs(sn) - 1e-6).rounded(.up))
    let H = Int((Double(w) * abs(sn) + Double(h) * abs(cs) - 1e-6).rounded(.up))
    // Forward q = R·p + t with the centres matched; inverse p = Rᵀ·(q − t).
    let tx = Double(W) / 2 - (cs * Double(w) / 2 - sn * Double(h) / 2)
    let ty = Double(H) / 2 - (sn * Double(w) / 2 + cs * Double(h) / 2)
    return referenceMap(
      of: pixels, matrix: (cs, -sn, sn, cs), translation: (tx, ty), width: W, height: H, kernel: kernel,
      background: background)
  }

  /// The definition evaluated directly for the forward map q = M·p + t, M = (a, b, c, d), onto a
  /// `width` × `height` output: each output centre mapped back through M⁻¹, the kernel stretched by
  /// max(1, ‖row of M⁻¹‖) per axis. Returns straight encoded RGBA.
  func referenceMap(
    of pixels: [[SIMD4<Double>]], matrix m: (Double, Double, Double, Double), translation t: (Double, Double),
    width W: Int, height H: Int, kernel: ResampleKernel, background: Color
  ) -> [[SIMD4<Double>]] {
    let h = pixels.count, w = pixels[0].count
    func linearPremultiplied(_ p: SIMD4<Double>) -> SIMD4<Double> {
      let d = SIMD4(Double(SRGBCurve.decode(Float(p.x))), Double(SRGBCurve.decode(Float(p.y))), Double(SRGBCurve.decode(Float(p.z))), 1)
      return SIMD4(d.x * p.w, d.y * p.w, d.z * p.w, p.w)
    }
    let bg = linearPremultiplied(SIMD4(Double(background.red), Double(background.green), Double(background.blue), Double(background.alpha)))
    let det = m.0 * m.3 - m.1 * m.2
    let inv = (m.3 / det, -m.1 / det, -m.2 / det, m.0 / det)
    let sx = max(1, (inv.0 * inv.0 + inv.1 * inv.1).squareRoot()), sy = max(1, (inv.2 * inv.2 + inv.3 * inv.3).squareRoot())
    let rx = kernel.support * sx, ry = kernel.support * sy
    return (0..<H).map { y in
      (0..<W).map { x in
        let qx = Double(x) + 0.5 - t.0, qy = Double(y) + 0.5 - t.1
        let u = inv.0 * qx + inv.1 * qy - 0.5, v = inv.2 * qx + inv.3 * qy - 0.5
        var acc = SIMD4<Double>.zero, sum = 0.0
        for j in Int((v - ry).rounded(.up))...Int((v + ry).rounded(.down)) {
          for i in Int((u - rx).rounded(.up))...Int((u + rx).rounded(.down)) {
            let wgt = kernel.weight(at: (Double(i) - u) / sx) * kernel.weight(at: (Double(j) - v) / sy)
            let value = (0..<w).contains(i) && (0..<h).contains(j) ? linearPremultiplied(pixels[j][i]) : bg
            acc += value * wgt
            sum += wgt
          }
        }
        var p = acc / sum
        p.w = min(max(p.w, 0), 1)
        if p.w <= 0 { return .zero }
        func enc(_ c: Double) -> Double { Double(SRGBCurve.encode(Float(min(max(c / p.w, 0), 1)))) }
        return SIMD4(enc(p.x), enc(p.y), enc(p.z), p.w)
      }
    }
  }

  /// The largest difference between a float render and a reference (straight encoded RGBA): colour
  /// only where the reference has some opacity to carry it, alpha everywhere.
  func worstDifference(_ image: Image, _ expected: [[SIMD4<Double>]]) throws -> Double {
    func clip(_ v: Float) -> Double { Double(min(max(v, 0), 1)) }
    XCTAssertEqual(image.size, Size(width: expected[0].count, height: expected.count))
    let got = try T.floats(image, renderer: T.fine)
    var worst = 0.0
    for y in 0..<expected.count {
      for x in 0..<expected[0].count {
        // The store clips colours; the float render does not, so clip here as the reference does.
        let f = got[y][x]
        let diff = SIMD4<Double>(clip(f.x), clip(f.y), clip(f.z), Double(f.w)) - expected[y][x]
        let colour = max(abs(diff.x), abs(diff.y), abs(diff.z))
        worst = max(worst, expected[y][x].w > 0.02 ? max(colour, abs(diff.w)) : abs(diff.w))
      }
    }
    return worst
  }

  func testRotationMatchesTheDefinition() throws {
    let image = T.randomImage(width: 23, height: 14, alpha: true, seed: 5)
    let pixels = try straight(image)
    for (degrees, kernel, background) in [
      (30.0, ResampleKernel.linear, Color.clear), (-71.5, .cubic, Color(hex: "#20408080")!), (200, .lanczos3, .white),
    ] {
      let rotated = image.rotated(byDegrees: degrees, kernel: kernel, background: background)
      let expected = referenceRotation(of: pixels, degrees: degrees, kernel: kernel, background: background)
      XCTAssertLessThan(try worstDifference(rotated, expected), 4e-3, "\(degrees)° \(kernel)")
    }
  }

  func testInteriorAndEdgeEvaluationsMatchTheDefinition() throws {
    // Large enough that most pixels take the fixed-window path and a border takes the per-tap
    // path: rotations (bilinear is a closed form), stretched kernels (shrinking along an axis) and
    // enlargements, every kernel that has a window. Float renders against the Double reference:
    // what remains is float arithmetic and the kernel table's interpolation (< 10⁻⁶), amplified where
    // colour is divided by a small alpha (5·10⁻⁵ at most here).
    let image = T.randomImage(width: 57, height: 43, alpha: true, seed: 11)
    let pixels = try straight(image)
    let background = Color(hex: "#20408080")!
    var cases: [(AffineMatrix, ResampleKernel)] = [
      (AffineMatrix(a: 0.9, b: 0.2, c: -0.1, d: 1.1), .linear), (AffineMatrix(a: 0.9, b: 0.2, c: -0.1, d: 1.1), .cubic),
      (AffineMatrix(a: 0.5, b: 0.1, c: -0.2, d: 0.6), .mitchell), (AffineMatrix(a: 1.7, b: 0.2, c: 0, d: 1.3), .lanczos3),
      (AffineMatrix(a: 0.45, b: 0, c: 0, d: 1), .lanczos2),
    ]
    cases += [ResampleKernel.linear, .cubic, .lanczos3].map { (AffineMatrix(rotationByDegrees: 12.5), $0) }
    for (m, kernel) in cases {
      // The whole mapped image and a 3-pixel margin of background.
      let w = Double(pixels[0].count), h = Double(pixels.count)
      let xs = [0, m.a * w, m.b * h, m.a * w + m.b * h], ys = [0, m.c * w, m.d * h, m.c * w + m.d * h]
      let t = (3 - xs.min()!, 3 - ys.min()!)
      let size = Size(width: Int((xs.max()! - xs.min()!).rounded(.up)) + 6, height: Int((ys.max()! - ys.min()!).rounded(.up)) + 6)
      let mapped = try image.transformed(
        by: AffineMatrix(a: m.a, b: m.b, c: m.c, d: m.d, tx: t.0, ty: t.1), size: size, kernel: kernel, background: background)
      let expected = referenceMap(
        of: pixels, matrix: (m.a, m.b, m.c, m.d), translation: t, width: size.width, height: size.height,
        kernel: kernel, background: background)
      XCTAssertLessThan(try worstDifference(mapped, expected), 2e-4, "\(m) \(kernel)")
    }
  }

  func testMultiplesOf90AreTheExactRotation() throws {
    let image = T.randomImage(width: 31, height: 17, alpha: true, seed: 2)
    XCTAssertTrue(image.rotated(byDegrees: 360).node === image.node)
    XCTAssertTrue(image.rotated(byDegrees: -720).node === image.node)
    XCTAssertTrue(image.rotated(byDegrees: 90.0, kernel: .lanczos3, background: .white).node.operation is OrientOperation)
    try G.assertSamePixels(image.rotated(byDegrees: 450.0), image.oriented(.right))
    try G.assertSamePixels(image.rotated(byDegrees: -90.0), image.oriented(.left))
    try G.assertSamePixels(image.rotated(byDegrees: 180.0), image.oriented(.down))
  }

  func testRecipeWholeTurnIsTheIdentityAndQuarterTurnIsRotate90() throws {
    let image = T.randomImage(width: 31, height: 17, alpha: true, seed: 2)
    XCTAssertTrue(try G.compile("rotate angle=360", input: image).node === image.node)
    try G.assertSamePixels(try G.compile("rotate angle=90 kernel=lanczos3", input: image), image.oriented(.right))
    try G.assertSamePixels(try G.compile("rotate angle=90", input: image), try G.compile("rotate 90", input: image))
    // Through the resampling path (sin 2π ≈ −2.4·10⁻¹⁶, so the map is not exactly the identity):
    // every pixel comes back to the byte, inside and at the border.
    for kernel in [ResampleKernel.linear, .cubic, .lanczos2, .lanczos3] {
      let turned = try image.transformed(by: AffineMatrix(rotationByDegrees: 360), centred: true, kernel: kernel)
      XCTAssertTrue(turned.node.operation is AffineOperation)
      try G.assertSamePixels(turned, image, renderer: T.fine)
    }
  }

  func testResampledQuarterTurnEqualsTheExactRotation() throws {
    // Through the resampling path itself: at integer sample positions interpolating kernels give
    // back the input pixel (k(0) = 1, k(n) = 0), in linear light and back, to the byte.
    let image = T.randomImage(width: 29, height: 18, alpha: true, seed: 9)
    for kernel in [ResampleKernel.nearest, .linear, .cubic, .lanczos3] {
      let quarter = try image.transformed(by: AffineMatrix(a: 0, b: -1, c: 1, d: 0), kernel: kernel)
      XCTAssertTrue(quarter.node.operation is AffineOperation)
      try G.assertSamePixels(quarter, image.rotated(byDegrees: 90), renderer: T.fine)
      let half = try image.transformed(by: AffineMatrix(a: -1, b: 0, c: 0, d: -1), kernel: kernel)
      try G.assertSamePixels(half, image.rotated(byDegrees: 180), renderer: T.fine)
    }
  }

  func testRotatingThereAndBackKeepsTheMiddle() throws {
    // A smooth image rotated by 33° and back is the input inside (within interpolation error).
    let smooth = T.image(width: 60, height: 40) { x, y in [UInt8(x * 4), UInt8(y * 6), UInt8((x + y) * 2)] }
    let back = smooth.rotated(byDegrees: 33).rotated(byDegrees: -33)
    let w = back.size.width, h = back.size.height
    let middle = back.cropped(to: Rect(x: (w - 60) / 2, y: (h - 40) / 2, width: 60, height: 40))
    let a = try T.bytes(middle, format: .rgba8), b = try T.bytes(smooth, format: .rgba8)
    for y in 10..<30 {
      for x in 10..<50 {
        for c in 0..<3 { XCTAssertLessThanOrEqual(abs(Int(a[y][4 * x + c]) - Int(b[y][4 * x + c])), 3, "(\(x), \(y))") }
      }
    }
  }

  func testBackgroundAndLayout() throws {
    let opaque = T.randomImage(width: 40, height: 20, seed: 4)
    XCTAssertEqual(opaque.rotated(byDegrees: 45).info.layout, .rgba)
    let onWhite = opaque.rotated(byDegrees: 45, background: .white)
    XCTAssertEqual(onWhite.info.layout, .rgb)
    XCTAssertEqual(onWhite.size, Size(width: 43, height: 43))  // ⌈60/√2⌉
    let px = try T.bytes(onWhite, format: .rgb8)
    XCTAssertEqual(Array(px[0][0..<3]), [255, 255, 255])
    let clear = try T.bytes(opaque.rotated(byDegrees: 45), format: .rgba8)
    XCTAssertEqual(clear[0][3], 0)
    XCTAssertEqual(clear[21][4 * 21 + 3], 255)
  }

  func testTiledRenderEqualsOneTileRender() throws {
    let image = T.randomImage(width: 150, height: 97, alpha: true, seed: 21)
    try G.assertTilingInvariant(image.rotated(byDegrees: 37.25, kernel: .lanczos3, background: Color(hex: "#10203040")!))
    try G.assertTilingInvariant(try image.transformed(by: AffineMatrix(a: 0.4, b: 0.3, c: -0.2, d: 0.6), kernel: .cubic))
    try G.assertTilingInvariant(try image.transformed(by: AffineMatrix(a: 1.7, b: 0.2, c: 0, d: 1.3, tx: -20, ty: 5), size: Size(width: 120, height: 90)))
  }

  func testTilesAskOnlyForWhatTheyRead() throws {
    let info = ImageInfo(size: Size(width: 2000, height: 2000), layout: .rgb, component: .uint8, colorSpace: .sRGB)
    let rotated = Image(color: .white, size: info.size).rotated(byDegrees: 45)
    XCTAssertEqual(rotated.size, Size(width: 2829, height: 2829))
    let op = try XCTUnwrap(rotated.node.operation as? AffineOperation)
    let region = op.inputRegion(for: Rect(x: 1400, y: 1400, width: 64, height: 64), input: 0, inputs: [info])
    // The tile's 64×64 footprint turned 45° spans 64·√2 ≈ 91 pixels, plus the kernel's reach.
    XCTAssertLessThanOrEqual(region.width, 100)
    XCTAssertLessThanOrEqual(region.height, 100)
    // A tile in an uncovered corner asks for the single input pixel nearest to where it maps, so
    // that bands read the input top to bottom: the bottom-left corner maps below the input.
    XCTAssertEqual(op.inputRegion(for: Rect(x: 0, y: 0, width: 64, height: 64), input: 0, inputs: [info]).size, Size(width: 1, height: 1))
    let corner = op.inputRegion(for: Rect(x: 0, y: 2829 - 64, width: 64, height: 64), input: 0, inputs: [info])
    XCTAssertEqual(corner.size, Size(width: 1, height: 1))
    XCTAssertEqual(corner.y, 1999)
  }

  func testCanvasFollowsTheInputItIsGiven() throws {
    // As after a trim: the node was built on 40×20, the renderer hands it 30×10.
    let op = try XCTUnwrap(T.randomImage(width: 40, height: 20).rotated(byDegrees: 30).node.operation as? AffineOperation)
    let info = ImageInfo(size: Size(width: 30, height: 10), layout: .rgb, component: .uint8, colorSpace: .sRGB)
    let c = cos(Double.pi / 6), s = sin(Double.pi / 6)
    XCTAssertEqual(
      op.outputInfo(inputs: [info]).size,
      Size(width: Int((30 * c + 10 * s).rounded(.up)), height: Int((30 * s + 10 * c).rounded(.up))))
    // The centre still maps to the centre.
    let (map, size) = op.placement(for: info.size)
    let centre = map.apply(15, 5)
    XCTAssertEqual(centre.x, Double(size.width) / 2, accuracy: 1e-9)
    XCTAssertEqual(centre.y, Double(size.height) / 2, accuracy: 1e-9)
  }

  func testShrinkingAffineAverages() throws {
    // A 1-pixel checkerboard halved on both axes averages to flat gray, not to one of its colours.
    let checker = T.image(width: 40, height: 40) { x, y in (x + y) % 2 == 0 ? [255, 255, 255] : [0, 0, 0] }
    let half = try checker.transformed(by: AffineMatrix(a: 0.5, b: 0, c: 0, d: 0.5), kernel: .linear)
    XCTAssertEqual(half.size, Size(width: 20, height: 20))
    let px = try T.bytes(half, format: .rgba8)
    // Half the light: sRGB code 188 (linear-light average of black and white).
    XCTAssertEqual(Double(px[10][40]), 188, accuracy: 3)
  }

  func testSingularMatrixIsAnError() {
    let image = T.randomImage(width: 10, height: 10)
    XCTAssertThrowsError(try image.transformed(by: AffineMatrix(a: 1, b: 2, c: 2, d: 4)))
    XCTAssertThrowsError(try G.compile("affine matrix=0,0,0,0", input: image))
  }

  func testVerbsBuildTheSwiftGraph() throws {
    let image = T.randomImage(width: 30, height: 20)
    XCTAssertEqual(
      G.signature(try G.compile("rotate angle=12.5 kernel=lanczos3 background=white", input: image).node),
      G.signature(image.rotated(byDegrees: 12.5, kernel: .lanczos3, background: .white).node))
    XCTAssertEqual(G.signature(try G.compile("rotate 270", input: image).node), G.signature(image.rotated(byDegrees: 270).node))
    XCTAssertEqual(
      G.signature(try G.compile("affine matrix=1,0.3,0,1 translate=2,3 size=50x40 background=#FF0000", input: image).node),
      G.signature(try image.transformed(by: AffineMatrix(a: 1, b: 0.3, c: 0, d: 1, tx: 2, ty: 3), size: Size(width: 50, height: 40), background: Color(hex: "#FF0000")!).node))
    XCTAssertEqual(
      G.signature(try G.compile("affine matrix=0.5,0.1,-0.2,0.8 centre=true kernel=linear", input: image).node),
      G.signature(try image.transformed(by: AffineMatrix(a: 0.5, b: 0.1, c: -0.2, d: 0.8), centred: true, kernel: .linear).node))
  }
}
