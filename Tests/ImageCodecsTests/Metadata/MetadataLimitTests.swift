// MetadataLimitTests.swift — oversized metadata is refused with an error naming it by every
// writer (a JPEG segment's 64 kB; 1 MiB, the most FilterGraph reads, elsewhere); the readers of
// WebP, TIFF, JPEG (extended XMP) and GIF leave a block over 1 MiB out and still read the image,
// with a warning for the blocks they read (issue #28, finding 8; PNG: fgrun's InputLimitTests).
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

  /// Reads `data`'s header and pixels: the block is left out with a warning naming it, and the
  /// pixels are `pixels`.
  func assertLeftOut(_ what: String, _ data: Data, warns: Bool = true) throws {
    let codec = try XCTUnwrap(CodecRegistry.sniff(data), what)
    let header = try codec.readHeader(data, request: DecodeRequest())
    XCTAssertNil(header.metadata.xmp.flatMap { $0.count > MetadataLimits.maxBlockBytes ? $0 : nil }, what)
    XCTAssertNil(header.metadata.xmpExtension, what)
    if warns {
      XCTAssertTrue(header.warnings.contains { $0.contains(what) && $0.contains("left out") }, "\(what): \(header.warnings)")
    }
    let decoded = try CodecTest.decode(data)
    XCTAssertEqual(decoded.size, pixels.size, what)
  }

  /// A WebP whose XMP chunk, a TIFF whose XMP tag, a JPEG whose extended XMP, and a GIF whose XMP
  /// application extension holds over 1 MiB: each image is read, the block left out with a
  /// warning (the GIF reader reads no XMP at all). Made from small files written here, the block
  /// then enlarged or added.
  func testReadersLeaveBlocksOverOneMiBOut() throws {
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
    try assertLeftOut("The WebP's XMP chunk", Data(riff))

    let tiff = try TIFFStreamEncoder(size: pixels.size, format: .rgb8, metadata: ImageMetadata(xmp: Data("x".utf8)))
    try tiff.write(rows: pixels)
    var bytes = [UInt8](try XCTUnwrap(tiff.finish()))
    XCTAssertEqual(Array(bytes.prefix(4)), [0x49, 0x49, 0x2A, 0])
    let ifd = Self.le32(bytes, 4), count = Int(bytes[ifd]) | Int(bytes[ifd + 1]) << 8
    let entry = try XCTUnwrap((0..<count).map { ifd + 2 + 12 * $0 }.first { Int(bytes[$0]) | Int(bytes[$0 + 1]) << 8 == 700 })
    bytes.replaceSubrange(entry + 4..<entry + 12, with: Self.le32(overMiB.count) + Self.le32(bytes.count))
    bytes += [UInt8](overMiB)
    try assertLeftOut("The TIFF's XMP tag", Data(bytes))

    // JPEG: a main packet naming its extension, then 1 MiB + 1 of extension in 65,458-byte pieces.
    var jpeg = [UInt8](try XCTUnwrap(try encodeJPEG(ImageMetadata())))
    let guid = Array(String(repeating: "0123456789ABCDEF", count: 2).utf8)
    func segment(_ payload: [UInt8]) -> [UInt8] { [0xFF, 0xE1, UInt8(truncatingIfNeeded: (payload.count + 2) >> 8), UInt8(truncatingIfNeeded: payload.count + 2)] + payload }
    func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
    var segments = segment(JPEGMetadata.xmpSignature + Array("<x:xmpmeta xmpNote:HasExtendedXMP='".utf8) + guid + Array("'/>".utf8))
    let total = overMiB.count
    for offset in stride(from: 0, to: total, by: 65_458) {
      let piece = [UInt8](overMiB[offset..<min(offset + 65_458, total)])
      segments += segment(JPEGMetadata.xmpExtensionSignature + guid + be32(total) + be32(offset) + piece)
    }
    jpeg.insert(contentsOf: segments, at: 2)
    try assertLeftOut("The JPEG's extended XMP", Data(jpeg))

    // GIF: the XMP application extension ("XMP DataXMP", the packet as sub-blocks) before the image.
    let gifPixels = GIFBuilder(width: 4, height: 4, palette: [(0, 0, 0), (255, 255, 255)])
    var gif = gifPixels.head() + [0x21, 0xFF, 11] + Array("XMP DataXMP".utf8)
    for offset in stride(from: 0, to: total, by: 255) {
      let n = min(255, total - offset)
      gif += [UInt8(n)] + [UInt8](overMiB[offset..<offset + n])
    }
    gif += [0] + GIFBuilder.frame(.init(width: 4, height: 4, indices: [UInt8](repeating: 1, count: 16))) + [0x3B]
    try assertLeftOut("XMP", Data(gif), warns: false)
  }

  static func le32(_ v: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: v >> $0) } }
  static func le32(_ b: [UInt8], _ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 | Int(b[o + 2]) << 16 | Int(b[o + 3]) << 24 }
}
