// PNGStreamEncoderTests.swift — the segmented, optionally parallel PNG writer: bit-exact round
// trips through libpng (PNGDecoder), identical bytes with and without an executor, bounds.
import Dispatch
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import ImageCodecs

/// Runs jobs on a concurrent DispatchQueue (tests only; the renderer passes its WorkerPool).
final class QueueExecutor: EncodeJobExecutor, @unchecked Sendable {
  let queue = DispatchQueue(label: "png-test", attributes: .concurrent)
  let lock = NSLock()
  var submitted = 0
  func submit(_ job: @escaping () -> Void) {
    lock.lock()
    submitted += 1
    lock.unlock()
    let box = UncheckedBox(job)
    queue.async { box.value() }
  }
}

/// Runs jobs at once on the calling thread.
final class InlineExecutor: EncodeJobExecutor {
  var submitted = 0
  func submit(_ job: @escaping () -> Void) {
    submitted += 1
    job()
  }
}

struct UncheckedBox<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}

final class PNGStreamEncoderTests: XCTestCase {
  /// A photo-like buffer: smooth gradients plus a little seeded noise, so every filter has work.
  static func photo(width: Int, height: Int, format: PixelFormat, seed: UInt64 = 7) -> PixelBuffer {
    var rng = SeededGenerator(seed: seed)
    var buffer = PixelBuffer(width: width, height: height, format: format)
    let n = format.channelCount
    let maxValue = format.component == .uint16 ? 65535.0 : 255.0
    func value(_ x: Int, _ y: Int, _ c: Int, _ g: inout SeededGenerator) -> Double {
      let base = 0.5 + 0.4 * sin(Double(x) * 0.05 + Double(c)) * cos(Double(y) * 0.03 - Double(c))
      let noise = Double(g.next() % 1000) / 1000.0 * 0.04 - 0.02
      return min(1, max(0, base + noise)) * maxValue
    }
    switch format.component {
    case .uint8:
      buffer.withUnsafeMutablePixels(as: UInt8.self) { p in
        for y in 0..<p.height {
          let row = p[row: y]
          for x in 0..<p.width { for c in 0..<n { row[x * n + c] = UInt8(value(x, y, c, &rng).rounded()) } }
        }
      }
    case .uint16:
      buffer.withUnsafeMutablePixels(as: UInt16.self) { p in
        for y in 0..<p.height {
          let row = p[row: y]
          for x in 0..<p.width { for c in 0..<n { row[x * n + c] = UInt16(value(x, y, c, &rng).rounded()) } }
        }
      }
    case .float32: break
    }
    return buffer
  }

  /// Encodes `buffer` in strips of `strip` rows with small segments (several per image).
  static func encode(
    _ buffer: PixelBuffer, options: PNGEncodeOptions, executor: EncodeJobExecutor?, strip: Int = 7,
    segmentBytes: Int = 3000, inFlight: Int = 3, colorSpace: ColorSpace = .sRGB
  ) throws -> Data {
    let encoder = try PNGStreamEncoder(
      size: buffer.size, layout: buffer.format.layout, component: buffer.format.component,
      options: options, colorSpace: colorSpace, to: .memory, executor: executor,
      maxSegmentsInFlight: inFlight, segmentBytes: segmentBytes)
    var y = 0
    while y < buffer.height {
      let h = min(strip, buffer.height - y)
      try encoder.write(rows: buffer.cropped(to: Rect(x: 0, y: y, width: buffer.width, height: h)))
      y += h
    }
    return try XCTUnwrap(try encoder.finish())
  }

