// MetadataLimitTests.swift — oversized metadata is refused with an error naming it, by every
// writer (a JPEG segment's 64 kB; 1 MiB, the most FilterGraph reads, elsewhere) and by the readers
// of WebP and TIFF (PNG's text chunks: EXIFUprightTests; JPEG segments cannot exceed 64 kB).
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class MetadataLimitTests: XCTestCase {
  let pixels = PixelBuffer(width: 4, height: 4, format: .rgb8)
  let overMiB = Data(repeating: 0x20, count: MetadataLimits.maxBlockBytes + 1)

  func assertTooLarge(_ what: String, _ body: () throws -> Void) {
    XCTAssertThrowsError(try body(), what) { error in
      XCTAssertEqual((error as? CodecError)?.kind, .tooLarge, "\(what): \(error)")
      XCTAssertTrue("\(error)".contains(what), "\(what): \(error)")
    }
  }

  /// JPEG: each block over its segment's capacity (EXIF 65,527 bytes, XMP 65,504, IPTC 65,506 —
  /// its data is padded to an even length —, comment 65,533) is refused, with its own size in the
  /// message; a block of exactly that size is written.
  func testJPEGRefusesBlocksASegmentCannotHold() throws {
    let cases: [(String, Int, (Int) -> ImageMetadata)] = [
      ("EXIF block", 65_527, { ImageMetadata(exif: Data(repeating: 0, count: $0)) }),
      ("XMP packet", 65_504, { ImageMetadata(xmp: Data(repeating: 0x20, count: $0)) }),
      ("IPTC block", 65_506, { ImageMetadata(iptc: Data([0x1C, 2, 120, 0xFF, 0xFF]) + Data(repeating: 0x41, count: $0 - 5)) }),
      ("comment", 65_533, { ImageMetadata(comment: String(repeating: "a", count: $0)) }),
    ]
    for (what, limit, metadata) in cases {
      XCTAssertNoThrow(try encodeJPEG(metadata(limit)), what)
      assertTooLarge("\(what) is \(limit + 1) bytes; a JPEG holds at most \(limit) bytes") { _ = try encodeJPEG(metadata(limit + 1)) }
    }
  }

  /// `pixels` written by the registry's JPEG encoder with `metadata`.
  func encodeJPEG(_ metadata: ImageMetadata) throws -> Data? {
    let encoder = try JPEGCodec.makeEncoder(
      EncodeRequest(
        size: pixels.size, pixelFormat: .rgb8, colorSpace: .sRGB, metadata: metadata,
        options: try FormatOptionValues().resolved(by: JPEGCodec.encodeOptions), handle: nil, executor: nil))
    try encoder.write(rows: pixels)
    return try encoder.finish()
  }

  /// PNG, WebP, TIFF and HEIF: a block over 1 MiB is refused (FilterGraph would not read it back).
  func testOtherWritersRefuseBlocksOverOneMiB() throws {
    assertTooLarge("XMP packet") {
      _ = try PNGStreamEncoder(size: pixels.size, layout: .rgb, component: .uint8, metadata: ImageMetadata(xmp: overMiB))
    }
    assertTooLarge("EXIF block") { _ = try WebPStreamEncoder(size: pixels.size, format: .rgb8, exif: overMiB) }
    assertTooLarge("IPTC block") { _ = try TIFFStreamEncoder(size: pixels.size, format: .rgb8, metadata: ImageMetadata(iptc: overMiB)) }
    if HEIFEncodeSettings.encoderNames(for: .av1).first != nil {
      assertTooLarge("XMP packet") {
        _ = try HEIFStreamEncoder(size: pixels.size, format: .rgb8, settings: HEIFEncodeSettings(compression: .av1), xmp: overMiB)
      }
    }
  }

  /// A WebP whose XMP chunk, and a TIFF whose XMP tag, holds over 1 MiB: reading the header is a
  /// `.tooLarge` error naming it. (Made from small files written here, the block then enlarged.)
  func testWebPAndTIFFReadersRefuseBlocksOverOneMiB() throws {
    let webp = try WebPStreamEncoder(size: pixels.size, format: .rgb8, settings: WebPEncodeSettings(isLossless: true), xmp: Data("x".utf8))
    try webp.write(rows: pixels)
    var riff = [UInt8](try XCTUnwrap(webp.finish()))
    // Chunks after "RIFF" size "WEBP": type, little-endian size, data padded to even length.
    var at = 12
    while at + 8 <= riff.count, String(decoding: riff[at..<at + 4], as: UTF8.self) != "XMP " {
      at += 8 + (Self.le32(riff, at + 4) + 1) / 2 * 2
    }
    XCTAssertLessThan(at + 8, riff.count, "the XMP chunk")
    riff.replaceSubrange(at..<riff.count, with: Array("XMP ".utf8) + Self.le32(overMiB.count) + [UInt8](overMiB) + [0])
    riff.replaceSubrange(4..<8, with: Self.le32(riff.count - 8))
    assertTooLarge("XMP") { _ = try WebPCodec.readHeader(Data(riff), request: DecodeRequest()) }

    let tiff = try TIFFStreamEncoder(size: pixels.size, format: .rgb8, metadata: ImageMetadata(xmp: Data("x".utf8)))
    try tiff.write(rows: pixels)
    var bytes = [UInt8](try XCTUnwrap(tiff.finish()))
    XCTAssertEqual(Array(bytes.prefix(4)), [0x49, 0x49, 0x2A, 0])
    let ifd = Self.le32(bytes, 4), count = Int(bytes[ifd]) | Int(bytes[ifd + 1]) << 8
    let entry = try XCTUnwrap((0..<count).map { ifd + 2 + 12 * $0 }.first { Int(bytes[$0]) | Int(bytes[$0 + 1]) << 8 == 700 })
    bytes.replaceSubrange(entry + 4..<entry + 12, with: Self.le32(overMiB.count) + Self.le32(bytes.count))
    bytes += [UInt8](overMiB)
    assertTooLarge("XMP") { _ = try TIFFDecoder(data: Data(bytes)) }
  }

  static func le32(_ v: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: v >> $0) } }
  static func le32(_ b: [UInt8], _ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 | Int(b[o + 2]) << 16 | Int(b[o + 3]) << 24 }
}
