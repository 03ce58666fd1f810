// JPEGScanLimitTests.swift — a progressive JPEG that repeats a refinement scan (valid JPEG, each
// scan a full pass over the image) is refused once it has more scans than its size allows.
import CJPEG
import Foundation
import ImageCodecs
import PixelBufferModule
import XCTest

final class JPEGScanLimitTests: XCTestCase {
  func testTheLimitShrinksWithTheImageAndStaysAboveNormalFiles() {
    XCTAssertEqual(cj_max_scans(64, 64), 1000)
    XCTAssertEqual(cj_max_scans(1000, 1000), 1000)
    XCTAssertEqual(cj_max_scans(2000, 2000), 250)
    XCTAssertEqual(cj_max_scans(6000, 4000), 41)
    XCTAssertEqual(cj_max_scans(16000, 16000), 32)
    XCTAssertEqual(cj_max_scans(0, 0), 1000)
  }

  /// 6000×6000 may have 32 scans. The file repeats its last refinement scan until it has 60;
  /// the decoder must refuse it, as a corrupt file, without decoding the rest.
  func testRepeatedRefinementScansAreRefused() throws {
    let side = 6000
    var gray = PixelBuffer(width: side, height: side, format: .gray8)
    gray.fill(SIMD4(0.5, 0.5, 0.5, 1))
    let jpeg = try JPEGEncoder.encode(gray, options: JPEGEncodeOptions(quality: 90, isProgressive: true))
    let normal = try JPEGDecoder.decode(jpeg)
    XCTAssertEqual(normal.width, side, "the unmodified progressive file decodes")

    let bomb = Self.repeatingLastScan(of: jpeg, until: 60)
    XCTAssertThrowsError(try JPEGDecoder.decode(bomb)) { error in
      guard let error = error as? CodecError else { return XCTFail("\(error)") }
      XCTAssertEqual(error.kind, .corrupt)
      XCTAssertTrue(error.message.contains("more than 32 scans"), error.message)
    }
  }

  /// Copies `jpeg` with its last scan (SOS segment and entropy-coded data) repeated so that the
  /// file has `total` scans.
  static func repeatingLastScan(of jpeg: Data, until total: Int) -> Data {
    let bytes = [UInt8](jpeg)
    var scanStarts: [Int] = []
    var i = 2
    while i + 3 < bytes.count {
      guard bytes[i] == 0xFF else { i += 1; continue }
      let marker = bytes[i + 1]
      if marker == 0xDA { scanStarts.append(i) }
      if marker == 0xD9 { break }
      if marker == 0x00 || marker == 0xFF || (0xD0...0xD7).contains(marker) { i += 1; continue }
      let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
      i += 2 + length
      if marker == 0xDA {
        // Skip the entropy-coded data up to the next real marker.
        while i + 1 < bytes.count, !(bytes[i] == 0xFF && bytes[i + 1] != 0x00 && !(0xD0...0xD7).contains(bytes[i + 1])) {
          i += 1
        }
      }
    }
    let eoi = bytes.count - 2
    let last = Array(bytes[scanStarts.last!..<eoi])
    var out = Array(bytes[..<eoi])
    for _ in scanStarts.count..<total { out += last }
    return Data(out + [0xFF, 0xD9])
  }
}
