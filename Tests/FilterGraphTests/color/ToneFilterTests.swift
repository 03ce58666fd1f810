// ToneFilterTests.swift — modulate, levels, curves and normalize against their definitions.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

/// sRGB decode/encode in Double (IEC 61966-2-1).
private func toLinear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
private func toEncoded(_ l: Double) -> Double { l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055 }

/// Modulate's definition computed independently in Double on straight encoded RGB.
private func modulateReference(_ c: SIMD4<Float>, brightness: Double, saturation: Double, hue: Double, lightness: Double) -> SIMD4<Float> {
  let r = toLinear(Double(c.x)), g = toLinear(Double(c.y)), b = toLinear(Double(c.z))
  let l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
  let m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
  let s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
  let L = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s
  let A = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s
  let B = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s
  // Through Oklch, as the definition reads: L' = βL + λ, C' = sC, h' = h + θ.
  let C = (A * A + B * B).squareRoot() * saturation, h = atan2(B, A) + hue * .pi / 180
  let L2 = L * brightness + lightness, A2 = C * cos(h), B2 = C * sin(h)
  let l2 = pow(L2 + 0.3963377774 * A2 + 0.2158037573 * B2, 3)
  let m2 = pow(L2 - 0.1055613458 * A2 - 0.0638541728 * B2, 3)
  let s2 = pow(L2 - 0.0894841775 * A2 - 1.2914855480 * B2, 3)
  let r2 = 4.0767416621 * l2 - 3.3077115913 * m2 + 0.2309699292 * s2
  let g2 = -1.2684380046 * l2 + 2.6097574011 * m2 - 0.3413193965 * s2
  let b2 = -0.0041960863 * l2 - 0.7034186147 * m2 + 1.7076147010 * s2
  func enc(_ v: Double) -> Float { Float(v < 0 ? -toEncoded(-v) : toEncoded(v)) }
  return SIMD4(enc(r2), enc(g2), enc(b2), c.w)
}

/// Renders straight float RGBA of a photo (8-bit source → float).
private func photoPixels(_ image: Image, renderer: Renderer = colorRenderer) throws -> [SIMD4<Float>] {
  try renderFloat(image, renderer: renderer)
}

/// A real photograph (IJG test image, 227×149; licence in Fixtures/jpeg).
let photoURL = Fixtures.url("jpeg/testorig.jpg")

/// The curve through `points` on every channel.
private func curvesOperation(_ points: [CurvePoint]) -> CurvesOperation {
  var parameters = CurvesOperation.Parameters()
  parameters.points = points
  return CurvesOperation(parameters)
}

/// `text` compiled as a recipe applied to `input`.
func compileRecipe(_ text: String, _ input: Image) throws -> Image {
  try Recipe.parse(text, file: nil).compile(input: input, context: FilterContext(baseDirectory: URL(fileURLWithPath: "/")))
}

final class ModulateTests: XCTestCase {
  let pixels = samplePixels(120)

  func testMatchesDefinition() throws {
    for (b, s, h, l) in [(1.0, 1.0, 0.0, 0.0), (1.2, 0.5, 40.0, 0.0), (0.8, 1.6, -150.0, 0.05), (1, 0, 0, -0.1)] {
      let got = try renderFloat(floatImage(pixels, width: 12).modulated(brightness: b, saturation: s, hue: h, lightness: l))
      let want = pixels.map { modulateReference($0, brightness: b, saturation: s, hue: h, lightness: l) }
      assertPixelsClose(got, want, tolerance: 2e-4, "b=\(b) s=\(s) h=\(h) l=\(l)")
    }
  }

  func testOnAPhotoMatchesDefinition() throws {
    let photo = try Image(contentsOf: photoURL)
    let source = try photoPixels(photo)
    let got = try photoPixels(photo.modulated(brightness: 1.1, saturation: 1.3, hue: 25, lightness: 0.02))
    let want = source.map { modulateReference($0, brightness: 1.1, saturation: 1.3, hue: 25, lightness: 0.02) }
    assertPixelsClose(got, want, tolerance: 2e-4)
  }

