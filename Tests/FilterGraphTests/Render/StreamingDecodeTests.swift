// StreamingDecodeTests.swift — JPEG and PNG sources read in order are decoded on demand into a
// ring of rows: same pixels as a full decode, counted apart, bounded in rows; everything else still
// decodes fully once through the cache.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class StreamingDecodeTests: XCTestCase {
  private func renderer(streaming: Bool, threads: Int = 2) -> Renderer {
    Renderer(
      options: RendererOptions(
        threads: threads, tileSize: Size(width: 64, height: 8), streamingMinimumBytes: streaming ? 0 : .max))
  }

  private func photo() throws -> Image { try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg")) }

  func testInOrderGraphsStreamWithIdenticalPixels() throws {
    let p = try photo()
    let graphs: [(String, Image)] = [
      ("source", p),
      ("blur", p.blurred(sigma: 2)),
      ("scale", p.scaled(by: 0.6, allowsShrinkOnLoad: false)),
      ("upscale", p.scaled(by: 1.7)),
      ("crop+tint", p.cropped(to: Rect(x: 10, y: 30, width: 150, height: 90)).tinted(Color(red: 1, green: 0.5, blue: 0), amount: 0.3)),
      ("gray", p.blurred(sigma: 1).converted(to: .gray)),
    ]
    for (name, image) in graphs {
      for threads in [1, 2] {
        let full = renderer(streaming: false, threads: threads)
        let streamed = renderer(streaming: true, threads: threads)
        let expected = try full.render(image)
        let got = try streamed.render(image)
        XCTAssertTrue(got.hasSamePixels(as: expected), "\(name), \(threads) threads: streamed pixels differ")
        XCTAssertEqual(full.statistics.decodes, 1, name)
        XCTAssertEqual(full.statistics.streamedDecodes, 0, name)
        XCTAssertEqual(streamed.statistics.decodes, 0, name)
        XCTAssertEqual(streamed.statistics.streamedDecodes, 1, name)
        XCTAssertEqual(streamed.statistics.bytesHeld, 0, "\(name): a streamed source is not cached")
      }
    }
  }

  func testAWindowOverHalfTheSourceStillStreams() throws {
    // 149 rows scaled to 52: the 4 bands of 8 rows in flight read about 100 source rows, more than
    // half the source but not all of it (W10's 16:9 photos fit in 800 × 800 are such a case).
    let p = try photo()
    let image = p.scaled(by: 0.35, allowsShrinkOnLoad: false)
    let streamed = renderer(streaming: true)
    let plan = try streamed.prepare(image)
    let capacity = try XCTUnwrap(plan.streamed.values.first, "not streamed").capacity
    XCTAssertGreaterThan(capacity, 149 / 2)
    XCTAssertLessThan(capacity, 149)
    let rendering = renderer(streaming: true)
    let got = try rendering.render(image)
    XCTAssertEqual(rendering.statistics.streamedDecodes, 1)
    XCTAssertEqual(rendering.statistics.decodes, 0)
    XCTAssertTrue(got.hasSamePixels(as: try renderer(streaming: false).render(image)))
  }

  func testNoWorkerWaitsForTheDecoder() throws {
    // Decodes run one at a time and each band's tiles are queued once its rows are decoded, so no
    // worker ever sleeps on the decoder's lock while other work waits in the queue. Noise at Q95
    // makes each band's decode slow (milliseconds), so two decodes queued at once would collide.
    let noise = PixelBuffer.random(width: 1600, height: 1024, format: .rgb8, seed: 12)
    let data = try JPEGEncoder.encode(noise, options: JPEGEncodeOptions(quality: 95))
    let p = try Image(data: data)
    for image in [p, p.scaled(by: 0.6, allowsShrinkOnLoad: false)] {
      for threads in [2, 4] {
        let r = Renderer(
          options: RendererOptions(threads: threads, tileSize: Size(width: 256, height: 64), streamingMinimumBytes: 0))
        for _ in 0..<2 {
          let plan = try r.prepare(image)
          let stream = try XCTUnwrap(plan.streamed.values.first)
          let size = image.size
          let out = try TileMemoryPool.buffer(width: size.width, height: size.height, format: .rgb8, colorSpace: .sRGB)
          try r.run(plan, format: .rgb8, band: { y, h in out.cropped(to: Rect(x: 0, y: y, width: size.width, height: h)) }) { _, _ in }
          XCTAssertEqual(stream.stalls.load(ordering: .relaxed), 0, "\(threads) threads")
        }
      }
    }
  }

  func testRowsHeldAreBoundedByTheBandWindow() throws {
    let p = try photo()  // 227 × 149
    let r = renderer(streaming: true)  // 8-row bands, 3 in flight (one per thread and one more)
    let plain = try r.prepare(p)
    XCTAssertEqual(plain.streamed.count, 1)
    XCTAssertEqual(plain.streamed.values.first!.capacity, 3 * 8, "in-order copy: the band window exactly")
    let blurred = try r.prepare(p.blurred(sigma: 2))
    let capacity = try XCTUnwrap(blurred.streamed.values.first).capacity
    XCTAssertGreaterThan(capacity, 3 * 8, "a blur reads rows above and below its bands")
    XCTAssertLessThanOrEqual(capacity, 3 * 8 + 2 * 8, "…but only its kernel's reach more")
    XCTAssertTrue(plain.decoded.isEmpty && blurred.decoded.isEmpty, "nothing is decoded whole")
  }

  func testOutOfOrderOrSharedSourcesDecodeFullyOnce() throws {
    let p = try photo()
    for image in [p.rotated(byDegrees: 90), p.rotated(byDegrees: 180), p.rotated(byDegrees: 180).composited(over: p, opacity: 0.5)] {
      let r = renderer(streaming: true)
      let expected = try renderer(streaming: false).render(image)
      XCTAssertTrue(try r.render(image).hasSamePixels(as: expected))
      _ = try r.render(image)
      XCTAssertEqual(r.statistics.streamedDecodes, 0)
      XCTAssertEqual(r.statistics.decodes, 1, "decoded once, then from the cache")
      XCTAssertGreaterThanOrEqual(r.statistics.hits, 1)
    }
  }

  func testASourceAlreadyCachedIsNotStreamed() throws {
    let p = try photo()
    let r = renderer(streaming: true)
    _ = try r.render(p.rotated(byDegrees: 90))
    XCTAssertEqual(r.statistics.decodes, 1)
    let got = try r.render(p)
    XCTAssertEqual(r.statistics.decodes, 1)
    XCTAssertEqual(r.statistics.streamedDecodes, 0)
    XCTAssertEqual(r.statistics.hits, 1)
    XCTAssertTrue(got.hasSamePixels(as: try renderer(streaming: false).render(p)))
  }

  func testStreamedJpegWritesTheSameFile() throws {
    let p = try photo().blurred(sigma: 1.5)
    let a = try renderer(streaming: true).encode(p, format: .jpeg)
    let b = try renderer(streaming: false).encode(p, format: .jpeg)
    XCTAssertEqual(a, b)
  }

  func testBandEndsCoverEachBandsReadsAndEndAtTheLastRow() throws {
    let p = try photo()  // 227 × 149, 8-row bands
    let r = renderer(streaming: true)
    for image in [p, p.blurred(sigma: 2), p.scaled(by: 0.6, allowsShrinkOnLoad: false)] {
      let plan = try r.prepare(image)
      let stream = try XCTUnwrap(plan.streamed.values.first)
      let bands = (image.size.height + 7) / 8
      XCTAssertEqual(stream.bandEnds.count, bands)
      XCTAssertEqual(stream.bandEnds.last, 149, "the last band reads to the bottom")
      XCTAssertEqual(stream.bandEnds, stream.bandEnds.sorted(), "in order: each band reads no higher than the next")
      XCTAssertGreaterThanOrEqual(stream.bandEnds[0], min(8, 149), "the first band reads at least its own rows")
    }
  }

  func testDecodingAheadGivesTheDecodersRowsAndKeepsTheWindow() throws {
    let p = try photo()
    let r = renderer(streaming: true)
    let plan = try r.prepare(p.blurred(sigma: 2))
    let stream = try XCTUnwrap(plan.streamed.values.first)
    let reference = try JPEGDecoder.decode(Data(contentsOf: Fixtures.url("jpeg/testorig.jpg")))
    // Decoding ahead band by band, then reading rows still inside the window, as tiles do.
    for band in stream.bandEnds.indices {
      stream.decodeAhead(forBand: band)
      let end = stream.bandEnds[band]
      let first = max(0, end - stream.capacity)
      try stream.prepare(first..<end)
      for y in [first, (first + end) / 2, end - 1] {
        let got = UnsafeBufferPointer(start: stream.row(y, x: 0).assumingMemoryBound(to: UInt8.self), count: 227 * 3)
        let want = reference.withUnsafeBaseAddress { base, rowBytes in
          Array(UnsafeBufferPointer(start: UnsafeRawPointer(base + y * rowBytes).assumingMemoryBound(to: UInt8.self), count: 227 * 3))
        }
        XCTAssertEqual(Array(got), want, "row \(y) after decoding ahead for band \(band)")
      }
    }
    XCTAssertThrowsError(try stream.prepare(0..<1), "a row the ring dropped is refused, never read stale")
  }

  func testABareSourceIsCopiedByteForByteFromTheDecoder() throws {
    // A graph that is only its source copies rows (PassThrough), streamed or decoded whole, at
    // tile sizes that cut rows and columns at odd places.
    let data = try Data(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let reference = try JPEGDecoder.decode(data)
    for streaming in [true, false] {
      for (tile, threads) in [(Size(width: 40, height: 7), 3), (Size(width: 227, height: 1), 1), (Size(width: 512, height: 64), 2)] {
        let r = Renderer(
          options: RendererOptions(threads: threads, tileSize: tile, streamingMinimumBytes: streaming ? 0 : .max))
        let plan = try r.prepare(try Image(data: data))
        XCTAssertNotNil(PassThrough(plan: plan, format: .rgb8), "an RGB JPEG written as RGB is copied")
        XCTAssertNil(PassThrough(plan: plan, format: .rgba8), "another format is converted")
        let got = try r.render(try Image(data: data))
        XCTAssertTrue(got.hasSamePixels(as: reference), "streaming \(streaming), tiles \(tile), \(threads) threads")
      }
    }
  }

  func testTilesAnOverlayTouchesCopyTheRestOfTheirRows() throws {
    // Two overlays composited on the photo (a soft shadow's halo, odd places, one across the right
    // edge): written as RGB, tiles outside them are copied and tiles they touch compute only the
    // box they touch; as RGBA every tile takes the float path. The colours must agree exactly.
    let badge = Image(color: Color(red: 1, green: 0.5, blue: 0, alpha: 0.6), size: Size(width: 45, height: 19))
    let image = try badge.shadowed(sigma: 1.5).composited(over: photo(), at: Point(x: 37, y: 101))
      .overlaid(with: badge.blurred(sigma: 2), gravity: .northWest, offset: Point(x: 201, y: 13))
    for (tile, threads) in [(Size(width: 40, height: 7), 3), (Size(width: 64, height: 8), 2), (Size(width: 512, height: 64), 1)] {
      let r = Renderer(options: RendererOptions(threads: threads, tileSize: tile, streamingMinimumBytes: 0))
      let plan = try r.prepare(image)
      XCTAssertNil(PassThrough(plan: plan, format: .rgb8), "the root computes")
      let copied = try r.render(image, format: .rgb8)
      let computed = try r.render(image, format: .rgba8).converted(to: .rgb)
      XCTAssertTrue(copied.hasSamePixels(as: computed), "tiles \(tile)")
    }
  }

  /// A still PNG file is read through its descriptor: its source holds no bytes, and a streamed
  /// render gives the pixels of the same bytes in memory. An APNG's source holds no bytes either.
  func testAStillPNGFileIsReadInPlaceAndStreamed() throws {
    let url = Fixtures.url("colour/cmyk-swop-srgb-relative.png")
    XCTAssertNil(try EncodedSource(contentsOf: url, options: LoadOptions()).bytes)
    XCTAssertNil(try EncodedSource(contentsOf: Fixtures.url("animation/ops.png"), options: LoadOptions()).bytes)
    let streamed = renderer(streaming: true)
    let got = try streamed.render(try Image(contentsOf: url).blurred(sigma: 1))
    XCTAssertEqual(streamed.statistics.streamedDecodes, 1)
    let expected = try renderer(streaming: false).render(try Image(data: Data(contentsOf: url)).blurred(sigma: 1))
    XCTAssertTrue(got.hasSamePixels(as: expected))
  }

  func testSourcesWithAlphaAreNotCopied() throws {
    // Premultiplying clears the colour under alpha 0: copying would keep it, so such sources
    // take the float path like every other graph.
    let r = Renderer()
    let image = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    XCTAssertNil(PassThrough(plan: try r.prepare(image), format: .rgba8))
    XCTAssertTrue(try r.render(image, format: .rgba8).hasSamePixels(as: try r.render(image.rotated(byDegrees: 360), format: .rgba8)))
  }

  func testCorruptDataWarningsReachTheHandlerOnceForEitherDecodePath() throws {
    let whole = try Data(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let cut = whole.prefix(whole.count * 2 / 5)
    final class Collected: @unchecked Sendable {
      let lock = NSLock()
      var messages: [String] = []
      func add(_ m: String) { lock.lock(); messages.append(m); lock.unlock() }
    }
    for streaming in [true, false] {
      let seen = Collected()
      let r = Renderer(
        options: RendererOptions(tileSize: Size(width: 64, height: 8), streamingMinimumBytes: streaming ? 0 : .max),
        warningHandler: { seen.add($0) })
      let image = try Image(data: cut)
      let out = try r.render(image)
      XCTAssertEqual(out.size, Size(width: 227, height: 149), "the patched-up picture is still rendered")
      XCTAssertEqual(r.statistics.streamedDecodes, streaming ? 1 : 0)
      XCTAssertFalse(seen.messages.isEmpty, "streaming \(streaming): no warning")
      XCTAssertTrue(seen.messages.allSatisfy { $0.hasPrefix("image data: ") }, "\(seen.messages)")
      XCTAssertTrue(seen.messages.contains { $0.contains("Premature end of JPEG file") }, "\(seen.messages)")
      // A second render of a cached decode does not warn again; an intact file never warns.
      let count = seen.messages.count
      if !streaming {
        _ = try r.render(image)
        XCTAssertEqual(seen.messages.count, count, "cached: decoded once, warned once")
      }
      _ = try r.render(try Image(data: whole))
      XCTAssertEqual(seen.messages.count, count, "an intact JPEG gives no warning")
      // Strict loading turns the warning into the render's error.
      XCTAssertThrowsError(try r.render(try Image(data: cut, options: LoadOptions(strict: true)))) { error in
        XCTAssertEqual((error as? CodecError)?.kind, .truncated, "\(error)")
      }
    }
  }
}
