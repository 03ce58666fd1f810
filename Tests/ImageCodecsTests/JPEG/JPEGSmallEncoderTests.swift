// JPEGSmallEncoderTests.swift — the perceptual ("small") JPEG encoder: its files are standard
// progressive JPEGs that libjpeg-turbo (strict), Pillow and libvips decode to the same pixels,
// close to the original; it picks 4:4:4 or 4:2:0 from the colour detail; it keeps metadata; and it
// spends fewer bytes than libjpeg-turbo's quantisation for about the same fidelity.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import ImageCodecs

final class JPEGSmallEncoderTests: XCTestCase {
  /// libjpeg's test photograph (227×149).
  static func photo() throws -> PixelBuffer { try JPEGTest.reference("testimg.ppm") }

  static func encode(_ image: PixelBuffer, quality: Int, encoder: JPEGEncodeOptions.Encoder,
                     chroma: JPEGEncodeOptions.ChromaSubsampling = .automatic, icc: Data? = nil,
                     metadata: ImageMetadata = ImageMetadata(), strip: Int = 16) throws -> Data {
    let options = JPEGEncodeOptions(quality: quality, chromaSubsampling: chroma, encoder: encoder)
    let stream = try JPEGStreamEncoder(size: image.size, layout: image.format.layout, options: options,
                                       iccProfile: icc, metadata: metadata)
    var y = 0
    while y < image.height {
      let rows = min(strip, image.height - y)
      try stream.write(rows: image.cropped(to: Rect(x: 0, y: y, width: image.width, height: rows)))
      y += rows
    }
    return try XCTUnwrap(stream.finish())
  }

  /// The frame header's marker (0xC0 baseline, 0xC2 progressive) and luma sampling factors byte.
  static func frame(_ jpeg: Data) -> (marker: UInt8, lumaSampling: UInt8)? {
    let bytes = [UInt8](jpeg)
    var i = 2
    while i + 4 < bytes.count, bytes[i] == 0xFF {
      let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
      if (0xC0...0xC2).contains(marker) { return (marker, bytes[i + 11]) }
      i += 2 + length
    }
    return nil
  }

  func testFileIsStrictProgressiveJPEGCloseToTheOriginal() throws {
    let photo = try Self.photo()
    let jpeg = try Self.encode(photo, quality: 90, encoder: .small)
    XCTAssertEqual(Self.frame(jpeg)?.marker, 0xC2, "progressive")
    let decoded = try JPEGDecoder.decode(jpeg, options: JPEGDecodeOptions(isStrict: true))
    XCTAssertEqual(decoded.size, photo.size)
    XCTAssertGreaterThan(JPEGTest.psnr(decoded, photo), 33)
    // Gray, RGBA and 16-bit rows are coded as their 8-bit gray or RGB content.
    let gray = try JPEGDecoder.decode(Self.encode(photo.converted(to: .gray8), quality: 90, encoder: .small))
    XCTAssertEqual(gray.format, .gray8)
    XCTAssertGreaterThan(JPEGTest.psnr(gray, photo.converted(to: .gray8)), 33)
    XCTAssertEqual(try Self.encode(photo.converted(to: .rgba16), quality: 90, encoder: .small), jpeg)
  }

