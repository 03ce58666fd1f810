// DeflateJoinTests.swift — the PNG writer's libdeflate segments joined into one zlib stream: the
// joined stream inflates (with zlib, independently of the writer's block walker) to exactly the
// input for incompressible, constant and photo data at every level and awkward segment sizes;
// the block walker reports malformed streams instead of crashing; whole PNGs with unfiltered rows
// carry exactly the rows in their IDAT stream and decode bit-exact through libpng.
import CPNG
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import ImageCodecs

final class DeflateJoinTests: XCTestCase {
  // MARK: - Inputs

  static func randomBytes(_ count: Int, seed: UInt64 = 11) -> [UInt8] {
    var rng = SeededGenerator(seed: seed)
    return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
  }

  /// The fixture photo's RGB bytes, repeated until `count` bytes (real image statistics).
  static func photoBytes(_ count: Int) throws -> [UInt8] {
    let photo = try PNM.fixture("jpeg/testimg.ppm")
    let bytes = photo.integerValues().map { UInt8(clamping: $0) }
    precondition(!bytes.isEmpty)
    var out: [UInt8] = []
    out.reserveCapacity(count)
    while out.count < count { out.append(contentsOf: bytes.prefix(count - out.count)) }
    return out
  }

  // MARK: - Joining

  /// Compresses `data` in segments of `segment` bytes and joins them behind a zlib header, with
  /// the Adler-32 combined from the segments' (as PNGStreamEncoder does).
  static func joinedZlib(_ data: [UInt8], segment: Int, level: Int32) throws -> [UInt8] {
    var stream: [UInt8] = [0x78, 0x9C]
    var adler: UInt32 = 1
    var offset = 0
    while offset < data.count {
      let n = min(segment, data.count - offset)
      let last: Int32 = offset + n == data.count ? 1 : 0
      var out: UnsafeMutablePointer<UInt8>?
      var length = 0
      let status = data.withUnsafeBufferPointer {
        cpng_deflate_segment($0.baseAddress! + offset, n, level, last, &out, &length)
      }
      defer { cpng_free(out) }
      XCTAssertEqual(status, Int32(CPNG_OK), "segment at \(offset)")
      guard status == Int32(CPNG_OK), let out else { throw CodecError(.io, "segment failed") }
      stream.append(contentsOf: UnsafeBufferPointer(start: out, count: length))
      let segmentAdler = data.withUnsafeBufferPointer { zlibAdler($0.baseAddress! + offset, n) }
      adler = cpng_adler32_combine(adler, segmentAdler, UInt64(n))
      offset += n
    }
    stream.append(contentsOf: [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)])
    return stream
  }

  /// Adler-32 computed here, independently of libdeflate and zlib.
  static func zlibAdler(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt32 {
    var a: UInt32 = 1, b: UInt32 = 0
    for i in 0..<n {
      a = (a + UInt32(p[i])) % 65521
      b = (b + a) % 65521
    }
    return b << 16 | a
  }

  /// Inflates a zlib stream with zlib (header, data, Adler-32 all checked); nil when zlib refuses.
  static func inflate(_ stream: [UInt8], capacity: Int) -> [UInt8]? {
    var out = [UInt8](repeating: 0, count: max(1, capacity))
    var produced = 0
    let status = stream.withUnsafeBufferPointer { input in
      out.withUnsafeMutableBufferPointer { cpng_zlib_uncompress(input.baseAddress, input.count, $0.baseAddress, capacity, &produced) }
    }
    guard status == Int32(CPNG_OK) else { return nil }
    return Array(out.prefix(produced))
  }

  func assertJoinRoundTrips(_ data: [UInt8], _ what: String, segments: [Int], levels: [Int32] = Array(0...9)) throws {
    for level in levels {
      for segment in segments {
        let stream = try Self.joinedZlib(data, segment: segment, level: level)
        let back = Self.inflate(stream, capacity: data.count + 16)
        XCTAssertNotNil(back, "\(what): level \(level), segments of \(segment): zlib refused the joined stream")
        XCTAssertTrue(back == data, "\(what): level \(level), segments of \(segment): inflated bytes differ")
      }
    }
  }

  func testRandomBytesJoinAtEveryLevel() throws {
    // Incompressible: libdeflate falls back to stored blocks (and level 0 always stores).
    let data = Self.randomBytes(150_001)
    try assertJoinRoundTrips(data, "random", segments: [4093, 65_537, 150_001])
    try assertJoinRoundTrips(Array(data.prefix(600)), "random, tiny segments", segments: [1, 2, 3, 7, 599])
  }

  func testConstantBytesJoinAtEveryLevel() throws {
    // Long matches (258-byte lengths at distance 1) running up to each segment's end.
    let data = [UInt8](repeating: 0x5A, count: 300_000)
    try assertJoinRoundTrips(data, "constant", segments: [1000, 77_777, 300_000])
    try assertJoinRoundTrips(Array(data.prefix(300)), "constant, tiny segments", segments: [1, 5, 258, 259])
  }

  func testPhotoBytesJoinAtEveryLevel() throws {
    let data = try Self.photoBytes(250_000)
    try assertJoinRoundTrips(data, "photo", segments: [3001, 65_536, 131_071, 250_000])
  }

  func testMixedDataJoinsAcrossManySegments() throws {
    // Runs, noise and photo bytes alternating, so blocks of every kind meet segment ends.
    var data: [UInt8] = []
    let photo = try Self.photoBytes(40_000)
    for i in 0..<12 {
      switch i % 3 {
      case 0: data += Self.randomBytes(9_000 + i * 17, seed: UInt64(i))
      case 1: data += [UInt8](repeating: UInt8(i), count: 5_000 + i)
      default: data += photo.prefix(20_000 + i)
      }
    }
    try assertJoinRoundTrips(data, "mixed", segments: [999, 8_191, 30_011], levels: [1, 4, 6, 9])
  }

  // MARK: - The block walker

  func compressWhole(_ data: [UInt8], level: Int32) throws -> [UInt8] {
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    let status = data.withUnsafeBufferPointer { cpng_deflate_segment($0.baseAddress, $0.count, level, 1, &out, &length) }
    defer { cpng_free(out) }
    XCTAssertEqual(status, Int32(CPNG_OK))
    return Array(UnsafeBufferPointer(start: try XCTUnwrap(out), count: length))
  }

  /// Scans `stream`: (status, final header bit, end bit, decoded length).
  static func scan(_ stream: [UInt8]) -> (Int32, UInt64, UInt64, UInt64) {
    var header: UInt64 = 0, end: UInt64 = 0, decoded: UInt64 = 0
    let status = stream.withUnsafeBufferPointer { p -> Int32 in
      // An empty array has no base address: pass a valid one-byte buffer of length 0.
      var dummy: UInt8 = 0
      return p.count == 0
        ? cpng_deflate_scan(&dummy, 0, &header, &end, &decoded)
        : cpng_deflate_scan(p.baseAddress, p.count, &header, &end, &decoded)
    }
    return (status, header, end, decoded)
  }

  func testWalkerFindsTheFinalBlockOfEveryKind() throws {
    let ok = Int32(CPNG_OK)
    // Stored (level 0), fixed (a tiny input) and dynamic (photo) blocks.
    for (data, level) in [(Self.randomBytes(70_000), Int32(0)), (Array("hello hello".utf8), 6), (try Self.photoBytes(120_000), 6)] {
      let stream = try compressWhole(data, level: level)
      let (status, header, end, decoded) = Self.scan(stream)
      XCTAssertEqual(status, ok)
      XCTAssertEqual(decoded, UInt64(data.count))
      XCTAssertEqual((end + 7) / 8, UInt64(stream.count), "the final block ends in the last byte")
      XCTAssertLessThan(header, end)
      XCTAssertEqual(stream[Int(header / 8)] >> (header % 8) & 1, 1, "BFINAL is set at the reported bit")
    }
    // The fixed Huffman block RFC 1951 gives for an empty input: 03 00.
    let (status, header, end, decoded) = Self.scan([0x03, 0x00])
    XCTAssertEqual(status, ok)
    XCTAssertEqual(header, 0)
    XCTAssertEqual(end, 10)
    XCTAssertEqual(decoded, 0)
  }

  func testWalkerRejectsMalformedStreams() throws {
    let corrupt = Int32(CPNG_ERR_CORRUPT)
    XCTAssertEqual(Self.scan([]).0, corrupt, "empty")
    XCTAssertEqual(Self.scan([0x07]).0, corrupt, "block type 3")
    XCTAssertEqual(Self.scan([0x01, 0x05, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5]).0, corrupt, "stored NLEN mismatch")
    XCTAssertEqual(Self.scan([0x01, 0x05, 0x00, 0xFA, 0xFF, 1, 2]).0, corrupt, "stored block past the end")
    XCTAssertEqual(Self.scan([0x00, 0x00, 0x00, 0xFF, 0xFF]).0, corrupt, "no final block")
    // A fixed block whose first symbol is a match: its distance reaches before the start.
    // Bits: BFINAL 1, BTYPE 01, length code 257 (0000001), distance code 0 (00000).
    XCTAssertEqual(Self.scan([0x03, 0x02, 0x00, 0x00]).0, corrupt, "distance before the start")

    // Every truncation of a real stream is reported, never read past.
    let stream = try compressWhole(try Self.photoBytes(20_000), level: 6)
    for cut in stride(from: 0, to: stream.count, by: max(1, stream.count / 300)) {
      XCTAssertEqual(Self.scan(Array(stream.prefix(cut))).0, corrupt, "truncated to \(cut) of \(stream.count) bytes")
    }
    // Random garbage and single bit flips: OK or CORRUPT, never a crash; a flip that still
    // parses may change the decoded length, which make_joinable then refuses.
    var rng = SeededGenerator(seed: 99)
    for trial in 0..<400 {
      let garbage = Self.randomBytes(Int(rng.next() % 2000), seed: UInt64(trial) + 1000)
      let status = Self.scan(garbage).0
      XCTAssertTrue(status == corrupt || status == Int32(CPNG_OK), "garbage \(trial)")
    }
    for trial in 0..<400 {
      var flipped = stream
      let bit = Int(rng.next() % UInt64(stream.count * 8))
      flipped[bit / 8] ^= UInt8(1 << (bit % 8))
      let status = Self.scan(flipped).0
      XCTAssertTrue(status == corrupt || status == Int32(CPNG_OK), "flip \(trial)")
    }
  }

  func testMakeJoinableChecksTheStream() throws {
    let data = try Self.photoBytes(10_000)
    var stream = try compressWhole(data, level: 6)
    let length = stream.count
    stream += [UInt8](repeating: 0xEE, count: 8)
    var joined = 0
    let wrongLength = stream.withUnsafeMutableBufferPointer {
      cpng_deflate_make_joinable($0.baseAddress, length, $0.count, UInt64(data.count + 1), &joined)
    }
    XCTAssertEqual(wrongLength, Int32(CPNG_ERR_CORRUPT), "a stream that decodes to another length")
    let trailing = stream.withUnsafeMutableBufferPointer {
      cpng_deflate_make_joinable($0.baseAddress, length + 1, $0.count, UInt64(data.count), &joined)
    }
    XCTAssertEqual(trailing, Int32(CPNG_ERR_CORRUPT), "bytes after the final block")
    let good = stream.withUnsafeMutableBufferPointer {
      cpng_deflate_make_joinable($0.baseAddress, length, $0.count, UInt64(data.count), &joined)
    }
    XCTAssertEqual(good, Int32(CPNG_OK))
    XCTAssertEqual(Array(stream[(joined - 4)..<joined]), [0x00, 0x00, 0xFF, 0xFF], "ends with the sync-flush marker")
    XCTAssertLessThanOrEqual(joined, length + 5)
    // The joinable prefix plus an empty final block (03 00) is a complete stream again.
    let (status, _, _, decoded) = Self.scan(Array(stream.prefix(joined)) + [0x03, 0x00])
    XCTAssertEqual(status, Int32(CPNG_OK))
    XCTAssertEqual(decoded, UInt64(data.count))
  }

  // MARK: - Whole PNGs

  /// The IDAT payload of a PNG, concatenated.
  static func idat(_ png: Data) -> [UInt8] {
    let bytes = [UInt8](png)
    var out: [UInt8] = []
    var offset = 8
    while offset + 8 <= bytes.count {
      let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      if String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) == "IDAT" {
        out += bytes[(offset + 8)..<(offset + 8 + length)]
      }
      offset += 12 + length
    }
    return out
  }

  func testUnfilteredPNGsCarryExactlyTheirRows() throws {
    // With filter .none the IDAT stream is each row behind a 0 byte: zlib must give exactly that,
    // and libpng the pixels, for one segment and for many of odd sizes.
    let width = 173, height = 97
    let format = PixelFormat(layout: .rgb, component: .uint8)
    let photo = try Self.photoBytes(width * height * 3)
    let noise = Self.randomBytes(width * height * 3)
    let constant = [UInt8](repeating: 200, count: width * height * 3)
    for (name, bytes) in [("photo", photo), ("random", noise), ("constant", constant)] {
      var image = PixelBuffer(width: width, height: height, format: format)
      image.withUnsafeMutablePixels(as: UInt8.self) { p in
        for y in 0..<height {
          for x in 0..<(width * 3) { p[row: y][x] = bytes[y * width * 3 + x] }
        }
      }
      var rows: [UInt8] = []
      for y in 0..<height { rows += [0] + bytes[(y * width * 3)..<((y + 1) * width * 3)] }
      for level in [0, 1, 6, 9] {
        for segmentBytes in [1, 1_000, 7_777, 1 << 20] {
          let what = "\(name) level \(level) segments of \(segmentBytes) bytes"
          let png = try PNGStreamEncoderTests.encode(
            image, options: PNGEncodeOptions(compressionLevel: level, filter: .none), executor: QueueExecutor(),
            strip: 13, segmentBytes: segmentBytes)
          XCTAssertTrue(Self.inflate(Self.idat(png), capacity: rows.count + 16) == rows, "\(what): zlib")
          PNGStreamEncoderTests.assertSamePixels(try PNGDecoder.decode(png), image, "\(what): libpng")
        }
      }
    }
  }
}
