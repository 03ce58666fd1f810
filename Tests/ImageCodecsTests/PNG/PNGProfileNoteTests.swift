// PNGProfileNoteTests.swift — libpng's notes about an ICC profile it keeps and that is used (the
// widespread HP sRGB profile: "known incorrect sRGB profile") are not warnings; damage still is.

import Foundation
import TestSupport
import XCTest

@testable import ImageCodecs

final class PNGProfileNoteTests: XCTestCase {
  func testKnownIncorrectSRGBProfileIsNotAWarning() throws {
    let data = try Fixtures.data("colour/hp-srgb-profile.png")
    let decoder = try PNGDecoder(data: data)
    _ = try decoder.decodeRemaining()
    // libpng says "iCCP: known incorrect sRGB profile" about a profile it keeps and which is used:
    // no warning for the user.
    XCTAssertNotNil(decoder.header.metadata.iccProfile)
    XCTAssertEqual(decoder.header.warnings, [])
    XCTAssertEqual(decoder.warnings, [])
    XCTAssertTrue(PNGDecoder.isBenignProfileNote("iCCP: PCS illuminant is not D50"))
    XCTAssertFalse(PNGDecoder.isBenignProfileNote("iCCP: CRC error"))
  }

  /// The same file with a broken CRC in its (ancillary) iCCP chunk still warns.
  func testDamagedChunkStillWarns() throws {
    var bytes = [UInt8](try Fixtures.data("colour/hp-srgb-profile.png"))
    // IHDR is 8 + 25 bytes in; the iCCP chunk follows: flip a byte of its CRC.
    let length = Int(bytes[33]) << 24 | Int(bytes[34]) << 16 | Int(bytes[35]) << 8 | Int(bytes[36])
    XCTAssertEqual(String(decoding: bytes[37..<41], as: UTF8.self), "iCCP")
    bytes[41 + length] ^= 0xFF
    let decoder = try PNGDecoder(data: Data(bytes))
    _ = try decoder.decodeRemaining()
    XCTAssertFalse(decoder.warnings.isEmpty && decoder.header.warnings.isEmpty, "a damaged chunk is reported")
  }
}
