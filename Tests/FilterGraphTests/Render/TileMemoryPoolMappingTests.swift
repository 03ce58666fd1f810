// TileMemoryPoolMappingTests.swift — the tile pool's large blocks come from the system and go back
// to it, never through malloc (issue #28, finding 2): glibc kept the tile-sized blocks a banded
// reduction lets go of, band after band, in its arenas. A 16383² PNG blurred and fit to 256 held
// about 100 MB of tiles and peaked at 716 MB; a 4096² one 61 MB of tiles, 484 MB peak. Checked on
// malloc's own accounting (`malloc_info`), not on the process's resident memory.

import Foundation
import TestSupport
import XCTest

@testable import FilterGraph

final class TileMemoryPoolMappingTests: XCTestCase {
  /// Tile-sized blocks taken and let go band after band on two threads, as a sequential reduction's
  /// workers do (more than the pool keeps idle): while held and once let go, malloc holds none of
  /// them. With the blocks from `posix_memalign`, each held block was malloc's (17 MB more each),
  /// and after the first was freed glibc served the rest from its arenas.
  func testLargeBlocksAreNeverMallocs() throws {
    guard let start = MallocInfo()?.systemBytes else { throw XCTSkip("malloc_info is not available") }
    let size = 17 << 20
    var held: [PixelStorage] = []
    for _ in 0..<3 { held.append(try TileMemoryPool.storage(byteCount: size)) }
    let whileHeld = try XCTUnwrap(MallocInfo()?.systemBytes)
    XCTAssertLessThan(whileHeld - start, size, "three 17 MB blocks held: malloc holds none of them")
    held.removeAll()
    for round in 0..<8 {
      let done = DispatchSemaphore(value: 0)
      Thread {
        let blocks = (0..<3).compactMap { i in try? TileMemoryPool.storage(byteCount: size - (round + i) * 4096) }
        withExtendedLifetime(blocks) {}
        done.signal()
      }.start()
      done.wait()
    }
    let after = try XCTUnwrap(MallocInfo()?.systemBytes)
    XCTAssertLessThan(after - start, size, "the blocks let go are not kept by malloc")
  }
}
