// PNGRowReaderTests.swift — the PNG reader's own row decoder for plain (non-interlaced 8/16-bit
// gray, gray + alpha, RGB, RGBA) images: each filter reversed exactly, against libvips's decode of
// files libvips wrote with that filter; a cut, a damaged CRC, a bad filter byte or broken zlib
// data is a clear error and no pixels.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import ImageCodecs

final class PNGRowReaderTests: XCTestCase {
  /// libvips writes a photo-like image with each row filter (and adaptive choice among all) in
  /// every plain layout and depth; our decode equals libvips's raw samples exactly.
  func testEveryFilterEqualsLibvipssDecode() throws {
    let vips = "/usr/bin/vips"
    guard FileManager.default.isExecutableFile(atPath: vips) else { throw XCTSkip("no vips") }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("png-rows-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for layout in [ChannelLayout.gray, .grayAlpha, .rgb, .rgba] {
      for component in [ComponentType.uint8, .uint16] {
        let format = PixelFormat(layout: layout, component: component)
        let source = PNGStreamEncoderTests.photo(width: 67, height: 41, format: format, seed: 11)
        let input = folder.appendingPathComponent("source.png")
        try PNGStreamEncoderTests.encode(source, options: PNGEncodeOptions(compressionLevel: 1, filter: .none), executor: nil)
          .write(to: input)
        // libvips's samples of the source: each filtered file holds the same samples (libvips
        // wrote it from them, losslessly), so one dump per layout and depth is the reference.
        let raw = folder.appendingPathComponent("source.raw")
        let dumped = try ChildProcess.run(vips, ["rawsave", input.path, raw.path], in: folder)
        XCTAssertEqual(dumped.status, 0, "\(format): \(dumped.stderr)")
        let samples = try Data(contentsOf: raw)
        for filter in ["none", "sub", "up", "avg", "paeth", "all"] {
          let what = "\(format) filter \(filter)"
          let png = folder.appendingPathComponent("\(filter).png")
          let saved = try ChildProcess.run(vips, ["pngsave", input.path, png.path, "--filter", filter, "--compression", "6"], in: folder)
          XCTAssertEqual(saved.status, 0, "\(what): \(saved.stderr)")
          let decoded = try PNGDecoder.decode(Data(contentsOf: png))
          XCTAssertEqual(packed(decoded), samples, what)
        }
      }
    }
  }

  /// An 8-bit RGBA image of several IDAT chunks, as our writer makes it.
  private func rgba() throws -> (png: [UInt8], pixels: PixelBuffer) {
    let pixels = PNGStreamEncoderTests.photo(width: 97, height: 61, format: .rgba8, seed: 5)
    let png = try PNGStreamEncoderTests.encode(pixels, options: PNGEncodeOptions(compressionLevel: 6, filter: .adaptive), executor: nil)
    return ([UInt8](png), pixels)
  }

  /// The offsets of the IDAT chunks (of their length field) in `png`.
  private func idatChunks(_ png: [UInt8]) -> [(offset: Int, length: Int)] {
    var chunks: [(Int, Int)] = []
    var i = 8
    while i + 8 <= png.count {
      let length = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
      if png[(i + 4)..<(i + 8)].elementsEqual("IDAT".utf8) { chunks.append((i, length)) }
      i += 12 + length
    }
    return chunks
  }

  private func assertError(_ bytes: [UInt8], _ kinds: [CodecError.Kind], _ what: String, line: UInt = #line) {
    XCTAssertThrowsError(try PNGDecoder.decode(Data(bytes)), what, line: line) { error in
      guard let error = error as? CodecError else { return XCTFail("\(what): \(error)", line: line) }
      XCTAssertTrue(kinds.contains(error.kind), "\(what): \(error)", line: line)
      XCTAssertGreaterThan(error.message.count, 10, what, line: line)
    }
  }

  /// The file decodes whole; cut anywhere inside its image data it is `.truncated`.
  func testCutsAreTruncated() throws {
    let (png, pixels) = try rgba()
    XCTAssertEqual(try PNGDecoder.decode(Data(png)).integerValues(), pixels.integerValues())
    let chunks = idatChunks(png)
    XCTAssertGreaterThan(chunks.count, 1, "the writer should make several IDAT chunks")
    let first = chunks[0].offset + 8, last = chunks[chunks.count - 1].offset + 8 + chunks[chunks.count - 1].length
    for cut in stride(from: first, to: last - 64, by: max(1, (last - first) / 97)) {
      assertError(Array(png[..<cut]), [.truncated], "cut at \(cut) of \(png.count)")
    }
  }

  /// A changed byte of image data fails its chunk's CRC; with the CRC made to match, a filter
  /// byte above 4 and broken zlib data are `.corrupt` too.
  func testDamageIsCorrupt() throws {
    let (png, _) = try rgba()
    let chunk = idatChunks(png)[0], data = chunk.offset + 8
    var flipped = png
    flipped[data + chunk.length / 2] ^= 0x55
    assertError(flipped, [.corrupt], "flipped byte, stale CRC")

    /// `bytes` with the first IDAT's data replaced by `payload` (a complete zlib stream) and its CRC fixed.
    func withFirstIDAT(_ payload: [UInt8]) -> [UInt8] {
      let tail = png[(data + chunk.length + 4)...]
      let length = payload.count
      var out = Array(png[..<chunk.offset])
      out += [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
      let typed = Array("IDAT".utf8) + payload
      let crc = PNGBytes.crc32(typed)
      out += typed + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
      // Drop the other IDAT chunks: the replacement holds the whole image.
      var rest = Array(tail)
      for other in idatChunks(png).dropFirst().reversed() {
        let start = other.offset - (data + chunk.length + 4)
        rest.removeSubrange(start..<(start + 12 + other.length))
      }
      return out + rest
    }
    // Every row with filter 7, stored (zlib level 0) so the filter bytes are plain to see.
    let rowBytes = 97 * 4
    var filtered = [UInt8](repeating: 0, count: (rowBytes + 1) * 61)
    for y in 0..<61 { filtered[y * (rowBytes + 1)] = y == 30 ? 7 : 0 }
    assertError(withFirstIDAT(PNGBytes.storedZlib(filtered)), [.corrupt], "filter byte 7")
    var garbage = PNGBytes.storedZlib(filtered)
    garbage[2] = 0xFF  // an invalid block type where the first block starts
    assertError(withFirstIDAT(garbage), [.corrupt], "broken zlib data")
    assertError(withFirstIDAT(PNGBytes.storedZlib(Array(filtered[..<(filtered.count / 2)]))), [.corrupt], "too little image data")
  }

  /// The samples row after row without padding, 16-bit ones in native order (as `vips rawsave`).
  private func packed(_ pixels: PixelBuffer) -> Data {
    pixels.withUnsafeBaseAddress { base, rowBytes in
      (0..<pixels.height).reduce(into: Data()) { data, y in
        data.append(Data(bytes: base + y * rowBytes, count: pixels.width * pixels.format.bytesPerPixel))
      }
    }
  }
}
