// BandedReductionTests.swift — a large reduction of a computed image takes its input in bands
// (`BandedInputReader`): the same floats as the whole region, bit for bit, for every kernel; and
// memory bounded by a band, not the image (`pad size=16383x16383; scale fit=100x100` held the whole
// 16383² float region, 4.3 GB, for its one output tile).

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class BandedReductionTests: XCTestCase {
  /// A float tile of `rect` whose pixels all differ (premultiplied, alpha varying).
  private func pattern(_ rect: Rect) -> Tile {
    var tile = Tile(rect: rect, imageSize: Size(width: rect.maxX, height: rect.maxY))
    tile.withMutablePixels { px in
      for y in 0..<px.height {
        for x in 0..<px.width {
          let a = Float((x * 7 + y * 13) % 97) / 96
          let c = SIMD4<Float>(Float((x * 31 + y) % 251) / 250, Float((x + y * 17) % 101) / 100, sin(Float(x * y) / 50), 1)
          px[row: y][x] = SIMD4(c.x * a, c.y * a, c.z * a, a)
        }
      }
    }
    return tile
  }

  /// Every kernel: the banded render of an output tile equals the whole-region render exactly,
  /// for bands of 1, 7 and 64 rows, and for a tile in the middle of the output.
  func testBandsGiveTheWholeRegionsFloatsBitForBit() throws {
    let inSize = Size(width: 301, height: 257)
    let input = pattern(Rect(x: 0, y: 0, width: inSize.width, height: inSize.height))
    let info = Image(color: .white, size: inSize).node.info
    for kernel in ResampleKernel.allCases {
      let op = ScaleOperation(targetSize: Size(width: 37, height: 29), kernel: kernel)
      for rect in [Rect(x: 0, y: 0, width: 37, height: 29), Rect(x: 5, y: 11, width: 20, height: 9)] {
        let region = op.inputRegion(for: rect, input: 0, inputs: [info])
        let inside = try TileConversion.extendEdges(cropped(input, to: Regions.computed(region, extent: Rect(x: 0, y: 0, width: inSize.width, height: inSize.height))), to: region)
        var whole = Tile(rect: rect, imageSize: op.targetSize)
        try op.render(into: &whole, inputs: [withSize(inside, inSize)])
        for bandRows in [1, 7, 64] {
          var banded = Tile(rect: rect, imageSize: op.targetSize)
          var asked: [Range<Int>] = []
          try op.render(into: &banded, input: region, inputImageSize: inSize, bandRows: bandRows) { rows in
            asked.append(rows)
            return cropped(inside, to: Rect(x: region.x, y: rows.lowerBound, width: region.width, height: rows.count))
          }
          XCTAssertEqual(asked.first?.lowerBound, region.y, "\(kernel) bands start at the region's top")
          XCTAssertEqual(asked.last?.upperBound, region.maxY, "\(kernel) bands end at the region's bottom")
          XCTAssertTrue(asked.allSatisfy { $0.count <= bandRows }, "\(kernel): bands of at most \(bandRows) rows")
          let (a, b) = (floats(banded), floats(whole))
          let differing = zip(a, b).filter { $0 != $1 }.count
          XCTAssertEqual(differing, 0, "\(kernel), tile \(rect), bands of \(bandRows) rows: floats that differ")
        }
      }
    }
  }

  /// A 4800 × 4800 solid image fit to 100: each output tile reads 9–16 M input pixels (145–260
  /// MB of floats, held whole before, with the copy that repeats their edges), now taken in
  /// bands of about a million pixels. The working tiles stay within the estimate and far under
  /// one whole region, and the thumbnail is the colour.
  func testAReductionOfAHugeComputedImageHoldsBandsNotTheImage() throws {
    let image = Image(color: Color(red: 0.2, green: 0.4, blue: 0.6), size: Size(width: 4800, height: 4800))
      .scaled(toFit: Size(width: 100, height: 100))
    let renderer = Renderer(options: RendererOptions(threads: 2))
    let estimate = renderer.memoryEstimate(for: image)
    let before = TileMemoryPool.bytesInUse
    TileMemoryPool.resetPeak()
    let buffer = try renderer.render(image, format: .rgba8)
    let tiles = TileMemoryPool.peakBytesInUse - before
    XCTAssertLessThanOrEqual(tiles, estimate.tiles, "tiles counted against the estimate")
    XCTAssertLessThan(tiles, 144 << 20, "bands and scratch, not whole regions")
    XCTAssertEqual(buffer.width, 100)
    for (x, y) in [(0, 0), (50, 50), (99, 99), (10, 80)] {
      let pixel = buffer.withUnsafeBaseAddress { base, rowBytes in (0..<3).map { Int((base + y * rowBytes + x * 4 + $0).load(as: UInt8.self)) } }
      for (code, expected) in zip(pixel, [51, 102, 153]) { XCTAssertEqual(code, expected, accuracy: 1, "pixel \(x),\(y): \(pixel)") }
    }
  }

  private func cropped(_ tile: Tile, to rect: Rect) -> Tile {
    var out = Tile(rect: rect, imageSize: tile.imageSize)
    tile.withPixels { src in
      out.withMutablePixels { dst in
        for y in 0..<rect.height {
          for x in 0..<rect.width { dst[row: y][x] = src[row: rect.y - tile.rect.y + y][rect.x - tile.rect.x + x] }
        }
      }
    }
    return out
  }

  private func withSize(_ tile: Tile, _ size: Size) -> Tile {
    var tile = tile
    tile.imageSize = size
    return tile
  }

  private func floats(_ tile: Tile) -> [UInt32] {
    tile.withPixels { px in (0..<px.height).flatMap { y in (0..<px.width).flatMap { x in (0..<4).map { px[row: y][x][$0].bitPattern } } } }
  }
}
