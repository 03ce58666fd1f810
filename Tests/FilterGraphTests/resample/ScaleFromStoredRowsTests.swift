// Tests of ScaleOperation reading stored 8-bit rows directly (the renderer's path for a decoded
// gray or RGB source): the same floats as through a float tile, in linear light and encoded.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class ScaleFromStoredRowsTests: XCTestCase {
  func testStoredRowsGiveTheFloatsOfTheConvertedTile() throws {
    // A 300 × 200 image (several 64-column strips and a tail), gray and RGB, in linear light and
    // encoded, output tiles inside it and at its corners (the region reaching past the edges),
    // for downscales and an upscale: the direct render of each tile equals `render` of the float
    // tile the evaluator would build (the region loaded, its edges repeated), bit for bit.
    var rng = SeededGenerator(seed: 12)
    let inSize = Size(width: 300, height: 200)
    let image = Rect(x: 0, y: 0, width: inSize.width, height: inSize.height)
    let cases: [(Size, Rect, ResampleKernel)] = [
      (Size(width: 80, height: 53), Rect(x: 10, y: 7, width: 37, height: 20), .lanczos3),
      (Size(width: 80, height: 53), Rect(x: 20, y: 5, width: 40, height: 40), .mitchell),
      (Size(width: 71, height: 50), Rect(x: 3, y: 4, width: 65, height: 41), .lanczos3),
      (Size(width: 500, height: 300), Rect(x: 100, y: 50, width: 150, height: 30), .lanczos3),
      (Size(width: 80, height: 53), Rect(x: 0, y: 0, width: 30, height: 20), .lanczos3),
      (Size(width: 80, height: 53), Rect(x: 50, y: 40, width: 30, height: 13), .lanczos3),
      (Size(width: 80, height: 53), Rect(x: 0, y: 0, width: 80, height: 53), .lanczos3),
      (Size(width: 9, height: 6), Rect(x: 0, y: 0, width: 9, height: 6), .lanczos3),
      (Size(width: 500, height: 300), Rect(x: 440, y: 0, width: 60, height: 17), .mitchell),
    ]
    for (channels, format, linear) in [(1, PixelFormat.gray8, false), (3, PixelFormat.rgb8, false), (1, .gray8, true), (3, .rgb8, true)] {
      let bytes = (0..<(inSize.width * inSize.height * channels)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
      for (target, rect, kernel) in cases {
        let op = ScaleOperation(targetSize: target, kernel: kernel, linearLight: linear)
        let xs = ResampleAxis.span(of: rect.x, rect.maxX, inSize: inSize.width, outSize: target.width, kernel: kernel)
        let ys = ResampleAxis.span(of: rect.y, rect.maxY, inSize: inSize.height, outSize: target.height, kernel: kernel)
        let region = Rect(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count)
        let inside = region.intersection(image)
        try bytes.withUnsafeBufferPointer { b in
          let rowBytes = inSize.width * channels
          func pixel(_ x: Int, _ y: Int) -> UnsafePointer<UInt8> { b.baseAddress! + y * rowBytes + x * channels }
          var input = Tile(rect: region, imageSize: inSize)
          input.withMutablePixels { px in
            let inner = inside.offsetBy(dx: -region.x, dy: -region.y)
            TileConversion.load(
              rows: { UnsafeRawPointer(pixel(inside.x, inside.y + $0)) }, format: format, colorSpace: .sRGB,
              into: px.cropped(to: inner), space: linear ? .linear : .encoded)
            TileConversion.extendEdges(in: px, around: inner)
          }
          var viaTile = Tile(rect: rect, imageSize: target)
          try op.render(into: &viaTile, inputs: [input])
          let rows = (0..<region.height).map { pixel(inside.x, min(max(region.y + $0, 0), inSize.height - 1)) }
          var viaRows = Tile(rect: rect, imageSize: target)
          try op.render(
            into: &viaRows, rows: rows, columns: (inside.x - region.x)..<(inside.maxX - region.x), channels: channels,
            input: region, inputImageSize: inSize)
          XCTAssertTrue(
            viaRows.buffer.hasSamePixels(as: viaTile.buffer), "\(format) linear \(linear) \(kernel) → \(target) tile \(rect)")
        }
      }
    }
  }

  func testRenderedThroughStoredRowsEqualsTheGeneralPath() throws {
    // The same opaque picture as RGB (read directly by the scale) and as RGBA (alpha excludes
    // the direct path), tiled finely and as one tile, in linear light and encoded: the same bytes.
    var rgb = PixelBuffer(width: 257, height: 181, format: .rgb8)
    var rgba = PixelBuffer(width: 257, height: 181, format: .rgba8)
    var rng = SeededGenerator(seed: 13)
    rgb.withUnsafeMutablePixels(as: UInt8.self) { p in
      rgba.withUnsafeMutablePixels(as: UInt8.self) { q in
        for y in 0..<181 {
          for x in 0..<257 {
            for c in 0..<3 {
              let v = UInt8(truncatingIfNeeded: rng.next())
              p[row: y][3 * x + c] = v
              q[row: y][4 * x + c] = v
            }
            q[row: y][4 * x + 3] = 255
          }
        }
      }
    }
    for renderer in [ResampleTestSupport.fine, ResampleTestSupport.single] {
      for target in [Size(width: 64, height: 45), Size(width: 400, height: 300)] {
        for linear in [false, true] {
          let direct = try renderer.render(Image(buffer: rgb).scaled(to: target, linearLight: linear), format: .rgb8)
          let general = try renderer.render(Image(buffer: rgba).scaled(to: target, linearLight: linear), format: .rgb8)
          XCTAssertTrue(direct.hasSamePixels(as: general), "→ \(target) linear \(linear)")
        }
      }
    }
  }
}
