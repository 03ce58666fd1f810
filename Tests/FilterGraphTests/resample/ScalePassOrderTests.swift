// ScalePassOrderTests.swift — a scale that enlarges vertically and shrinks horizontally runs its
// horizontal pass first (Scale+PassOrder.swift): each tile computes the shrunk rows, not the
// enlarged full-width ones (`scale size=65535x1; scale size=1x65535` took over a minute, issue #28
// finding 11), and the result is the separable sum Scale.swift defines.

import Foundation
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class ScalePassOrderTests: XCTestCase {
  /// A 2048 × 2 image scaled to 1 × 2048, from stored 8-bit rows and from a float source. Each
  /// 1 × 64 output tile reads about 12,300 × 7 input pixels (the kernel stretched 2048 times
  /// across, edges repeated): 1.4 MB per worker as a float tile. With the vertical pass first it
  /// also computed 12,300 × 64 enlarged pixels per tile (a 12.6 MB scratch, 25 M pixels in all);
  /// with the horizontal pass first a few shrunk ones, so the tile pool's peak stays under 8 MB.
  func testAnEnlargeAfterAShrinkAcrossAxesComputesTheShrunkRows() throws {
    let target = Size(width: 1, height: 2048)
    let eight = ConvolutionTestHelpers.randomImage(width: 2048, height: 2, seed: 5)
    let float = ConvolutionTestHelpers.floatImage(width: 2048, height: 2) { x, y in SIMD4(Float(x % 7) / 7, Float(y), 0.5, 1) }
    let renderer = Renderer(options: RendererOptions(threads: 2))
    for (name, source) in [("8-bit rows", eight), ("float source", float)] {
      let image = source.scaled(to: target)
      let before = TileMemoryPool.bytesInUse
      TileMemoryPool.resetPeak()
      let out = try renderer.render(image, format: ConvolutionTestHelpers.floatFormat)
      let peak = TileMemoryPool.peakBytesInUse - before
      XCTAssertEqual(out.size, target)
      XCTAssertLessThan(peak, 8 << 20, "\(name): input tiles, not 12,300 × 64 enlarged pixels per tile")
    }
  }

  /// Horizontal pass first equals the definition out(x, y) = Σᵢ Σⱼ wx(x, i)·wy(y, j)·in(i, j)
  /// (edges repeated, alpha clipped to 0…1), computed here in Double from each axis's own
  /// weights, within float rounding, for every kernel but nearest, on small tiles (many seams).
  func testTheHorizontalPassFirstIsTheSeparableSum() throws {
    let inSize = Size(width: 203, height: 5), target = Size(width: 9, height: 70)
    let pixel: (Int, Int) -> SIMD4<Float> = { x, y in
      let a = Float((x * 7 + y * 13) % 97) / 96
      return SIMD4(Float((x * 31 + y) % 251) / 250 * a, Float((x + y * 17) % 101) / 100 * a, a * 0.5, a)
    }
    let image = ConvolutionTestHelpers.floatImage(width: inSize.width, height: inSize.height, pixel)
    for kernel in ResampleKernel.allCases where kernel != .nearest {
      XCTAssertTrue(ScaleOperation(targetSize: target, kernel: kernel).runsHorizontalPassFirst(inputImageSize: inSize))
      let out = try ConvolutionTestHelpers.renderFloat(image.scaled(to: target, kernel: kernel, linearLight: false))
      var worst = 0.0
      for y in 0..<target.height {
        let wy = Self.weights(y, inSize.height, target.height, kernel)
        for x in 0..<target.width {
          let wx = Self.weights(x, inSize.width, target.width, kernel)
          var sum = SIMD4<Double>()
          for (j, b) in wy {
            for (i, a) in wx {
              let p = pixel(min(max(i, 0), inSize.width - 1), min(max(j, 0), inSize.height - 1))
              sum += a * b * SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w))
            }
          }
          let alpha = min(max(sum.w, 0), 1)
          let expected = alpha > 0 ? SIMD4(sum.x, sum.y, sum.z, alpha) : SIMD4<Double>()
          let got = out[y][x]
          for c in 0..<4 { worst = max(worst, abs(Double(got[c]) - expected[c])) }
        }
      }
      XCTAssertLessThan(worst, 2e-6, "\(kernel): largest difference from the separable sum")
    }
  }

  /// The banded render (a large input region taken a band of rows at a time) and the render
  /// from stored 8-bit rows give the whole float region's floats bit for bit.
  func testBandsAndStoredRowsGiveTheSameFloats() throws {
    let inSize = Size(width: 301, height: 6)
    let op = ScaleOperation(targetSize: Size(width: 11, height: 40), kernel: .lanczos3, linearLight: false)
    let info = Image(color: .white, size: inSize).node.info
    let rect = Rect(x: 2, y: 5, width: 7, height: 30)
    let region = op.inputRegion(for: rect, input: 0, inputs: [info])
    var codes = [[UInt8]](repeating: [], count: region.height)
    var input = Tile(rect: region, imageSize: inSize)
    input.withMutablePixels { px in
      for r in 0..<region.height {
        let y = min(max(region.y + r, 0), inSize.height - 1)
        codes[r] = (0..<(3 * inSize.width)).map { UInt8(truncatingIfNeeded: $0 * 37 + y * 101) }
        for c in 0..<region.width {
          let x = min(max(region.x + c, 0), inSize.width - 1)
          px[row: r][c] = SIMD4(Float(codes[r][3 * x]) / 255, Float(codes[r][3 * x + 1]) / 255, Float(codes[r][3 * x + 2]) / 255, 1)
        }
      }
    }
    var whole = Tile(rect: rect, imageSize: op.targetSize)
    try op.render(into: &whole, inputs: [input])
    for bandRows in [1, 4] {
      var banded = Tile(rect: rect, imageSize: op.targetSize)
      try op.render(into: &banded, input: region, inputImageSize: inSize, bandRows: bandRows) { rows in
        var band = Tile(rect: Rect(x: region.x, y: rows.lowerBound, width: region.width, height: rows.count), imageSize: inSize)
        input.withPixels { src in
          band.withMutablePixels { dst in
            for r in 0..<rows.count { dst[row: r].update(from: src[row: rows.lowerBound - region.y + r], count: region.width) }
          }
        }
        return band
      }
      XCTAssertEqual(Self.bits(banded), Self.bits(whole), "bands of \(bandRows) rows")
    }
    let inside = max(region.x, 0)..<min(region.maxX, inSize.width)
    var stored = Tile(rect: rect, imageSize: op.targetSize)
    let pointers = codes.map { UnsafeMutablePointer<UInt8>.allocate(capacity: $0.count) }
    defer { pointers.forEach { $0.deallocate() } }
    for (p, row) in zip(pointers, codes) { p.update(from: row, count: row.count) }
    try op.render(
      into: &stored, rows: pointers.map { UnsafePointer($0 + 3 * inside.lowerBound) },
      columns: (inside.lowerBound - region.x)..<(inside.upperBound - region.x), channels: 3, input: region, inputImageSize: inSize)
    XCTAssertEqual(Self.bits(stored), Self.bits(whole), "stored 8-bit rows")
  }

  /// Output `x`'s normalised weights on an axis, by input position.
  private static func weights(_ x: Int, _ inSize: Int, _ outSize: Int, _ kernel: ResampleKernel) -> [(Int, Double)] {
    let taps = ResampleAxis.taps(for: x, inSize: inSize, outSize: outSize, kernel: kernel)
    let sum = taps.weights.reduce(0, +)
    return taps.weights.enumerated().map { (taps.start + $0.offset, $0.element / sum) }
  }

  private static func bits(_ tile: Tile) -> [UInt32] {
    tile.withPixels { px in (0..<px.height).flatMap { y in (0..<px.width).flatMap { x in (0..<4).map { px[row: y][x][$0].bitPattern } } } }
  }
}
