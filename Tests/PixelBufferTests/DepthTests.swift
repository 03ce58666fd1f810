import PixelBufferModule
import TestSupport
import XCTest

final class DepthTests: XCTestCase {
  let all8 = PixelBuffer.row((0...255).map { UInt8($0) }, format: .gray8)
  let all16 = PixelBuffer.row((0...65535).map { UInt16($0) }, format: PixelFormat(layout: .gray, component: .uint16))

  func test8To16IsTimes257AndBackIsExact() {
    let up = all8.converted(to: .uint16)
    XCTAssertEqual(up.format.component, .uint16)
    XCTAssertEqual(up.integerValues(), (0...255).map { $0 * 257 })
    XCTAssertEqual(up.converted(to: .uint8).integerValues(), Array(0...255))
  }

  func test16To8RoundsToNearestForAllValues() {
    let down = all16.converted(to: .uint8).integerValues()
    for v in 0...65535 {
      let exact = Double(v) * 255 / 65535
      XCTAssertEqual(down[v], Int(exact.rounded()), "v = \(v)")
      XCTAssertEqual(down[v], (v * 255 + 32767) / 65535)
    }
  }

  func test8ToFloatIsDivisionBy255AndBackIsExact() {
    let f = all8.converted(to: .float32)
    XCTAssertEqual(f.floatValues(), (0...255).map { Float($0) / 255 })
    XCTAssertEqual(f.converted(to: .uint8).integerValues(), Array(0...255))
  }

  func test16ToFloatAndBackIsExactForAllValues() {
    let f = all16.converted(to: .float32)
    XCTAssertEqual(f.floatValues(), (0...65535).map { Float($0) / 65535 })
    XCTAssertEqual(f.converted(to: .uint16).integerValues(), Array(0...65535))
  }

  func testFloatToIntegerClampsAndRounds() {
    let f = PixelBuffer.row(
      [-1, 0, 0.6 / 255, 0.49 / 255, 0.5, 1, 1.5, .infinity, -.infinity, .nan] as [Float],
      format: PixelFormat(layout: .gray, component: .float32))
    XCTAssertEqual(f.converted(to: .uint8).integerValues(), [0, 0, 1, 0, 128, 255, 255, 255, 0, 0])
    XCTAssertEqual(
      f.converted(to: .uint16).integerValues(), [0, 0, 154, 126, 32768, 65535, 65535, 65535, 0, 0])
  }

  func testEveryLayoutRoundTripsThroughFloat() {
    for layout in ChannelLayout.allCases {
      for mode in [AlphaMode.straight, .premultiplied] where layout.hasAlpha || mode == .straight {
        let f8 = PixelFormat(layout: layout, component: .uint8, alphaMode: mode)
        let b8 = PixelBuffer.random(width: 37, height: 5, format: f8, seed: 11)
        XCTAssertTrue(b8.converted(to: .float32).converted(to: .uint8).hasSamePixels(as: b8), "\(f8)")
        XCTAssertTrue(b8.converted(to: .uint16).converted(to: .uint8).hasSamePixels(as: b8), "\(f8)")
        let f16 = PixelFormat(layout: layout, component: .uint16, alphaMode: mode)
        let b16 = PixelBuffer.random(width: 37, height: 5, format: f16, seed: 12)
        XCTAssertTrue(b16.converted(to: .float32).converted(to: .uint16).hasSamePixels(as: b16), "\(f16)")
      }
    }
  }

  func testConversionOfViewReadsOnlyTheView() {
    let b = PixelBuffer.random(width: 30, height: 20, format: .rgb8, seed: 2)
    let view = b.cropped(to: Rect(x: 3, y: 4, width: 10, height: 6))
    let f = view.converted(to: .float32)
    XCTAssertEqual(f.size, view.size)
    XCTAssertEqual(f.value(x: 9, y: 5, channel: 2), b.value(x: 12, y: 9, channel: 2))
    XCTAssertEqual(f.format.layout, .rgb)
  }
}