  /// Three rotations by 120° are the identity within rounding: merged by the optimizer, and as
  /// three separate renders through float buffers.
  func testHue120ThreeTimesIsIdentity() throws {
    let photo = try Image(contentsOf: photoURL)
    let source = try photoPixels(photo)
    let fused = photo.modulated(hue: 120).modulated(hue: 120).modulated(hue: 120)
    let merged = try XCTUnwrap(colorRenderer.optimized(fused).operation as? FusedPointOperation)
    XCTAssertEqual(merged.stages.count, 1)
    assertPixelsClose(try photoPixels(fused), source, tolerance: 2e-5)
    var image = photo
    for _ in 0..<3 {
      let buffer = try colorRenderer.render(image.modulated(hue: 120), format: PixelFormat(layout: .rgba, component: .float32))
      image = Image(buffer: buffer)
    }
    assertPixelsClose(try photoPixels(image), source, tolerance: 1e-4)
    // One rotation is far from the identity (the test can fail).
    let once = try photoPixels(photo.modulated(hue: 120))
    XCTAssertGreaterThan(zip(once, source).map { maxDifference($0, $1) }.max()!, 0.2)
  }

  /// Two merged operations apply (β₁β₂, s₁s₂, θ₁ + θ₂, λ₁β₂ + λ₂) unclamped and spell it so,
  /// even beyond the rows' ranges (saturation 0…10, hue ±360), as the two run one after the other.
  func testMergedValuesLeaveTheRanges() throws {
    let image = floatImage(pixels, width: 12)
    let twice = image.modulated(brightness: 1.5, saturation: 4, hue: 300, lightness: 0.1).modulated(brightness: 2, saturation: 4, hue: 300)
    let fused = try XCTUnwrap(colorRenderer.optimized(twice).operation as? FusedPointOperation)
    XCTAssertEqual(fused.stages.count, 1)
    XCTAssertEqual(fused.stages[0].arguments.description, "brightness=3 saturation=16 hue=600 lightness=0.2")
    let first = try colorRenderer.render(image.modulated(brightness: 1.5, saturation: 4, hue: 300, lightness: 0.1), format: PixelFormat(layout: .rgba, component: .float32))
    let oneAfterTheOther = try renderFloat(Image(buffer: first).modulated(brightness: 2, saturation: 4, hue: 300))
    // Relative: saturation 16 reaches values near 12, where Float rounding differs by ~2·10⁻³.
    for (got, want) in zip(try renderFloat(twice), oneAfterTheOther) {
      XCTAssertLessThanOrEqual(maxDifference(got, want), 5e-3 * max(1, abs(want.x), abs(want.y), abs(want.z)), "\(got) vs \(want)")
    }
  }

  func testSaturationZeroIsGrayInOklab() throws {
    let got = try renderFloat(floatImage(pixels, width: 12).modulated(saturation: 0))
    for p in got where p.w > 0 {
      // a = b = 0 in Oklab means l = m = s in LMS, which for linear sRGB means r = g = b.
      XCTAssertEqual(p.x, p.y, accuracy: 2e-4)
      XCTAssertEqual(p.y, p.z, accuracy: 2e-4)
    }
  }

