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

  /// Metadata segments are read in place: a header of 200 full 64 kB segments (13 MB) costs no
  /// memory beyond the file's own bytes and the blocks kept, counted as the heap bytes in use while
  /// the decoder lives (`MallocInfo.bytesInUse`). libjpeg used to save a copy of every APP1, APP2,
  /// APP13 and COM segment for the decoder's lifetime, and the decoder copied them all again.
  func testLargeMetadataSegmentsAreReadInPlace() throws {
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("the sanitizers' allocators do not report to malloc_info") }
    let profile = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    let xmp = Array("<x:xmpmeta/>".utf8)
    var segments = [
      JPEGTest.segment(0xE1, JPEGTest.exifAPP1(orientation: 6)),
      JPEGTest.segment(0xE2, JPEGTest.iccAPP2(profile[600...], sequence: 2, count: 2)),
      JPEGTest.segment(0xE1, JPEGMetadata.xmpSignature + xmp),
      JPEGTest.segment(0xFE, Array("first comment".utf8)),
      JPEGTest.segment(0xE2, JPEGTest.iccAPP2(profile[..<600], sequence: 1, count: 2)),
    ]
    let filler = [UInt8](repeating: 0x5A, count: JPEGMetadata.maxPayload - 40)
    for i in 0..<200 {
      switch i % 4 {
      case 0: segments.append(JPEGTest.segment(0xE1, JPEGTest.exifAPP1(orientation: 3) + filler))
      case 1: segments.append(JPEGTest.segment(0xE2, Array("not a profile".utf8) + filler))
      case 2: segments.append(JPEGTest.segment(0xED, JPEGMetadata.photoshopSignature + filler))
      default: segments.append(JPEGTest.segment(0xFE, Array("later comment".utf8) + filler))
      }
    }
    let jpeg = JPEGTest.inserting(segments, into: try JPEGTest.data("testorig.jpg"))
    XCTAssertGreaterThan(jpeg.count, 13_000_000)
    guard let before = MallocInfo()?.bytesInUse else { throw XCTSkip("glibc's malloc_info is not available") }
    let decoder = try JPEGDecoder(data: jpeg)
    let held = try XCTUnwrap(MallocInfo()?.bytesInUse) - before
    // The first block of each kind, in file order, and the two ICC chunks in sequence order.
    let metadata = decoder.header.metadata
    XCTAssertEqual(metadata.orientation, .right)
    XCTAssertEqual(metadata.exif, Data(JPEGTest.exifAPP1(orientation: 6).dropFirst(6)))
    XCTAssertEqual(metadata.xmp, Data(xmp))
    XCTAssertEqual(metadata.comment, "first comment")
    XCTAssertNil(metadata.iptc)
    XCTAssertEqual(metadata.iccProfile, Data(profile))
    XCTAssertLessThan(held, 1 << 20, "heap bytes the decoder holds beyond the file")
    XCTAssertTrue(try JPEGDecoder.decode(jpeg).hasSamePixels(as: try JPEGDecoder.decode(try JPEGTest.data("testorig.jpg"))))
    withExtendedLifetime(decoder) {}
  }

  /// The segment walk reads markers as libjpeg does: fill bytes and stray bytes before a marker are
  /// skipped, markers without a length are stepped over, the walk stops at SOS and at a segment that
  /// runs past the data.
  func testTheSegmentWalkFollowsLibjpegsMarkerSyntax() {
    let bytes: [UInt8] =
      [0xFF, 0xD8, 0xFF, 0xFF, 0xE1, 0x00, 0x04, 1, 2]  // fill byte, APP1 of 2 bytes
      + [0x00, 0x13, 0xFF, 0xD0, 0xFF, 0xFE, 0x00, 0x03, 9]  // stray bytes, RST0, COM of 1 byte
      + [0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xE1, 0x00, 0x02]  // SOS: nothing after it is read
    var seen: [(Int, [UInt8])] = []
    bytes.withUnsafeBytes { JPEGMetadata.forEachSegment(in: $0) { seen.append(($0, Array($1))) } }
    XCTAssertEqual(seen.map(\.0), [0xE1, 0xFE])
    XCTAssertEqual(seen.map(\.1), [[1, 2], [9]])
    var cut: [Int] = []
    Array(bytes[..<8]).withUnsafeBytes { JPEGMetadata.forEachSegment(in: $0) { marker, _ in cut.append(marker) } }
    XCTAssertEqual(cut, [], "a segment running past the data ends the walk")
    var notJPEG: [Int] = []
    Array(bytes.dropFirst(2)).withUnsafeBytes { JPEGMetadata.forEachSegment(in: $0) { marker, _ in notJPEG.append(marker) } }
    XCTAssertEqual(notJPEG, [], "no SOI, nothing read")
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
