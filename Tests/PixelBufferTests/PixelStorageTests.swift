// PixelStorageTests.swift — large blocks (mapped with huge pages on Linux) behave like any other:
// zeroed when asked, writable end to end, aligned, and released; every block and every write to
// one has a contents identity of its own.

import XCTest

@testable import PixelBufferModule

final class PixelStorageTests: XCTestCase {
  func testContentsIdentityIsNeverReusedAndChangesOnWrite() {
    let block = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)
    defer { block.deallocate() }
    // The same memory wrapped twice: two identities.
    let first = PixelStorage(adopting: block, byteCount: 64, deallocator: { _ in }).contentsIdentity
    let second = PixelStorage(adopting: block, byteCount: 64, deallocator: { _ in }).contentsIdentity
    XCTAssertNotEqual(first, second)
    var buffer = PixelBuffer(width: 4, height: 4, format: .rgba8)
    let view = buffer.cropped(to: Rect(x: 1, y: 1, width: 2, height: 2))
    let before = buffer.sharedStorage.contentsIdentity
    XCTAssertEqual(view.sharedStorage.contentsIdentity, before, "views share the block and its identity")
    _ = buffer.withUnsafePixels(as: UInt8.self) { $0[row: 0][0] }
    XCTAssertEqual(buffer.sharedStorage.contentsIdentity, before, "reading keeps it")
    buffer.withUnsafeMutablePixels(as: UInt8.self) { $0[row: 0][0] = 9 }
    XCTAssertNotEqual(buffer.sharedStorage.contentsIdentity, before, "writing (here into a copy) gives a new one")
    XCTAssertEqual(view.sharedStorage.contentsIdentity, before, "the view's block was not written")
    let copied = buffer.sharedStorage.contentsIdentity
    buffer.withUnsafeMutablePixels(as: UInt8.self) { $0[row: 0][0] = 10 }
    XCTAssertTrue(buffer.sharedStorage !== view.sharedStorage)
    XCTAssertNotEqual(buffer.sharedStorage.contentsIdentity, copied, "writing in place gives a new one")
  }

  func testLargeBlocksAreZeroedWritableAndAligned() {
    for bytes in [PixelStorage.hugePageMinimumBytes, PixelStorage.hugePageMinimumBytes + 12_345, 18_000_064] {
      let storage = PixelStorage(byteCount: bytes, zeroed: true)
      XCTAssertEqual(storage.byteCount, bytes)
      let address = UInt(bitPattern: storage.baseAddress)
      XCTAssertEqual(address % UInt(PixelStorage.alignment), 0)
      #if os(Linux)
      XCTAssertEqual(address % UInt(PixelStorage.hugePageBytes), 0, "a large block starts on a huge page")
      #endif
      let p = storage.baseAddress.assumingMemoryBound(to: UInt8.self)
      XCTAssertEqual(p[0], 0)
      XCTAssertEqual(p[bytes / 2], 0)
      XCTAssertEqual(p[bytes - 1], 0)
    }
  }

  /// Two large blocks alive at once each keep what is written into every page of them: writes
  /// land, and no page of one is a page of the other (a block handed out twice would fail here).
  func testLargeBlocksHoldWhatIsWrittenOnEveryPage() {
    let bytes = 18_000_064
    let a = PixelStorage(byteCount: bytes, zeroed: true), b = PixelStorage(byteCount: bytes, zeroed: true)
    let pa = a.baseAddress.assumingMemoryBound(to: UInt8.self), pb = b.baseAddress.assumingMemoryBound(to: UInt8.self)
    // A prime stride visits every 4 KiB page at a different offset; a and b get complementary values.
    let places = Array(stride(from: 0, to: bytes, by: 4093)) + [bytes - 1]
    func value(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: i &* 31 &+ i >> 12 &+ 1) }
    for i in places {
      pa[i] = value(i)
      pb[i] = ~value(i)
    }
    var wrong = 0
    for i in places where pa[i] != value(i) || pb[i] != ~value(i) { wrong += 1 }
    XCTAssertEqual(wrong, 0, "of \(places.count) places")
  }

  func testBuffersOverLargeBlocksKeepTheirPixels() {
    // 1200 × 1000 RGBA = 4.8 MB: above the huge-page threshold.
    var buffer = PixelBuffer(width: 1200, height: 1000, format: .rgba8, zeroed: true)
    buffer.withUnsafeMutablePixels(as: UInt8.self) { px in
      for y in 0..<1000 { for x in 0..<4800 { px[row: y][x] = UInt8(truncatingIfNeeded: x &* 7 &+ y) } }
    }
    let copy = buffer
    buffer.withUnsafeMutablePixels(as: UInt8.self) { px in px[row: 999][4799] = 0 }  // copy-on-write
    copy.withUnsafePixels(as: UInt8.self) { px in
      XCTAssertEqual(px[row: 999][4799], UInt8(truncatingIfNeeded: 4799 &* 7 &+ 999))
      XCTAssertEqual(px[row: 500][10], UInt8(truncatingIfNeeded: 70 &+ 500))
    }
    buffer.withUnsafePixels(as: UInt8.self) { px in XCTAssertEqual(px[row: 999][4799], 0) }
  }
}
