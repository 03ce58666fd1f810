// CodecTestSupport.swift — decoding through the registry and comparing pixels, for codec tests.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

enum CodecTest {
  /// The fixture's bytes.
  static func data(_ path: String) throws -> Data { try Data(contentsOf: Fixtures.url(path)) }

  /// A full decode through the codec the bytes' magic names.
  static func decode(_ data: Data, scale: Int = 1) throws -> PixelBuffer {
    guard let codec = CodecRegistry.sniff(data) else { throw CodecError(.unsupported, "not recognised") }
    return try codec.makeDecoder(data, request: DecodeRequest(scaleDenominator: scale)).decodeAll()
  }

  /// The 8-bit samples of a buffer, row by row, without padding.
  static func samples(_ buffer: PixelBuffer) -> [UInt8] {
    buffer.withUnsafeBaseAddress { base, rowBytes in
      (0..<buffer.height).flatMap { y in
        Array(UnsafeBufferPointer(start: (base + y * rowBytes).assumingMemoryBound(to: UInt8.self), count: buffer.width * buffer.format.channelCount))
      }
    }
  }

  /// Fails, naming the first differing sample and how many differ, unless `a == b` (for RGBA
  /// with `ignoringHiddenColor`, colours of fully transparent pixels may differ).
  static func assertSame(
    _ a: [UInt8], _ b: [UInt8], ignoringHiddenColor: Bool = false, _ label: String = "", file: StaticString = #filePath, line: UInt = #line
  ) {
    guard a.count == b.count else { return XCTFail("\(label): \(a.count) samples vs \(b.count)", file: file, line: line) }
    var differing = 0, first: Int?
    for i in 0..<a.count where a[i] != b[i] {
      if ignoringHiddenColor, i % 4 != 3, a[i - i % 4 + 3] == 0, b[i - i % 4 + 3] == 0 { continue }
      differing += 1
      if first == nil { first = i }
    }
    if let first {
      XCTFail("\(label): \(differing) samples differ, first at \(first): \(a[first]) vs \(b[first])", file: file, line: line)
    }
  }

  /// PSNR in dB between two equal-length 8-bit sample arrays (infinity when equal).
  static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count)
    let mse = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
  }

  /// Throws unless decoding `bytes` fails with a CodecError of one of `kinds`.
  static func assertRejected(_ bytes: Data, _ kinds: Set<CodecError.Kind>, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
    do {
      guard let codec = CodecRegistry.sniff(bytes) else { return }  // unrecognisable: rejected earlier
      let header = try codec.readHeader(bytes, request: DecodeRequest())
      _ = try codec.makeDecoder(bytes, request: DecodeRequest()).decodeAll()
      XCTFail("\(label): decoded \(header.size) without an error", file: file, line: line)
    } catch let error as CodecError {
      XCTAssertTrue(kinds.contains(error.kind), "\(label): \(error.kind) \(error)", file: file, line: line)
      XCTAssertFalse(error.message.isEmpty, file: file, line: line)
    } catch {
      XCTFail("\(label): \(error)", file: file, line: line)
    }
  }
}