  /// Eight pixels at a time, the rest padded: the same floats whatever the tile widths (rows
  /// whose length is no multiple of eight), and the same as the definition per pixel.
  func testSameResultWhateverTheTileWidths() throws {
    let photo = try Image(contentsOf: photoURL).modulated(brightness: 1.1, saturation: 1.3, hue: 25, lightness: 0.02)
    let wide = try renderFloat(photo, renderer: Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 512, height: 64))))
    for width in [37, 13, 8] {
      let narrow = try renderFloat(photo, renderer: Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: width, height: 16))))
      XCTAssertEqual(narrow, wide, "tiles \(width) wide")
    }
  }

  /// The AVX2 kernel (whole groups of eight) and the Swift loop (a row's last pixels) give the
  /// same floats: seven pixels alone take the Swift loop, the same seven and one more the kernel.
  func testKernelAndSwiftLoopGiveTheSameFloats() {
    var parameters = ModulateOperation.Parameters()
    (parameters.brightness, parameters.saturation, parameters.hue, parameters.lightness) = (1.1, 1.3, 25, 0.02)
    let operation = ModulateOperation(parameters)
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let pixels: [SIMD4<Float>] = (0..<8).map { _ in
        let a = [0, 0.25, 0.5, 1, 1, 1][Int.random(in: 0..<6, using: &generator)] as Float
        return SIMD4(Float.random(in: -0.1...1.2, using: &generator) * a, Float.random(in: 0...1, using: &generator) * a,
                     Float.random(in: 0...4, using: &generator) * a, a)
      }
      var swift = Array(pixels[0..<7]), kernel = pixels
      swift.withUnsafeMutableBufferPointer { operation.apply(to: $0.baseAddress!, count: 7) }
      kernel.withUnsafeMutableBufferPointer { operation.apply(to: $0.baseAddress!, count: 8) }
      for k in 0..<7 {
        XCTAssertEqual(swift[k].x.bitPattern, kernel[k].x.bitPattern, "\(pixels[k])")
        XCTAssertEqual(swift[k].y.bitPattern, kernel[k].y.bitPattern, "\(pixels[k])")
        XCTAssertEqual(swift[k].z.bitPattern, kernel[k].z.bitPattern, "\(pixels[k])")
        XCTAssertEqual(swift[k].w.bitPattern, kernel[k].w.bitPattern, "\(pixels[k])")
      }
    }
  }

  func testCubeRootAccuracy() {
    var worst: Float = 0
    var x: Float = 1e-6
    while x < 8 {
      let v = ModulateOperation.cubeRoot(SIMD8(x, -x, 0, x / 3, x, x, x, x))
      let want = Float(cbrt(Double(x)))
      worst = max(worst, abs(v[0] - want) / want, abs(v[1] + want) / want)
      XCTAssertEqual(v[2], 0)
      x *= 1.0071
    }
    XCTAssertLessThan(worst, 3e-7)
  }

  func testRecipeVerbBuildsTheSwiftGraph() throws {
    let photo = try Image(contentsOf: photoURL)
    let recipe = try compileRecipe("modulate brightness=1.1 saturation=0.9 hue=30 lightness=0.01", photo)
    XCTAssertEqual(recipe.node.structuralKey, photo.modulated(brightness: 1.1, saturation: 0.9, hue: 30, lightness: 0.01).node.structuralKey)
  }
}

final class LevelsTests: XCTestCase {
  let pixels = samplePixels(120)

  func testDefaultsAreTheIdentity() throws {
    let photo = try Image(contentsOf: photoURL)
    assertPixelsClose(try photoPixels(photo.leveled()), try photoPixels(photo), tolerance: 0)
    assertPixelsClose(try renderFloat(floatImage(pixels, width: 12).leveled()), pixels, tolerance: 1e-7)
  }

  func testMatchesDefinition() throws {
    for (b, w, g, ob, ow, ch) in [(0.1, 0.8, 1.0, 0.0, 1.0, ToneChannel.all), (0.05, 0.9, 1.8, 0.1, 0.95, .all), (0.2, 0.7, 0.6, 0, 1, .g)] {
      let got = try renderFloat(floatImage(pixels, width: 12).leveled(black: b, white: w, gamma: g, outputBlack: ob, outputWhite: ow, channel: ch))
      let want = pixels.map { c -> SIMD4<Float> in
        func f(_ v: Float) -> Float {
          let t = (Double(v) - b) / (w - b)
          let p = t < 0 ? -pow(-t, 1 / g) : pow(t, 1 / g)
          return Float(ob + p * (ow - ob))
        }
        switch ch {
        case .all: return SIMD4(f(c.x), f(c.y), f(c.z), c.w)
        case .g: return SIMD4(c.x, f(c.y), c.z, c.w)
        default: return c
        }
      }
      assertPixelsClose(got, want, tolerance: 1e-5, "\(b) \(w) \(g) \(ch)")
    }
  }

