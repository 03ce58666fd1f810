// TIFFFileReadingTests.swift — TIFF files read through their descriptor (FileReadingCodec): the
// same header, metadata and pixels as the same bytes in memory; a file cut short while it is
// read is an error, not a crash.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class TIFFFileReadingTests: XCTestCase {
  private static let files = [
    "gray8.tif", "gray16.tif", "graya8.tif", "grayf-tiled.tif", "rgb16-deflate-tiled.tif", "rgb16-lzw.tif", "rgb8-lzw.tif",
    "rgb8-separate.tif", "rgba8-associated.tif", "palette8.tif", "cmyk8-icc.tif", "bilevel-g4.tif", "rgb8-jpeg-ycbcr.tif",
    "metadata.tif", "rgb8-icc.tif", "rgb8-orientation6.tif",
  ]

  /// Every fixture, and page 2 of the multi-page one, read from its file equals the same bytes
  /// read from memory: header (metadata, EXIF included) and pixels, whole and at 1/2.
  func testFilesEqualTheirBytesInMemory() throws {
    for name in Self.files + ["multipage.tif"] {
      let url = Fixtures.url("tiff/" + name), data = try Data(contentsOf: url)
      let file = try FileHandle(forReadingFrom: url)
      defer { try? file.close() }
      let page = name == "multipage.tif" ? 2 : 0
      let request = DecodeRequest(options: ["page": .integer(page)])
      XCTAssertEqual(try TIFFCodec.readHeader(file: file, request: request), try TIFFCodec.readHeader(data, request: request), name)
      let fromFile = try TIFFCodec.makeDecoder(file: file, request: request).decodeAll()
      XCTAssertTrue(fromFile.hasSamePixels(as: try TIFFCodec.makeDecoder(data, request: request).decodeAll()), name)
      if !TIFFCodec.reducedScaleDenominators(for: try TIFFCodec.readHeader(data, request: request)).isEmpty {
        var reduced = request
        reduced.scaleDenominator = 2
        XCTAssertTrue(
          try TIFFCodec.makeDecoder(file: file, request: reduced).decodeAll().hasSamePixels(
            as: try TIFFCodec.makeDecoder(data, request: reduced).decodeAll()), "\(name) at 1/2")
      }
    }
    XCTAssertNotNil(try TIFFCodec.readHeader(file: try FileHandle(forReadingFrom: Fixtures.url("tiff/metadata.tif")), request: DecodeRequest()).metadata.exif)
  }

  /// A file cut short after its header was read gives a `.truncated` or `.corrupt` error when its
  /// strips are read, for strips and tiles alike.
  func testAFileCutShortWhileOpenIsAnError() throws {
    for name in ["rgb16-lzw.tif", "rgb16-deflate-tiled.tif", "rgb8-separate.tif"] {
      let data = try Data(contentsOf: Fixtures.url("tiff/" + name))
      let url = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).tif")
      try data.write(to: url)
      defer { try? FileManager.default.removeItem(at: url) }
      let file = try FileHandle(forReadingFrom: url)
      defer { try? file.close() }
      let decoder = try TIFFCodec.makeDecoder(file: file, request: DecodeRequest())
      // Keep the first 16 bytes (the directory may lie at either end): every strip or tile is gone.
      try FileHandle(forWritingTo: url).truncate(atOffset: 16)
      XCTAssertThrowsError(try decoder.decodeAll(), name) { error in
        XCTAssertTrue([.truncated, .corrupt].contains((error as? CodecError)?.kind), "\(name): \(error)")
      }
    }
  }

  /// An empty or non-TIFF file opened as TIFF is a clear error.
  func testFilesThatAreNotTIFFAreErrors() throws {
    for bytes in [Data(), Data("II*\0".utf8), Data("not a tiff file at all".utf8)] {
      let url = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).tif")
      try bytes.write(to: url)
      defer { try? FileManager.default.removeItem(at: url) }
      let file = try FileHandle(forReadingFrom: url)
      defer { try? file.close() }
      XCTAssertThrowsError(try TIFFCodec.readHeader(file: file, request: DecodeRequest())) { error in
        XCTAssertTrue([.truncated, .corrupt].contains((error as? CodecError)?.kind), "\(bytes.count) bytes: \(error)")
      }
    }
  }
}