  static func assertSamePixels(_ a: PixelBuffer, _ b: PixelBuffer, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.size, b.size, what, file: file, line: line)
    XCTAssertEqual(a.format.layout, b.format.layout, what, file: file, line: line)
    XCTAssertEqual(a.format.component, b.format.component, what, file: file, line: line)
    XCTAssertEqual(a.integerValues(), b.integerValues(), what, file: file, line: line)
  }

  func testRoundTripEveryLayoutDepthFilterAndLevel() throws {
    let executor = QueueExecutor()
    for layout in [ChannelLayout.gray, .grayAlpha, .rgb, .rgba] {
      for component in [ComponentType.uint8, .uint16] {
        let image = Self.photo(width: 61, height: 53, format: PixelFormat(layout: layout, component: component))
        for filter in PNGEncodeOptions.Filter.allCases {
          for level in [0, 1, 6, 9] {
            let options = PNGEncodeOptions(compressionLevel: level, filter: filter)
            let what = "\(layout) \(component) \(filter) level \(level)"
            let inline = try Self.encode(image, options: options, executor: nil)
            let parallel = try Self.encode(image, options: options, executor: executor)
            XCTAssertEqual(inline, parallel, "bytes differ with an executor: \(what)")
            Self.assertSamePixels(try PNGDecoder.decode(inline), image, what)
          }
        }
      }
    }
    XCTAssertGreaterThan(executor.submitted, 4 * 2 * 6 * 4 * 3, "images should make several segments each")
  }

  func testStripAndSegmentSizesDoNotChangeTheBytes() throws {
    let image = Self.photo(width: 300, height: 211, format: PixelFormat(layout: .rgb, component: .uint8))
    let options = PNGEncodeOptions()
    let reference = try Self.encode(image, options: options, executor: nil, strip: 211, segmentBytes: 20_000)
    for strip in [1, 16, 64, 211] {
      let inline = InlineExecutor()
      XCTAssertEqual(
        try Self.encode(image, options: options, executor: inline, strip: strip, segmentBytes: 20_000, inFlight: 1),
        reference, "strip \(strip)")
      XCTAssertEqual(
        try Self.encode(image, options: options, executor: QueueExecutor(), strip: strip, segmentBytes: 20_000),
        reference, "strip \(strip), queue")
    }
    // Other segment sizes give other (still valid, same-pixel) streams.
    for segmentBytes in [1, 900, 100_000, 10_000_000] {
      let data = try Self.encode(image, options: options, executor: QueueExecutor(), segmentBytes: segmentBytes)
      Self.assertSamePixels(try PNGDecoder.decode(data), image, "segment \(segmentBytes)")
    }
  }

  func testSegmentsKeepTheCompressionRatio() throws {
    // Segments carry no preset dictionary (libdeflate has none); even at 40 KB each they cost
    // well under 1 % in size.
    let image = Self.photo(width: 400, height: 300, format: PixelFormat(layout: .rgb, component: .uint8))
    let options = PNGEncodeOptions()
    let whole = try Self.encode(image, options: options, executor: nil, strip: 300, segmentBytes: 100_000_000)
    let split = try Self.encode(image, options: options, executor: QueueExecutor(), segmentBytes: 40_000)
    XCTAssertLessThan(Double(split.count), Double(whole.count) * 1.01)
  }

  func testStructureChunksAndColorChunks() throws {
    let image = Self.photo(width: 20, height: 10, format: PixelFormat(layout: .rgb, component: .uint8))
    let data = try Self.encode(image, options: PNGEncodeOptions(), executor: nil)
    XCTAssertEqual(Array(data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    let types = Self.chunkTypes(data)
    XCTAssertEqual(types.first, "IHDR")
    XCTAssertEqual(types.last, "IEND")
    XCTAssertTrue(types.contains("sRGB"))
    XCTAssertTrue(types.contains("IDAT"))
    let noSRGB = try Self.encode(image, options: PNGEncodeOptions(writeSRGBChunk: false), executor: nil)
    XCTAssertFalse(Self.chunkTypes(noSRGB).contains("sRGB"))

    // A (minimal, structurally valid) RGB profile becomes an iCCP chunk that reads back.
    var profile = Data(count: 132)
    profile[0] = 0; profile[1] = 0; profile[2] = 0; profile[3] = 132
    profile.replaceSubrange(12..<20, with: Array("mntrRGB ".utf8))
    profile.replaceSubrange(36..<40, with: Array("acsp".utf8))
    let tagged = try Self.encode(image, options: PNGEncodeOptions(), executor: nil, colorSpace: .icc(profile))
    XCTAssertTrue(Self.chunkTypes(tagged).contains("iCCP"))
    XCTAssertFalse(Self.chunkTypes(tagged).contains("sRGB"))

    // An RGB profile on a gray image is left out with a warning.
    let gray = Self.photo(width: 20, height: 10, format: PixelFormat(layout: .gray, component: .uint8))
    let encoder = try PNGStreamEncoder(
      size: gray.size, layout: .gray, component: .uint8, colorSpace: .icc(profile))
    try encoder.write(rows: gray)
    let grayData = try XCTUnwrap(try encoder.finish())
    XCTAssertFalse(encoder.warnings.isEmpty)
    XCTAssertFalse(Self.chunkTypes(grayData).contains("iCCP"))
    Self.assertSamePixels(try PNGDecoder.decode(grayData), gray, "gray")
  }

  func testMisuseIsReported() throws {
    let image = Self.photo(width: 10, height: 10, format: PixelFormat(layout: .rgb, component: .uint8))
    let encoder = try PNGStreamEncoder(size: image.size, layout: .rgb, component: .uint8)
    XCTAssertThrowsError(try encoder.finish())
    let other = Self.photo(width: 10, height: 10, format: PixelFormat(layout: .rgba, component: .uint8))
    XCTAssertThrowsError(try encoder.write(rows: other))
    try encoder.write(rows: image)
    XCTAssertThrowsError(try encoder.write(rows: image))
    XCTAssertNotNil(try encoder.finish())
    XCTAssertThrowsError(try encoder.finish())
    XCTAssertThrowsError(
      try PNGStreamEncoder(size: image.size, layout: .rgb, component: .uint8, options: PNGEncodeOptions(compressionLevel: 10)))
    XCTAssertThrowsError(try PNGStreamEncoder(size: image.size, layout: .rgb, component: .float32))
  }

  func testWritesToAFileHandle() throws {
    let image = Self.photo(width: 123, height: 77, format: PixelFormat(layout: .rgba, component: .uint16))
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pngfast-\(UUID().uuidString).png")
    defer { try? FileManager.default.removeItem(at: url) }
    try OutputFile.write(to: url) { handle in
      let encoder = try PNGStreamEncoder(
        size: image.size, layout: .rgba, component: .uint16, to: .handle(handle), executor: QueueExecutor())
      try encoder.write(rows: image)
      XCTAssertNil(try encoder.finish())
    }
    let data = try Data(contentsOf: url)
    XCTAssertEqual(data, try Self.encode(image, options: .default, executor: nil, strip: 77, segmentBytes: PNGStreamEncoder.defaultSegmentBytes))
    Self.assertSamePixels(try PNGDecoder.decode(data), image, "file")
  }

  static func chunkTypes(_ data: Data) -> [String] {
    var types: [String] = []
    var offset = 8
    let bytes = [UInt8](data)
    while offset + 8 <= bytes.count {
      let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      types.append(String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self))
      offset += 12 + length
    }
    return types
  }
}
