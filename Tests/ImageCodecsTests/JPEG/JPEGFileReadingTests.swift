// JPEGFileReadingTests.swift — JPEG files read through their descriptor (FileReadingCodec): the
// same header, pixels, warnings and errors as the same bytes in memory, whatever the read buffer's
// size; a cut file damaged exactly as from memory; a file changing size while it is read an error;
// files with an MPF index read whole.

import Foundation
@testable import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class JPEGFileReadingTests: XCTestCase {
  /// What one decode gave: the header, the pixels and the warnings, or the error.
  private struct Outcome {
    var header: ImageHeader?
    var pixels: PixelBuffer?
    var warnings: [String] = []
    var error: CodecError?

    func assertSame(as other: Outcome, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
      XCTAssertEqual(header, other.header, what, file: file, line: line)
      XCTAssertEqual(warnings, other.warnings, what, file: file, line: line)
      XCTAssertEqual(error?.kind, other.error?.kind, what, file: file, line: line)
      XCTAssertEqual(error?.message, other.error?.message, what, file: file, line: line)
      XCTAssertEqual(pixels == nil, other.pixels == nil, what, file: file, line: line)
      if let pixels, let others = other.pixels { XCTAssertTrue(pixels.hasSamePixels(as: others), what, file: file, line: line) }
    }
  }

  private func outcome(_ make: () throws -> JPEGDecoder, scale: Int, strict: Bool = false) -> Outcome {
    var result = Outcome()
    do {
      let decoder = try make()
      result.header = decoder.header
      try decoder.start(options: JPEGDecodeOptions(scaleDenominator: scale, isStrict: strict))
      var buffer = try decoder.makeBuffer()
      try decoder.readRows(buffer.height, into: &buffer)
      result.pixels = buffer
      result.warnings = decoder.warnings
    } catch {
      result.error = error as? CodecError
    }
    return result
  }

  /// The outcome of decoding the file at `url` through its descriptor, `buffer` bytes at a time.
  private func fromFile(_ url: URL, scale: Int, buffer: Int, strict: Bool = false) throws -> Outcome {
    let file = try FileHandle(forReadingFrom: url)
    defer { try? file.close() }
    let head = try XCTUnwrap(JPEGFileHead.read(file, limit: 1 << 30), url.lastPathComponent)
    return outcome({ try JPEGDecoder(file: file, head: head, limits: .default, bufferSize: buffer) }, scale: scale, strict: strict)
  }

  private func fromMemory(_ data: Data, scale: Int, strict: Bool = false) -> Outcome {
    outcome({ try JPEGDecoder(data: data, limits: .default) }, scale: scale, strict: strict)
  }

  /// Every JPEG among the fixtures (baseline, progressive, arithmetic-coded, gray, CMYK, with EXIF,
  /// ICC and XMP segments, 12-bit and lossless ones refused) decodes from its file as from its
  /// bytes, at full size and 1/8, through the default buffer and through buffers of 1 and 1000
  /// bytes (every refill, and markers and skipped segments across buffer boundaries); those with an
  /// MPF index are read whole, with the same header.
  func testFixtureFilesEqualTheirBytesInMemory() throws {
    let root = Fixtures.url("")
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }
      .filter { ["jpg", "jpeg"].contains($0.pathExtension.lowercased()) }.sorted { $0.path < $1.path }
    XCTAssertGreaterThan(files.count, 25)
    var inPlace = 0, multiPicture = 0
    for url in files {
      let data = try Data(contentsOf: url), name = url.lastPathComponent
      let file = try FileHandle(forReadingFrom: url)
      defer { try? file.close() }
      guard JPEGCodec.readsInPlace(file: file, request: DecodeRequest()) else {
        multiPicture += 1
        XCTAssertNotNil(data.range(of: Data(MultiPictureIndex.signature)), name)
        XCTAssertEqual(try JPEGCodec.readHeader(file: file, request: DecodeRequest()), try JPEGCodec.readHeader(data, request: DecodeRequest()), name)
        continue
      }
      inPlace += 1
      XCTAssertEqual(try? JPEGCodec.readHeader(file: file, request: DecodeRequest()), try? JPEGCodec.readHeader(data, request: DecodeRequest()), name)
      for scale in [1, 8] {
        let expected = fromMemory(data, scale: scale)
        for buffer in [JPEGDecoder.fileBufferSize, 1000] + (scale == 1 ? [1] : []) {
          try fromFile(url, scale: scale, buffer: buffer).assertSame(as: expected, "\(name) at 1/\(scale), \(buffer)-byte buffer")
        }
      }
    }
    XCTAssertGreaterThan(inPlace, 20)
    XCTAssertGreaterThan(multiPicture, 0)
  }

  /// A file cut in its entropy-coded data is damaged as the same bytes in memory are (the same
  /// gray rows, the same "Premature end of JPEG file" warnings; strict, the same error), and a file
  /// cut in its markers fails as from memory.
  func testACutFileIsDamagedAsFromMemory() throws {
    for name in ["testorig.jpg", "testprog.jpg"] {
      let data = try JPEGTest.data(name)
      let start = JPEGTest.entropyStart([UInt8](data))
      for cut in [start + 10, (start + data.count) / 2, data.count - 2] {
        let cutData = data.prefix(cut)
        try withFile(cutData) { url in
          for buffer in [JPEGDecoder.fileBufferSize, 512] {
            for strict in [false, true] {
              let expected = fromMemory(cutData, scale: 1, strict: strict)
              XCTAssertTrue(expected.warnings.contains("Premature end of JPEG file") || expected.error?.kind == .truncated, "\(name) cut at \(cut)")
              try fromFile(url, scale: 1, buffer: buffer, strict: strict).assertSame(as: expected, "\(name) cut at \(cut), strict \(strict)")
            }
          }
        }
      }
      // Cut before the first scan (the head is then read whole, from memory) and in its header.
      for cut in [20, start - 5] {
        try withFile(data.prefix(cut)) { url in
          let file = try FileHandle(forReadingFrom: url)
          defer { try? file.close() }
          XCTAssertEqual(JPEGFileHead.read(file, limit: 1 << 30) == nil, cut == 20)
          let fromFile = error { try JPEGCodec.makeDecoder(file: file, request: DecodeRequest()).decodeAll() }
          let fromMemory = error { try JPEGCodec.makeDecoder(data.prefix(cut), request: DecodeRequest()).decodeAll() }
          XCTAssertEqual(fromFile?.kind, .truncated, "\(name) cut at \(cut)")
          XCTAssertEqual(fromFile?.message, fromMemory?.message, "\(name) cut at \(cut)")
        }
      }
    }
  }

  /// A file cut short after its decoder was made is an error saying it changed, not gray rows.
  func testAFileThatShrinksWhileItIsReadIsAnError() throws {
    let data = try JPEGTest.data("testorig.jpg")
    try withFile(data) { url in
      let file = try FileHandle(forReadingFrom: url)
      defer { try? file.close() }
      let head = try XCTUnwrap(JPEGFileHead.read(file, limit: 1 << 30))
      let decoder = try JPEGDecoder(file: file, head: head, limits: .default, bufferSize: 512)
      try decoder.start()
      try FileHandle(forWritingTo: url).truncate(atOffset: UInt64(data.count / 2))
      var buffer = try decoder.makeBuffer()
      XCTAssertThrowsError(try decoder.readRows(buffer.height, into: &buffer)) { error in
        XCTAssertEqual((error as? CodecError)?.kind, .truncated, "\(error)")
        XCTAssertTrue("\(error)".contains("changed size while it was read"), "\(error)")
      }
    }
  }

  /// The error `body` throws, or nil.
  private func error(_ body: () throws -> PixelBuffer) -> CodecError? {
    do {
      _ = try body()
      return nil
    } catch {
      return error as? CodecError
    }
  }

  private func withFile(_ bytes: Data, _ body: (URL) throws -> Void) throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("jpeg-\(UUID().uuidString).jpg")
    try bytes.write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    try body(url)
  }
}
