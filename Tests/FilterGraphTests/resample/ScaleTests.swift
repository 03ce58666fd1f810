// Tests of ScaleOperation against its definition (Scale.swift) and of the scale verb.

import FilterGraph
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

final class ScaleTests: XCTestCase {
  typealias T = ResampleTestSupport

  /// The largest absolute component.
  func maxAbs(_ v: SIMD4<Float>) -> Float { max(max(abs(v.x), abs(v.y)), max(abs(v.z), abs(v.w))) }

  // MARK: Definition

  func testConstantImageStaysConstantForEveryKernelUpAndDown() throws {
    // A translucent colour: premultiplied resampling must give back colour and alpha unchanged.
    let rgba: [UInt8] = [51, 153, 230, 200]
    let image = T.image(width: 13, height: 11, alpha: true) { _, _ in rgba }
    let expected = SIMD4<Float>(rgba.map { Float($0) / 255 })
    let targets = [Size(width: 5, height: 4), Size(width: 7, height: 9), Size(width: 29, height: 23), Size(width: 13, height: 5)]
    for kernel in ResampleKernel.allCases {
      for target in targets {
        for linear in [true, false] {
          let out = try T.floats(image.scaled(to: target, kernel: kernel, linearLight: linear))
          XCTAssertEqual(out.count, target.height)
          XCTAssertEqual(out[0].count, target.width)
          let worst = out.joined().map { maxAbs($0 - expected) }.max()!
          XCTAssertLessThan(worst, 2e-4, "\(kernel) → \(target) linear=\(linear)")
        }
      }
    }
  }

  func testLanczos3MatchesItsDefinitionOnOneRow() throws {
    // 1-row image: out(x) = Σ k((i−u)/s)·in(clamp(i)) / Σ k, u = (x+½)·r − ½, s = max(r, 1).
    let w = 20
    let values: [UInt8] = (0..<w).map { UInt8(truncatingIfNeeded: ($0 * 97 + 31) % 256) }
    let image = T.image(width: w, height: 1) { x, _ in [values[x], values[x], values[x]] }
    for outW in [7, 33] {
      let out = try T.floats(image.scaled(to: Size(width: outW, height: 1), kernel: .lanczos3, linearLight: false))[0]
      let r = Double(w) / Double(outW), s = max(r, 1)
      for x in 0..<outW {
        let u = (Double(x) + 0.5) * r - 0.5
        var sum = 0.0, norm = 0.0
        for i in Int((u - 3 * s).rounded(.down))...Int((u + 3 * s).rounded(.up)) {
          let k = ResampleKernel.lanczos3.weight(at: (Double(i) - u) / s)
          sum += k * Double(values[min(max(i, 0), w - 1)]) / 255
          norm += k
        }
        // Not clipped: the working space is extended range (the store clips).
        let expected = sum / norm
        XCTAssertEqual(Double(out[x].x), expected, accuracy: 1e-5, "x=\(x) of \(outW)")
      }
    }
  }

  func testLinearKernelUpscaleInterpolatesBetweenNeighbours() throws {
    let values: [Float] = [0, 40, 200, 120, 255].map { $0 / 255 }
    let image = T.image(width: 5, height: 1) { x, _ in [UInt8(values[x] * 255), 0, 0] }
    let out = try T.floats(image.scaled(to: Size(width: 10, height: 1), kernel: .linear, linearLight: false))[0]
    for x in 0..<10 {
      let u = (Float(x) + 0.5) / 2 - 0.5
      let i0 = Int(u.rounded(.down)), f = u - Float(i0)
      let a = values[min(max(i0, 0), 4)], b = values[min(max(i0 + 1, 0), 4)]
      XCTAssertEqual(out[x].x, a * (1 - f) + b * f, accuracy: 1e-5, "x=\(x)")
    }
  }

