import PixelBufferModule
import TestSupport
import XCTest

final class PixelBufferTests: XCTestCase {
  func testRowsAre64ByteAligned() {
    for format in [PixelFormat.rgb8, .gray8, .rgba16, .rgbaFloatPremultiplied] {
      for width in [1, 3, 17, 63, 100] {
        let b = PixelBuffer(width: width, height: 3, format: format)
        XCTAssertEqual(b.rowBytes % 64, 0)
        XCTAssertGreaterThanOrEqual(b.rowBytes, width * format.bytesPerPixel)
        b.withUnsafeBaseAddress { base, stride in
          for y in 0..<3 { XCTAssertEqual(Int(bitPattern: base + y * stride) % 64, 0) }
        }
      }
    }
  }

  func testCroppedViewSharesStorageAndSeesParentPixels() {
    let parent = PixelBuffer.random(width: 20, height: 10, format: .rgb8, seed: 7)
    let view = parent.cropped(to: Rect(x: 5, y: 3, width: 4, height: 2))
    XCTAssertTrue(view.sharesStorage(with: parent))
    XCTAssertEqual(view.size, Size(width: 4, height: 2))
    for y in 0..<2 {
      for x in 0..<4 {
        for c in 0..<3 {
          XCTAssertEqual(view.value(x: x, y: y, channel: c), parent.value(x: x + 5, y: y + 3, channel: c))
        }
      }
    }
  }

  func testMutatingViewCopiesAndLeavesParentUntouched() {
    let parent = PixelBuffer.random(width: 20, height: 10, format: .rgba8, seed: 8)
    let before = parent.copy()
    var view = parent.cropped(to: Rect(x: 2, y: 2, width: 5, height: 5))
    view.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<p.height { for i in 0..<p.width * 4 { p[row: y][i] = 42 } }
    }
    XCTAssertFalse(view.sharesStorage(with: parent))
    XCTAssertTrue(parent.hasSamePixels(as: before))
    XCTAssertEqual(view.integerValues(), [Int](repeating: 42, count: 100))
  }

  func testMutatingUniqueBufferDoesNotCopy() {
    var b = PixelBuffer(width: 8, height: 8, format: .gray8, zeroed: true)
    let storage = ObjectIdentifier(b.sharedStorage)
    XCTAssertTrue(b.isUniquelyReferenced())
    b.withUnsafeMutablePixels(as: UInt8.self) { $0[row: 3][3] = 9 }
    XCTAssertEqual(ObjectIdentifier(b.sharedStorage), storage)
    XCTAssertEqual(b.value(x: 3, y: 3, channel: 0), 9 / 255)
  }

  func testCopyEqualsOriginalWithOwnStorage() {
    let b = PixelBuffer.random(width: 13, height: 7, format: .rgb16, seed: 3)
    let view = b.cropped(to: Rect(x: 1, y: 1, width: 11, height: 5))
    let c = view.copy()
    XCTAssertTrue(c.hasSamePixels(as: view))
    XCTAssertFalse(c.sharesStorage(with: view))
    XCTAssertEqual(c.rowBytes, PixelBuffer.alignedRowBytes(width: 11, format: .rgb16))
  }

  func testHasSamePixelsDetectsOneDifferentByte() {
    let a = PixelBuffer.random(width: 9, height: 4, format: .rgb8, seed: 5)
    var b = a.copy()
    XCTAssertTrue(a.hasSamePixels(as: b))
    b.withUnsafeMutablePixels(as: UInt8.self) { $0[row: 3][26] ^= 1 }
    XCTAssertFalse(a.hasSamePixels(as: b))
  }
}

final class FillTests: XCTestCase {
  func testFillRGBA8AndPremultiplied() {
    let b = PixelBuffer(width: 5, height: 3, format: .rgba8, filledWith: SIMD4(1, 0.5, 0, 0.5))
    XCTAssertEqual(b.integerValues(), [255, 128, 0, 128].repeated(15))
    let p = PixelBuffer(
      width: 2, height: 2, format: PixelFormat(layout: .rgba, component: .uint8, alphaMode: .premultiplied),
      filledWith: SIMD4(1, 0.5, 0, 0.5))
    XCTAssertEqual(p.integerValues(), [128, 64, 0, 128].repeated(4))
  }

  func testFillGrayUsesLuma() {
    let b = PixelBuffer(width: 3, height: 2, format: .gray8, filledWith: SIMD4(1, 0, 0, 1))
    XCTAssertEqual(b.integerValues(), [54].repeated(6))  // 0.2126 × 255 = 54.2
  }

  func testCopyPixelsBlitsIntoPlace() {
    var dst = PixelBuffer(width: 6, height: 5, format: .gray8, zeroed: true)
    let tile = PixelBuffer.row([UInt8](1...6), format: .gray8)  // 6×1
    let tile2 = PixelBuffer(width: 2, height: 2, format: .gray8, filledWith: SIMD4(1, 1, 1, 1))
    dst.copyPixels(from: tile, to: Point(x: 0, y: 4))
    dst.copyPixels(from: tile2, to: Point(x: 3, y: 1))
    XCTAssertEqual(
      dst.integerValues(),
      [0, 0, 0, 0, 0, 0,
       0, 0, 0, 255, 255, 0,
       0, 0, 0, 255, 255, 0,
       0, 0, 0, 0, 0, 0,
       1, 2, 3, 4, 5, 6])
  }

  func testCopyPixelsFromOwnViewDoesNotDisturbSource() {
    var b = PixelBuffer.row([UInt8](0..<8), format: .gray8)
    let view = b.cropped(to: Rect(x: 0, y: 0, width: 4, height: 1))
    b.copyPixels(from: view, to: Point(x: 4, y: 0))
    XCTAssertEqual(b.integerValues(), [0, 1, 2, 3, 0, 1, 2, 3])
    XCTAssertEqual(view.integerValues(), [0, 1, 2, 3])
  }
}

extension Array {
  func repeated(_ n: Int) -> [Element] { (0..<n).flatMap { _ in self } }
}
