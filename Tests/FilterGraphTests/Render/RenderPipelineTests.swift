// RenderPipelineTests.swift — sources through the engine and out through the encoders, exactly.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class RenderPipelineTests: XCTestCase {
  /// A JPEG rendered through the engine (uint8 → float tiles → uint8) equals the reference decode.
  func testIdentityRenderOfJPEGMatchesReferenceDecode() throws {
    let image = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    XCTAssertEqual(image.size, Size(width: 227, height: 149))
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 16)))
    let out = try renderer.render(image)
    let reference = try PNM.fixture("jpeg/testimg.ppm")
    XCTAssertTrue(out.hasSamePixels(as: reference))
  }

  /// Nothing is decoded until a render: building an image reads the header only.
  func testBuildingAnImageDecodesNothing() throws {
    let renderer = Renderer()
    let image = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    _ = image.rotated(byDegrees: 90)
    XCTAssertEqual(renderer.statistics.decodes, 0)
    _ = try renderer.render(image)
    XCTAssertEqual(renderer.statistics.decodes, 1)
    _ = try renderer.render(image.rotated(byDegrees: 180))
    XCTAssertEqual(renderer.statistics.decodes, 1, "a second render reuses the decoded source")
    XCTAssertEqual(renderer.statistics.hits, 1)
  }

  /// A 16-bit PNG written as PNG stays 16-bit and bit-exact (an sRGB one: PngSuite's carry
  /// gAMA 1.0, linear codes written through the sRGB curve, so the fixture is re-tagged first).
  func testSixteenBitPNGRoundTripsThroughTheEngine() throws {
    var decoded = try PNGDecoder.decode(Data(contentsOf: Fixtures.url("pngsuite/basn6a16.png")))
    decoded.colorSpace = .sRGB
    decoded.metadata = ImageMetadata()
    let dir0 = FileManager.default.temporaryDirectory.appendingPathComponent("fg-\(UUID().uuidString)-src.png")
    try PNGEncoder.encode(decoded).write(to: dir0)
    defer { try? FileManager.default.removeItem(at: dir0) }
    let url = dir0
    let image = try Image(contentsOf: url)
    XCTAssertEqual(image.info.component, .uint16)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out.png")
    try Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 8, height: 8))).write(image, to: out)
    let reread = try PNGDecoder.decode(Data(contentsOf: out))
    XCTAssertEqual(reread.format.component, .uint16)
    // Straight 16-bit alpha survives premultiply/unpremultiply in float within one step.
    try assertClose(reread, decoded, tolerance: 1)
  }

  /// Writing never leaves a partial file and never overwrites a protected input.
  func testWriteRefusesToOverwriteInputAndLeavesNothingBehind() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = dir.appendingPathComponent("in.jpg")
    try FileManager.default.copyItem(at: Fixtures.url("jpeg/testorig.jpg"), to: input)
    let before = try Data(contentsOf: input)
    let image = try Image(contentsOf: input)
    XCTAssertThrowsError(try Renderer().write(image, to: input, options: WriteOptions(protectedInputs: [input])))
    XCTAssertEqual(try Data(contentsOf: input), before)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["in.jpg"])
  }

  /// A JPEG written to a file streams through the encoder's descriptor destination; it must be the
  /// bytes `encode` returns in memory, for a plain and a progressive file, and the same streamed
  /// to a handle (standard output's path).
  func testStreamedJPEGFileEqualsInMemoryEncode() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let image = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg")).rotated(byDegrees: 90)
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 16)))
    for options in [WriteOptions(options: ["quality": 97]), WriteOptions(options: ["quality": 75, "progressive": true])] {
      let expected = try renderer.encode(image, format: .jpeg, options: options)
      let url = dir.appendingPathComponent("out.jpg")
      try renderer.write(image, to: url, options: options)
      XCTAssertEqual(try Data(contentsOf: url), expected)
      let piped = dir.appendingPathComponent("piped.jpg")
      try OutputFile.write(to: piped) { handle in
        try renderer.write(image, to: handle, format: .jpeg, options: options)
      }
      XCTAssertEqual(try Data(contentsOf: piped), expected)
    }
  }

  /// Baseline JPEGs are compressed in strips on the worker pool and joined with restart markers:
  /// whatever the thread count and band height, they decode to exactly the pixels of a serial
  /// encode of the rendered image, and carry a DRI marker.
  func testParallelJPEGDecodesToTheSerialEncodesPixels() throws {
    let image = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg")).rotated(byDegrees: 90)
    for (threads, bandHeight) in [(1, 7), (2, 16), (3, 64), (2, 1)] {
      let renderer = Renderer(options: RendererOptions(threads: threads, tileSize: Size(width: 64, height: bandHeight)))
      for subsampling in [JPEGEncodeOptions.ChromaSubsampling.s420, .s444] {
        let options = WriteOptions(options: ["quality": 90, "chroma": subsampling == .s444 ? "444" : "420"])
        let parallel = try renderer.encode(image, format: .jpeg, options: options)
        let pixels = try renderer.render(image, format: PixelFormat(layout: .rgb, component: .uint8))
        let serial = try JPEGEncoder.encode(
          pixels, options: JPEGEncodeOptions(quality: 90, chromaSubsampling: subsampling, optimizesHuffmanCoding: false))
        let label = "\(threads) threads, bands of \(bandHeight), \(subsampling)"
        XCTAssertEqual(
          try JPEGDecoder.decode(parallel).integerValues(), try JPEGDecoder.decode(serial).integerValues(), label)
        let bytes = [UInt8](parallel)
        XCTAssertTrue(zip(bytes, bytes.dropFirst()).contains { $0 == 0xFF && $1 == 0xDD }, "no DRI marker: \(label)")
      }
    }
  }

  /// A JPEG render to a full disk (/dev/full) fails with `.io`, and says why.
  func testJPEGWriteToAFullDiskIsAnIOError() throws {
    guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
    let image = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    XCTAssertThrowsError(
      try Renderer().write(image, to: URL(fileURLWithPath: "/dev/full"), options: WriteOptions(format: .jpeg))
    ) { error in
      guard let error = error as? CodecError else { return XCTFail("\(type(of: error)): \(error)") }
      XCTAssertEqual(error.kind, .io)
      XCTAssertTrue(error.message.contains("No space left on device"), error.message)
    }
  }

  private func assertClose(_ a: PixelBuffer, _ b: PixelBuffer, tolerance: Int, file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(a.size, b.size, file: file, line: line)
    XCTAssertEqual(a.format, b.format, file: file, line: line)
    var worst = 0
    a.withUnsafePixels(as: UInt16.self) { pa in
      b.withUnsafePixels(as: UInt16.self) { pb in
        for y in 0..<a.height {
          for x in 0..<(a.width * a.channelCount) {
            // Fully transparent pixels carry no colour.
            let alphaIndex = (x / a.channelCount) * a.channelCount + a.channelCount - 1
            if pb[row: y][alphaIndex] == 0 { continue }
            worst = max(worst, abs(Int(pa[row: y][x]) - Int(pb[row: y][x])))
          }
        }
      }
    }
    XCTAssertLessThanOrEqual(worst, tolerance, file: file, line: line)
  }
}
