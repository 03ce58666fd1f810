// Tests of flatten and mask against their definitions (Flatten.swift, Mask.swift).

import FilterGraph
import Foundation
import PixelBufferModule
import XCTest

final class FlattenMaskTests: XCTestCase {
  typealias T = ResampleTestSupport
  typealias G = GeometryTestSupport

  func testFlattenIsOverAColorInLinearLight() throws {
    let image = T.randomImage(width: 31, height: 19, alpha: true, seed: 17)
    let src = try T.bytes(image, format: .rgba8)
    let under = Color(hex: "#30A0F0")!
    let flat = image.flattened(onto: under)
    XCTAssertEqual(flat.info.layout, .rgb)
    let out = try T.bytes(flat, format: .rgb8)
    func lin(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    func enc(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
    let c = [under.red, under.green, under.blue].map { lin(Double($0)) }
    for y in 0..<19 {
      for x in 0..<31 {
        let a = Double(src[y][4 * x + 3]) / 255
        for k in 0..<3 {
          let expected = enc(lin(Double(src[y][4 * x + k]) / 255) * a + (1 - a) * c[k]) * 255
          XCTAssertEqual(Double(out[y][3 * x + k]), expected, accuracy: 0.51, "(\(x), \(y)) channel \(k)")
        }
      }
    }
    let opaque = T.randomImage(width: 5, height: 5)
    XCTAssertTrue(opaque.flattened(onto: .white).node === opaque.node)
    try G.assertTilingInvariant(T.randomImage(width: 140, height: 80, alpha: true, seed: 2).flattened(onto: .white).blurred(sigma: 1.5))
  }

  func testMaskByLuminanceAndAlpha() throws {
    let image = T.randomImage(width: 24, height: 10, alpha: true, seed: 23)
    // A mask whose pixel (x, y) has level 10x and alpha 255 − 20y.
    let mask = T.image(width: 24, height: 10, alpha: true) { x, y in [UInt8(10 * x), UInt8(10 * x), UInt8(10 * x), UInt8(255 - 20 * y)] }
    let src = try T.bytes(image, format: .rgba8)
    let byLuma = try T.bytes(image.masked(by: mask), format: .rgba8, renderer: T.fine)
    let byAlpha = try T.bytes(image.masked(by: mask, source: .alpha), format: .rgba8, renderer: T.fine)
    for y in 0..<10 {
      for x in 0..<24 {
        let a = Double(src[y][4 * x + 3])
        let luma = Double(10 * x) / 255 * Double(255 - 20 * y) / 255
        let alpha = Double(255 - 20 * y) / 255
        XCTAssertEqual(Double(byLuma[y][4 * x + 3]), (a * luma).rounded(), accuracy: 1, "luminance (\(x), \(y))")
        XCTAssertEqual(Double(byAlpha[y][4 * x + 3]), (a * alpha).rounded(), accuracy: 1, "alpha (\(x), \(y))")
        // The colour is kept wherever enough opacity is left to carry it.
        if a * alpha > 40 {
          for k in 0..<3 { XCTAssertEqual(Double(byAlpha[y][4 * x + k]), Double(src[y][4 * x + k]), accuracy: 2) }
        }
      }
    }
    // A mask of another size is scaled to the image's.
    let small = Image(color: .white, size: Size(width: 3, height: 2))
    let scaled = image.masked(by: small)
    XCTAssertEqual(scaled.size, image.size)
    try G.assertSamePixels(scaled, image)
  }

  func testMaskVerbAndTiling() throws {
    let image = T.randomImage(width: 130, height: 70, seed: 29)
    let recipe = "shape = solid color=#808080 size=130x70\noutput = mask input with=shape source=luminance"
    let compiled = try G.compile(recipe, input: image)
    let swift = image.masked(by: Image(color: Color(hex: "#808080")!, size: Size(width: 130, height: 70)))
    XCTAssertEqual(G.signature(compiled.node), G.signature(swift.node))
    XCTAssertEqual(G.signature(try G.compile("flatten color=white", input: image.roundingCorners(radius: 5)).node),
                   G.signature(image.roundingCorners(radius: 5).flattened(onto: .white).node))
    let shape = T.randomImage(width: 90, height: 50, alpha: true, seed: 30)
    try G.assertTilingInvariant(image.masked(by: shape, source: .alpha).scaled(by: 0.8))
    try G.assertTilingInvariant(image.masked(by: shape))
  }
}
