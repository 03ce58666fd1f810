// TIFFMetadataTests.swift — EXIF, XMP, IPTC and comments read from TIFF pages and written back.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class TIFFMetadataTests: XCTestCase {
  /// A Pillow-written page: the comment (ImageDescription), the XMP packet as stored, and an EXIF
  /// block cut from the page whose fields parse (Make, Model, DateTimeOriginal from the EXIF
  /// directory).
  func testMetadataIsRead() throws {
    let header = try TIFFCodec.readHeader(CodecTest.data("tiff/metadata.tif"), request: DecodeRequest())
    XCTAssertEqual(header.metadata.comment, "a TIFF comment")
    XCTAssertEqual(header.metadata.xmp, try CodecTest.data("metadata/xmp.xml"))
    let exif = try XCTUnwrap(header.metadata.exif)
    let fields = try XCTUnwrap(EXIF.fields(tiff: [UInt8](exif)))
    XCTAssertEqual(fields.cameraMake, "FilterGraph Test Camera")
    XCTAssertEqual(fields.cameraModel, "Model 9")
    XCTAssertEqual(fields.captureTime, "2026:11:24 08:00:00")
    XCTAssertNil(try TIFFCodec.readHeader(CodecTest.data("tiff/rgb8-lzw.tif"), request: DecodeRequest()).metadata.exif)
  }

  /// Written back: XMP, IPTC and the comment exactly (read back through libtiff, and the comment
  /// by libvips), and the EXIF block's Make and Model as page tags.
  func testMetadataIsWritten() throws {
    let source = try TIFFDecoder(data: CodecTest.data("tiff/metadata.tif"))
    var metadata = source.header.metadata
    let iptc = Data([0x1C, 0x02, 0x00, 0x00, 0x02, 0x00, 0x04, 0x1C, 0x02, 0x78, 0x00, 0x05] + Array("hello".utf8))
    metadata.iptc = iptc
    let pixels = try source.decodeAll()
    let encoder = try TIFFStreamEncoder(size: pixels.size, format: pixels.format, metadata: metadata)
    try encoder.write(rows: pixels)
    let bytes = try XCTUnwrap(encoder.finish())
    let written = try TIFFDecoder(data: bytes).header.metadata
    XCTAssertEqual(written.comment, "a TIFF comment")
    XCTAssertEqual(written.xmp, metadata.xmp)
    XCTAssertEqual(written.iptc, iptc)
    XCTAssertNotNil(bytes.range(of: Data("FilterGraph Test Camera\0".utf8)), "Make")
    XCTAssertNotNil(bytes.range(of: Data("Model 9\0".utf8)), "Model")
    let vips = "/usr/bin/vipsheader"
    guard FileManager.default.isExecutableFile(atPath: vips) else { throw XCTSkip("no vipsheader") }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tiff-meta-\(UUID().uuidString).tif")
    defer { try? FileManager.default.removeItem(at: url) }
    try bytes.write(to: url)
    let outcome = try ChildProcess.run(vips, ["-f", "image-description", url.path], in: FileManager.default.temporaryDirectory)
    XCTAssertEqual(outcome.text.trimmingCharacters(in: .whitespacesAndNewlines), "a TIFF comment")
  }
}
