// VignetteTests.swift — `vignette` against its definition (Vignette.swift's header), computed
// here independently in Double; tile-parallel renders equal one-tile renders; it fuses with the
// per-pixel filters around it; the recipe verb builds the same graph as the Swift method.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class VignetteTests: XCTestCase {
  /// The definition, pixel by pixel, on straight sRGB-encoded values: decode to linear, scale
  /// r, g, b by 1 − amount·smoothstep, encode.
  private func reference(
    _ pixels: [SIMD4<Float>], width: Int, height: Int, amount: Double, radius: Double, softness: Double
  ) -> [SIMD4<Double>] {
    func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    func encode(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
    let cx = Double(width) / 2, cy = Double(height) / 2
    return pixels.enumerated().map { i, p in
      let x = Double(i % width), y = Double(i / width)
      let d = hypot(x + 0.5 - cx, y + 0.5 - cy) / hypot(cx, cy)
      let t = min(max((d - radius) / softness, 0), 1)
      let k = 1 - amount * t * t * (3 - 2 * t)
      return SIMD4(encode(decode(Double(p.x)) * k), encode(decode(Double(p.y)) * k), encode(decode(Double(p.z)) * k), Double(p.w))
    }
  }

  func testMatchesTheDefinition() throws {
    let (width, height) = (53, 37)
    let pixels = samplePixels(width * height)
    for (amount, radius, softness) in [(0.5, 0.5, 0.5), (1.0, 0.0, 1.0), (0.3, 0.8, 0.05), (0.0, 0.5, 0.5)] {
      let image = floatImage(pixels, width: width).vignetted(amount: amount, radius: radius, softness: softness)
      let expected = reference(pixels, width: width, height: height, amount: amount, radius: radius, softness: softness)
      for (i, got) in try renderFloat(image).enumerated() {
        for c in 0..<4 {
          XCTAssertEqual(Double(got[c]), expected[i][c], accuracy: 2e-5, "amount \(amount) radius \(radius) pixel \(i) channel \(c)")
        }
      }
    }
  }

  func testCentreIsUntouchedAndCornersLoseAmountOfTheirLight() throws {
    // 101 × 61 mid-gray: the centre pixel is inside the radius; the corner pixels lie beyond
    // radius + softness, so they keep exactly half their linear light.
    let gray = Image(color: Color(white: 0.5), size: Size(width: 101, height: 61)).vignetted(amount: 0.5, radius: 0.3, softness: 0.5)
    let out = try renderFloat(gray)
    XCTAssertEqual(out[30 * 101 + 50].x, 0.5, accuracy: 1e-6)
    let corner = SRGBTransfer.encode(SRGBTransfer.decode(0.5) * 0.5)
    for i in [0, 100, 60 * 101, 60 * 101 + 100] { XCTAssertEqual(Double(out[i].x), corner, accuracy: 1e-5) }
  }

  func testTileParallelRenderEqualsOneTileRender() throws {
    let photo = Image(buffer: PixelBuffer.random(width: 157, height: 93, format: .rgba8, seed: 11)).vignetted(amount: 0.7, radius: 0.2)
    let one = try oneTileRenderer.render(photo, format: .rgbaFloatPremultiplied)
    for tile in [Size(width: 16, height: 8), Size(width: 37, height: 5), Size(width: 8, height: 1)] {
      let tiled = Renderer(options: RendererOptions(threads: 2, tileSize: tile))
      XCTAssertTrue(try tiled.render(photo, format: .rgbaFloatPremultiplied).hasSamePixels(as: one), "tile \(tile)")
    }
  }

  func testFusesWithTheFiltersAroundItAndKeepsThePixels() throws {
    let photo = Image(buffer: PixelBuffer.random(width: 64, height: 48, format: .rgb8, seed: 2))
    let look = photo.tinted(Color(hex: "#FF8000")!, amount: 0.3).vignetted(amount: 0.6).adjustingGamma(1.2)
    let fused = colorRenderer.optimized(look)
    XCTAssertTrue(fused.operation is FusedPointOperation, GraphPrinter.describe(fused))
    XCTAssertTrue(fused.inputs[0].operation is SourceOperation, "tint, vignette and gamma are one pass")
    let plain = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32), optimizer: .none))
    XCTAssertTrue(try colorRenderer.render(look, format: .rgbaFloatPremultiplied).hasSamePixels(as: try plain.render(look, format: .rgbaFloatPremultiplied)))
  }

  func testRecipeVerbBuildsTheSwiftMethodsGraph() throws {
    let input = Image(color: Color(white: 0.5), size: Size(width: 40, height: 30))
    let context = FilterContext(baseDirectory: URL(fileURLWithPath: NSTemporaryDirectory()))
    let compiled = try Recipe.parse("vignette amount=0.4 radius=0.6", file: nil).compile(input: input, context: context)
    XCTAssertEqual(compiled.node.structuralKey, input.vignetted(amount: 0.4, radius: 0.6, softness: 0.5).node.structuralKey)
    XCTAssertEqual(compiled.node.label, "vignette amount=0.4 radius=0.6 softness=0.5")
  }

  func testArgumentsAreClampedAndNaNTakesTheDefault() {
    var parameters = VignetteOperation.Parameters()
    (parameters.amount, parameters.radius, parameters.softness) = (7, -1, .nan)
    XCTAssertEqual([parameters.amount, parameters.radius, parameters.softness], [1, 0, 0.5])
  }
}
