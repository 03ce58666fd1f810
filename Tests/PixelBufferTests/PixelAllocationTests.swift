// PixelAllocationTests.swift — memory the system refuses is an error the caller can report, for
// small blocks (malloc) and large ones (mapped), and a size whose bytes overflow is refused too.

import XCTest

@testable import PixelBufferModule

final class PixelAllocationTests: XCTestCase {
  func testARefusedLargeBlockThrowsWithItsSize() {
    // 2^60 bytes: more than any machine maps.
    XCTAssertThrowsError(try PixelStorage(allocating: 1 << 60)) { error in
      let refused = error as? PixelAllocationError
      XCTAssertEqual(refused?.byteCount, 1 << 60)
      XCTAssertEqual(refused?.description, "not enough memory: 1099511627776 MB for pixels could not be allocated")
    }
  }

  func testABufferWhoseByteCountOverflowsIsRefused() {
    XCTAssertThrowsError(try PixelBuffer.allocate(width: 1 << 40, height: 1 << 40, format: .rgba8)) { error in
      XCTAssertEqual((error as? PixelAllocationError)?.byteCount, .max)
    }
  }

  func testAllocatedBuffersAreUsableAndZeroedWhenAsked() throws {
    for (width, height) in [(3, 2), (1200, 1000)] {  // malloc'd and mapped
      var buffer = try PixelBuffer.allocate(width: width, height: height, format: .rgba8, zeroed: true)
      XCTAssertEqual(buffer.size, Size(width: width, height: height))
      buffer.withUnsafeMutablePixels(as: UInt8.self) { px in
        XCTAssertEqual(px[row: height - 1][width * 4 - 1], 0)
        px[row: height - 1][width * 4 - 1] = 7
      }
      buffer.withUnsafePixels(as: UInt8.self) { px in XCTAssertEqual(px[row: height - 1][width * 4 - 1], 7) }
    }
  }
}
