// BorrowedInputTests.swift — the JPEG and PNG decoders read the caller's bytes in place (no private
// copy): they must keep those bytes alive themselves, follow slices that do not start at 0, be
// unaffected when the caller later changes or drops its `Data`, and still copy tiny inputs.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import ImageCodecs

final class BorrowedInputTests: XCTestCase {
  /// `data` surrounded by junk, as a slice whose indices do not start at 0.
  private func embedded(_ data: Data) -> Data {
    var padded = Data(repeating: 0x5A, count: 1000)
    padded.append(data)
    padded.append(Data(repeating: 0xA5, count: 333))
    return padded[1000..<(1000 + data.count)]
  }

  private func decodeJPEGRows(_ decoder: JPEGDecoder) throws -> PixelBuffer {
    try decoder.start()
    var buffer = try decoder.makeBuffer()
    var row = 0
    while !decoder.isComplete { row += try decoder.readRows(7, into: &buffer, at: row) }
    return buffer
  }

  func testJPEGDecoderKeepsItsInputAliveAndUnchanged() throws {
    let original = try Fixtures.data("jpeg/testorig.jpg")
    let expected = try JPEGDecoder.decode(original)

    // A slice with a non-zero start index.
    let slice = embedded(original)
    XCTAssertNotEqual(slice.startIndex, 0)
    XCTAssertTrue(try JPEGDecoder.decode(slice).hasSamePixels(as: expected))

    // The caller scribbles over and then drops its bytes after the header was read.
    var bytes = original
    let decoder = try JPEGDecoder(data: bytes)
    bytes.resetBytes(in: 0..<bytes.count)
    bytes = Data()
    XCTAssertTrue(try decodeJPEGRows(decoder).hasSamePixels(as: expected))

    // A memory-mapped file the caller no longer holds.
    var mapped: Data? = try Data(contentsOf: Fixtures.url("jpeg/testprog.jpg"), options: .alwaysMapped)
    let progressive = try JPEGDecoder(data: mapped!)
    mapped = nil
    XCTAssertTrue(
      try decodeJPEGRows(progressive).hasSamePixels(
        as: try JPEGDecoder.decode(try Fixtures.data("jpeg/testprog.jpg"))))
  }

  func testPNGDecoderKeepsItsInputAliveAndUnchanged() throws {
    let original = try Fixtures.data("pngsuite/basn2c16.png")
    let expected = try PNGDecoder.decode(original)
    XCTAssertTrue(try PNGDecoder.decode(embedded(original)).hasSamePixels(as: expected))

    var bytes = original
    let decoder = try PNGDecoder(data: bytes)
    bytes.resetBytes(in: 0..<bytes.count)
    bytes = Data()
    XCTAssertTrue(try decoder.decodeRemaining().hasSamePixels(as: expected))
  }

  /// Inputs below the borrowing threshold (inline `Data` lives inside the value) are copied, and
  /// still fail cleanly.
  func testTinyInputsAreCopiedAndRejected() throws {
    XCTAssertFalse(EncodedBytes.isStable(Data([0xFF, 0xD8, 0xFF])))
    XCTAssertTrue(EncodedBytes.isStable(Data(count: EncodedBytes.minimumBorrowedCount)))
    let tinyJPEG = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46])
    XCTAssertThrowsError(try JPEGDecoder(data: tinyJPEG)) { error in
      XCTAssertEqual((error as? CodecError)?.kind, .truncated, "\(error)")
    }
    let tinyPNG = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
    XCTAssertThrowsError(try PNGDecoder(data: tinyPNG)) { error in
      XCTAssertEqual((error as? CodecError)?.kind, .truncated, "\(error)")
    }
  }
}
