// ConvolveTests.swift — convolve against its definition (Convolve.swift), summed directly in Double.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class ConvolveTests: XCTestCase {
  typealias H = ConvolutionTestHelpers
  typealias G = GeometryTestSupport

  /// Random premultiplied pixels, alpha 0.3…1.
  func randomPixels(width w: Int, height h: Int, seed: UInt64) -> [[SIMD4<Float>]] {
    var rng = SeededGenerator(seed: seed)
    return (0..<h).map { _ in
      (0..<w).map { _ in
        let a = Float.random(in: 0.3...1, using: &rng)
        return SIMD4(
          Float.random(in: 0...1, using: &rng) * a, Float.random(in: 0...1, using: &rng) * a,
          Float.random(in: 0...1, using: &rng) * a, a)
      }
    }
  }

  func image(_ pixels: [[SIMD4<Float>]]) -> Image {
    H.floatImage(width: pixels[0].count, height: pixels.count) { x, y in pixels[y][x] }
  }

  /// The definition in Double: Σ K[j][i]·in(x+i−cx, y+j−cy) / s + o·α, coordinates clamped.
  func bruteForce(_ pixels: [[SIMD4<Float>]], _ k: ConvolutionKernel) -> [[SIMD4<Double>]] {
    let h = pixels.count, w = pixels[0].count
    let m = k.size.width, n = k.size.height
    return (0..<h).map { y in
      (0..<w).map { x in
        var sum = SIMD4<Double>()
        for j in 0..<n {
          for i in 0..<m {
            let p = pixels[min(max(y + j - n / 2, 0), h - 1)][min(max(x + i - m / 2, 0), w - 1)]
            sum += k.values[j * m + i] * SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w))
          }
        }
        let a = Double(pixels[y][x].w)
        var out = sum / k.scale + k.offset * a
        out.w = a
        return out
      }
    }
  }

  func assertClose(
    _ a: [[SIMD4<Float>]], _ b: [[SIMD4<Double>]], tolerance: Double, _ message: String, line: UInt = #line
  ) {
    var worst = 0.0
    for y in 0..<a.count {
      for x in 0..<a[0].count {
        for c in 0..<4 { worst = max(worst, abs(Double(a[y][x][c]) - b[y][x][c])) }
      }
    }
    XCTAssertLessThanOrEqual(worst, tolerance, message, line: line)
  }

  func randomKernel(width m: Int, height n: Int, seed: UInt64, scale: Double? = nil, offset: Double = 0) throws -> ConvolutionKernel {
    var rng = SeededGenerator(seed: seed)
    let values = (0..<(m * n)).map { _ in Double.random(in: -1...1, using: &rng) }
    return try ConvolutionKernel(size: Size(width: m, height: n), values: values, scale: scale, offset: offset)
  }

  /// A Gaussian outer product: separable, rank 1.
  func gaussian(side: Int) throws -> ConvolutionKernel {
    let g = (0..<side).map { exp(-pow(Double($0 - side / 2), 2) / 8) }
    return try ConvolutionKernel(size: Size(width: side, height: side), values: g.flatMap { a in g.map { a * $0 } })
  }

  let methods: [ConvolutionMethod] = [.direct, .separable, .automatic]

  func testCentredOneIsTheIdentity() throws {
    let pixels = randomPixels(width: 37, height: 29, seed: 3)
    for (m, n) in [(1, 1), (3, 3), (7, 5), (15, 15)] {
      var values = [Double](repeating: 0, count: m * n)
      values[(n / 2) * m + m / 2] = 1
      let kernel = try ConvolutionKernel(size: Size(width: m, height: n), values: values)
      for method in methods {
        XCTAssertEqual(try H.renderFloat(image(pixels).convolved(with: kernel, method: method)), pixels, "\(m)x\(n) \(method)")
      }
    }
  }

  /// Random kernels (full rank, non-square, scaled, offset) and a separable one, every method,
  /// against the Double sum: within 10⁻⁵ · Σ|K/s| (Float rounding of up to 225 products).
  func testEqualsTheDefinitionForEveryMethod() throws {
    let pixels = randomPixels(width: 41, height: 33, seed: 11)
    let kernels = [
      try randomKernel(width: 3, height: 3, seed: 1),
      try randomKernel(width: 5, height: 3, seed: 2, scale: 2.5, offset: 0.25),
      try randomKernel(width: 7, height: 7, seed: 3, scale: 4),
      try randomKernel(width: 15, height: 9, seed: 4, scale: 10, offset: -0.1),
      try gaussian(side: 15),
      try ConvolutionKernel(size: Size(width: 3, height: 3), values: [0, -1, 0, -1, 5, -1, 0, -1, 0]),
    ]
    for kernel in kernels {
      let expected = bruteForce(pixels, kernel)
      let tolerance = 1e-5 * kernel.values.reduce(0) { $0 + abs($1 / kernel.scale) }
      for method in methods {
        assertClose(
          try H.renderFloat(image(pixels).convolved(with: kernel, method: method)), expected, tolerance: tolerance,
          "\(kernel.size) \(method)")
      }
    }
  }

  /// Direct and separable give the same pixels within the stated tolerance, in 8-bit output exactly
  /// or within one code (a value may round either side of a half).
  func testEvaluationPathsAgree() throws {
    let photo = H.randomImage(width: 90, height: 60, seed: 5)
    for kernel in [try randomKernel(width: 7, height: 7, seed: 9, scale: 3), try gaussian(side: 15)] {
      let direct = try H.tiled().render(photo.convolved(with: kernel, method: .direct), format: .rgba8)
      let separable = try H.tiled().render(photo.convolved(with: kernel, method: .separable), format: .rgba8)
      var worst = 0
      direct.withUnsafePixels(as: UInt8.self) { a in
        separable.withUnsafePixels(as: UInt8.self) { b in
          for y in 0..<a.height {
            for x in 0..<(4 * a.width) { worst = max(worst, abs(Int(a[row: y][x]) - Int(b[row: y][x]))) }
          }
        }
      }
      XCTAssertLessThanOrEqual(worst, 1, "\(kernel.size)")
    }
  }

  /// libvips's `conv` (an independent reference) on an 8-bit photo, edges included: the same bytes
  /// for the sharpening kernel (integer sums), within one code for a scaled, offset 5×3 kernel
  /// (libvips truncates the sum towards zero, fgrun rounds it to the nearest code).
  func testMatchesLibvipsConv() throws {
    let image = H.randomImage(width: 61, height: 47, seed: 14)
    let folder = FileManager.default.temporaryDirectory
    for (kernel, mask, tolerance) in [
      (try ConvolutionKernel(size: Size(width: 3, height: 3), values: [0, -1, 0, -1, 5, -1, 0, -1, 0]), "3 3 1 0\n0 -1 0\n-1 5 -1\n0 -1 0\n", 0),
      (try ConvolutionKernel(size: Size(width: 5, height: 3), values: [1, 2, 3, 2, 1, 0, 1, 4, 1, 0, 1, 2, 3, 2, 1], scale: 30, offset: 16.0 / 255),
       "5 3 30 16\n1 2 3 2 1\n0 1 4 1 0\n1 2 3 2 1\n", 1),
    ] {
      let file = folder.appendingPathComponent("mask-\(UUID().uuidString).mat")
      try mask.write(to: file, atomically: true, encoding: .utf8)
      defer { try? FileManager.default.removeItem(at: file) }
      let reference = try H.vips("conv", image, [file.path])
      for method in methods {
        let ours = try H.oneTile().render(image.convolved(with: kernel, method: method), format: .rgb8)
        var worst = 0
        ours.withUnsafePixels(as: UInt8.self) { a in
          reference.withUnsafePixels(as: UInt8.self) { b in
            for y in 0..<a.height {
              for x in 0..<(3 * a.width) { worst = max(worst, abs(Int(a[row: y][x]) - Int(b[row: y][x]))) }
            }
          }
        }
        XCTAssertLessThanOrEqual(worst, tolerance, "\(kernel.size) \(method)")
      }
    }
  }

  func testAutomaticMethodFollowsTheRank() throws {
    XCTAssertTrue(ConvolutionPlan(try gaussian(side: 15), method: .automatic).separable)
    XCTAssertTrue(ConvolutionPlan(try gaussian(side: 7), method: .automatic).separable)
    XCTAssertFalse(ConvolutionPlan(try randomKernel(width: 7, height: 7, seed: 1), method: .automatic).separable)
    XCTAssertFalse(ConvolutionPlan(.laplacian(), method: .automatic).separable)
  }

  /// K = Σ σ u vᵀ to 10⁻¹² with orthonormal u and v; an outer product has rank 1.
  func testSingularValueDecompositionReconstructsTheKernel() throws {
    let k = try randomKernel(width: 5, height: 7, seed: 12)
    let svd = KernelSVD(rows: 7, columns: 5, values: k.values)
    XCTAssertEqual(svd.rank, 5)
    for j in 0..<7 {
      for i in 0..<5 {
        let sum = svd.terms.reduce(0.0) { $0 + $1.sigma * $1.column[j] * $1.row[i] }
        XCTAssertEqual(sum, k.values[j * 5 + i], accuracy: 1e-12)
      }
    }
    for a in svd.terms {
      for b in svd.terms {
        let same = a.sigma == b.sigma
        XCTAssertEqual(zip(a.row, b.row).reduce(0.0) { $0 + $1.0 * $1.1 }, same ? 1 : 0, accuracy: 1e-12)
        XCTAssertEqual(zip(a.column, b.column).reduce(0.0) { $0 + $1.0 * $1.1 }, same ? 1 : 0, accuracy: 1e-12)
      }
    }
    XCTAssertEqual(KernelSVD(rows: 15, columns: 15, values: try gaussian(side: 15).values).rank, 1)
    XCTAssertEqual(KernelSVD(rows: 3, columns: 3, values: ConvolutionKernel.sobelX().values).rank, 1)
  }

  func testSobelMagnitude() throws {
    let flat = Image(color: Color(red: 0.3, green: 0.6, blue: 0.9), size: Size(width: 30, height: 20))
    for method in methods {
      let edges = flat.convolved(preset: .edges, method: method)
      for row in try H.renderFloat(edges) {
        for p in row {
          XCTAssertEqual(p.w, 1)
          XCTAssertLessThanOrEqual(max(p.x, p.y, p.z), 1e-6, "\(method)")
        }
      }
      let codes = try H.tiled().render(edges, format: .rgb16)
      codes.withUnsafePixels(as: UInt16.self) { px in
        for y in 0..<px.height { XCTAssertTrue((0..<(3 * px.width)).allSatisfy { px[row: y][$0] == 0 }, "\(method)") }
      }
    }
    // Against the definition: √(Gx² + Gy²) of the Double sums.
    let pixels = randomPixels(width: 23, height: 19, seed: 2)
    let gx = bruteForce(pixels, .sobelX()), gy = bruteForce(pixels, ConvolutionKernel.sobelX().transposed)
    let expected = (0..<19).map { y in
      (0..<23).map { x in
        var v = (gx[y][x] * gx[y][x] + gy[y][x] * gy[y][x]).squareRoot()
        v.w = Double(pixels[y][x].w)
        return v
      }
    }
    for method in methods {
      assertClose(try H.renderFloat(image(pixels).convolved(preset: .edges, method: method)), expected, tolerance: 1e-5, "\(method)")
    }
    XCTAssertEqual(ConvolutionKernel.sobelX().transposed.values, [-1, -2, -1, 0, 0, 0, 1, 2, 1])
  }

  func testTiledRenderEqualsOneTileRenderBitForBit() throws {
    let photo = H.randomImage(width: 100, height: 70, seed: 4)
    try H.assertTilingInvariant(photo.convolved(with: try randomKernel(width: 3, height: 3, seed: 1, offset: 0.2)))
    try H.assertTilingInvariant(photo.convolved(with: try randomKernel(width: 7, height: 5, seed: 2), method: .separable))
    try H.assertTilingInvariant(photo.convolved(with: try gaussian(side: 15)))
    try H.assertTilingInvariant(photo.convolved(preset: .edges))
  }

  func testRecipeBuildsTheSwiftGraph() throws {
    let photo = H.randomImage(width: 8, height: 8, seed: 1)
    func same(_ recipe: String, _ swift: Image, line: UInt = #line) throws {
      XCTAssertEqual(G.signature(try G.compile(recipe, input: photo).node), G.signature(swift.node), line: line)
    }
    let sharpen = try ConvolutionKernel(size: Size(width: 3, height: 3), values: [0, -1, 0, -1, 5, -1, 0, -1, 0])
    try same("convolve size=3x3 values=0,-1,0,-1,5,-1,0,-1,0", photo.convolved(with: sharpen))
    XCTAssertEqual(
      photo.convolved(with: sharpen).node.label, "convolve size=3x3 values=0,-1,0,-1,5,-1,0,-1,0 scale=1 offset=0 method=auto")
    let k = try ConvolutionKernel(size: Size(width: 1, height: 3), values: [1, 2, 1], scale: 2, offset: 0.5)
    try same("convolve size=1x3 values=1,2,1 scale=2 offset=0.5 method=separable", photo.convolved(with: k, method: .separable))
    try same("convolve preset=edges", photo.convolved(preset: .edges))
    try same("convolve preset=emboss offset=0.5", photo.convolved(preset: .emboss, offset: 0.5))
    try same("convolve preset=laplacian method=direct", photo.convolved(preset: .laplacian, method: .direct))
    XCTAssertEqual(ConvolutionKernel.laplacian().scale, 1)
    XCTAssertEqual(try ConvolutionKernel(size: Size(width: 3, height: 1), values: [1, 2, 1]).scale, 4)
  }

  func testBadKernelsAreClearErrors() throws {
    let photo = H.randomImage(width: 8, height: 8, seed: 1)
    for recipe in [
      "convolve", "convolve size=4x3 values=1,1,1,1,1,1,1,1,1,1,1,1", "convolve size=3x3 values=1,2,3",
      "convolve size=3x3 values=1,1,1,1,1,1,1,1,1 scale=0", "convolve preset=edges size=3x3 values=1,1,1,1,1,1,1,1,1",
      "convolve size=17x1 values=1", "convolve values=1", "convolve preset=blur",
    ] {
      XCTAssertThrowsError(try G.compile(recipe, input: photo), recipe)
    }
    XCTAssertThrowsError(try ConvolutionKernel(size: Size(width: 3, height: 3), values: [1, 2, 3, 4, .nan, 6, 7, 8, 9]))
    XCTAssertEqual(ParameterKind.numberList(counts: 1...225).typeName, "1…225 numbers N,N,…")
  }
}
