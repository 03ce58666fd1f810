// ChainMemoryTests.swift — a chain of filters holds the tiles of the level being computed, not
// one waiting output tile per level (issue #28 finding 7: 511 blurs of σ 0.5 on a 0.4 MP image
// took over 5.6 GB, 300 of them 3.1 GB).

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class ChainMemoryTests: XCTestCase {
  /// 40 blurs of σ 0.5 over a 48 × 48 image rendered as one tile (36,864 bytes of float pixels,
  /// a size the tile pool counts): the most tile bytes in use at once stay within four such
  /// tiles (the level's input and output, the source's fill and one to spare), where holding
  /// each level's output while its input is computed takes 40; and the flat grey stays grey.
  func testAChainHoldsOneLevelsTilesNotOnePerLevel() throws {
    let grey = Image(color: Color(white: 0.5), size: Size(width: 48, height: 48))
    var chain = grey
    for _ in 0..<40 { chain = chain.blurred(sigma: 0.5) }
    let renderer = Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 64, height: 64)))
    let before = TileMemoryPool.bytesInUse
    TileMemoryPool.resetPeak()
    let pixels = try renderer.render(chain)
    let tiles = TileMemoryPool.peakBytesInUse - before
    let tile = TileMemoryPool.sizeClass(48 * 48 * 16)
    XCTAssertLessThanOrEqual(tiles, 4 * tile, "\(tiles / tile) tiles of the chain's 40 levels held at once")
    XCTAssertEqual(pixels.integerValues(), try renderer.render(grey).integerValues())
  }
}