  func testKernelFunctionsHaveTheirDefiningValues() {
    XCTAssertEqual(ResampleKernel.cubic.weight(at: 0), 1)
    XCTAssertEqual(ResampleKernel.cubic.weight(at: 1), 0, accuracy: 1e-12)
    XCTAssertEqual(ResampleKernel.cubic.weight(at: 0.5), 0.5625, accuracy: 1e-12)  // Catmull–Rom: 9/16
    XCTAssertEqual(ResampleKernel.mitchell.weight(at: 0), 8.0 / 9, accuracy: 1e-12)  // (6 − 2B)/6
    XCTAssertEqual(ResampleKernel.mitchell.weight(at: 1), 1.0 / 18, accuracy: 1e-12)  // B/6
    XCTAssertEqual(ResampleKernel.lanczos3.weight(at: 1.5), sin(1.5 * .pi) / (1.5 * .pi) * sin(0.5 * .pi) / (0.5 * .pi), accuracy: 1e-12)
    XCTAssertEqual(ResampleKernel.lanczos2.weight(at: 2), 0)
    XCTAssertEqual(ResampleKernel.linear.weight(at: 0.25), 0.75)
    for k in ResampleKernel.allCases { XCTAssertEqual(k.weight(at: k.support + 0.01), 0, "\(k)") }
  }

  func testDownscaleKeepsTheMean() throws {
    let image = T.randomImage(width: 60, height: 40, seed: 7)
    func mean(_ px: [[SIMD4<Float>]]) -> SIMD4<Float> {
      let all = px.joined()
      return all.reduce(.zero, +) / Float(all.count)
    }
    let inMean = mean(try T.floats(image))
    for target in [Size(width: 20, height: 10), Size(width: 25, height: 17), Size(width: 7, height: 9)] {
      let box = mean(try T.floats(image.scaled(to: target, kernel: .box, linearLight: false)))
      XCTAssertLessThan(maxAbs(box - inMean), 1e-4, "box → \(target)")
      let lanczos = mean(try T.floats(image.scaled(to: target, kernel: .lanczos3, linearLight: false)))
      XCTAssertLessThan(maxAbs((lanczos - inMean) / inMean), 0.01, "lanczos3 → \(target)")
    }
  }

  func testBoxIsTheAreaAverage() throws {
    // 6 → 4 columns: output x covers input [1.5x, 1.5x + 1.5).
    let v: [Float] = [10, 50, 90, 130, 170, 250]
    let image = T.image(width: 6, height: 1) { x, _ in [UInt8(v[x]), 0, 0] }
    let out = try T.floats(image.scaled(to: Size(width: 4, height: 1), kernel: .box, linearLight: false))[0]
    let expected: [Float] = [(v[0] + 0.5 * v[1]) / 1.5, (0.5 * v[1] + v[2]) / 1.5, (v[3] + 0.5 * v[4]) / 1.5, (0.5 * v[4] + v[5]) / 1.5]
    for x in 0..<4 { XCTAssertEqual(out[x].x * 255, expected[x], accuracy: 1e-3, "x=\(x)") }
  }

  func testNearestPicksExactPixels() throws {
    let image = T.randomImage(width: 17, height: 13, seed: 3)
    let input = try T.bytes(image, format: .rgb8)
    for target in [Size(width: 7, height: 5), Size(width: 40, height: 30), Size(width: 17, height: 4)] {
      let out = try T.bytes(image.scaled(to: target, kernel: .nearest), format: .rgb8)
      for y in 0..<target.height {
        for x in 0..<target.width {
          let sx = (2 * x + 1) * 17 / (2 * target.width), sy = (2 * y + 1) * 13 / (2 * target.height)
          XCTAssertEqual(Array(out[y][3 * x..<3 * x + 3]), Array(input[sy][3 * sx..<3 * sx + 3]), "(\(x), \(y)) → \(target)")
        }
      }
    }
  }

  func testSameSizeIsTheInput() throws {
    let image = T.randomImage(width: 23, height: 19, alpha: true, seed: 5)
    XCTAssertTrue(image.scaled(to: image.size).node === image.node)
    let input = try T.bytes(image, format: .rgba8)
    for kernel in [ResampleKernel.nearest, .mitchell, .lanczos3, .box] {
      // The operation itself, not the shortcut, copies an axis that keeps its size.
      let op = ScaleOperation(targetSize: image.size, kernel: kernel)
      XCTAssertEqual(try T.bytes(image.applying(op), format: .rgba8), input, "\(kernel)")
    }
    // Only the width changes: every column is resampled from the same row.
    let op = ScaleOperation(targetSize: Size(width: 11, height: 19), kernel: .mitchell)
    let rowsOnly = try T.floats(image.applying(op))
    let rowByRow = try (0..<19).map { y in try T.floats(image.cropped(to: Rect(x: 0, y: y, width: 23, height: 1)).applying(ScaleOperation(targetSize: Size(width: 11, height: 1), kernel: .mitchell)))[0] }
    XCTAssertEqual(rowsOnly, rowByRow)
  }

