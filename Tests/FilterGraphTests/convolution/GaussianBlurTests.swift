// GaussianBlurTests.swift — blur against the sampled Gaussian, its edges, its mean, its tiling.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class GaussianBlurTests: XCTestCase {
  typealias H = ConvolutionTestHelpers

  /// The sampled Gaussian of radius ⌈3σ⌉, normalised, computed here independently.
  func sampledGaussian(_ sigma: Double) -> (radius: Int, weights: [Double]) {
    let r = Int((3 * sigma).rounded(.up))
    let raw = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
    let total = raw.reduce(0, +)
    return (r, raw.map { $0 / total })
  }

  /// A black opaque square with one white pixel at its centre.
  func impulse(size: Int) -> Image {
    H.floatImage(width: size, height: size) { x, y in
      x == size / 2 && y == size / 2 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1)
    }
  }

  func testKernelIsTheNormalisedSampledGaussian() {
    for sigma in [0.5, 1, 2.5, 7] {
      let k = GaussianKernel(sigma: sigma)
      let (r, w) = sampledGaussian(sigma)
      XCTAssertEqual(k.radius, r)
      for i in -r...r { XCTAssertEqual(k.weight(at: i), w[i + r], accuracy: 1e-15) }
      XCTAssertEqual(k.floatWeights[0] + 2 * k.floatWeights.dropFirst().reduce(0, +), 1, accuracy: 2e-7)
    }
    XCTAssertEqual(GaussianKernel(sigma: 0).weights, [1])
  }

  /// The blurred impulse (encoded space, exact method) is w(x)·w(y) for the sampled Gaussian w.
  func testImpulseResponseIsTheSampledGaussian() throws {
    for sigma in [0.8, 2.0, 4.5] {
      let (r, w) = sampledGaussian(sigma)
      let n = 2 * r + 9, c = n / 2
      let out = try H.renderFloat(impulse(size: n).blurred(sigma: sigma, linearLight: false))
      var maxError: Double = 0
      for y in 0..<n {
        for x in 0..<n {
          let dx = x - c, dy = y - c
          let expected = abs(dx) <= r && abs(dy) <= r ? w[dx + r] * w[dy + r] : 0
          for ch in 0..<3 { maxError = max(maxError, abs(Double(out[y][x][ch]) - expected)) }
          XCTAssertEqual(out[y][x].w, 1, accuracy: 1e-6)
        }
      }
      XCTAssertLessThan(maxError, 1e-5, "sigma \(sigma)")
      XCTAssertGreaterThan(Double(out[c][c].x), w[r] * w[r] * 0.999)
    }
  }

  /// In linear light the impulse spreads linear values: decoding the encoded output gives the kernel.
  func testImpulseResponseInLinearLight() throws {
    let sigma = 1.5
    let (r, w) = sampledGaussian(sigma)
    let n = 2 * r + 5, c = n / 2
    let out = try H.renderFloat(impulse(size: n).blurred(sigma: sigma))
    for y in 0..<n {
      for x in 0..<n {
        let dx = x - c, dy = y - c
        let expected = abs(dx) <= r && abs(dy) <= r ? w[dx + r] * w[dy + r] : 0
        XCTAssertEqual(Double(SRGBTransfer.decode(out[y][x].y)), expected, accuracy: 1e-5)
      }
    }
    // Encoded blurring gives a visibly different (darker-spreading) result.
    let encoded = try H.renderFloat(impulse(size: n).blurred(sigma: sigma, linearLight: false))
    XCTAssertGreaterThan(abs(encoded[c][c + 2].y - out[c][c + 2].y), 0.01)
  }

  /// Edges are extended, so a flat image stays exactly flat, borders included.
  func testFlatImageStaysFlatAtTheBorders() throws {
    var flat = PixelBuffer(width: 50, height: 37, format: .rgb8)
    flat.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<37 { for x in 0..<50 { (p[row: y][3 * x], p[row: y][3 * x + 1], p[row: y][3 * x + 2]) = (77, 150, 230) } }
    }
    let image = Image(buffer: flat)
    for (sigma, linear) in [(3.0, true), (3.0, false), (20.0, true), (60.0, false)] {
      let blurred = image.blurred(sigma: sigma, linearLight: linear)
      XCTAssertTrue(try H.tiled().render(blurred, format: .rgb8).hasSamePixels(as: flat), "sigma \(sigma)")
      let out = try H.renderFloat(blurred)
      // Single-pass blurs compute every pixel alike; σ 60 goes through a reduced copy, whose
      // resampling sums round differently in the last float bit.
      let tolerance: Float = sigma > GaussianBlurOperation.pyramidThreshold ? 1e-6 : 0
      for row in out {
        for px in row {
          let d = px - out[0][0]
          XCTAssertLessThanOrEqual(max(abs(d.x), abs(d.y), abs(d.z), abs(d.w)), tolerance, "every pixel computes the same value")
        }
      }
      XCTAssertEqual(out[0][0].x, 77 / 255, accuracy: 1e-5)
      XCTAssertEqual(out[0][0].z, 230 / 255, accuracy: 1e-5)
    }
  }

  /// Away from the edges blurring moves light around without creating or losing any.
  func testTotalIsPreserved() throws {
    var rng = SeededGenerator(seed: 7)
    var values: [SIMD4<Float>] = []
    for _ in 0..<400 { values.append(SIMD4(Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng), 1)) }
    let image = H.floatImage(width: 60, height: 60) { x, y in
      (20..<40).contains(x) && (20..<40).contains(y) ? values[(y - 20) * 20 + x - 20] : SIMD4(0, 0, 0, 1)
    }
    let inputTotal = values.reduce(SIMD4<Float>()) { $0 + $1 }
    let ops = [
      GaussianBlurOperation(.setting { ($0.sigma, $0.linear) = (2, false) }),
      GaussianBlurOperation(.setting { ($0.sigma, $0.linear, $0.method) = (4, false, .box) }),
    ]
    for op in ops {
      let out = try H.renderFloat(image.applying(op))
      var total = SIMD4<Double>()
      for row in out { for px in row { total += SIMD4(Double(px.x), Double(px.y), Double(px.z), 0) } }
      for ch in 0..<3 { XCTAssertEqual(total[ch], Double(inputTotal[ch]), accuracy: 1e-4 * Double(inputTotal[ch])) }
    }
  }

  /// The three extended boxes have exactly the Gaussian's variance and stay within their stated
  /// error of the exact sampled Gaussian (impulse: 12.5 % of the 2-D peak; step edge: 1.1 %).
  func testBoxCascadeMatchesTheGaussianWithinItsStatedError() throws {
    for sigma in [9.0, 30.0] {
      let boxes = GaussianKernel.boxCascade(sigma: sigma)
      XCTAssertEqual(boxes.count, 3)
      XCTAssertEqual(boxes.reduce(0) { $0 + $1.variance }, sigma * sigma, accuracy: 1e-9 * sigma * sigma)
      let (r, w) = sampledGaussian(sigma)
      let n = 2 * r + 3, c = n / 2
      func encodedBlur(_ method: GaussianBlurOperation.Method) -> GaussianBlurOperation {
        GaussianBlurOperation(.setting { ($0.sigma, $0.linear, $0.method) = (sigma, false, method) })
      }
      let out = try H.renderFloat(impulse(size: n).applying(encodedBlur(.box)))
      var maxError: Double = 0, variance: Double = 0, mass: Double = 0
      for y in 0..<n {
        for x in 0..<n {
          let dx = x - c, dy = y - c
          let expected = abs(dx) <= r && abs(dy) <= r ? w[dx + r] * w[dy + r] : 0
          let v = Double(out[y][x].x)
          maxError = max(maxError, abs(v - expected))
          variance += Double(dx * dx) * v
          mass += v
        }
      }
      let peak = w[r] * w[r]
      XCTAssertLessThan(maxError / peak, 0.125, "sigma \(sigma)")
      XCTAssertGreaterThan(maxError / peak, 0.05, "the approximation really is approximate (the test can fail)")
      XCTAssertEqual(mass, 1, accuracy: 1e-5)
      XCTAssertEqual(variance, sigma * sigma, accuracy: 1e-3 * sigma * sigma)

      // A black-to-white step edge: box and exact results differ by at most 1.1 % of the step.
      let step = H.floatImage(width: 8 * r, height: 4) { x, _ in x < 4 * r ? SIMD4(0, 0, 0, 1) : SIMD4(1, 1, 1, 1) }
      let exact = try H.renderFloat(step.applying(encodedBlur(.exact)))
      let approx = try H.renderFloat(step.applying(encodedBlur(.box)))
      var stepError: Float = 0
      for x in 0..<(8 * r) { stepError = max(stepError, abs(exact[1][x].x - approx[1][x].x)) }
      XCTAssertLessThan(stepError, 0.011, "sigma \(sigma)")
    }
  }

  func testTiledRenderEqualsOneTileRenderBitForBit() throws {
    let image = H.randomImage(width: 100, height: 70, seed: 3)
    try H.assertTilingInvariant(image.blurred(sigma: 2))
    try H.assertTilingInvariant(image.blurred(sigma: 30))
    try H.assertTilingInvariant(image.blurred(sigma: 5, linearLight: false))
    try H.assertTilingInvariant(image.applying(GaussianBlurOperation(.setting { ($0.sigma, $0.method) = (3, .box) })))
  }

  /// Tiles agree bit for bit on the running-sum path for inputs spanning 40 binades (running
  /// sums that depended on where a tile starts would show here).
  func testBoxCascadeTilesAgreeOnValuesOfMixedMagnitude() throws {
    var rng = SeededGenerator(seed: 11)
    var values: [SIMD4<Float>] = []
    for _ in 0..<(90 * 60) {
      let scale = Float(sign: .plus, exponent: -Int.random(in: 0...40, using: &rng), significand: 1)
      let v = Float.random(in: 0...1, using: &rng) * scale
      values.append(SIMD4(v, Float.random(in: 0...1, using: &rng), v * 0.5, 1))
    }
    let image = H.floatImage(width: 90, height: 60) { x, y in values[y * 90 + x] }
    try H.assertTilingInvariant(image.applying(GaussianBlurOperation(.setting { ($0.sigma, $0.linear) = (13, false) })))
    try H.assertTilingInvariant(image.boxBlurred(radius: 9, linearLight: false))
  }

  func testOutOfRangeValuesAreClampedAndZeroIsIdentity() {
    let image = H.randomImage(width: 8, height: 8, seed: 1)
    XCTAssertTrue(image.blurred(sigma: 0).node === image.node)
    XCTAssertTrue(image.blurred(sigma: -3).node === image.node)
    XCTAssertTrue(image.blurred(sigma: .nan).node === image.node)
    XCTAssertEqual(GaussianBlurOperation.Parameters.setting { $0.sigma = 1e9 }.sigma, 500)
    XCTAssertEqual((image.blurred(sigma: 2).node.operation as? GaussianBlurOperation)?.parameters.sigma, 2)
    XCTAssertFalse(GaussianBlurOperation(.setting { $0.sigma = 12 }).usesBoxes)
    XCTAssertTrue(GaussianBlurOperation(.setting { $0.sigma = 12.5 }).usesBoxes)
  }

  func testRecipeVerbsUseTheOperationTables() throws {
    let names = ConvolutionFilters.all.map(\.descriptor.name)
    XCTAssertEqual(names, ["blur", "boxblur", "sharpen", "median", "convolve"])
    // The table as documented in GaussianBlur.swift and docs/Filters.md, written out here.
    let rows = ConvolutionFilters.blur.descriptor.parameters.map { p in
      "\(p.name) \(p.kind.typeName) " + (p.defaultValue.map { "\($0)" } ?? (p.isRequired ? "required" : "optional"))
    }
    XCTAssertEqual(rows, ["sigma number 0…500 required", "linear true|false true", "method auto|exact|box auto"])
    let image = H.randomImage(width: 8, height: 8, seed: 1)
    let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/"))
    // A recipe line builds the very node the Swift method builds.
    for (line, swift) in [
      ("blur 2", image.blurred(sigma: 2)), ("blur sigma=3 linear=false", image.blurred(sigma: 3, linearLight: false)),
      ("boxblur 4", image.boxBlurred(radius: 4)), ("sharpen amount=2", image.sharpened(amount: 2)),
    ] {
      let compiled = try Recipe.parse(line, file: nil).compile(input: image, context: context)
      XCTAssertEqual(compiled.node.structuralKey, swift.node.structuralKey, line)
    }
    let args = Arguments([("sigma", .number(2)), ("linear", .boolean(false)), ("method", .choice("exact"))])
    let blurred = try ConvolutionFilters.blur.apply([image], args, context)
    XCTAssertEqual(blurred.node.label, "blur sigma=2 linear=false method=exact")
    let zero = try ConvolutionFilters.blur.apply([image], Arguments([("sigma", .number(0)), ("linear", .boolean(true)), ("method", .choice("auto"))]), context)
    XCTAssertTrue(zero.node === image.node)
  }
}