  func testRecipeRefusesWhiteBelowBlack() throws {
    let photo = try Image(contentsOf: photoURL)
    XCTAssertThrowsError(try compileRecipe("levels black=0.6 white=0.4", photo))
    let recipe = try compileRecipe("levels black=0.1 white=0.9 gamma=1.2 out-black=0.05 channel=b", photo)
    XCTAssertEqual(
      recipe.node.structuralKey,
      photo.leveled(black: 0.1, white: 0.9, gamma: 1.2, outputBlack: 0.05, channel: .b).node.structuralKey)
  }

  /// The Swift API raises a white point not above black to black + 1/65535, and spells it so,
  /// even where that leaves the row's range (black = 2).
  func testWhiteNotAboveBlackIsRaised() throws {
    for black in [0.5, 2] {
      let image = floatImage([SIMD4(0.5, 0.5, 0.5, 1)], width: 1).leveled(black: black, white: 0.25)
      let operation = try XCTUnwrap(image.node.operation as? LevelsOperation)
      XCTAssertEqual(operation.parameters.white, 0.25)
      XCTAssertEqual(operation.arguments["white"], .number(black + 1 / 65535))
      XCTAssertEqual(operation.arguments["black"], .number(black))
    }
  }
}

final class CurvesTests: XCTestCase {
  let pixels = samplePixels(120)

  func testDiagonalIsTheIdentity() throws {
    let photo = try Image(contentsOf: photoURL)
    let curve = [CurvePoint(0, 0), CurvePoint(0.3, 0.3), CurvePoint(0.5, 0.5), CurvePoint(1, 1)]
    assertPixelsClose(try photoPixels(photo.applyingCurve(curve)), try photoPixels(photo), tolerance: 1e-6)
    assertPixelsClose(try renderFloat(floatImage(pixels, width: 12).applyingCurve(curve)), pixels, tolerance: 1e-6)
  }

  func testPassesThroughItsPointsAndIsMonotone() {
    let sets: [[CurvePoint]] = [
      [CurvePoint(0, 0), CurvePoint(0.5, 0.6), CurvePoint(1, 1)],
      [CurvePoint(0, 0.1), CurvePoint(0.2, 0.15), CurvePoint(0.25, 0.9), CurvePoint(0.6, 0.92), CurvePoint(1, 1)],
      [CurvePoint(0, 1), CurvePoint(0.4, 0.8), CurvePoint(0.5, 0.1), CurvePoint(1, 0)],  // decreasing
      [CurvePoint(0, 0), CurvePoint(0.3, 0.5), CurvePoint(0.6, 0.5), CurvePoint(1, 1)],  // flat part
    ]
    for points in sets {
      let op = curvesOperation(points)
      for p in points { XCTAssertEqual(op.value(at: p.input), p.output, accuracy: 1e-6) }
      let increasing = points.last!.output >= points.first!.output
      var previous = op.value(at: -0.1)
      for i in 0...2000 {
        let v = op.value(at: Double(i) / 2000)
        if increasing { XCTAssertGreaterThanOrEqual(v, previous - 1e-6) } else { XCTAssertLessThanOrEqual(v, previous + 1e-6) }
        previous = v
      }
      // Flat outside the points.
      XCTAssertEqual(op.value(at: 1.5), points.last!.output, accuracy: 1e-6)
    }
  }