  func testRatioComesFromTheInputItReceives() throws {
    // One operation on inputs of two sizes (what shrink-on-load does): same output geometry, and
    // each output is the area average of its own input's 4×4 or 2×2 blocks.
    let op = ScaleOperation(targetSize: Size(width: 4, height: 3), kernel: .box, linearLight: false)
    for scale in [2, 4] {
      let image = T.image(width: 4 * scale, height: 3 * scale) { x, y in [UInt8((x / scale) * 60 + (y / scale) * 5), 0, 0] }
      let out = try T.floats(image.applying(op))
      XCTAssertEqual(out.count, 3)
      for y in 0..<3 {
        for x in 0..<4 { XCTAssertEqual(out[y][x].x * 255, Float(x * 60 + y * 5), accuracy: 1e-3) }
      }
    }
  }

  func testTransparentEdgesGetNoDarkFringe() throws {
    // An opaque red square on fully transparent black: every pixel with any coverage stays red.
    let image = T.image(width: 32, height: 32, alpha: true) { x, y in
      (9..<23).contains(x) && (9..<23).contains(y) ? [255, 0, 0, 255] : [0, 0, 0, 0]
    }
    for kernel in [ResampleKernel.lanczos3, .cubic, .mitchell, .linear, .box] {
      for linear in [true, false] {
        let out = try T.floats(image.scaled(to: Size(width: 11, height: 11), kernel: kernel, linearLight: linear))
        var partial = 0
        for p in out.joined() where p.w > 1e-3 {
          if p.w < 0.99 { partial += 1 }
          XCTAssertGreaterThan(p.x, 0.995, "\(kernel) linear=\(linear) \(p)")
          XCTAssertLessThan(max(p.y, p.z), 0.005, "\(kernel) linear=\(linear) \(p)")
        }
        XCTAssertGreaterThan(partial, 0, "the edges should be partly transparent")
      }
    }
  }

  func testCheckerboardAveragesInLinearLightOrEncodedValues() throws {
    let image = T.image(width: 16, height: 16) { x, y in (x + y) % 2 == 0 ? [255, 255, 255] : [0, 0, 0] }
    let half = Float(SRGBTransfer.encode(0.5))  // 0.7354 ≈ 188/255
    for kernel in [ResampleKernel.box, .lanczos3, .mitchell] {
      let linear = try T.floats(image.scaled(by: 0.5, kernel: kernel, linearLight: true))
      let encoded = try T.floats(image.scaled(by: 0.5, kernel: kernel, linearLight: false))
      // Interior pixels, whose taps (radius 6 for Lanczos 3 at ×½) stay inside the image.
      for y in 3..<5 {
        for x in 3..<5 {
          XCTAssertEqual(linear[y][x].x, half, accuracy: 1e-3, "\(kernel) linear (\(x), \(y))")
          XCTAssertEqual(encoded[y][x].x, 0.5, accuracy: 1e-3, "\(kernel) encoded (\(x), \(y))")
        }
      }
    }
    let bytes = try T.bytes(image.scaled(by: 0.5, kernel: .box), format: .rgb8)
    XCTAssertEqual(Set(bytes.joined()), [188])
    let encodedBytes = try T.bytes(image.scaled(by: 0.5, kernel: .box, linearLight: false), format: .rgb8)
    XCTAssertTrue(Set(encodedBytes.joined()).isSubset(of: [127, 128]))
  }

  func testTiledRenderEqualsOneTileRenderBitForBit() throws {
    let image = T.randomImage(width: 150, height: 100, alpha: true, seed: 11)
    let cases: [(Size, ResampleKernel)] = [
      (Size(width: 57, height: 37), .lanczos3), (Size(width: 211, height: 133), .lanczos3),
      (Size(width: 97, height: 71), .mitchell), (Size(width: 61, height: 45), .box), (Size(width: 201, height: 49), .nearest),
    ]
    for (target, kernel) in cases {
      let scaled = image.scaled(to: target, kernel: kernel)
      let one = try T.single.render(scaled, format: .rgba8)
      let many = try T.fine.render(scaled, format: .rgba8)
      XCTAssertTrue(one.hasSamePixels(as: many), "\(kernel) → \(target)")
    }
  }

