// SourceTests.swift — the graph's leaves: solid colours, in-memory buffers, files that fail.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

/// Writes the first bytes of a real PNG (signature, IHDR and part of IDAT) to a temporary file.
enum TruncatedPNG {
  static func write(keeping fraction: Double = 0.5, name: String = "truncated") throws -> URL {
    let bytes = try Fixtures.data("pngsuite/basn6a08.png")
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fg-\(name)-\(UUID().uuidString).png")
    try bytes.prefix(Int(Double(bytes.count) * fraction)).write(to: url)
    return url
  }
}

final class SourceTests: XCTestCase {
  private let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 16, height: 4)))

  // MARK: Solid colour

  func testSolidColorRendersItsBytes() throws {
    let opaque = Image(color: Color(hex: "#FF8000")!, size: Size(width: 21, height: 9))
    XCTAssertEqual(opaque.info.layout, .rgb)
    let out = try renderer.render(opaque)
    XCTAssertEqual(out.format, .rgb8)
    XCTAssertEqual(out.size, Size(width: 21, height: 9))
    out.withUnsafePixels(as: UInt8.self) { px in
      for y in 0..<9 { for x in 0..<21 { XCTAssertEqual([px[row: y][3 * x], px[row: y][3 * x + 1], px[row: y][3 * x + 2]], [255, 128, 0]) } }
    }
    let translucent = Image(color: Color(red: 0.2, green: 0.4, blue: 1, alpha: 0.5), size: Size(width: 3, height: 2))
    XCTAssertEqual(translucent.info.layout, .rgba)
    let t = try renderer.render(translucent)
    t.withUnsafePixels(as: UInt8.self) { px in
      // Straight 8-bit: 0.2·255 = 51, 0.4·255 = 102, 255, alpha 0.5·255 + 0.5 → 128.
      XCTAssertEqual(Array(UnsafeBufferPointer(start: px[row: 1] + 8, count: 4)), [51, 102, 255, 128])
    }
  }

  func testSolidColorThroughLinearLightKeepsItsBytes() throws {
    // A linear-light operation that changes nothing (opacity 0) decodes and re-encodes the colour.
    let paper = Image(color: Color(hex: "#F4ECD8")!, size: Size(width: 5, height: 5))
    let plain = try renderer.render(paper)
    let through = try renderer.render(Image(color: .black, size: Size(width: 2, height: 2)).composited(over: paper, opacity: 0))
    XCTAssertTrue(through.hasSamePixels(as: plain))
  }

  /// A canvas the Swift API asks for beyond the `solid` row's 65535 keeps its size, so the graph
  /// limits refuse it (a clamped canvas would render silently smaller); a side under 1 becomes 1.
  func testSolidColorKeepsASizeBeyondTheRow() throws {
    let wide = Image(color: .white, size: Size(width: 70000, height: 2))
    XCTAssertEqual(wide.size, Size(width: 70000, height: 2))
    XCTAssertEqual(wide.node.operation.arguments["size"], .size(Size(width: 70000, height: 2)))
    XCTAssertThrowsError(try renderer.render(wide)) { error in
      XCTAssertTrue((error as? GraphLimitError)?.message.contains("70000×2") ?? false, "\(error)")
    }
    XCTAssertEqual(Image(color: .white, size: Size(width: 0, height: -3)).size, Size(width: 1, height: 1))
  }

  // MARK: Buffer source

  func testIdentityGraphOfBufferReturnsItsPixels() throws {
    for format in [PixelFormat.rgb8, .rgba8, .gray8, PixelFormat(layout: .grayAlpha, component: .uint8), .rgb16, .rgba16] {
      var b = PixelBuffer(width: 19, height: 6, format: format)
      let (w, h) = (b.width, b.height)
      let n = w * h * format.channelCount
      b.withUnsafeMutableBaseAddress { base, rowBytes in
        for y in 0..<h {
          for i in 0..<(w * format.channelCount) {
            let v = (y * 131 + i * 37) % 256
            let isAlpha = format.layout.hasAlpha && (i % format.channelCount == format.channelCount - 1)
            // Keep alpha > 0: premultiplied working pixels cannot carry colour under alpha 0.
            let value = isAlpha ? max(v, 1) : v
            if format.component == .uint8 {
              (base + y * rowBytes).assumingMemoryBound(to: UInt8.self)[i] = UInt8(value)
            } else {
              (base + y * rowBytes).assumingMemoryBound(to: UInt16.self)[i] = UInt16(value * 256 + (isAlpha ? 0 : y))
            }
          }
        }
      }
      XCTAssertGreaterThan(n, 0)
      let out = try renderer.render(Image(buffer: b))
      XCTAssertEqual(out.format, format)
      XCTAssertTrue(out.hasSamePixels(as: b), "\(format)")
    }
  }

  func testBufferSourceReadsTheCallersMemoryWithoutCopying() throws {
    let buffer = PixelBuffer(width: 4, height: 3, format: .rgb8, zeroed: true)
    let img = Image(buffer: buffer)
    // Write through the shared storage after the image was made: the render must see it.
    buffer.withUnsafeBaseAddress { base, rowBytes in
      UnsafeMutableRawPointer(mutating: base + 2 * rowBytes).storeBytes(of: 200, as: UInt8.self)
    }
    let out = try renderer.render(img)
    out.withUnsafePixels(as: UInt8.self) { XCTAssertEqual($0[row: 2][0], 200) }
    XCTAssertTrue((img.node.operation as? BufferSourceOperation)?.buffer.sharesStorage(with: buffer) ?? false)
  }

  func testTwoCropsOfOneBufferAreDifferentSources() throws {
    // Two views onto one storage with different pixels must not be merged as "the same source".
    var big = PixelBuffer(width: 8, height: 2, format: .gray8)
    big.withUnsafeMutablePixels(as: UInt8.self) { px in
      for y in 0..<2 { for x in 0..<8 { px[row: y][x] = x < 4 ? 10 : 250 } }
    }
    let left = Image(buffer: big.cropped(to: Rect(x: 0, y: 0, width: 4, height: 2)))
    let right = Image(buffer: big.cropped(to: Rect(x: 4, y: 0, width: 4, height: 2)))
    XCTAssertNotEqual(left.node.structuralKey, right.node.structuralKey)
    let out = try renderer.render(left.composited(over: right, mode: .darken, linearLight: false))
    out.withUnsafePixels(as: UInt8.self) { XCTAssertEqual($0[row: 0][0], 10) }
  }

  // MARK: Errors

  func testTruncatedPngThrowsCodecErrorNeverCrashes() throws {
    for fraction in [0.01, 0.1, 0.3, 0.5, 0.9] {
      let url = try TruncatedPNG.write(keeping: fraction)
      defer { try? FileManager.default.removeItem(at: url) }
      do {
        let img = try Image(contentsOf: url)
        XCTAssertThrowsError(try renderer.render(img.rotated(byDegrees: 90)), "kept \(fraction)") { error in
          XCTAssertTrue(error is CodecError, "\(type(of: error)): \(error)")
        }
      } catch let error as CodecError {
        XCTAssertFalse(error.message.isEmpty)
      }
    }
  }

  func testTruncatedJpegThrowsCodecErrorWhenStrict() throws {
    let bytes = try Fixtures.data("jpeg/testorig.jpg")
    for fraction in [0.02, 0.5, 0.9] {
      let url = FileManager.default.temporaryDirectory.appendingPathComponent("fg-truncated-\(UUID().uuidString).jpg")
      try bytes.prefix(Int(Double(bytes.count) * fraction)).write(to: url)
      defer { try? FileManager.default.removeItem(at: url) }
      do {
        let img = try Image(contentsOf: url, options: LoadOptions(strict: true))
        XCTAssertThrowsError(try renderer.render(img), "kept \(fraction)") { XCTAssertTrue($0 is CodecError, "\($0)") }
        // Lenient decoding may fill the missing part, but must not crash either.
        _ = try? renderer.render(try Image(contentsOf: url))
      } catch let error as CodecError {
        XCTAssertFalse(error.message.isEmpty)
      }
    }
  }

  func testMissingAndNonImageFilesThrowCodecErrors() throws {
    let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).png")
    XCTAssertThrowsError(try Image(contentsOf: missing)) { XCTAssertEqual(($0 as? CodecError)?.kind, .io) }
    let text = FileManager.default.temporaryDirectory.appendingPathComponent("fg-text-\(UUID().uuidString).png")
    try Data("not an image at all".utf8).write(to: text)
    defer { try? FileManager.default.removeItem(at: text) }
    XCTAssertThrowsError(try Image(contentsOf: text)) { XCTAssertEqual(($0 as? CodecError)?.kind, .unsupported) }
  }

  func testFilesReadIntoPooledMemoryDecodeAsTheirBytes() throws {
    // JPEGs of random pixels (2 KB to 1 MB, below and above the pool's smallest block) read one
    // after another, so later files reuse memory earlier ones released: each decodes, strictly
    // (a missing end marker is an error), to what its bytes in memory decode to.
    var rng = SeededGenerator(seed: 21)
    let strict = LoadOptions(strict: true)
    for (i, side) in [16, 150, 600, 90, 420].enumerated() {
      var buffer = PixelBuffer(width: side, height: side, format: .rgb8)
      buffer.withUnsafeMutablePixels(as: UInt8.self) { px in
        for y in 0..<side { for x in 0..<(3 * side) { px[row: y][x] = UInt8(truncatingIfNeeded: rng.next()) } }
      }
      let bytes = try renderer.encode(Image(buffer: buffer), format: .jpeg)
      let url = FileManager.default.temporaryDirectory.appendingPathComponent("fg-pooled-\(UUID().uuidString).jpg")
      try bytes.write(to: url)
      defer { try? FileManager.default.removeItem(at: url) }
      let fromFile = try renderer.render(Image(contentsOf: url, options: strict), format: .rgb8)
      let fromBytes = try renderer.render(Image(data: bytes, options: strict), format: .rgb8)
      XCTAssertTrue(fromFile.hasSamePixels(as: fromBytes), "file \(i), \(bytes.count) bytes")
    }
  }

  func testRendererStillWorksAfterAFailedRender() throws {
    let url = try TruncatedPNG.write(keeping: 0.5)
    defer { try? FileManager.default.removeItem(at: url) }
    let bad = try Image(contentsOf: url)
    let good = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    // The bad source in one branch of a many-tile render: the error surfaces, nothing hangs.
    let r = Renderer(options: RendererOptions(threads: 3, tileSize: Size(width: 8, height: 1)))
    XCTAssertThrowsError(try r.render(bad.composited(over: good)))
    XCTAssertEqual(try r.render(good).size, Size(width: 32, height: 32))
  }
}
