// GIFCodecTests.swift — GIF first frames against Pillow's decodes, and bad input.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class GIFCodecTests: XCTestCase {
  /// A transparent colour becomes alpha 0; the rest equals Pillow's RGBA decode.
  func testTransparencyBecomesAlpha() throws {
    let gif = try CodecTest.decode(CodecTest.data("gif/transparent.gif"))
    let reference = try PNGDecoder.decode(CodecTest.data("gif/transparent.reference.png"))
    XCTAssertEqual(gif.format, PixelFormat(layout: .rgba, component: .uint8))
    let ours = CodecTest.samples(gif), theirs = CodecTest.samples(reference)
    XCTAssertEqual(ours.count, theirs.count)
    for i in stride(from: 0, to: ours.count, by: 4) {
      XCTAssertEqual(ours[i + 3], theirs[i + 3], "alpha of pixel \(i / 4)")
      if theirs[i + 3] > 0 { XCTAssertEqual(Array(ours[i..<i + 3]), Array(theirs[i..<i + 3]), "pixel \(i / 4)") }
    }
  }

  /// Interlaced rows come out in order; no transparency means RGB.
  func testInterlacedEqualsPillow() throws {
    let gif = try CodecTest.decode(CodecTest.data("gif/interlaced.gif"))
    let reference = try PNGDecoder.decode(CodecTest.data("gif/interlaced.reference.png"))
    XCTAssertEqual(gif.format, PixelFormat(layout: .rgb, component: .uint8))
    CodecTest.assertSame(CodecTest.samples(gif), CodecTest.samples(reference))
  }

  /// An animation gives its first frame; the screen outside it is transparent.
  func testFirstFrameOnTheScreen() throws {
    let gif = try CodecTest.decode(CodecTest.data("gif/animated-offset.gif"))
    let reference = try PNGDecoder.decode(CodecTest.data("gif/animated-offset.frame0.png"))
    XCTAssertEqual(gif.size, Size(width: 16, height: 10))
    let ours = CodecTest.samples(gif), theirs = CodecTest.samples(reference)
    for y in 0..<10 {
      for x in 0..<16 {
        let i = (y * 16 + x) * 4
        if (4..<12).contains(x) && (2..<7).contains(y) {
          XCTAssertEqual(Array(ours[i..<i + 4]), Array(theirs[i..<i + 4]), "(\(x), \(y))")
        } else {
          XCTAssertEqual(Array(ours[i..<i + 4]), [0, 0, 0, 0], "(\(x), \(y)) outside the frame")
        }
      }
    }
  }

  /// Truncations, damaged headers and absurd sizes give CodecErrors.
  func testBadInputAndWriting() throws {
    let good = try CodecTest.data("gif/transparent.gif")
    for cut in [6, 10, 13, 30, good.count - 2] {
      CodecTest.assertRejected(good.prefix(cut), [.truncated, .corrupt], "cut at \(cut)")
    }
    var huge = [UInt8](good)
    huge[6...9] = [0xFF, 0xFF, 0xFF, 0xFF]
    XCTAssertThrowsError(try GIFCodec.readHeader(Data(huge), request: DecodeRequest(limits: DecodeLimits(maxPixels: 1 << 20)))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .tooLarge)
    }
    XCTAssertTrue(GIFCodec.canEncode)
  }
}