  func testShrinkOnLoadKeepsGeometryAndStaysClose() throws {
    // 2268×1512 JPEG fitted into 200×200: the optimizer decodes it at 1/4 (567×378) and the same
    // scale operation resamples from that; the result has the same size and nearly the same pixels.
    // (Sides a reduction does not divide are reduced too, read with the full image's geometry —
    // ShrinkOnLoadQualityTests — but not through an orientation, which could move the partial
    // block to the start of a side.)
    let photo = try Image(contentsOf: Repository.url("samples/flower.jpg"))
    let odd = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    func denominator(_ image: Image) -> Int? {
      var node = T.tiled.optimized(image)
      while let input = node.inputs.first { node = input }
      return (node.operation as? EncodedSourceOperation)?.scaleDenominator
    }
    XCTAssertEqual(denominator(odd.scaled(toFit: Size(width: 50, height: 50))), 2, "227×149 at 1/2: partial last column and row")
    XCTAssertEqual(denominator(odd.flippedHorizontally().scaled(toFit: Size(width: 50, height: 50))), 1, "through an orientation: whole reductions only")
    let small = photo.scaled(toFit: Size(width: 200, height: 200))
    let (shrinking, exact) = (T.tiled, T.exactTiled)
    var node = shrinking.optimized(small)
    while let input = node.inputs.first { node = input }
    XCTAssertEqual((node.operation as? EncodedSourceOperation)?.scaleDenominator, 4)
    let a = try shrinking.render(small, format: .rgb8), b = try exact.render(small, format: .rgb8)
    XCTAssertEqual(a.size, Size(width: 200, height: 133))
    XCTAssertEqual(b.size, a.size)
    let (x, y) = (try T.bytes(small, format: .rgb8, renderer: shrinking), try T.bytes(small, format: .rgb8, renderer: exact))
    var squared = 0.0
    for (r, s) in zip(x.joined(), y.joined()) { squared += pow(Double(r) - Double(s), 2) }
    let psnr = 10 * log10(255 * 255 / max(squared / Double(200 * 133 * 3), 1e-9))
    XCTAssertGreaterThan(psnr, 45)
    // Without shrink-on-load allowed on the operation, the source stays full size.
    var full = shrinking.optimized(photo.scaled(toFit: Size(width: 200, height: 200), allowsShrinkOnLoad: false))
    while let input = full.inputs.first { full = input }
    XCTAssertEqual((full.operation as? EncodedSourceOperation)?.scaleDenominator, 1)
  }

  // MARK: Sizes of the modes

  func testOutputSizesOfEveryMode() {
    let image = Image(color: .white, size: Size(width: 300, height: 200))
    func size(_ i: Image) -> String { i.size.description }
    XCTAssertEqual(size(image.scaled(by: 0.5)), "150x100")
    XCTAssertEqual(size(image.scaled(by: 0.3333)), "100x67")
    XCTAssertEqual(size(image.scaled(by: 2.5)), "750x500")
    XCTAssertEqual(size(image.scaled(by: 0)), "1x1")  // clamped to 0.0001, then at least 1
    XCTAssertEqual(size(image.scaled(by: .nan)), "300x200")
    XCTAssertEqual(size(image.scaled(toWidth: 100)), "100x67")
    XCTAssertEqual(size(image.scaled(toWidth: -4)), "1x1")
    XCTAssertEqual(size(image.scaled(toHeight: 50)), "75x50")
    XCTAssertEqual(size(image.scaled(toHeight: 3)), "5x3")  // 4.5 rounds up
    XCTAssertEqual(size(image.scaled(toFit: Size(width: 100, height: 100))), "100x67")
    XCTAssertEqual(size(image.scaled(toFit: Size(width: 1000, height: 50))), "75x50")
    XCTAssertEqual(size(image.scaled(toFit: Size(width: 1, height: 1000))), "1x1")  // never zero
    XCTAssertEqual(size(image.scaled(toFill: Size(width: 100, height: 100))), "100x100")
    XCTAssertEqual(size(image.scaled(toFill: Size(width: 50, height: 400))), "50x400")
    XCTAssertEqual(size(image.scaled(to: Size(width: 10, height: 500))), "10x500")
    XCTAssertEqual(size(image.scaled(to: Size(width: 0, height: 70000))), "1x70000")  // the true size; rendering refuses it (GraphLimits.maxSide)
    let odd = Image(color: .white, size: Size(width: 4, height: 2))
    XCTAssertEqual(size(odd.scaled(toWidth: 3)), "3x2")  // 1.5 rounds up
    XCTAssertEqual(size(odd.scaled(toFit: Size(width: 3, height: 3))), "3x2")
    XCTAssertEqual(size(odd.scaled(toFill: Size(width: 3, height: 3))), "3x3")
  }

