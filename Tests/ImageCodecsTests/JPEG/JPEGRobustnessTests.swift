// JPEGRobustnessTests.swift — unsupported, truncated, garbled and non-JPEG input: errors or
// warnings, never a crash or a hang.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class JPEGRobustnessTests: XCTestCase {
  func testTwelveBitJPEGIsUnsupportedWithAClearMessage() throws {
    let error = assertCodecError(.unsupported) { try JPEGDecoder.decode(JPEGTest.data("testorig12.jpg")) }
    let message = error?.message ?? ""
    XCTAssertTrue(message.contains("12-bit JPEG"), message)
    XCTAssertTrue(message.contains("not supported"), message)
    XCTAssertTrue(message.contains("libjpeg-turbo 2.1"), message)
    XCTAssertTrue(message.contains("Unsupported JPEG data precision 12"), message)
    assertCodecError(.unsupported) { try JPEGDecoder.readHeader(JPEGTest.data("testorig12.jpg")) }
  }

  func testLosslessJPEGIsUnsupportedWithAClearMessage() throws {
    let error = assertCodecError(.unsupported) { try JPEGDecoder.decode(JPEGTest.data("testimgl.jpg")) }
    let message = error?.message ?? ""
    XCTAssertTrue(message.contains("lossless JPEG (SOF3)"), message)
    XCTAssertTrue(message.contains("not supported"), message)
    XCTAssertTrue(message.contains("SOF type 0xc3"), message)
  }

  func testNonJPEGAndEmptyInput() throws {
    let error = assertCodecError(.corrupt) {
      try JPEGDecoder.decode(Data("this is not a JPEG file at all".utf8))
    }
    XCTAssertTrue(error?.message.contains("Not a JPEG file") ?? false, error?.message ?? "")
    assertCodecError(.truncated) { try JPEGDecoder.decode(Data()) }
    assertCodecError(.truncated) { try JPEGDecoder.decode(Data([0xFF, 0xD8])) }
  }

  func testTruncatedEntropyDataDecodesWithAWarningUnlessStrict() throws {
    let data = try JPEGTest.data("testorig.jpg")
    let start = JPEGTest.entropyStart([UInt8](data))
    for cut in [start + 10, (start + data.count) / 2, data.count - 100, data.count - 2] {
      let truncated = data.prefix(cut)
      let result = try JPEGDecoder.decodeReportingWarnings(truncated)
      XCTAssertEqual(result.buffer.size, Size(width: 227, height: 149))
      XCTAssertEqual(result.warnings.first, "Premature end of JPEG file", "cut at \(cut)")
      let error = assertCodecError(.truncated) {
        try JPEGDecoder.decode(truncated, options: JPEGDecodeOptions(isStrict: true))
      }
      XCTAssertTrue(error?.message.contains("Premature end of JPEG file") ?? false)
    }
  }

  func testTruncatedHeaderIsATruncationError() throws {
    let data = try JPEGTest.data("testorig.jpg")
    let start = JPEGTest.entropyStart([UInt8](data))
    for cut in [3, 20, 100, 300, start - 5] {
      let error = assertCodecError(.truncated) { try JPEGDecoder.decode(data.prefix(cut)) }
      XCTAssertTrue(error?.message.contains("truncated") ?? false, "cut at \(cut): \(error?.message ?? "")")
    }
  }

  /// Every truncation point of the progressive file: never a crash, an error or a full-size image.
  func testEveryTruncationOfAProgressiveFileIsHandled() throws {
    let data = try JPEGTest.data("testprog.jpg")
    for cut in stride(from: 0, to: data.count, by: 7) {
      do {
        let result = try JPEGDecoder.decodeReportingWarnings(data.prefix(cut))
        XCTAssertEqual(result.buffer.size, Size(width: 227, height: 149))
        XCTAssertFalse(result.warnings.isEmpty, "cut at \(cut) gave no warning")
      } catch let error as CodecError {
        XCTAssertTrue([.truncated, .corrupt].contains(error.kind), "cut at \(cut): \(error)")
      }
    }
  }

  /// Flips every header byte and a few hundred entropy-data bytes, each on its own. A small pixel
  /// limit keeps garbled sizes cheap.
  func testGarbledBytesGiveErrorsOrWarnings() throws {
    let original = [UInt8](try JPEGTest.data("testorig.jpg"))
    let start = JPEGTest.entropyStart(original)
    var rng = JPEGTest.LCG(state: 2024)
    let positions = Array(2..<start) + (0..<300).map { _ in start + rng.next(original.count - start) }
    var outcomes = [String: Int]()
    for (n, position) in positions.enumerated() {
      var bytes = original
      bytes[position] ^= n.isMultiple(of: 2) ? 0xFF : 0x5A
      do {
        let result = try JPEGDecoder.decodeReportingWarnings(Data(bytes), limits: DecodeLimits(maxPixels: 1 << 22))
        outcomes[result.warnings.isEmpty ? "clean" : "warnings", default: 0] += 1
      } catch let error as CodecError {
        outcomes["\(error.kind)", default: 0] += 1
        XCTAssertFalse(error.message.isEmpty)
      }
    }
    print("garbled JPEG outcomes over \(positions.count) flips: \(outcomes)")
    XCTAssertGreaterThan(outcomes["corrupt", default: 0], 0)
    XCTAssertGreaterThan(outcomes["warnings", default: 0], 0)
  }

  func testStrictModeRejectsCorruptEntropyData() throws {
    var bytes = [UInt8](try JPEGTest.data("testorig.jpg"))
    let start = JPEGTest.entropyStart(bytes)
    // An unexpected marker inside the entropy data is a recoverable "Corrupt JPEG data" warning.
    bytes[start + 200] = 0xFF
    bytes[start + 201] = 0xD3
    let lenient = try JPEGDecoder.decodeReportingWarnings(Data(bytes))
    XCTAssertFalse(lenient.warnings.isEmpty)
    let error = assertCodecError(.corrupt) {
      try JPEGDecoder.decode(Data(bytes), options: JPEGDecodeOptions(isStrict: true))
    }
    XCTAssertTrue(error?.message.contains("Corrupt JPEG data") ?? false, error?.message ?? "")
  }
}
