// DecodeCacheTests.swift — a source used in several branches or renders is decoded once per renderer.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class DecodeCacheTests: XCTestCase {
  private func makeRenderer() -> Renderer {
    Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 16, height: 8)))
  }

  func testPngUsedInTwoBranchesTwiceIsDecodedOnce() throws {
    let photo = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    let img = photo.flippedHorizontally().composited(over: photo, opacity: 0.5)
    let renderer = makeRenderer()
    let first = try renderer.render(img)
    XCTAssertEqual(renderer.statistics.decodes, 1)
    let second = try renderer.render(img)
    XCTAssertEqual(renderer.statistics.decodes, 1)
    XCTAssertGreaterThanOrEqual(renderer.statistics.hits, 1)
    XCTAssertTrue(first.hasSamePixels(as: second))
    XCTAssertGreaterThan(renderer.statistics.bytesHeld, 0)

    // Another renderer has its own cache and decodes again.
    let other = makeRenderer()
    XCTAssertTrue(try other.render(img).hasSamePixels(as: first))
    XCTAssertEqual(other.statistics.decodes, 1)
    XCTAssertEqual(renderer.statistics.decodes, 1)

    // clearCache forgets the pixels.
    renderer.clearCache()
    XCTAssertEqual(renderer.statistics.bytesHeld, 0)
    _ = try renderer.render(img)
    XCTAssertEqual(renderer.statistics.decodes, 2)
  }

  func testJpegUsedInTwoBranchesTwiceIsDecodedOnce() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let img = photo.rotated(byDegrees: 180).composited(over: photo, mode: .screen, opacity: 0.5)
    let renderer = makeRenderer()
    let first = try renderer.render(img)
    let second = try renderer.render(img)
    XCTAssertEqual(renderer.statistics.decodes, 1)
    XCTAssertGreaterThanOrEqual(renderer.statistics.hits, 1)
    XCTAssertTrue(first.hasSamePixels(as: second))
    let other = makeRenderer()
    _ = try other.render(img)
    XCTAssertEqual(other.statistics.decodes, 1)
  }

  func testSameFileLoadedTwiceIsOneSource() throws {
    // Two separate loads of one file: same identity, so one decode (and one node after CSE).
    let a = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    let b = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    let renderer = makeRenderer()
    _ = try renderer.render(a.rotated(byDegrees: 90).composited(over: b, mode: .multiply))
    XCTAssertEqual(renderer.statistics.decodes, 1)
  }

  func testDifferentFilesAreDecodedSeparately() throws {
    let a = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    let b = try Image(contentsOf: Fixtures.url("pngsuite/basn2c08.png"))
    let renderer = makeRenderer()
    _ = try renderer.render(a.composited(over: b))
    XCTAssertEqual(renderer.statistics.decodes, 2)
    _ = try renderer.render(b)
    XCTAssertEqual(renderer.statistics.decodes, 2)
    XCTAssertEqual(renderer.statistics.hits, 1)
  }

  func testGeneratedAndBufferSourcesAreNotCountedAsDecodes() throws {
    let renderer = makeRenderer()
    let solid = Image(color: .white, size: Size(width: 4, height: 4))
    let buffer = Image(buffer: PixelBuffer(width: 4, height: 4, format: .rgb8, zeroed: true))
    _ = try renderer.render(buffer.composited(over: solid, opacity: 0.5))
    XCTAssertEqual(renderer.statistics.decodes, 0, "a solid colour or an in-memory buffer is not a decode")
    XCTAssertEqual(renderer.statistics.bytesHeld, 0)
  }

  func testFailedDecodeIsNotCachedAndCanBeRetried() throws {
    let url = try TruncatedPNG.write()
    defer { try? FileManager.default.removeItem(at: url) }
    let renderer = makeRenderer()
    guard let img = try? Image(contentsOf: url) else { return XCTFail("the truncated file's header is intact") }
    for _ in 0..<2 {
      XCTAssertThrowsError(try renderer.render(img)) { XCTAssertTrue($0 is CodecError, "\($0)") }
    }
    XCTAssertEqual(renderer.statistics.decodes, 0)
    XCTAssertEqual(renderer.statistics.bytesHeld, 0)
  }
}

extension DecodeCacheTests {
  /// The estimate counts an uncached source decoded whole as the cache holds it (rows of 64-byte
  /// aligned length), a large blur's held copies, and drops the source once the cache holds it; a
  /// source read twice counts once, an in-memory buffer not at all.
  func testEstimatedMemoryCountsUncachedSourcesHeldCopiesAndBands() throws {
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 512, height: 64)))
    // basn2c08: 32 × 32 RGB, 8 bits. σ 100 holds two ⌊(32 + 6) / 12⌋² = 3 × 3 float copies (rows
    // of 48 bytes aligned to 64).
    let image = try Image(data: Fixtures.data("pngsuite/basn2c08.png")).blurred(sigma: 100)
    let before = renderer.memoryEstimate(for: image)
    XCTAssertEqual(before.decoded, 32 * 128)
    XCTAssertEqual(before.held, 2 * 3 * 64)
    XCTAssertEqual(before.window, 0, "too small to stream")
    // The output's 4 bands in flight (2 per thread) of 32 float rows at least.
    XCTAssertGreaterThanOrEqual(before.tiles, 4 * 32 * 32 * 16)
    _ = try renderer.render(image)
    XCTAssertEqual(renderer.statistics.bytesHeld, before.decoded)
    XCTAssertEqual(renderer.analyses.retainedBytes, before.held)
    XCTAssertEqual(renderer.memoryEstimate(for: image).decoded, 0, "the decoded source is cached now")
    XCTAssertEqual(renderer.estimatedMemory(for: image), before.total - before.decoded)
    let twice = try Image(data: Fixtures.data("pngsuite/basn0g08.png"))
    XCTAssertEqual(renderer.memoryEstimate(for: twice.composited(over: twice)).decoded, 32 * 64)
    XCTAssertEqual(renderer.memoryEstimate(for: Image(buffer: PixelBuffer(width: 32, height: 32, format: .rgb8))).decoded, 0)
  }
}