  func testFillCropsTheCentre() throws {
    // 40×10 fills 10×10 without resampling: the centre columns 15..<25 remain.
    let image = T.image(width: 40, height: 10) { x, y in [UInt8(x * 5), UInt8(y * 20), 0] }
    let out = try T.bytes(image.scaled(toFill: Size(width: 10, height: 10)), format: .rgb8)
    XCTAssertEqual(out.count, 10)
    for y in 0..<10 {
      for x in 0..<10 { XCTAssertEqual(Array(out[y][3 * x..<3 * x + 2]), [UInt8((x + 15) * 5), UInt8(y * 20)]) }
    }
    // 40×20 fills 10×10: cover 20×10 (box averages 2×2 blocks), crop columns 5..<15.
    let wide = T.image(width: 40, height: 20) { x, _ in [UInt8(x * 6), 0, 0] }
    let filled = try T.floats(wide.scaled(toFill: Size(width: 10, height: 10), kernel: .box, linearLight: false))
    for x in 0..<10 { XCTAssertEqual(filled[4][x].x * 255, Float((2 * (x + 5)) * 6 + 3), accuracy: 1e-3) }
  }

  // MARK: enlarge=false, fill focus

  /// Without enlargement every mode leaves an image it would enlarge at its size — pixels
  /// untouched — and still reduces one it would shrink; the step stays in the graph as written.
  func testEnlargeFalseNeverEnlarges() throws {
    let image = T.image(width: 40, height: 20) { x, y in [UInt8(x * 6), UInt8(y * 12), 90] }
    let original = try T.bytes(image, format: .rgb8)
    let grow: [(String, Image)] = [
      ("factor=2 enlarge=false", image.scaled(by: 2, allowsEnlargement: false)),
      ("width=41 enlarge=false", image.scaled(toWidth: 41, allowsEnlargement: false)),
      ("height=30 enlarge=false", image.scaled(toHeight: 30, allowsEnlargement: false)),
      ("fit=800x800 enlarge=false", image.scaled(toFit: Size(width: 800, height: 800), allowsEnlargement: false)),
      ("size=30x30 enlarge=false", image.scaled(to: Size(width: 30, height: 30), allowsEnlargement: false)),
    ]
    for (written, scaled) in grow {
      XCTAssertEqual(scaled.size, image.size, written)
      XCTAssertEqual(try T.bytes(scaled, format: .rgb8), original, written)
      XCTAssertEqual(scaled.node.label, "scale \(written)")
      XCTAssertTrue(Renderer().optimized(scaled) === image.node, written)
    }
    XCTAssertEqual(image.scaled(toFit: Size(width: 20, height: 20), allowsEnlargement: false).size, Size(width: 20, height: 10))
    XCTAssertEqual(image.scaled(toWidth: 41).size, Size(width: 41, height: 21), "enlarging is the default")
    // fill: a 40×20 image under fill=60x60 is not scaled up, but still cropped to the box
    // clamped to it (20×20, the centre).
    let filled = image.scaled(toFill: Size(width: 60, height: 60), allowsEnlargement: false)
    XCTAssertEqual(filled.size, Size(width: 20, height: 20))
    XCTAssertEqual(try T.bytes(filled, format: .rgb8)[3], Array(original[3][30..<90]))
    // Through a recipe.
    let recipe = try Recipe.parse("scale width=1600 enlarge=false", file: nil).compile(
      input: image, context: FilterContext(baseDirectory: URL(fileURLWithPath: "/")))
    XCTAssertEqual(recipe.size, image.size)
  }

