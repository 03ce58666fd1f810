// LinearPNGSourceTests.swift — a PNG whose only colour chunk is gAMA 1.0 stores linear light (PNG
// specification, gAMA: sample = light^gamma), so written as sRGB each code becomes the sRGB curve of
// code / 255, whatever the recipe: an identity, a crop, a composite or a blur. Pillow and libvips
// ignore gAMA and keep the stored codes; browsers apply it.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class LinearPNGSourceTests: XCTestCase {
  func testGammaOnePNGIsWrittenAsTheSRGBCurveOfItsCodesOnEveryPath() throws {
    let data = try Fixtures.data("pngsuite/basn2c08.png")
    let stored = try PNGDecoder.decode(data)  // the codes as stored, no colour handling
    XCTAssertEqual(stored.format, .rgb8)
    let image = try Image(data: data)
    let renderer = Renderer(options: RendererOptions(threads: 1))
    let paths: [(String, Image)] = [
      ("as read", image),
      ("rotated twice", image.rotated(byDegrees: 180).rotated(byDegrees: 180)),
      ("cropped", image.cropped(to: Rect(x: 0, y: 0, width: 32, height: 32))),
      ("over white", image.composited(over: Image(color: .white, size: image.size))),
      ("blurred", image.blurred(sigma: 0.01)),
    ]
    for (name, result) in paths {
      let written = try PNGDecoder.decode(try renderer.encode(result, format: .png))
      XCTAssertEqual(written.size, stored.size, name)
      var worst = 0
      written.withUnsafePixels(as: UInt8.self) { w in
        stored.withUnsafePixels(as: UInt8.self) { s in
          for y in 0..<32 {
            for x in 0..<96 {
              let expected = Int((255 * SRGBTransfer.encode(Double(s[row: y][x]) / 255)).rounded())
              worst = max(worst, abs(Int(w[row: y][x]) - expected))
            }
          }
        }
      }
      XCTAssertLessThanOrEqual(worst, 1, "\(name): codes against the sRGB curve of the stored linear codes")
    }
  }
}
