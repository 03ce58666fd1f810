// MetadataLimitTests.swift — oversized metadata is refused with an error naming it by every
// writer (a JPEG segment's 64 kB; 1 MiB, the most FilterGraph reads, elsewhere); the readers of
// WebP, TIFF, HEIF, JPEG (extended XMP) and GIF leave a block over 1 MiB out and still read the
// image, recording it with a sentence (issue #28, finding 8; PNG and what fgrun says: fgrun's
// InputLimitTests). A GIF's XMP application extension is read as XMP part 3 lays it out.
import CHEIF
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

  /// An ICC profile has no 1 MiB limit (it says what the pixels' numbers mean, LeftOutMetadata
  /// is for descriptive blocks), but a JPEG holds at most 255 APP2 segments of 65,519 bytes of
  /// one (ICC.1 Annex B.4): a profile of exactly that is written and read back whole; one byte
  /// more is refused with an error naming it (libjpeg would number the 256th segment 0).
  func testAJPEGHoldsAProfileOf255Segments() throws {
    let most = 255 * 65_519
    var buffer = pixels
    buffer.metadata.iccProfile = Data(repeating: 0x41, count: most)
    let jpeg = try JPEGEncoder.encode(buffer)
    let header = try JPEGCodec.readHeader(jpeg, request: DecodeRequest())
    XCTAssertEqual(header.metadata.iccProfile, buffer.metadata.iccProfile)
    XCTAssertEqual(header.warnings, [])
    buffer.metadata.iccProfile = Data(repeating: 0x41, count: most + 1)
    assertTooLarge("The ICC profile is \(most + 1) bytes; a JPEG holds at most \(most) bytes") { _ = try JPEGEncoder.encode(buffer) }
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

  /// Reads `data`'s header and pixels: the block (of `kind`) is left out, recorded with a
  /// sentence naming it (not among the warnings about the pixels), and the pixels are `size`.
  func assertLeftOut(_ what: String, _ data: Data, kind: LeftOutMetadata.Kind = .xmp, size: Size? = nil) throws {
    let codec = try XCTUnwrap(CodecRegistry.sniff(data), what)
    let header = try codec.readHeader(data, request: DecodeRequest())
    XCTAssertNil(header.metadata.xmp.flatMap { $0.count > MetadataLimits.maxBlockBytes ? $0 : nil }, what)
    XCTAssertNil(header.metadata.xmpExtension, what)
    XCTAssertTrue(
      header.leftOutMetadata.contains { $0.kind == kind && $0.message.contains(what) && $0.message.contains("left out") },
      "\(what): \(header.leftOutMetadata)")
    XCTAssertFalse(header.warnings.contains { $0.contains("left out") }, "\(what): \(header.warnings)")
    let decoded = try CodecTest.decode(data)
    XCTAssertEqual(decoded.size, size ?? pixels.size, what)
  }

  /// A WebP whose XMP chunk, a TIFF whose XMP tag, a JPEG whose extended XMP, an AVIF whose XMP
  /// item, and a GIF whose XMP application extension holds over 1 MiB: each image is read, the
  /// block left out and recorded with a sentence naming it. Made from small files written here,
  /// the block then enlarged or added (the AVIF's by libheif directly).
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

    // HEIF: libheif itself writes the XMP item (FilterGraph's writer refuses a block this large).
    if HEIFEncodeSettings.encoderNames(for: .av1).first != nil {
      try assertLeftOut("The HEIF's XMP item is \(overMiB.count) bytes", try Self.avif(pixels, xmp: overMiB))
    }

    // GIF: ExifTool's packet in the "XMP DataXMP" application extension replaced by 1 MiB + 1
    // bytes, laid out as XMP part 3 says (unframed, then the magic trailer).
    let gif = try Self.gifWithXMP(overMiB)
    try assertLeftOut("The GIF's XMP application extension is \(overMiB.count) bytes", gif, size: Size(width: 8, height: 8))
  }

  /// `pixels` as a lossless AVIF whose XMP item is `xmp`, through libheif (the CHEIF shim),
  /// around the writer's limit.
  static func avif(_ pixels: PixelBuffer, xmp: Data) throws -> Data {
    var options = cheif_encode_options(
      format: Int32(CHEIF_AV1), encoder_name: nil, quality: 100, lossless: 1, effort: 9, chroma: 444, bit_depth: 8, primaries: 0,
      transfer: 0, light_levels: cheif_light_levels())
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    var message = [CChar](repeating: 0, count: 512)
    let status = pixels.withUnsafeBaseAddress { base, stride in
      [UInt8](xmp).withUnsafeBufferPointer { packet in
        cheif_encode(
          base.assumingMemoryBound(to: UInt8.self), Int32(pixels.width), Int32(pixels.height), stride, 3, 0, &options, nil, 0, nil, 0,
          packet.baseAddress, packet.count, &out, &length, &message, message.count)
      }
    }
    XCTAssertEqual(status, Int32(CHEIF_OK), String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    defer { cheif_free(out) }
    return Data(bytes: try XCTUnwrap(out), count: length)
  }

  /// gif/xmp.gif (ExifTool's packet) with `packet` in place of its XMP packet, followed by the
  /// magic trailer (`trailer`: the 257 bytes before the empty block).
  static func gifWithXMP(_ packet: Data, trailer: [UInt8] = [1] + (0...255).reversed().map { UInt8($0) }) throws -> Data {
    var gif = [UInt8](try Data(contentsOf: Fixtures.url("gif/xmp.gif")))
    let original = try Data(contentsOf: Fixtures.url("gif/xmp.gif.xmp"))
    let start = try XCTUnwrap(gif.firstRange(of: Array("XMP DataXMP".utf8))).upperBound
    XCTAssertEqual(Data(gif[start..<start + original.count]), original)
    // The packet, the trailer's 257 bytes, then the empty block that ends the extension.
    XCTAssertEqual(gif[start + original.count + 257], 0)
    gif.replaceSubrange(start..<start + original.count + 257, with: [UInt8](packet) + trailer)
    return Data(gif)
  }

  /// A GIF's XMP application extension is read as XMP part 3 lays it out: ExifTool's packet
  /// comes out byte for byte as ExifTool reads it, without the magic trailer; one whose data does
  /// not end in the trailer (its end unknown) is left out with a sentence that says why.
  func testAGIFsXMPApplicationExtensionIsRead() throws {
    let file = try Data(contentsOf: Fixtures.url("gif/xmp.gif"))
    let header = try GIFCodec.readHeader(file, request: DecodeRequest())
    XCTAssertEqual(header.metadata.xmp, try Data(contentsOf: Fixtures.url("gif/xmp.gif.xmp")))
    XCTAssertEqual(header.leftOutMetadata, [])
    XCTAssertTrue(String(decoding: try XCTUnwrap(header.metadata.xmp), as: UTF8.self).contains("FilterGraph tests"))

    let exactly = Data(repeating: 0x20, count: MetadataLimits.maxBlockBytes)
    XCTAssertEqual(try GIFCodec.readHeader(try Self.gifWithXMP(exactly), request: DecodeRequest()).metadata.xmp, exactly)

    // A packet framed as ordinary data sub-blocks (a length byte, then the bytes) and no
    // trailer: a walk through it ends, but the data does not end as XMP says it must.
    let untrailed = try Self.gifWithXMP(Data([12] + Array("<x:xmpmeta/>".utf8)), trailer: [])
    try assertLeftOut("does not end in XMP's magic trailer", untrailed, size: Size(width: 8, height: 8))

    let animated = try GIFCodec.readHeader(try Data(contentsOf: Fixtures.url("gif/xmp-animated.gif")), request: DecodeRequest())
    XCTAssertEqual(animated.pageCount, 2)
    XCTAssertTrue(String(decoding: try XCTUnwrap(animated.metadata.xmp), as: UTF8.self).contains("An animated GIF"))
  }

  static func le32(_ v: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: v >> $0) } }
  static func le32(_ b: [UInt8], _ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 | Int(b[o + 2]) << 16 | Int(b[o + 3]) << 24 }
}