  /// The Fritsch–Carlson slopes of a small example, worked by hand: δ = (2, 0.5), interior slope
  /// (2 + 0.5)/2 = 1.25; α² + β² stays ≤ 9 on both intervals.
  func testSlopesOfAWorkedExample() {
    let m = CurvesOperation.slopes([CurvePoint(0, 0), CurvePoint(0.25, 0.5), CurvePoint(1, 0.875)])
    XCTAssertEqual(m, [2, 1.25, 0.5])
    // An overshooting case: δ = (0.1, 3) — interior 1.55, α = 15.5 on the first interval: scaled.
    let s = CurvesOperation.slopes([CurvePoint(0, 0), CurvePoint(0.5, 0.05), CurvePoint(0.6, 0.35)])
    let alpha = s[0] / 0.1, beta = s[1] / 0.1
    XCTAssertLessThanOrEqual(alpha * alpha + beta * beta, 9 + 1e-9)
  }

  /// The curve of `curves points=0:0,0.5:0.6,1:1` against the header's formulas evaluated here
  /// independently: slopes by hand (δ = (1.2, 0.8), m = (1.2, 1, 0.8); α² + β² ≤ 9), then the
  /// cubic Hermite basis, on a photo's pixels and on a fine grid.
  func testMatchesTheFritschCarlsonDefinition() throws {
    let x: [Double] = [0, 0.5, 1], y: [Double] = [0, 0.6, 1], m: [Double] = [1.2, 1, 0.8]
    XCTAssertEqual(CurvesOperation.slopes(zip(x, y).map { CurvePoint($0, $1) }).map { ($0 * 1e12).rounded() / 1e12 }, m)
    func f(_ c: Double) -> Double {
      if c <= 0 { return 0 }
      if c >= 1 { return 1 }
      let k = c < 0.5 ? 0 : 1, h = x[k + 1] - x[k], t = (c - x[k]) / h
      let h00 = 2 * t * t * t - 3 * t * t + 1, h10 = t * t * t - 2 * t * t + t
      let h01 = -2 * t * t * t + 3 * t * t, h11 = t * t * t - t * t
      return h00 * y[k] + h10 * h * m[k] + h01 * y[k + 1] + h11 * h * m[k + 1]
    }
    let op = curvesOperation([CurvePoint(0, 0), CurvePoint(0.5, 0.6), CurvePoint(1, 1)])
    for i in -10...1010 { XCTAssertEqual(op.value(at: Double(i) / 1000), f(Double(i) / 1000), accuracy: 2e-7) }
    let photo = try Image(contentsOf: photoURL)
    let source = try photoPixels(photo)
    let want = source.map { SIMD4(Float(f(Double($0.x))), Float(f(Double($0.y))), Float(f(Double($0.z))), $0.w) }
    assertPixelsClose(try photoPixels(try compileRecipe("curves points=0:0,0.5:0.6,1:1", photo)), want, tolerance: 1e-6)
  }

  func testRecipeVerbBuildsTheSwiftGraph() throws {
    let photo = try Image(contentsOf: photoURL)
    let points = [CurvePoint(0, 0.05), CurvePoint(0.25, 0.2), CurvePoint(0.75, 0.85), CurvePoint(1, 1)]
    for (line, channel) in [("curves points=0:0.05,0.25:0.2,0.75:0.85,1:1", ToneChannel.all), ("curves points=\"0:0.05, 0.25:0.2,0.75:0.85,1:1\" channel=g", .g)] {
      XCTAssertEqual(try compileRecipe(line, photo).node.structuralKey, photo.applyingCurve(points, channel: channel).node.structuralKey, line)
    }
    // The spelling in explain and cache keys is the recipe's.
    XCTAssertEqual(curvesOperation(points).arguments.description, "points=0:0.05,0.25:0.2,0.75:0.85,1:1 channel=all")
    for bad in ["curves points=0:0", "curves points=0:0,1", "curves points=0:0,a:1", "curves points=0,0,1,1", "curves points=0:0,0.5:0.6:1"] {
      XCTAssertThrowsError(try compileRecipe(bad, photo), bad)
    }
  }

