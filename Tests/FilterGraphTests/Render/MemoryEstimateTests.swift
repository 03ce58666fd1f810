// MemoryEstimateTests.swift — `Renderer.estimatedMemory` against what the renderer itself counts
// while it writes the image: the held copies it keeps (`AnalysisCache.retainedBytes`), the
// sources it decodes whole (`DecodeStatistics.bytesHeld`), the largest window of streamed rows
// (`largestStreamedWindowBytes`) and the tile pool's most bytes in use
// (`TileMemoryPool.peakBytesInUse`); a large blur's memory, so counted, not growing with σ; and
// the analysis grid that keeps it so.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class MemoryEstimateTests: XCTestCase {
  /// A 1600 × 1200 JPEG: 5.8 MB decoded, so streamed when read in order.
  private static let photo: Data = {
    var buffer = PixelBuffer(width: 1600, height: 1200, format: .rgb8)
    buffer.withUnsafeMutableBaseAddress { base, rowBytes in
      for y in 0..<1200 {
        let row = (base + y * rowBytes).assumingMemoryBound(to: UInt8.self)
        for x in 0..<1600 {
          row[x * 3] = UInt8((x / 7 + y / 5) & 255)
          row[x * 3 + 1] = UInt8((x * y / 97) & 255)
          row[x * 3 + 2] = UInt8(((x - 800) * (x - 800) + (y - 600) * (y - 600)) / 4000 & 255)
        }
      }
    }
    return try! Renderer(options: RendererOptions(threads: 2)).encode(Image(buffer: buffer), format: .jpeg)
  }()

  /// What the renderer counted while encoding `image` with `renderer`, part by part.
  private func counted(_ image: Image, by renderer: Renderer) throws -> (held: Int, decoded: Int, window: Int, tiles: Int) {
    let before = TileMemoryPool.bytesInUse
    TileMemoryPool.resetPeak()
    _ = try renderer.encode(image, format: .jpeg)
    let statistics = renderer.statistics
    return (
      renderer.analyses.retainedBytes, statistics.bytesHeld, statistics.largestStreamedWindowBytes,
      TileMemoryPool.peakBytesInUse - before
    )
  }

  /// Each part against the renderer's count; and, so counted, the tile memory of a large blur
  /// stays near a small blur's at any σ: the held reduction's tiles pull at most
  /// `inputTileByteLimit` from the source (held whole in one step with its blur, a σ 500 blur
  /// pulled the whole source as one float tile: 30 MB here).
  func testEachPartOfTheEstimateCoversWhatTheRendererCounts() throws {
    let photo = try Image(data: Self.photo)
    let cases: [(String, Image)] = [
      ("blur σ 2", photo.blurred(sigma: 2)),
      ("blur σ 50", photo.blurred(sigma: 50)),
      ("blur σ 200", photo.blurred(sigma: 200)),
      ("blur σ 500", photo.blurred(sigma: 500)),
      ("thumbnail", photo.scaled(toFit: Size(width: 200, height: 200))),
      ("flip (decoded whole)", photo.flippedVertically()),
      ("normalize", photo.normalized()),
      // The scale is smartcrop's small computed input, held (Renderer.heldInputSpace).
      ("smartcrop of a scale", photo.scaled(toWidth: 400).smartCropped(to: Size(width: 200, height: 150))),
    ]
    var blurTiles: [String: Int] = [:]
    for (name, image) in cases {
      let renderer = Renderer(options: RendererOptions(threads: 2))
      let estimate = renderer.memoryEstimate(for: image)
      XCTAssertEqual(renderer.estimatedMemory(for: image), estimate.total, name)
      let real = try counted(image, by: renderer)
      // Held copies and whole decodes are known exactly; a stream's window is computed by the
      // rule the render follows.
      XCTAssertEqual(estimate.held, real.held, "\(name): held copies")
      XCTAssertEqual(estimate.decoded, real.decoded, "\(name): sources decoded whole")
      XCTAssertEqual(estimate.window, real.window, "\(name): streamed rows")
      // Tiles: an upper bound, and not a loose one.
      XCTAssertLessThanOrEqual(real.tiles, estimate.tiles, "\(name): tiles")
      XCTAssertLessThanOrEqual(estimate.tiles, 4 * real.tiles, "\(name): tiles, \(real.tiles) counted")
      if name.hasPrefix("blur") { blurTiles[name] = real.tiles }
    }
    let small = try XCTUnwrap(blurTiles["blur σ 2"])
    for (name, tiles) in blurTiles {
      XCTAssertLessThanOrEqual(tiles, small + 2 * Renderer.inputTileByteLimit, "\(name): \(tiles) against σ 2's \(small)")
    }
  }

  /// The blur's held copies are in the estimate from σ 33 on, 2 × 16 bytes per reduced pixel
  /// (rows aligned to 64 bytes); a σ 500 blur of 1600 × 1200 holds two 26 × 19 copies.
  func testALargeBlursEstimateCountsItsHeldCopies() throws {
    let photo = try Image(data: Self.photo)
    let renderer = Renderer(options: RendererOptions(threads: 2))
    XCTAssertEqual(renderer.memoryEstimate(for: photo.blurred(sigma: 32)).held, 0)
    XCTAssertEqual(renderer.memoryEstimate(for: photo.blurred(sigma: 500)).held, 2 * 19 * 448)
    XCTAssertEqual(renderer.memoryEstimate(for: photo.blurred(sigma: 40)).held, 2 * 320 * 240 * 16)
  }

  /// The analysis's grid keeps every tile's pull from the source within the limit at any σ, down
  /// to a few reduced pixels a tile (σ 2000 on 6000 × 4000: k = 250, a reduced pixel pulls 1 MB).
  func testAnAnalysisTilePullsAtMostTheLimitFromItsSource() throws {
    let source = Image(node: ImageNode(operation: ColorSourceOperation(color: Color(red: 0.2, green: 0.4, blue: 0.6), size: Size(width: 6000, height: 4000)), inputs: []))
    let renderer = Renderer(options: RendererOptions(threads: 2))
    for sigma in [50.0, 200, 500, 2000] {
      let k = try XCTUnwrap(GaussianBlurOperation(.setting { $0.sigma = sigma }).pyramidFactor)
      let reduction = source.scaled(
        to: Size(width: (6000 + k / 2) / k, height: (4000 + k / 2) / k), kernel: .box, linearLight: true, allowsShrinkOnLoad: false)
      let tile = renderer.tileSize(for: reduction.node, bounded: true)
      let pulled = Renderer.largestInputBytes(reduction.node, Rect(x: 0, y: 0, width: tile.width, height: tile.height))
      XCTAssertLessThanOrEqual(pulled, Renderer.inputTileByteLimit, "σ \(sigma): \(tile)")
      // An output render's grid would pull more for the same image.
      let unbounded = renderer.tileSize(for: reduction.node)
      XCTAssertGreaterThan(
        Renderer.largestInputBytes(reduction.node, Rect(x: 0, y: 0, width: min(unbounded.width, reduction.size.width), height: min(unbounded.height, reduction.size.height))),
        Renderer.inputTileByteLimit, "σ \(sigma)")
    }
  }
}
