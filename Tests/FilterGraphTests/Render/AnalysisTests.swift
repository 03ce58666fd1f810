// AnalysisTests.swift — analyses computed before the tiles: once per render, kept across renders,
// independent of tiling, shown by explain.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

/// Counts pixels and sums red over the view; counts how often its tiles were reduced.
private struct SumAnalysis: ImageAnalysis {
  var view: AnalysisView = .fullSize
  var label: String { "sum" }
  var workingSpace: WorkingSpace { .encoded }
  func partial(of tile: Tile, viewSize: Size) -> SIMD2<Double> {
    tile.withPixels { px in
      var s = SIMD2<Double>(0, 0)
      for y in 0..<px.height { for x in 0..<px.width { s += SIMD2(1, Double(px[row: y][x].x)) } }
      return s
    }
  }
  func merged(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> SIMD2<Double> { a + b }
  func result(_ p: SIMD2<Double>, viewSize: Size, imageSize: Size) -> SIMD2<Double> { p }
}

final class AnalysisTests: XCTestCase {
  func testReductionCoversEveryPixelOnceWhateverTheTiling() throws {
    let image = floatImage(samplePixels(37 * 23, opaque: true), width: 37)
    let want = samplePixels(37 * 23, opaque: true).reduce(0.0) { $0 + Double($1.x) }
    for renderer in [colorRenderer, oneTileRenderer, Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 8, height: 3)))] {
      let sum = try renderer.analyse(image, SumAnalysis())
      XCTAssertEqual(sum.x, 37 * 23)
      XCTAssertEqual(sum.y, want, accuracy: 1e-3)
    }
  }

  func testComputedOncePerRenderAndKeptAcrossRenders() throws {
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))
    let photo = try Image(contentsOf: photoURL)
    // The same normalize read by two branches: one analysis.
    let a = photo.normalized(), b = photo.normalized()
    _ = try renderer.render(a.overlaid(with: b, mode: .multiply))
    XCTAssertEqual(renderer.analysisStatistics.computed, 1)
    _ = try renderer.render(photo.normalized().blurred(sigma: 1))
    XCTAssertEqual(renderer.analysisStatistics.computed, 1)
    XCTAssertEqual(renderer.analysisStatistics.reused, 2)
    // Other settings of the analysis, or another input, are computed anew: here the small
    // computed input is held first (Renderer.heldInputSpace), one more analysis.
    _ = try renderer.render(photo.blurred(sigma: 1).normalized())
    XCTAssertEqual(renderer.analysisStatistics.computed, 3)
    XCTAssertEqual(renderer.analysisStatistics.timings.count, 3)
    // Clearing the cache drops the kept results too.
    renderer.clearCache()
    _ = try renderer.render(photo.normalized())
    XCTAssertEqual(renderer.analysisStatistics.computed, 4)
  }

  func testInMemoryPixelsAtAReusedAddressAreAnalysedAnew() throws {
    // A caller that renders frames out of one block of memory (a capture ring, a pool of frame
    // buffers) wraps the same address again with new pixels each time; the allocator also hands
    // a freed storage object's address to the next one. Each frame must be analysed anew.
    let renderer = Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 16, height: 16)))
    let format = PixelFormat(layout: .rgba, component: .float32)
    let rowBytes = 9 * format.bytesPerPixel
    let block = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * 5, alignment: PixelStorage.alignment)
    defer { block.deallocate() }
    for frame in 0..<64 {
      let value = Float(frame % 16 + 1) / 16
      block.initializeMemory(as: Float.self, repeating: 0, count: 9 * 5 * 4)
      for i in 0..<(9 * 5) {
        block.storeBytes(of: value, toByteOffset: i * 16, as: Float.self)
        block.storeBytes(of: 1, toByteOffset: i * 16 + 12, as: Float.self)
      }
      let storage = PixelStorage(adopting: block, byteCount: rowBytes * 5, deallocator: { _ in })
      let buffer = PixelBuffer(storage: storage, width: 9, height: 5, rowBytes: rowBytes, format: format)
      let sum = try renderer.analyse(Image(buffer: buffer), SumAnalysis())
      XCTAssertEqual(sum.y, Double(value) * 45, accuracy: 1e-3, "frame \(frame)")
    }
    XCTAssertEqual(renderer.analysisStatistics.computed, 64)
  }

  func testTileParallelEqualsOneTile() throws {
    let photo = try Image(contentsOf: photoURL)
    let image = photo.normalized(low: 0.05, high: 0.9).modulated(saturation: 1.2)
    let parallel = try renderFloat(image, renderer: Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 40, height: 16))))
    let single = try renderFloat(image, renderer: Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096))))
    assertPixelsClose(parallel, single, tolerance: 0)
  }

  func testExplainShowsTheAnalysis() throws {
    let photo = try Image(contentsOf: photoURL)
    let text = try colorRenderer.explain(photo.normalized())
    XCTAssertTrue(text.contains("analysis before the tiles: histogram of r,g,b bins=4096 (≤ 4 MP view)"), text)
  }

  func testResolvedReplacesAnalysedNodes() throws {
    let photo = try Image(contentsOf: photoURL)
    let resolved = try colorRenderer.resolved(photo.normalized().modulated(hue: 10))
    XCTAssertTrue(resolved.node.inputs[0].operation is LevelsOperation)
    let plain = photo.modulated(hue: 10)
    XCTAssertTrue(try colorRenderer.resolved(plain).node === plain.node)
  }
}
