// JPEGMetadataTests.swift — EXIF orientation, ICC reassembly and size limits from JPEG headers.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class JPEGMetadataTests: XCTestCase {
  func testEXIFOrientationSixIsRead() throws {
    let jpeg = JPEGTest.inserting(
      [JPEGTest.segment(0xE1, JPEGTest.exifAPP1(orientation: 6))], into: try JPEGTest.data("testorig.jpg"))
    let header = try JPEGDecoder.readHeader(jpeg)
    XCTAssertEqual(header.metadata.orientation, .right)
    XCTAssertEqual(header.size, Size(width: 227, height: 149))
    XCTAssertEqual(header.orientedSize, Size(width: 149, height: 227))
    let buffer = try JPEGDecoder.decode(jpeg)
    XCTAssertEqual(buffer.metadata.orientation, .right)
    // The stored pixels are not rotated: they still equal the reference decode.
    XCTAssertTrue(buffer.hasSamePixels(as: try JPEGTest.reference("testimg.ppm")))
  }

  func testMalformedEXIFIsIgnored() throws {
    var app1 = JPEGTest.exifAPP1(orientation: 6)
    app1[6] = 0x00  // break the TIFF byte-order mark
    let jpeg = JPEGTest.inserting([JPEGTest.segment(0xE1, app1)], into: try JPEGTest.data("testorig.jpg"))
    XCTAssertEqual(try JPEGDecoder.readHeader(jpeg).metadata.orientation, .up)
  }

  func testTwoChunkICCProfileIsReassembledInSequenceOrder() throws {
    let profile = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    // Chunk 2 is stored before chunk 1: reassembly must follow the sequence numbers.
    let jpeg = JPEGTest.inserting(
      [
        JPEGTest.segment(0xE2, JPEGTest.iccAPP2(profile[600...], sequence: 2, count: 2)),
        JPEGTest.segment(0xE2, JPEGTest.iccAPP2(profile[..<600], sequence: 1, count: 2)),
      ], into: try JPEGTest.data("testorig.jpg"))
    let decoder = try JPEGDecoder(data: jpeg)
    XCTAssertEqual(decoder.header.metadata.iccProfile, Data(profile))
    XCTAssertEqual(decoder.outputColorSpace, .icc(Data(profile)))
    let buffer = try JPEGDecoder.decode(jpeg)
    XCTAssertEqual(buffer.colorSpace, .icc(Data(profile)))
    XCTAssertEqual(buffer.metadata.iccProfile, Data(profile))
  }

  func testIncompleteICCProfileIsDropped() throws {
    let profile = [UInt8](repeating: 9, count: 100)
    let jpeg = JPEGTest.inserting(
      [JPEGTest.segment(0xE2, JPEGTest.iccAPP2(profile[...], sequence: 1, count: 2))],
      into: try JPEGTest.data("testorig.jpg"))
    let header = try JPEGDecoder.readHeader(jpeg)
    XCTAssertNil(header.metadata.iccProfile)
  }

  func testHugeHeaderIsRejectedBeforeAllocation() throws {
    var bytes = [UInt8](try JPEGTest.data("testorig.jpg"))
    let sof = try XCTUnwrap(JPEGTest.markerOffset(bytes, 0xC0))
    // SOF0: FF C0, length (2), precision (1), height (2), width (2).
    bytes[sof + 5] = 0xEA; bytes[sof + 6] = 0x60  // 60000
    bytes[sof + 7] = 0xEA; bytes[sof + 8] = 0x60
    let error = assertCodecError(.tooLarge) { try JPEGDecoder(data: Data(bytes)) }
    XCTAssertTrue(error?.message.contains("60000×60000") ?? false, error?.message ?? "")
    assertCodecError(.tooLarge) { try JPEGDecoder.decode(Data(bytes)) }
    assertCodecError(.tooLarge) { try JPEGDecoder.readHeader(Data(bytes)) }
    // A custom limit applies too.
    assertCodecError(.tooLarge) {
      try JPEGDecoder.decode(try JPEGTest.data("testorig.jpg"), limits: DecodeLimits(maxPixels: 10_000))
    }
  }
}
