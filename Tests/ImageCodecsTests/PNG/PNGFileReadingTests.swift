// PNGFileReadingTests.swift — still PNG files read through their descriptor (FileReadingCodec): the
// same header and pixels as the same bytes in memory, an image data chunk read in pieces checked
// by its CRC, a file cut short while it is read an error; APNGs are read whole still.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class PNGFileReadingTests: XCTestCase {
  /// Every valid PngSuite file (each colour type and depth, palettes, tRNS, Adam7, ancillary
  /// chunks) read from its file equals the same bytes read from memory: header and pixels, whole
  /// and at 1/2.
  func testSuiteFilesEqualTheirBytesInMemory() throws {
    let folder = Fixtures.url("pngsuite")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") && !$0.hasPrefix("x") }.sorted()
    XCTAssertGreaterThan(names.count, 150)
    for name in names {
      let url = folder.appendingPathComponent(name), data = try Data(contentsOf: url)
      let file = try FileHandle(forReadingFrom: url)
      defer { try? file.close() }
      XCTAssertTrue(PNGCodec.readsInPlace(file: file, request: DecodeRequest()), name)
      XCTAssertEqual(try PNGCodec.readHeader(file: file, request: DecodeRequest()), try PNGCodec.readHeader(data, request: DecodeRequest()), name)
      for d in [1, 2] {
        let request = DecodeRequest(scaleDenominator: d)
        let fromFile = try PNGCodec.makeDecoder(file: file, request: request).decodeAll()
        XCTAssertTrue(fromFile.hasSamePixels(as: try PNGCodec.makeDecoder(data, request: request).decodeAll()), "\(name) at 1/\(d)")
      }
    }
  }

  /// One image data chunk longer than the reader's 256 KiB pieces: the same pixels as from memory;
  /// a damaged byte in its second piece fails the chunk's CRC (`.corrupt`); the file cut short
  /// after it was opened is `.truncated`.
  func testALongImageDataChunkIsReadInCheckedPieces() throws {
    let (width, height) = (300, 300)
    var rows: [UInt8] = []
    for y in 0..<height {
      rows.append(0)  // filter: none
      for x in 0..<width * 3 { rows.append(UInt8(truncatingIfNeeded: x * 7 + y * 13 + (x * y) >> 5)) }
    }
    let ihdr: [UInt8] = PNGBytes.bigEndian(UInt32(width)) + PNGBytes.bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
    let idat = PNGBytes.chunk("IDAT", PNGBytes.storedZlib(rows))
    XCTAssertGreaterThan(idat.count, 256 << 10)
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let png = signature + PNGBytes.chunk("IHDR", ihdr) + idat + PNGBytes.chunk("IEND", [])
    let idatStart = 8 + 25
    var damaged = png
    damaged[idatStart + 8 + 270_000] ^= 0x01
    let expected = try PNGCodec.makeDecoder(Data(png), request: DecodeRequest()).decodeAll()
    XCTAssertEqual(expected.width, width)

    try withFile(png) { url in
      let file = try FileHandle(forReadingFrom: url)
      XCTAssertTrue(try PNGCodec.makeDecoder(file: file, request: DecodeRequest()).decodeAll().hasSamePixels(as: expected))
    }
    try withFile(damaged) { url in
      let file = try FileHandle(forReadingFrom: url)
      XCTAssertThrowsError(try PNGCodec.makeDecoder(file: file, request: DecodeRequest()).decodeAll()) { error in
        XCTAssertEqual((error as? CodecError)?.kind, .corrupt, "\(error)")
        XCTAssertTrue("\(error)".contains("CRC"), "\(error)")
      }
    }
    try withFile(png) { url in
      let file = try FileHandle(forReadingFrom: url)
      let decoder = try PNGCodec.makeDecoder(file: file, request: DecodeRequest())
      try FileHandle(forWritingTo: url).truncate(atOffset: UInt64(idatStart + 100_000))
      XCTAssertThrowsError(try decoder.decodeAll()) { XCTAssertEqual(($0 as? CodecError)?.kind, .truncated, "\($0)") }
    }
  }

  /// An APNG is read in place too (its chunk headers, then each frame's data): every frame as
  /// from memory.
  func testAnAPNGIsReadInPlace() throws {
    let url = Fixtures.url("animation/ops.png"), data = try Data(contentsOf: url)
    let file = try FileHandle(forReadingFrom: url)
    defer { try? file.close() }
    XCTAssertTrue(PNGCodec.readsInPlace(file: file, request: DecodeRequest()))
    let header = try PNGCodec.readHeader(file: file, request: DecodeRequest())
    XCTAssertEqual(header, try PNGCodec.readHeader(data, request: DecodeRequest()))
    XCTAssertGreaterThan(header.pageCount, 1)
    for page in 0..<header.pageCount {
      let request = DecodeRequest(options: ["page": .integer(page)])
      XCTAssertTrue(
        try PNGCodec.makeDecoder(file: file, request: request).decodeAll().hasSamePixels(as: try PNGCodec.makeDecoder(data, request: request).decodeAll()),
        "frame \(page)")
    }
  }

  private func withFile(_ bytes: [UInt8], _ body: (URL) throws -> Void) throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("png-\(UUID().uuidString).png")
    try Data(bytes).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    try body(url)
  }
}
