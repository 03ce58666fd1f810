// TIFFRobustnessTests.swift — damaged TIFF input: truncations, corrupt headers and directories,
// absurd sizes. Each gives a CodecError with libtiff's words, and libtiff prints nothing.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class TIFFRobustnessTests: XCTestCase {
  /// Runs `body` with the process's standard error sent to a file, and returns what was written
  /// there (libtiff's default handlers would print to it).
  private func standardError(of body: () throws -> Void) rethrows -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tiff-stderr-\(UUID().uuidString)")
    let file = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let saved = dup(STDERR_FILENO)
    fflush(nil)
    dup2(file, STDERR_FILENO)
    defer {
      fflush(nil)
      dup2(saved, STDERR_FILENO)
      close(saved)
      close(file)
      try? FileManager.default.removeItem(at: url)
    }
    try body()
    fflush(nil)
    return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
  }

  /// Every truncation of several fixtures fails with `.truncated` or `.corrupt` (never a crash,
  /// never a silent partial image), and libtiff writes nothing to standard error.
  func testTruncationsAreErrors() throws {
    var rejected = 0
    let printed = try standardError {
      for file in ["rgb8-lzw.tif", "rgb16-deflate-tiled.tif", "rgb8-jpeg-ycbcr.tif", "palette8.tif", "bilevel-g4.tif", "rgbf-deflate.tif"] {
        let data = try CodecTest.data("tiff/" + file)
        for length in stride(from: 0, to: data.count, by: max(1, data.count / 23)) where length > 0 {
          let cut = data.prefix(length)
          do {
            _ = try TIFFDecoder(data: cut).decodeAll()
            // A cut that keeps every strip and the directory (which may come first) is a whole file.
            XCTAssertTrue(try TIFFDecoder(data: data).decodeAll().hasSamePixels(as: TIFFDecoder(data: cut).decodeAll()), "\(file) cut at \(length)")
          } catch let error as CodecError {
            XCTAssertTrue([.truncated, .corrupt].contains(error.kind), "\(file) cut at \(length): \(error.kind) \(error)")
            XCTAssertFalse(error.message.isEmpty)
            rejected += 1
          }
        }
      }
    }
    XCTAssertGreaterThan(rejected, 100)
    XCTAssertEqual(printed, "")
  }

  /// A header pointing nowhere, a directory with a wrong count, a strip pointing past the end:
  /// CodecErrors carrying libtiff's message.
  func testCorruptHeadersAreErrors() throws {
    let data = [UInt8](try CodecTest.data("tiff/rgb8-lzw.tif"))
    var badOffset = data
    badOffset[4...7] = [0xF0, 0xFF, 0xFF, 0x7F]
    var badCount = data
    let ifd = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 | Int(data[7]) << 24
    badCount[ifd] = 0xFF
    badCount[ifd + 1] = 0xFF
    var badStrip = data
    let offsets = try XCTUnwrap(TIFFTags.values(of: 273, in: data))
    // Point the StripOffsets entry's value (or the first offset of its array) past the file.
    for entry in 0..<(Int(data[ifd]) | Int(data[ifd + 1]) << 8) {
      let at = ifd + 2 + entry * 12
      guard Int(data[at]) | Int(data[at + 1]) << 8 == 273 else { continue }
      let count = Int(data[at + 4]) | Int(data[at + 5]) << 8
      let target = count == 1 ? at + 8 : Int(data[at + 8]) | Int(data[at + 9]) << 8 | Int(data[at + 10]) << 16
      badStrip[target...(target + 3)] = [0x00, 0x00, 0x10, 0x00]
    }
    XCTAssertFalse(offsets.isEmpty)
    var badMagic = data
    badMagic[2] = 0x2B
    let printed = standardError {
      CodecTest.assertRejected(Data(badOffset), [.corrupt, .truncated], "directory offset past the end")
      CodecTest.assertRejected(Data(badCount), [.corrupt, .truncated], "absurd directory entry count")
      CodecTest.assertRejected(Data(badStrip), [.corrupt, .truncated], "strip past the end")
      CodecTest.assertRejected(Data(badMagic), [.corrupt, .truncated], "BigTIFF magic on a classic header")
      CodecTest.assertRejected(Data([0x49, 0x49, 0x2A, 0x00]), [.corrupt, .truncated], "header only")
    }
    XCTAssertEqual(printed, "")
    XCTAssertThrowsError(try TIFFDecoder(data: Data(badStrip)).decodeAll()) { error in
      XCTAssertTrue("\(error)".contains("strip") || "\(error)".contains("Read error"), "\(error)")
    }
  }

  /// A header claiming 10¹² pixels is refused before anything is allocated; a lower limit refuses
  /// ordinary pages too.
  func testAbsurdSizesAreRefusedFirst() throws {
    let data = try CodecTest.data("tiff/absurd-size.tif")
    XCTAssertThrowsError(try TIFFCodec.readHeader(data, request: DecodeRequest())) { error in
      XCTAssertEqual((error as? CodecError)?.kind, .tooLarge, "\(error)")
    }
    let normal = try CodecTest.data("tiff/rgb16-lzw.tif")
    XCTAssertThrowsError(try TIFFCodec.makeDecoder(normal, request: DecodeRequest(limits: DecodeLimits(maxPixels: 1000)))) { error in
      XCTAssertEqual((error as? CodecError)?.kind, .tooLarge)
    }
    XCTAssertNoThrow(try TIFFCodec.makeDecoder(normal, request: DecodeRequest(limits: DecodeLimits(maxPixels: 45 * 37))))
  }
}
