// CompositeTests.swift — CompositeOperation and BlendMode against the W3C definitions.
//
// Expected values are computed here from the straight-alpha W3C general formula
// co = αs(1−αb)Cs + αb(1−αs)Cb + αsαb·B(Cb, Cs), αo = αs + αb(1−αs)  (not from the
// premultiplied simplifications the implementation uses), in Double.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class CompositeTests: XCTestCase {
  // MARK: Helpers

  /// An 8-bit RGBA image whose pixel (x, y) is `f(x, y)` (straight alpha, 0…255).
  private func rgba(_ w: Int, _ h: Int, _ f: (Int, Int) -> [UInt8]) -> PixelBuffer {
    var b = PixelBuffer(width: w, height: h, format: .rgba8)
    b.withUnsafeMutablePixels(as: UInt8.self) { px in
      for y in 0..<h {
        for x in 0..<w {
          let v = f(x, y)
          for c in 0..<4 { px[row: y][4 * x + c] = v[c] }
        }
      }
    }
    return b
  }

  /// Straight RGBA 0…1 of pixel (x, y) of an 8-bit RGBA buffer.
  private func straight(_ b: PixelBuffer, _ x: Int, _ y: Int) -> [Double] {
    b.withUnsafePixels(as: UInt8.self) { px in (0..<4).map { Double(px[row: y][4 * x + $0]) / 255 } }
  }

  /// Premultiplied float RGBA of a render in `.rgbaFloatPremultiplied`.
  private func pixel(_ b: PixelBuffer, _ x: Int, _ y: Int) -> SIMD4<Float> {
    b.withUnsafePixels(as: SIMD4<Float>.self) { $0[row: y][x] }
  }

  private let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))

  private func srgbDecode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
  private func srgbEncode(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

  /// The W3C result for straight colours (RGB 0…1) and alphas, premultiplied.
  private func expected(_ mode: BlendMode, s: [Double], b: [Double]) -> [Double] {
    let (αs, αb) = (s[3], b[3])
    if mode == .add {
      return (0..<3).map { min(1, αs * s[$0] + αb * b[$0]) } + [min(1, αs + αb)]
    }
    func B(_ cb: Double, _ cs: Double) -> Double {
      switch mode {
      case .over: return cs
      case .multiply: return cs * cb
      case .screen: return cb + cs - cs * cb
      case .darken: return min(cs, cb)
      case .lighten: return max(cs, cb)
      case .add: fatalError()
      }
    }
    let rgb = (0..<3).map { αs * (1 - αb) * s[$0] + αb * (1 - αs) * b[$0] + αs * αb * B(b[$0], s[$0]) }
    return rgb + [αs + αb * (1 - αs)]
  }

  private func baseBuffer() -> PixelBuffer {
    rgba(9, 7) { x, y in [UInt8((x * 29 + y * 7) % 256), UInt8((x * 13 + 200 * y) % 256), UInt8((x * y * 17 + 40) % 256), UInt8([255, 128, 0, 77, 200, 255, 13][(x + y) % 7])] }
  }
  private func overlayBuffer() -> PixelBuffer {
    rgba(4, 3) { x, y in [UInt8((x * 71 + y * 3 + 9) % 256), UInt8((250 - 31 * x * y) & 255), UInt8((x * 50 + y * 90) % 256), UInt8([255, 0, 64, 191, 128, 33][(x + 2 * y) % 6])] }
  }

  // MARK: Blend formulas

  func testEveryModeMatchesW3CFormulaOnEncodedValues() throws {
    let b = baseBuffer(), s = overlayBuffer()
    let origin = Point(x: 3, y: 2)
    for mode in BlendMode.allCases {
      for opacity in [1.0, 0.6] {
        let img = Image(buffer: s).composited(over: Image(buffer: b), at: origin, mode: mode, opacity: opacity, linearLight: false)
        let out = try renderer.render(img, format: .rgbaFloatPremultiplied)
        XCTAssertEqual(out.size, b.size)
        for y in 0..<b.height {
          for x in 0..<b.width {
            let bp = straight(b, x, y)
            let inside = (origin.x..<origin.x + s.width).contains(x) && (origin.y..<origin.y + s.height).contains(y)
            var sp = inside ? straight(s, x - origin.x, y - origin.y) : [0, 0, 0, 0]
            sp[3] *= opacity
            let e = expected(mode, s: sp, b: bp)
            let got = pixel(out, x, y)
            for c in 0..<4 {
              XCTAssertEqual(Double(got[c]), e[c], accuracy: 2e-6, "\(mode) opacity \(opacity) at (\(x), \(y)) channel \(c)")
            }
          }
        }
      }
    }
  }

  func testEveryModeMatchesW3CFormulaInLinearLight() throws {
    let b = baseBuffer(), s = overlayBuffer()
    let origin = Point(x: 5, y: -1)  // hangs over the top edge and the right edge
    for mode in BlendMode.allCases {
      let img = Image(buffer: s).composited(over: Image(buffer: b), at: origin, mode: mode, opacity: 0.8)
      let out = try renderer.render(img, format: .rgbaFloatPremultiplied)
      for y in 0..<b.height {
        for x in 0..<b.width {
          var bp = straight(b, x, y)
          let inside = (origin.x..<origin.x + s.width).contains(x) && (origin.y..<origin.y + s.height).contains(y)
          var sp = inside ? straight(s, x - origin.x, y - origin.y) : [0, 0, 0, 0]
          for c in 0..<3 { bp[c] = srgbDecode(bp[c]); sp[c] = srgbDecode(sp[c]) }
          sp[3] *= 0.8
          var e = expected(mode, s: sp, b: bp)
          // Back to the encoded premultiplied values the float render holds.
          if e[3] > 0 { for c in 0..<3 { e[c] = srgbEncode(min(e[c] / e[3], 1)) * e[3] } }
          let got = pixel(out, x, y)
          for c in 0..<4 {
            XCTAssertEqual(Double(got[c]), e[c], accuracy: 2e-4, "\(mode) at (\(x), \(y)) channel \(c)")
          }
        }
      }
    }
  }

  func testLinearAndEncodedBlendingDifferAsDocumented() throws {
    // 50 % black over white: linear light gives encode(0.5) ≈ 188/255, encoded values 128/255.
    let white = Image(color: .white, size: Size(width: 2, height: 2))
    let black = Image(color: .black, size: Size(width: 2, height: 2))
    let lin = try renderer.render(black.composited(over: white, opacity: 0.5))
    let enc = try renderer.render(black.composited(over: white, opacity: 0.5, linearLight: false))
    lin.withUnsafePixels(as: UInt8.self) { XCTAssertEqual($0[row: 0][0], 188) }
    enc.withUnsafePixels(as: UInt8.self) { XCTAssertEqual($0[row: 0][0], 128) }
  }

  func testBlendModesOnSinglePixelsByHand() {
    // Opaque pixels: multiply 0.5·0.4 = 0.2; screen 0.5 + 0.4 − 0.2 = 0.7; add 0.9; darken 0.4; lighten 0.5.
    let s = SIMD4<Float>(0.5, 0.5, 0.5, 1), b = SIMD4<Float>(0.4, 0.4, 0.4, 1)
    XCTAssertEqual(BlendMode.over.blend(s, over: b).x, 0.5, accuracy: 1e-7)
    XCTAssertEqual(BlendMode.multiply.blend(s, over: b).x, 0.2, accuracy: 1e-7)
    XCTAssertEqual(BlendMode.screen.blend(s, over: b).x, 0.7, accuracy: 1e-7)
    XCTAssertEqual(BlendMode.add.blend(s, over: b).x, 0.9, accuracy: 1e-7)
    XCTAssertEqual(BlendMode.darken.blend(s, over: b).x, 0.4, accuracy: 1e-7)
    XCTAssertEqual(BlendMode.lighten.blend(s, over: b).x, 0.5, accuracy: 1e-7)
    XCTAssertEqual(BlendMode.add.blend(SIMD4(0.8, 0.8, 0.8, 1), over: b), SIMD4(1, 1, 1, 1))
    // A transparent overlay pixel leaves the base pixel unchanged in every mode.
    let half = SIMD4<Float>(0.1, 0.2, 0.3, 0.5)
    for mode in BlendMode.allCases { XCTAssertEqual(mode.blend(.zero, over: half), half, "\(mode)") }
  }

  // MARK: Placement

  func testGravityOrigins() {
    let base = Size(width: 10, height: 8), o = Size(width: 3, height: 2)
    let expected: [Gravity: Point] = [
      .center: Point(x: 3, y: 3), .north: Point(x: 3, y: 1), .south: Point(x: 3, y: 5),
      .east: Point(x: 6, y: 3), .west: Point(x: 1, y: 3), .northEast: Point(x: 6, y: 1),
      .northWest: Point(x: 1, y: 1), .southEast: Point(x: 6, y: 5), .southWest: Point(x: 1, y: 5),
    ]
    for g in Gravity.allCases {
      XCTAssertEqual(g.origin(of: o, in: base, margin: 1), expected[g], "\(g)")
    }
    // An overlay larger than the base: centring rounds towards −∞ (free space −3 → −2).
    XCTAssertEqual(Gravity.center.origin(of: Size(width: 7, height: 4), in: Size(width: 4, height: 4)), Point(x: -2, y: 0))
    XCTAssertEqual(Gravity.southEast.origin(of: Size(width: 7, height: 4), in: Size(width: 4, height: 4)), Point(x: -3, y: 0))
  }

  func testPlacementWithGravityMarginAndOffsetOnRender() throws {
    // A 2×2 opaque red overlay on a 12×9 opaque blue base, southeast, margin 2, offset (−1, 1).
    let red = Image(color: Color(red: 1, green: 0, blue: 0), size: Size(width: 2, height: 2))
    let blue = Image(color: Color(red: 0, green: 0, blue: 1), size: Size(width: 12, height: 9))
    let img = red.composited(over: blue, gravity: .southEast, margin: 2, offset: Point(x: -1, y: 1))
    let out = try renderer.render(img)
    XCTAssertEqual(out.format, .rgb8)
    // origin = (12 − 2 − 2 − 1, 9 − 2 − 2 + 1) = (7, 6)
    out.withUnsafePixels(as: UInt8.self) { px in
      for y in 0..<9 {
        for x in 0..<12 {
          let isRed = (7...8).contains(x) && (6...7).contains(y)
          XCTAssertEqual(Array(UnsafeBufferPointer(start: px[row: y] + 3 * x, count: 3)), isRed ? [255, 0, 0] : [0, 0, 255], "(\(x), \(y))")
        }
      }
    }
  }

  func testOverlayHangingOffEveryEdgeDoesNotSmearItsEdges() throws {
    // The evaluator extends edges of regions outside an input; the overlay must count as
    // transparent there. An opaque 3×3 overlay at each corner, half outside, on tiny tiles.
    let small = Renderer(options: RendererOptions(threads: 3, tileSize: Size(width: 8, height: 1)))
    let white = Image(color: .white, size: Size(width: 10, height: 7))
    let dot = Image(color: .black, size: Size(width: 3, height: 3))
    for origin in [Point(x: -2, y: -2), Point(x: 8, y: -1), Point(x: -1, y: 5), Point(x: 9, y: 6), Point(x: 20, y: 20)] {
      let out = try small.render(dot.composited(over: white, at: origin))
      out.withUnsafePixels(as: UInt8.self) { px in
        for y in 0..<7 {
          for x in 0..<10 {
            let covered = (origin.x..<origin.x + 3).contains(x) && (origin.y..<origin.y + 3).contains(y)
            XCTAssertEqual(px[row: y][3 * x], covered ? 0 : 255, "origin \(origin) at (\(x), \(y))")
          }
        }
      }
    }
  }

  // MARK: Opacity, clamping, format

  func testZeroOpacityAndNegativeOpacityGiveTheBaseBitForBit() throws {
    let b = baseBuffer(), s = overlayBuffer()
    let plain = try renderer.render(Image(buffer: b))
    for opacity in [0.0, -3.0] {
      for mode in BlendMode.allCases {
        let out = try renderer.render(Image(buffer: s).composited(over: Image(buffer: b), mode: mode, opacity: opacity, linearLight: false))
        XCTAssertTrue(out.hasSamePixels(as: plain), "\(mode) opacity \(opacity)")
      }
    }
  }

  func testOpacityIsClampedToOneAndNaNMeansOne() throws {
    let b = Image(buffer: baseBuffer()), s = Image(buffer: overlayBuffer())
    let one = try renderer.render(s.composited(over: b, mode: .screen))
    for opacity in [1.0, 7.0, .infinity, .nan] {
      XCTAssertTrue(try renderer.render(s.composited(over: b, mode: .screen, opacity: opacity)).hasSamePixels(as: one), "\(opacity)")
    }
    let op = CompositeOperation(mode: .over, opacity: 2, origin: Point(x: 0, y: 0), overlaySize: Size(width: 1, height: 1))
    XCTAssertEqual(op.opacity, 1)
  }

  func testOutputInfoTakesBaseSizeAndWidensFormat() {
    let grayBase = Image(buffer: PixelBuffer(width: 5, height: 4, format: .gray8))
    let colour16 = Image(buffer: PixelBuffer(width: 2, height: 2, format: .rgba16))
    let info = colour16.composited(over: grayBase).info
    XCTAssertEqual(info.size, Size(width: 5, height: 4))
    XCTAssertEqual(info.layout, .rgb)
    XCTAssertEqual(info.component, .uint16)
    let grayAlpha = Image(buffer: PixelBuffer(width: 5, height: 4, format: PixelFormat(layout: .grayAlpha, component: .uint8)))
    XCTAssertEqual(colour16.composited(over: grayAlpha).info.layout, .rgba)
    XCTAssertEqual(grayBase.composited(over: colour16).info.layout, .rgba)
  }

  // MARK: Schedule independence

  func testTileParallelRenderEqualsOneTileRender() throws {
    let b = Image(buffer: baseBuffer()), s = Image(buffer: overlayBuffer())
    let img = s.rotated(byDegrees: 90).composited(over: b.flippedVertically(), gravity: .east, margin: 1, mode: .multiply, opacity: 0.7)
      .composited(over: Image(color: Color(red: 0.2, green: 0.6, blue: 0.9, alpha: 0.5), size: Size(width: 13, height: 11)), at: Point(x: 2, y: 3), mode: .screen)
    let reference = try Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096)))
      .render(img, format: .rgbaFloatPremultiplied)
    for tile in [Size(width: 8, height: 1), Size(width: 9, height: 4), Size(width: 64, height: 32)] {
      let r = Renderer(options: RendererOptions(threads: 2, tileSize: tile))
      XCTAssertTrue(try r.render(img, format: .rgbaFloatPremultiplied).hasSamePixels(as: reference), "\(tile)")
    }
  }

  // MARK: Real photos

  func testPngPhotoWithAlphaOverOpaquePhoto() throws {
    // basn6a08: 32×32 RGBA with varying alpha; basn2c08: 32×32 RGB. Both carry gAMA 1.0 (their
    // codes are linear light), so in encoded values each colour is the sRGB curve of its code.
    let top = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    let bottom = try Image(contentsOf: Fixtures.url("pngsuite/basn2c08.png"))
    let s = try PNGDecoder.decode(Fixtures.data("pngsuite/basn6a08.png")), b = try PNGDecoder.decode(Fixtures.data("pngsuite/basn2c08.png"))
    func encoded(_ buffer: PixelBuffer, _ x: Int, _ y: Int) -> [Double] {
      let n = buffer.format.layout.channelCount
      return buffer.withUnsafePixels(as: UInt8.self) { px in
        (0..<3).map { srgbEncode(Double(px[row: y][n * x + $0]) / 255) } + [n == 4 ? Double(px[row: y][n * x + 3]) / 255 : 1]
      }
    }
    let out = try renderer.render(top.composited(over: bottom, mode: .over, linearLight: false), format: .rgbaFloatPremultiplied)
    var maxError = 0.0
    for y in 0..<32 {
      for x in 0..<32 {
        let e = expected(.over, s: encoded(s, x, y), b: encoded(b, x, y))
        let g = pixel(out, x, y)
        for c in 0..<4 { maxError = max(maxError, abs(Double(g[c]) - e[c])) }
      }
    }
    XCTAssertLessThan(maxError, 2e-6)
    XCTAssertEqual(out.size, Size(width: 32, height: 32))
  }

  // MARK: Recipe verbs

  /// Arguments with the table's defaults, overridden by `values`.
  private func arguments(_ table: [ParameterSpec], _ values: [String: ParameterValue]) -> Arguments {
    Arguments(table.compactMap { spec in (values[spec.name] ?? spec.defaultValue).map { (spec.name, $0) } })
  }

  func testCompositeVerbBuildsTheSameImageAsSwift() throws {
    let logo = Image(buffer: overlayBuffer()), photo = Image(buffer: baseBuffer())
    let verb = CompositingFilters.composite
    XCTAssertEqual(verb.descriptor.name, "composite")
    XCTAssertEqual(verb.descriptor.inputCount, 2)
    XCTAssertEqual(verb.descriptor.parameters.map(\.name), ["over", "mode", "opacity", "gravity", "margin", "x", "y", "linear"])
    XCTAssertEqual(verb.descriptor.parameter(named: "over")?.kind, .image)
    let args = arguments(verb.descriptor.parameters, [
      "over": .image("photo"), "mode": .choice("darken"), "opacity": .number(0.4), "gravity": .choice("southwest"),
      "margin": .number(1), "x": .number(2), "y": .number(-1), "linear": .boolean(false),
    ])
    let fromRecipe = try verb.apply([logo, photo], args, FilterContext(baseDirectory: URL(fileURLWithPath: "/")))
    let fromSwift = logo.composited(over: photo, gravity: .southWest, margin: 1, offset: Point(x: 2, y: -1), mode: .darken, opacity: 0.4, linearLight: false)
    XCTAssertEqual(fromRecipe.node.structuralKey, fromSwift.node.structuralKey)
    XCTAssertTrue(try renderer.render(fromRecipe).hasSamePixels(as: try renderer.render(fromSwift)))
    // southwest, margin 1, offset (2, −1): origin (3, 7 − 3 − 1 − 1) = (3, 2)
    XCTAssertEqual((fromSwift.node.operation as? CompositeOperation)?.origin, Point(x: 3, y: 2))
    XCTAssertEqual(fromSwift.node.label, "composite mode=darken opacity=0.4 gravity=northwest x=3 y=2 linear=false")
  }

  func testBlendVerbCentresOverlayAndSharesTableRows() throws {
    let verb = CompositingFilters.blend
    XCTAssertEqual(verb.descriptor.inputCount, 2)
    XCTAssertEqual(verb.descriptor.parameters.map(\.name), ["mode", "opacity", "linear"])
    for row in verb.descriptor.parameters { XCTAssertEqual(CompositeOperation.table.parameter(named: row.name), row) }
    let soft = Image(buffer: overlayBuffer()), base = Image(buffer: baseBuffer())
    let args = arguments(verb.descriptor.parameters, ["mode": .choice("screen"), "opacity": .number(0.4)])
    let img = try verb.apply([soft, base], args, FilterContext(baseDirectory: URL(fileURLWithPath: "/")))
    let swift = soft.composited(over: base, mode: .screen, opacity: 0.4)
    XCTAssertEqual(img.node.structuralKey, swift.node.structuralKey)
    XCTAssertEqual((img.node.operation as? CompositeOperation)?.origin, Point(x: 2, y: 2))  // (9−4)/2, (7−3)/2
    XCTAssertEqual(CompositingFilters.all.map(\.descriptor.name), ["composite", "blend", "flatten", "mask", "shadow"])
  }

  func testOverlaidIsCompositedReadFromTheBase() {
    let logo = Image(buffer: overlayBuffer()), photo = Image(buffer: baseBuffer())
    XCTAssertEqual(
      photo.overlaid(with: logo, gravity: .southEast, margin: 1, opacity: 0.5).node.structuralKey,
      logo.composited(over: photo, gravity: .southEast, margin: 1, opacity: 0.5).node.structuralKey)
  }
}
