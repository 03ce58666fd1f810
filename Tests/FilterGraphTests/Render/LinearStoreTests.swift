// LinearStoreTests.swift — linear tiles written straight to 8-bit codes, and narrowed tiles.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class LinearStoreTests: XCTestCase {
  /// The exact code of a linear value: 255·encode(l) rounded, halves up.
  private func exactCode(_ l: Float) -> Int {
    Int((SRGBTransfer.encode(Double(min(max(l, 0), 1))) * 255).rounded())
  }

  func testLinear8CodesAreTheExactRounding() {
    let entries = TileConversion.Linear8.entries, thresholds = TileConversion.Linear8.thresholds
    entries.withUnsafeBufferPointer { eb in
      do {
        let e = eb.baseAddress!
        func code(_ l: Float) -> Int { Int(TileConversion.Linear8.code(l, e)) }
        // A dense sweep, every threshold and its neighbours, the table's own points, out of range.
        var values: [Float] = (0...200_000).map { Float($0) / 200_000 }
        for k in 1...255 { let t = thresholds[k]; values += [t, t.nextDown, t.nextUp] }
        values += (0...4096).map { Float($0) / 4096 } + [-1, -0, 1.5, .infinity, -.infinity, 1e-30]
        for l in values { XCTAssertEqual(code(l), exactCode(l), "l = \(l)") }
        XCTAssertEqual(code(.nan), 0)
        // The three-lane vector path gives the same codes.
        var out = [UInt8](repeating: 0, count: 3)
        for i in stride(from: 0, to: values.count - 2, by: 3) {
          let v = SIMD4(values[i], values[i + 1], values[i + 2], 1)
          TileConversion.Linear8.store3(v, &out, e)
          XCTAssertEqual(out.map(Int.init), [exactCode(v.x), exactCode(v.y), exactCode(v.z)], "\(v)")
        }
      }
    }
  }

  func testLinearChainToEightBitsMatchesTheFloatRenderWithinOneCode() throws {
    // A linear-light blur of a partly transparent picture: the 8-bit render takes the direct
    // linear → code path; the float render encodes, and rounding it here must agree within 1.
    let picture = Image(buffer: PixelBuffer.random(width: 97, height: 61, format: .rgba8, seed: 7)).blurred(sigma: 1.5)
    XCTAssertEqual(Renderer.outputSpace(of: picture.node), .linear)
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 32, height: 16)))
    let bytes = try renderer.render(picture, format: .rgba8)
    let floats = try renderer.render(picture, format: .rgbaFloatPremultiplied)
    var worst = 0
    bytes.withUnsafePixels(as: UInt8.self) { b in
      floats.withUnsafePixels(as: Float.self) { f in
        for y in 0..<bytes.height {
          for x in 0..<bytes.width {
            let a = f[row: y][4 * x + 3]
            for c in 0..<3 {
              let straight = a > 0 ? f[row: y][4 * x + c] / a : 0
              let expected = Int((min(max(straight, 0), 1) * 255).rounded())
              worst = max(worst, abs(Int(b[row: y][4 * x + c]) - expected))
            }
            worst = max(worst, abs(Int(b[row: y][4 * x + 3]) - Int((a * 255).rounded())))
          }
        }
      }
    }
    XCTAssertLessThanOrEqual(worst, 1)
  }

  func testStrongDownscaleNarrowsTilesAndKeepsEveryPixel() throws {
    // 2400 × 400 to a fifth: a 512 × 64 tile would read ~2.6k × 340 input pixels (14 MB).
    let small = Image(buffer: PixelBuffer.random(width: 2400, height: 400, format: .rgb8, seed: 3)).scaled(by: 0.2)
    let renderer = Renderer(options: RendererOptions(threads: 2))
    let tiles = renderer.tileSize(for: small.node)
    XCTAssertLessThan(tiles.width, 512)
    XCTAssertGreaterThanOrEqual(tiles.width, 64)
    XCTAssertEqual(tiles.height, 64)
    XCTAssertLessThan(
      Renderer.largestInputBytes(small.node, Rect(x: 0, y: 0, width: tiles.width, height: tiles.height)),
      Renderer.largestInputBytes(small.node, Rect(x: 0, y: 0, width: 480, height: 64)) / 3)
    let reference = try Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 37, height: 5))).render(small)
    XCTAssertTrue(try renderer.render(small).hasSamePixels(as: reference))
    // A light filter keeps the configured tiles.
    let photo = Image(buffer: PixelBuffer.random(width: 2400, height: 400, format: .rgb8, seed: 3))
    XCTAssertEqual(renderer.tileSize(for: photo.blurred(sigma: 1).node), Size(width: 512, height: 64))
  }
}
