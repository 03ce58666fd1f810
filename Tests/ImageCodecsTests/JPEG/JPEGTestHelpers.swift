// JPEGTestHelpers.swift — byte surgery on JPEG streams and image comparisons for the JPEG tests.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

/// Helpers shared by the JPEG test cases.
enum JPEGTest {
  /// A fixture under `jpeg/`.
  static func data(_ name: String) throws -> Data { try Fixtures.data("jpeg/\(name)") }

  /// A reference PPM/PGM under `jpeg/`.
  static func reference(_ name: String) throws -> PixelBuffer { try PNM.fixture("jpeg/\(name)") }

  /// Peak signal-to-noise ratio in dB over all channels (infinity when identical).
  static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    precondition(a.size == b.size && a.format == b.format && a.format.component == .uint8)
    let n = a.width * a.format.channelCount
    var sum = 0.0
    a.withUnsafePixels(as: UInt8.self) { pa in
      b.withUnsafePixels(as: UInt8.self) { pb in
        for y in 0..<a.height {
          let ra = pa[row: y], rb = pb[row: y]
          for i in 0..<n {
            let d = Double(ra[i]) - Double(rb[i])
            sum += d * d
          }
        }
      }
    }
    let mse = sum / Double(n * a.height)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
  }

  /// Averages 2×2 blocks (partial blocks at the right and bottom edges average what exists), so
  /// the result is ⌈w/2⌉ × ⌈h/2⌉ like libjpeg's 1/2 scaling.
  static func boxDownsample2x(_ src: PixelBuffer) -> PixelBuffer {
    let w = (src.width + 1) / 2, h = (src.height + 1) / 2, c = src.format.channelCount
    var dst = PixelBuffer(width: w, height: h, format: src.format)
    src.withUnsafePixels(as: UInt8.self) { s in
      dst.withUnsafeMutablePixels(as: UInt8.self) { d in
        for y in 0..<h {
          for x in 0..<w {
            for ch in 0..<c {
              var total = 0, count = 0
              for sy in (2 * y)..<min(2 * y + 2, src.height) {
                for sx in (2 * x)..<min(2 * x + 2, src.width) {
                  total += Int(s[row: sy][sx * c + ch])
                  count += 1
                }
              }
              d[row: y][x * c + ch] = UInt8((total + count / 2) / count)
            }
          }
        }
      }
    }
    return dst
  }

  /// The offset of the first marker `code` (for example 0xC0 for SOF0) in a JPEG's header
  /// segments, walking segment lengths from SOI; nil when absent before SOS.
  static func markerOffset(_ bytes: [UInt8], _ code: UInt8) -> Int? {
    var i = 2
    while i + 4 <= bytes.count, bytes[i] == 0xFF {
      let marker = bytes[i + 1]
      if marker == code { return i }
      if marker == 0xDA { return nil }
      i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
    }
    return nil
  }

  /// The end of the header: the first byte of entropy-coded data after the first SOS segment.
  static func entropyStart(_ bytes: [UInt8]) -> Int {
    let sos = markerOffset(bytes, 0xDA)!
    return sos + 2 + (Int(bytes[sos + 2]) << 8 | Int(bytes[sos + 3]))
  }

  /// A marker segment: FF, the code, a big-endian length, the payload.
  static func segment(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
    let length = payload.count + 2
    return [0xFF, code, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
  }

  /// `jpeg` with `segments` inserted after SOI and a leading APP0 (JFIF) segment, if any.
  static func inserting(_ segments: [[UInt8]], into jpeg: Data) -> Data {
    var bytes = [UInt8](jpeg)
    var at = 2
    if bytes[2] == 0xFF, bytes[3] == 0xE0 { at = 4 + (Int(bytes[4]) << 8 | Int(bytes[5])) }
    bytes.insert(contentsOf: segments.flatMap { $0 }, at: at)
    return Data(bytes)
  }

  /// An APP1 EXIF payload holding only an orientation tag (big-endian TIFF).
  static func exifAPP1(orientation: Int) -> [UInt8] {
    let tiff: [UInt8] = [
      0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,  // "MM", 42, IFD at 8
      0x00, 0x01,  // one entry
      0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, UInt8(orientation), 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00,  // no next IFD
    ]
    return Array("Exif".utf8) + [0, 0] + tiff
  }

  /// An APP2 ICC_PROFILE payload carrying chunk `sequence` of `count`.
  static func iccAPP2(_ chunk: ArraySlice<UInt8>, sequence: Int, count: Int) -> [UInt8] {
    Array("ICC_PROFILE".utf8) + [0, UInt8(sequence), UInt8(count)] + chunk
  }

  /// The (h, v) sampling factors of each component in the first SOF marker.
  static func samplingFactors(_ jpeg: Data) -> [(Int, Int)] {
    let bytes = [UInt8](jpeg)
    guard let sof = [0xC0, 0xC1, 0xC2].lazy.compactMap({ markerOffset(bytes, UInt8($0)) }).first else {
      return []
    }
    let n = Int(bytes[sof + 9])
    return (0..<n).map { i in
      let f = bytes[sof + 10 + 3 * i + 1]
      return (Int(f >> 4), Int(f & 0x0F))
    }
  }

  /// A deterministic pseudo-random generator (64-bit LCG) so failures reproduce.
  struct LCG {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return Int((state >> 33) % UInt64(bound))
    }
  }
}

/// Asserts `body` throws a CodecError of `kind` and returns it.
@discardableResult
func assertCodecError<T>(
  _ kind: CodecError.Kind, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T
) -> CodecError? {
  do {
    _ = try body()
    XCTFail("expected a .\(kind) CodecError, got success", file: file, line: line)
  } catch let error as CodecError {
    XCTAssertEqual(error.kind, kind, "\(error.message)", file: file, line: line)
    return error
  } catch {
    XCTFail("expected a CodecError, got \(error)", file: file, line: line)
  }
  return nil
}