  func testOneChannelAndAlpha() throws {
    let curve = [CurvePoint(0, 0), CurvePoint(0.5, 0.7), CurvePoint(1, 1)]
    let op = curvesOperation(curve)
    let got = try renderFloat(floatImage(pixels, width: 12).applyingCurve(curve, channel: .r))
    let want = pixels.map { SIMD4(Float(op.value(at: Double($0.x))), $0.y, $0.z, $0.w) }
    assertPixelsClose(got, want, tolerance: 2e-6)
  }
}

final class NormalizeTests: XCTestCase {
  /// Straight r, g, b values of a render, sorted.
  private func sortedValues(_ pixels: [SIMD4<Float>]) -> [Float] {
    pixels.filter { $0.w > 0 }.flatMap { [$0.x, $0.y, $0.z] }.sorted()
  }

  func testMapsThePercentilesToBlackAndWhite() throws {
    let photo = try Image(contentsOf: photoURL)
    let values = sortedValues(try photoPixels(photo))
    let lo = values[Int(0.02 * Double(values.count))], hi = values[Int(0.97 * Double(values.count))]
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))
    let out = try photoPixels(photo.normalized(low: 0.02, high: 0.97), renderer: renderer)
    let source = try photoPixels(photo)
    // Every value is mapped by (c − lo)/(hi − lo), lo and hi within a bin of the exact percentiles.
    for (o, s) in zip(out, source).prefix(2000) {
      let want = (s - lo) / (hi - lo)
      XCTAssertEqual(o.x, want.x, accuracy: 3e-3)
      XCTAssertEqual(o.z, want.z, accuracy: 3e-3)
    }
    let stretched = sortedValues(out)
    XCTAssertEqual(stretched[Int(0.02 * Double(stretched.count))], 0, accuracy: 3e-3)
    XCTAssertEqual(stretched[Int(0.97 * Double(stretched.count))], 1, accuracy: 3e-3)
  }

  /// A view reduced 4× each way (as a 24 MP photo is for the ≤ 4 MP budget: a 1/4 JPEG decode)
  /// gives percentiles within 2/255 of the full-size histogram's, on the project's sample photo.
  func testReducedViewIsWithinTolerance() throws {
    let flower = try Image(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../../samples/flower.jpg").standardizedFileURL)
    let renderer = Renderer()
    let full = try renderer.analyse(flower, HistogramAnalysis(view: .fullSize))
    let view = try renderer.analyse(flower, HistogramAnalysis(view: .reduced(maximumPixels: flower.size.width * flower.size.height / 16)))
    XCTAssertEqual(view.counts.reduce(0, +), 3 * (flower.size.width / 4) * (flower.size.height / 4))
    for q in [0.01, 0.05, 0.5, 0.95, 0.99] {
      XCTAssertEqual(view.quantile(q), full.quantile(q), accuracy: 2.0 / 255, "q=\(q)")
    }
  }

  func testFlatImageIsUnchanged() throws {
    let flat = floatImage(Array(repeating: SIMD4(0.4, 0.4, 0.4, 1), count: 64), width: 8)
    assertPixelsClose(try renderFloat(flat.normalized()), try renderFloat(flat), tolerance: 0)
  }

  func testRecipeVerbBuildsTheSwiftGraph() throws {
    let photo = try Image(contentsOf: photoURL)
    let recipe = try compileRecipe("normalize low=2 high=98", photo)
    XCTAssertEqual(recipe.node.structuralKey, photo.normalized(low: 0.02, high: 0.98).node.structuralKey)
  }

  func testHistogramQuantile() {
    // Values 0.25 (×3) and 0.75 (×1) in 4 bins.
    let h = Histogram(counts: [0, 3, 0, 1])
    XCTAssertEqual(h.quantile(0.5), 0.25 + 0.25 * (2.0 / 3), accuracy: 1e-12)
    XCTAssertEqual(h.quantile(1), 1, accuracy: 1e-12)
    XCTAssertEqual(h.quantile(0), 0.25, accuracy: 1e-12)
  }
}
