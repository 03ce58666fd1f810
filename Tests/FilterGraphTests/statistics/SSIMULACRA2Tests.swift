// Tests of SSIMULACRA2 (statistics/SSIMULACRA2.swift) against the PyPI `ssimulacra2`, the
// oracle: its scores of JPEG distortions and a blur of two 256 × 256 corpus crops are committed
// with the files (scripts/ssimulacra2-references.py made both); FilterGraph agrees within 0.002
// and must within 0.05.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class SSIMULACRA2Tests: XCTestCase {
  static func pixels(_ name: String) throws -> PixelBuffer {
    try JPEGDecoder.decode(Fixtures.data("ssimulacra2/\(name)"))
  }

  func testScoresAgreeWithTheOracle() throws {
    let scores = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Fixtures.data("ssimulacra2/scores.json")) as? [String: Double])
    XCTAssertEqual(scores.count, 8)
    for photo in ["rocket", "kodim23"] {
      let reference = SSIMULACRA2.Reference(try Self.pixels("\(photo).jpg"))
      XCTAssertEqual(try reference.score(Self.pixels("\(photo).jpg")), 100, accuracy: 1e-9, "identical images")
      for (name, expected) in scores where name.hasPrefix(photo + "-") {
        XCTAssertEqual(try reference.score(Self.pixels(name)), expected, accuracy: 0.05, name)
      }
    }
  }

  /// Different sizes are an error, not a crash.
  func testDifferentSizesAreRefused() throws {
    let small = PixelBuffer(width: 16, height: 16, format: .rgb8)
    XCTAssertThrowsError(try SSIMULACRA2.score(small, against: PixelBuffer(width: 16, height: 17, format: .rgb8)))
  }
}
