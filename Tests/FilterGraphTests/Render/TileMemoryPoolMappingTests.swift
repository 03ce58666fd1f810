// TileMemoryPoolMappingTests.swift — the tile pool's large blocks come from the system and go back
// to it, never through malloc (issue #28, finding 2): glibc kept the tile-sized blocks a banded
// reduction lets go of, band after band, in its arenas. A 16383² PNG blurred and fit to 256 held
// about 100 MB of tiles and peaked at 716 MB; a 4096² one 61 MB of tiles, 484 MB peak. Checked on
// malloc's own accounting (`malloc_info`), not on the process's resident memory.

import Foundation
import XCTest

@testable import FilterGraph

#if canImport(Glibc)
  import Glibc
#endif

final class TileMemoryPoolMappingTests: XCTestCase {
  /// What glibc's allocator holds from the system: its arenas' current size and the blocks it
  /// mapped directly (`malloc_info`'s `<system type="current">` and `<total type="mmap">`, over
  /// every arena). Nil where `malloc_info` is missing.
  static func mallocHeldBytes() -> Int? {
    guard let symbol = dlsym(nil, "malloc_info") else { return nil }
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    var text: UnsafeMutablePointer<CChar>?
    var length = 0
    guard let stream = open_memstream(&text, &length) else { return nil }
    _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
    fclose(stream)
    defer { free(text) }
    guard let text else { return nil }
    let xml = String(cString: text)
    func total(_ pattern: String) -> Int {
      guard let range = xml.range(of: pattern, options: .backwards) else { return 0 }
      let rest = xml[range.upperBound...]
      guard let size = rest.range(of: "size=\"") else { return 0 }
      return Int(rest[size.upperBound...].prefix { $0.isNumber }) ?? 0
    }
    return total("<system type=\"current\"") + total("<total type=\"mmap\"")
  }

  /// Tile-sized blocks taken and let go band after band on two threads, as a sequential reduction's
  /// workers do (more than the pool keeps idle): while held and once let go, malloc holds none of
  /// them. With the blocks from `posix_memalign`, each held block was malloc's (17 MB more each),
  /// and after the first was freed glibc served the rest from its arenas.
  func testLargeBlocksAreNeverMallocs() throws {
    guard let start = Self.mallocHeldBytes() else { throw XCTSkip("malloc_info is not available") }
    let size = 17 << 20
    var held: [PixelStorage] = []
    for _ in 0..<3 { held.append(try TileMemoryPool.storage(byteCount: size)) }
    let whileHeld = try XCTUnwrap(Self.mallocHeldBytes())
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
    let after = try XCTUnwrap(Self.mallocHeldBytes())
    XCTAssertLessThan(after - start, size, "the blocks let go are not kept by malloc")
  }
}