  /// Pillow (Debian's, over the system libjpeg-turbo) and libvips read the file to the pixels
  /// FilterGraph's decoder gives.
  func testPillowAndVipsDecodeTheSamePixels() throws {
    let photo = try Self.photo()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jpegsmall-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let jpeg = try Self.encode(photo, quality: 80, encoder: .small)
    try jpeg.write(to: folder.appendingPathComponent("small.jpg"))
    let ours = try JPEGDecoder.decode(jpeg)
    var readers = 0
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") {
      let script = "import sys\ntry:\n import PIL.Image\nexcept ImportError:\n sys.exit(77)\n"
        + "PIL.Image.open('small.jpg').save('pillow.ppm')"
      let outcome = try ChildProcess.run("/usr/bin/python3", ["-W", "error", "-c", script], in: folder)
      if outcome.status != 77 {
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let pillow = try PNM.read(Data(contentsOf: folder.appendingPathComponent("pillow.ppm")))
        XCTAssertTrue(pillow.hasSamePixels(as: ours), "Pillow's pixels differ")
        readers += 1
      }
    }
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/vips") {
      let outcome = try ChildProcess.run("/usr/bin/vips", ["copy", "small.jpg", "vips.ppm"], in: folder)
      XCTAssertEqual(outcome.status, 0, outcome.stderr)
      let vips = try PNM.read(Data(contentsOf: folder.appendingPathComponent("vips.ppm")))
      XCTAssertTrue(vips.hasSamePixels(as: ours), "libvips's pixels differ")
      readers += 1
    }
    if readers == 0 { throw XCTSkip("neither Pillow nor libvips is installed") }
  }

  /// Fine colour stripes (one pixel each, red and blue: equal luma steps, all colour detail) keep
  /// 4:4:4; the photograph's smooth colour gets 4:2:0; asked for, either is used.
  func testAutomaticChromaFollowsColorDetail() throws {
    var stripes = PixelBuffer(width: 64, height: 64, format: .rgb8)
    stripes.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<64 {
        for x in 0..<64 { p[row: y][x * 3 + (x % 2 == 0 ? 0 : 2)] = 200 }
      }
    }
    XCTAssertEqual(Self.frame(try Self.encode(stripes, quality: 80, encoder: .small))?.lumaSampling, 0x11)
    let photo = try Self.photo()
    XCTAssertEqual(Self.frame(try Self.encode(photo, quality: 80, encoder: .small))?.lumaSampling, 0x22)
    XCTAssertEqual(Self.frame(try Self.encode(photo, quality: 80, encoder: .small, chroma: .s444))?.lumaSampling, 0x11)
    XCTAssertEqual(Self.frame(try Self.encode(stripes, quality: 80, encoder: .small, chroma: .s420))?.lumaSampling, 0x22)
    XCTAssertEqual(Self.frame(try Self.encode(stripes, quality: 80, encoder: .small, chroma: .s422))?.lumaSampling, 0x21)
  }

  func testICCProfileAndEXIFAreKept() throws {
    let photo = try Self.photo()
    let icc = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    var metadata = ImageMetadata()
    metadata.exif = Data("Exif\0\0MM\0*\0\0\0\u{8}\0\0".utf8)
    let jpeg = try Self.encode(photo, quality: 85, encoder: .small, icc: icc, metadata: metadata)
    let header = try JPEGDecoder(data: jpeg).header
    XCTAssertEqual(header.metadata.iccProfile, icc)
    XCTAssertNotNil(header.metadata.exif)
  }

  /// At equal fidelity, fewer bytes: for libjpeg-turbo's file at quality 60 and 85 (4:2:0,
  /// optimised Huffman tables), some quality of the small encoder gives a file at least as close
  /// to the photograph (PSNR) in fewer bytes.
  func testFewerBytesThanFastAtTheSameFidelity() throws {
    let photo = try Self.photo()
    for quality in [60, 85] {
      let fast = try Self.encode(photo, quality: quality, encoder: .fast, chroma: .s420)
      let fastPSNR = JPEGTest.psnr(try JPEGDecoder.decode(fast), photo)
      var smallest = Int.max
      for candidate in stride(from: quality - 30, through: min(100, quality + 10), by: 2) {
        let small = try Self.encode(photo, quality: candidate, encoder: .small, chroma: .s420)
        if JPEGTest.psnr(try JPEGDecoder.decode(small), photo) >= fastPSNR { smallest = min(smallest, small.count) }
      }
      XCTAssertLessThan(smallest, fast.count, "quality \(quality)")
    }
  }

  func testUnfinishedOrOverfullImagesAreRefused() throws {
    let photo = try Self.photo()
    let options = JPEGEncodeOptions(quality: 80, encoder: .small)
    let stream = try JPEGStreamEncoder(size: photo.size, layout: .rgb, options: options)
    try stream.write(rows: photo.cropped(to: Rect(x: 0, y: 0, width: photo.width, height: 10)))
    XCTAssertThrowsError(try stream.finish()) { XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument) }
    let full = try JPEGStreamEncoder(size: photo.size, layout: .rgb, options: options)
    try full.write(rows: photo)
    XCTAssertThrowsError(try full.write(rows: photo)) { XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument) }
  }
}
