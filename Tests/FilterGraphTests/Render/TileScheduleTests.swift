// TileScheduleTests.swift — the schedule (tile size, thread count) never changes a pixel.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class TileScheduleTests: XCTestCase {
  /// A chain with a decoded PNG, orient, composite (overlay hanging off an edge), a solid colour
  /// a shared subgraph and a JPEG, 227 × 149: odd sizes so no tile size divides them.
  private func chain() throws -> Image {
    let photo = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    let rgb = try Image(contentsOf: Fixtures.url("pngsuite/basn2c08.png"))
    let jpeg = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let paper = Image(color: Color(red: 0.9, green: 0.85, blue: 0.7, alpha: 0.8), size: Size(width: 45, height: 38))
    let turned = photo.rotated(byDegrees: 270)
    return turned.composited(over: paper, gravity: .southEast, margin: 3, mode: .over)
      .composited(over: rgb.flippedVertically().composited(over: paper, at: Point(x: 20, y: -7), mode: .multiply), mode: .screen, opacity: 0.6)
      .composited(over: paper, at: Point(x: 0, y: 0), mode: .lighten)
      .rotated(byDegrees: 90)
      .composited(over: jpeg.flippedHorizontally(), at: Point(x: 150, y: 90), mode: .darken, opacity: 0.9)
  }

  func testTileParallelRenderEqualsOneTileOneThreadRender() throws {
    let img = try chain()
    let reference = try Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096)))
      .render(img, format: .rgbaFloatPremultiplied)
    XCTAssertEqual(reference.size, Size(width: 227, height: 149))
    let bytes = try Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096))).render(img)
    for tile in [Size(width: 16, height: 16), Size(width: 37, height: 5), Size(width: 512, height: 64), Size(width: 4096, height: 4096), Size(width: 8, height: 1)] {
      for threads in [1, 2, 3] {
        let r = Renderer(options: RendererOptions(threads: threads, tileSize: tile, bandsInFlight: threads == 3 ? 1 : nil))
        XCTAssertTrue(try r.render(img, format: .rgbaFloatPremultiplied).hasSamePixels(as: reference), "tile \(tile), \(threads) threads")
        XCTAssertTrue(try r.render(img).hasSamePixels(as: bytes), "tile \(tile), \(threads) threads, 8-bit")
      }
    }
  }

  func testTileRenderIsNotTriviallyConstant() throws {
    // Guards the test above: the chain's output has real structure to get wrong.
    let out = try Renderer(options: RendererOptions(threads: 1)).render(try chain(), format: .rgba8)
    var distinct = Set<UInt32>()
    out.withUnsafePixels(as: UInt32.self) { px in
      for y in 0..<out.height { for x in 0..<out.width { distinct.insert(px[row: y][x]) } }
    }
    XCTAssertGreaterThan(distinct.count, 100)
  }

  func testATextIsRasterisedBeforeTheTilesThatReadIt() throws {
    // A render queues the making of its rasters ahead of every tile: on one worker, which runs
    // its jobs in order, no tile finds the credit's raster unmade (`rasterWaits`), though only the
    // last bands read it, streamed or decoded, in a window of bands or all queued at once.
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let credit = try Image(text: "© 2026 A. P.", font: "DejaVu Sans", size: 14, color: .white)
    let image = credit.shadowed(sigma: 1.5, offset: Point(x: 1, y: 1)).composited(over: photo, gravity: .southEast, margin: 4)
    let plain = try Renderer(options: RendererOptions(threads: 1)).render(photo, format: .rgb8)
    for streaming in [true, false] {
      let r = Renderer(
        options: RendererOptions(threads: 1, tileSize: Size(width: 64, height: 16), streamingMinimumBytes: streaming ? 0 : .max))
      let plan = try r.prepare(image)
      XCTAssertEqual(plan.streamed.count, streaming ? 1 : 0)
      let raster = try XCTUnwrap(plan.rasters.values.first)
      let size = image.size
      let out = try PixelBuffer.allocate(width: size.width, height: size.height, format: .rgb8, colorSpace: .sRGB)
      try r.run(plan, format: .rgb8, band: { y, h in out.cropped(to: Rect(x: 0, y: y, width: size.width, height: h)) }) { _, _ in }
      XCTAssertTrue(raster.isDone)
      XCTAssertEqual(plan.rasterWaits.load(ordering: .relaxed), 0, "streaming \(streaming)")
      XCTAssertFalse(out.hasSamePixels(as: plain), "the tiles of the bottom corner read the text")
      let (eager, eagerPlan) = try r.render(image, format: .rgb8, reported: [])
      XCTAssertEqual(eagerPlan.rasterWaits.load(ordering: .relaxed), 0, "all bands queued at once")
      XCTAssertTrue(eager.hasSamePixels(as: out))
    }
  }
}

/// Test operation: copies its input, but throws for any tile that reaches row `failingRow`.
private struct FailingRowsOperation: ImageOperation {
  struct Failure: Error, Equatable { let row: Int }
  let failingRow: Int
  static let table = OperationDescriptor(name: "testfailrows", category: .color, summary: "", parameters: [], example: "")
  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { Arguments([("row", .number(Double(failingRow)))]) }
  var workingSpace: WorkingSpace? { nil }
  func render(into output: inout Tile, inputs: [Tile]) throws {
    if output.rect.y <= failingRow && failingRow < output.rect.maxY { throw Failure(row: failingRow) }
    output.buffer = inputs[0].buffer
  }
}

final class TileScheduleFailureTests: XCTestCase {
  /// A tile that fails in the middle of a render (every band queued at once by `render`, or a
  /// window of bands when writing) ends the render with that error, and the renderer keeps
  /// working: no job is left waiting, no thread hangs.
  func testAFailingTileEndsTheRenderWithItsErrorAndTheRendererStaysUsable() throws {
    let base = Image(color: Color(red: 0.2, green: 0.4, blue: 0.6), size: Size(width: 300, height: 200))
    for threads in [1, 2, 3] {
      let renderer = Renderer(options: RendererOptions(threads: threads, tileSize: Size(width: 64, height: 8)))
      for row in [0, 101, 199] {
        let failing = base.applying(FailingRowsOperation(failingRow: row))
        XCTAssertThrowsError(try renderer.render(failing), "\(threads) threads, row \(row)") { error in
          XCTAssertEqual(error as? FailingRowsOperation.Failure, FailingRowsOperation.Failure(row: row))
        }
        XCTAssertThrowsError(try renderer.encode(failing, format: .png), "\(threads) threads, row \(row), encode") { error in
          XCTAssertEqual(error as? FailingRowsOperation.Failure, FailingRowsOperation.Failure(row: row))
        }
      }
      let fine = try renderer.render(base.applying(FailingRowsOperation(failingRow: 1000)))
      XCTAssertTrue(fine.hasSamePixels(as: try renderer.render(base)), "\(threads) threads")
    }
  }
}
