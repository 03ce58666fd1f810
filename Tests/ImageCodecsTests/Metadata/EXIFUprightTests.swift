// EXIFUprightTests.swift — EXIF.upright on hand-built TIFF structures (both byte orders), read back
// with the tests' own IFD reader (TestSupport/FileStructure.swift); EXIF.fields; PNG text chunks.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import ImageCodecs

final class EXIFUprightTests: XCTestCase {
  /// A TIFF block: IFD0 (Orientation 8, Model, Exif IFD), Exif IFD (PixelX SHORT, PixelY SHORT,
  /// DateTimeOriginal), IFD1 (thumbnail offset/length), with the thumbnail placed `thumbnailFirst`
  /// (right after the header, before IFD0's values) or last.
  func block(little: Bool, thumbnailFirst: Bool) -> [UInt8] {
    var b: [UInt8] = little ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
    func u16(_ v: Int) -> [UInt8] { little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
    func u32(_ v: Int) -> [UInt8] { little ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
    func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] { u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count) }
    let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB] + [UInt8](repeating: 0xAB, count: 28) + [0xFF, 0xD9]
    let model = Array("Phone\0".utf8), time = Array("2020:02:03 04:05:06\0".utf8)
    let thumbAt0 = 8
    let ifd0At = thumbnailFirst ? 8 + thumbnail.count : 8
    let modelAt = ifd0At + 2 + 3 * 12 + 4
    let exifAt = modelAt + model.count
    let timeAt = exifAt + 2 + 3 * 12 + 4
    let ifd1At = timeAt + time.count
    let thumbAt = thumbnailFirst ? thumbAt0 : ifd1At + 2 + 2 * 12 + 4
    b += u32(ifd0At)
    if thumbnailFirst { b += thumbnail }
    b += u16(3) + entry(0x0110, 2, model.count, u32(modelAt)) + entry(0x0112, 3, 1, u16(8)) + entry(0x8769, 4, 1, u32(exifAt)) + u32(ifd1At)
    b += model
    b += u16(3) + entry(0x9003, 2, time.count, u32(timeAt)) + entry(0xA002, 3, 1, u16(640)) + entry(0xA003, 3, 1, u16(480)) + u32(0)
    b += time
    b += u16(2) + entry(0x0201, 4, 1, u32(thumbAt)) + entry(0x0202, 4, 1, u32(thumbnail.count)) + u32(0)
    if !thumbnailFirst { b += thumbnail }
    return b
  }

  func testUprightRewritesOrientationDimensionsAndDropsTheThumbnail() throws {
    for little in [true, false] {
      for thumbnailFirst in [false, true] {
        let original = block(little: little, thumbnailFirst: thumbnailFirst)
        XCTAssertEqual(EXIF.fields(tiff: original), EXIFFields(orientation: .left, pixelSize: Size(width: 640, height: 480), captureTime: "2020:02:03 04:05:06", cameraModel: "Phone"))
        let out = try XCTUnwrap(EXIF.upright(tiff: original, pixelSize: Size(width: 70_000, height: 300)))
        let ifd0 = try XCTUnwrap(FileStructure.ifd0(out))
        XCTAssertEqual(ifd0.entries[0x0112]?.value, 1)
        XCTAssertEqual(ifd0.next, 0)
        XCTAssertEqual(ifd0.text(0x0110, in: out), "Phone")
        let exif = try XCTUnwrap(FileStructure.ifd(out, at: ifd0.entries[0x8769]!.value))
        XCTAssertEqual(exif.entries[0xA002]?.type, 4)
        XCTAssertEqual(exif.entries[0xA002]?.value, 70_000)
        XCTAssertEqual(exif.entries[0xA003]?.value, 300)
        XCTAssertEqual(exif.text(0x9003, in: out), "2020:02:03 04:05:06")
        XCTAssertFalse(out.indices.dropLast(2).contains { out[$0] == 0xFF && out[$0 + 1] == 0xD8 && out[$0 + 2] == 0xFF })
        if thumbnailFirst {
          XCTAssertEqual(out.count, original.count - (2 + 2 * 12 + 4), "IFD1 at the end is cut, the thumbnail before the data zeroed")
        } else {
          XCTAssertLessThan(out.count, original.count - 34)
        }
        XCTAssertEqual(EXIF.fields(tiff: out)?.orientation, .up)
        XCTAssertEqual(EXIF.fields(tiff: out)?.pixelSize, Size(width: 70_000, height: 300))
      }
    }
  }

  func testUprightRefusesWhatIsNotTIFF() {
    XCTAssertNil(EXIF.upright(tiff: [], pixelSize: Size(width: 1, height: 1)))
    XCTAssertNil(EXIF.upright(tiff: Array("Exif\0\0MM".utf8), pixelSize: Size(width: 1, height: 1)))
    XCTAssertNil(EXIF.upright(tiff: [0x4D, 0x4D, 0, 42, 0xFF, 0xFF, 0xFF, 0xF0], pixelSize: Size(width: 1, height: 1)))
    // Every truncation of a good block gives a block or nil, never a trap.
    let good = block(little: true, thumbnailFirst: false)
    for n in 0..<good.count { _ = EXIF.upright(tiff: Array(good.prefix(n)), pixelSize: Size(width: 2, height: 2)) }
    // IFD1 pointing back at IFD0 (a loop) leaves IFD0 intact.
    var loop = good
    let ifd0Next = 8 + 2 + 3 * 12
    loop[ifd0Next] = 8; loop[ifd0Next + 1] = 0; loop[ifd0Next + 2] = 0; loop[ifd0Next + 3] = 0
    let out = EXIF.upright(tiff: loop, pixelSize: Size(width: 2, height: 2))
    XCTAssertEqual(out.flatMap { EXIF.fields(tiff: $0) }?.cameraModel, "Phone")
  }

  func testPNGTextChunksAreReadWithinTheLimit() throws {
    func pngWith(_ chunks: [(String, [UInt8])]) throws -> Data {
      let encoder = try PNGStreamEncoder(size: Size(width: 2, height: 2), layout: .gray, component: .uint8)
      try encoder.write(rows: PixelBuffer(width: 2, height: 2, format: .gray8))
      var png = try XCTUnwrap(encoder.finish())
      // Insert the chunks after IHDR (8 + 25 bytes).
      var extra = Data()
      for (type, payload) in chunks { extra += PNGBytes.chunk(type, payload) }
      png.insert(contentsOf: extra, at: 33)
      return png
    }
    // A zTXt Comment compressed with zlib (Python's zlib.compress(b"hello", 9)).
    let hello: [UInt8] = [0x78, 0xDA, 0xCB, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x06, 0x2C, 0x02, 0x15]
    let small = try PNGDecoder.readHeader(pngWith([("zTXt", Array("Comment".utf8) + [0, 0] + hello)]))
    XCTAssertEqual(small.metadata.comment, "hello")
    // 2 MiB of zeros compressed: it inflates beyond 1 MiB, so it is left out and recorded with a
    // sentence (the image itself is read).
    var bomb = [UInt8](repeating: 0, count: 2 << 20)
    let compressed = try zlib(&bomb)
    let bombed = try PNGDecoder.readHeader(pngWith([("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0] + compressed)]))
    XCTAssertNil(bombed.metadata.xmp)
    XCTAssertEqual(bombed.leftOutMetadata.map(\.kind), [.xmp])
    XCTAssertTrue(bombed.leftOutMetadata.contains { $0.message.contains("more than 1048576 bytes") && $0.message.contains("left out") }, "\(bombed.leftOutMetadata)")
    // The same chunk with a bad CRC is skipped.
    var damaged = try pngWith([("tEXt", Array("Comment".utf8) + [0] + Array("x".utf8))])
    damaged[33 + 8 + 9] ^= 1
    XCTAssertNil(try PNGDecoder.readHeader(damaged).metadata.comment)
  }

  private func zlib(_ bytes: inout [UInt8]) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(b'\\0' * \(bytes.count), 9))"]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("no python3") }
    try process.run()
    let out = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return [UInt8](out)
  }
}
