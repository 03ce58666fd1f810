import PixelBufferModule
import TestSupport
import XCTest

final class AlphaTests: XCTestCase {
  let rgba8p = PixelFormat(layout: .rgba, component: .uint8, alphaMode: .premultiplied)
  let rgbaF = PixelFormat(layout: .rgba, component: .float32, alphaMode: .straight)

  /// Every (colour, alpha) pair of 8-bit values, as gray+alpha pixels.
  var allPairs8: PixelBuffer {
    var values: [UInt8] = []
    for a in 0...255 { for c in 0...255 { values += [UInt8(c), UInt8(a)] } }
    return PixelBuffer.row(values, format: PixelFormat(layout: .grayAlpha, component: .uint8))
  }

  func testPremultiply8RoundsToNearestForAllPairs() {
    let p = allPairs8.premultiplied()
    XCTAssertEqual(p.format.alphaMode, .premultiplied)
    let v = p.integerValues()
    for a in 0...255 {
      for c in 0...255 {
        let i = (a * 256 + c) * 2
        XCTAssertEqual(v[i], Int((Double(c * a) / 255).rounded()), "c \(c) a \(a)")
        XCTAssertEqual(v[i + 1], a)
      }
    }
  }

  func testUnpremultiply8RoundsClampsAndZeroesTransparent() {
    // Treat every pair as premultiplied, including invalid c > a (must clamp to 255).
    let pre = allPairs8.reinterpreted(alphaMode: .premultiplied)
    let v = pre.unpremultiplied().integerValues()
    for a in 0...255 {
      for c in 0...255 {
        let i = (a * 256 + c) * 2
        let expected = a == 0 ? 0 : min(255, Int((Double(c) * 255 / Double(a)).rounded(.toNearestOrAwayFromZero)))
        XCTAssertEqual(v[i], expected, "c \(c) a \(a)")
      }
    }
  }

  func testStraightPremultipliedStraight8IsExactWhenOpaqueAndCloseOtherwise() {
    let back = allPairs8.premultiplied().unpremultiplied()
    XCTAssertEqual(back.format.alphaMode, .straight)
    let v = back.integerValues()
    for a in 1...255 {
      for c in 0...255 {
        let got = v[(a * 256 + c) * 2]
        if a == 255 { XCTAssertEqual(got, c) }
        // Premultiplying rounds to a step of 1/a in straight terms: error ≤ 255 / (2a) + ½.
        XCTAssertLessThanOrEqual(Double(abs(got - c)), 255 / (2 * Double(a)) + 0.5, "c \(c) a \(a)")
      }
    }
  }

  func testPremultiply16Spot() {
    let f = PixelFormat(layout: .rgba, component: .uint16)
    let b = PixelBuffer.row([65535, 32768, 1, 32768, 7, 7, 7, 0, 100, 200, 300, 65535] as [UInt16], format: f)
    let p = b.premultiplied()
    XCTAssertEqual(p.integerValues(), [32768, 16384, 1, 32768, 0, 0, 0, 0, 100, 200, 300, 65535])
    XCTAssertEqual(p.unpremultiplied().integerValues(), [65535, 32768, 2, 32768, 0, 0, 0, 0, 100, 200, 300, 65535])
  }

  func testFloatRoundTripWithin1e6() {
    let b = PixelBuffer.random(width: 64, height: 64, format: rgbaF, seed: 21)
    let p = b.premultiplied()
    let back = p.unpremultiplied()
    let (x, y, z) = (b.floatValues(), p.floatValues(), back.floatValues())
    for i in stride(from: 0, to: x.count, by: 4) {
      let a = x[i + 3]
      for c in 0..<3 {
        XCTAssertEqual(y[i + c], x[i + c] * a)
        if a > 0 { XCTAssertEqual(z[i + c], x[i + c], accuracy: 1e-6) }
      }
      XCTAssertEqual(z[i + 3], a)
    }
  }

  func testFloatAlphaZeroGivesZeroColor() {
    let b = PixelBuffer.row([0.5, 0.25, 1, 0] as [Float], format: rgbaF.withMode(.premultiplied))
    XCTAssertEqual(b.unpremultiplied().floatValues(), [0, 0, 0, 0])
    let s = PixelBuffer.row([0.5, 0.25, 1, 0] as [Float], format: rgbaF)
    XCTAssertEqual(s.premultiplied().floatValues(), [0, 0, 0, 0])
  }

  func testNoAlphaOrSameModeReturnsSelf() {
    let b = PixelBuffer.random(width: 4, height: 4, format: .rgb8)
    XCTAssertTrue(b.premultiplied().sharesStorage(with: b))
    let p = PixelBuffer.random(width: 4, height: 4, format: rgba8p)
    XCTAssertTrue(p.premultiplied().sharesStorage(with: p))
    XCTAssertFalse(p.unpremultiplied().sharesStorage(with: p))
  }

  func testPremultipliedDoesNotTouchOriginal() {
    let b = PixelBuffer.random(width: 9, height: 9, format: .rgba8, seed: 4)
    let before = b.copy()
    _ = b.premultiplied()
    XCTAssertTrue(b.hasSamePixels(as: before))
  }
}

extension PixelFormat {
  func withMode(_ mode: AlphaMode) -> PixelFormat { PixelFormat(layout: layout, component: component, alphaMode: mode) }
}