  /// fill's window: centre, the window smartcrop chooses, or the one centred on an input point.
  func testFillFocus() throws {
    // 60×20 with a bright 6×6 square around (50, 10): fill=20x20 needs no resampling.
    let image = T.image(width: 60, height: 20) { x, y in (47..<53).contains(x) && (7..<13).contains(y) ? [255, 40, 40] : [30, 30, 30] }
    let box = Size(width: 20, height: 20)
    func columns(_ i: Image) throws -> [UInt8] { try T.bytes(i, format: .rgb8)[10].enumerated().filter { $0.offset % 3 == 0 }.map(\.element) }
    let all = try T.bytes(image, format: .rgb8)[10].enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
    XCTAssertEqual(try columns(image.scaled(toFill: box)), Array(all[20..<40]))
    XCTAssertEqual(try columns(image.scaled(toFill: box, focus: .point(Point(x: 50, y: 10)))), Array(all[40..<60]))
    XCTAssertEqual(try columns(image.scaled(toFill: box, focus: .point(Point(x: 2, y: 10)))), Array(all[0..<20]))
    for focus in [FillFocus.attention, .entropy] {
      let window = try columns(image.scaled(toFill: box, focus: focus))
      XCTAssertEqual(window.filter { $0 == 255 }.count, 6, "\(focus): the square is inside the window")
    }
    // A point is in the input's pixels: on a 120×40 input scaled to a 60×20 cover it maps to half.
    let large = T.image(width: 120, height: 40) { x, _ in [UInt8(2 * x), 0, 0] }
    let op = try XCTUnwrap(large.scaled(toFill: box, focus: .point(Point(x: 100, y: 20))).node.operation as? CropOperation)
    XCTAssertEqual(op.region, Rect(x: 40, y: 0, width: 20, height: 20))
    // The recipe spells it focus=WORD or focus=X,Y, with fill= only.
    let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/"))
    func compile(_ text: String) throws -> Image { try Recipe.parse(text, file: nil).compile(input: large, context: context) }
    XCTAssertEqual(try compile("scale fill=20x20 focus=100,20").node.structuralKey, large.scaled(toFill: box, focus: .point(Point(x: 100, y: 20))).node.structuralKey)
    XCTAssertEqual(try compile("scale fill=20x20 focus=entropy").node.structuralKey, large.scaled(toFill: box, focus: .entropy).node.structuralKey)
    XCTAssertThrowsError(try compile("scale fit=20x20 focus=entropy")) { XCTAssertTrue("\($0)".contains("focus=entropy chooses the window of fill=WxH"), "\($0)") }
    XCTAssertThrowsError(try compile("scale fill=20x20 focus=middle")) { XCTAssertTrue("\($0)".contains("or a point X,Y"), "\($0)") }
  }

  // MARK: Recipe verb

  func testScaleVerbAppliesExactlyOneMode() throws {
    let image = Image(color: .white, size: Size(width: 300, height: 200))
    let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/"))
    func apply(_ pairs: [(String, ParameterValue)]) throws -> Image {
      let defaults: [(String, ParameterValue)] = [("kernel", .choice("lanczos3")), ("linear", .boolean(true)), ("shrink", .boolean(true))]
      return try ResampleFilters.scale.apply([image], Arguments(pairs + defaults), context)
    }
    XCTAssertEqual(try apply([("factor", .number(0.5))]).size, Size(width: 150, height: 100))
    XCTAssertEqual(try apply([("width", .number(60))]).size, Size(width: 60, height: 40))
    XCTAssertEqual(try apply([("height", .number(20))]).size, Size(width: 30, height: 20))
    XCTAssertEqual(try apply([("fit", .size(Size(width: 50, height: 50)))]).size, Size(width: 50, height: 33))
    XCTAssertEqual(try apply([("fill", .size(Size(width: 50, height: 50)))]).size, Size(width: 50, height: 50))
    XCTAssertEqual(try apply([("size", .size(Size(width: 7, height: 9)))]).size, Size(width: 7, height: 9))
    XCTAssertThrowsError(try apply([])) { XCTAssertTrue("\($0)".contains("needs a size"), "\($0)") }
    XCTAssertThrowsError(try apply([("width", .number(60)), ("fit", .size(Size(width: 5, height: 5)))])) {
      XCTAssertTrue("\($0)".contains("width and fit"), "\($0)")
    }
    let op = try XCTUnwrap(try apply([("factor", .number(0.5))]).node.operation as? ScaleOperation)
    XCTAssertEqual(op.arguments.description, "size=150x100 kernel=lanczos3 linear=true shrink=true")
    XCTAssertEqual(ResampleFilters.all.map(\.descriptor.name), ["scale"])
    XCTAssertEqual(ScaleOperation.table.parameters.first?.name, "factor")
  }
}
