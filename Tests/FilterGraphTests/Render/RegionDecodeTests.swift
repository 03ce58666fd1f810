// RegionDecodeTests.swift — a render that reads only part of a TIFF (a crop) decodes only the
// strips or tiles of that part, streamed or whole, with the pixels of the same crop of a full
// decode; damage outside the part does not matter, damage inside it is an error. TIFF files are
// read through their descriptor as decoders ask: the same pixels as their bytes in memory.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class RegionDecodeTests: XCTestCase {
  /// A 300×`height` 16-bit RGB page in which every sample differs from its neighbours,
  /// LZW-compressed in square tiles of `tile` pixels, or in strips when `tile` is 0.
  private static func tiff(tile: Int, height: Int = 200) throws -> Data {
    let size = Size(width: 300, height: height)
    var buffer = PixelBuffer(width: size.width, height: size.height, format: PixelFormat(layout: .rgb, component: .uint16))
    buffer.withUnsafeMutableBaseAddress { base, rowBytes in
      for y in 0..<size.height {
        let row = (base + y * rowBytes).assumingMemoryBound(to: UInt16.self)
        for i in 0..<size.width * 3 { row[i] = UInt16((2039 * i + 4093 * y + 17 * i * y) % 65536) }
      }
    }
    let encoder = try TIFFCodec.makeEncoder(
      EncodeRequest(
        size: size, pixelFormat: buffer.format, colorSpace: .sRGB, metadata: ImageMetadata(),
        options: try (["tile": .integer(tile)] as FormatOptionValues).resolved(by: TIFFCodec.encodeOptions), handle: nil, executor: nil))
    try encoder.write(rows: buffer)
    return try XCTUnwrap(try encoder.finish())
  }

  private func renderer(streaming: Bool, threads: Int) -> Renderer {
    Renderer(
      options: RendererOptions(
        threads: threads, tileSize: Size(width: 64, height: 8), streamingMinimumBytes: streaming ? 0 : .max))
  }

  /// The strips or tiles (`block` pixels each, in a grid from the origin) `rect` touches.
  private func blocks(_ rect: Rect, block: Size) -> Int {
    ((rect.maxX - 1) / block.width - rect.x / block.width + 1) * ((rect.maxY - 1) / block.height - rect.y / block.height + 1)
  }

  /// Crops of a tiled page, rendered with and without streaming on one and two threads, decode
  /// exactly the tiles they touch, once each, and equal the same crop of a full decode.
  func testACropOfATiledPageDecodesOnlyItsTiles() throws {
    let data = try Self.tiff(tile: 32)
    let full = try TIFFDecoder(data: data).decodeAll()
    // Short enough to decode whole (the band window, up to 4 bands of 8 rows, covers all its rows),
    // tall enough to stream (the window is under its height).
    for (crop, streams) in [(Rect(x: 70, y: 40, width: 50, height: 16), false), (Rect(x: 40, y: 50, width: 200, height: 120), true)] {
      for threads in [1, 2] {
        for streaming in [false, true] {
          let renderer = renderer(streaming: streaming, threads: threads)
          let before = TIFFDecoder.blocksDecodedInProcess
          let got = try renderer.render(try Image(data: data).cropped(to: crop))
          let what = "\(crop), \(threads) threads, streaming \(streaming)"
          XCTAssertEqual(TIFFDecoder.blocksDecodedInProcess - before, blocks(crop, block: Size(width: 32, height: 32)), what)
          XCTAssertTrue(got.hasSamePixels(as: full.cropped(to: crop)), what)
          XCTAssertEqual(renderer.statistics.regionDecodes, 1, what)
          XCTAssertEqual(renderer.statistics.streamedDecodes, streaming && streams ? 1 : 0, what)
        }
      }
    }
  }

  /// A crop of a striped page decodes only the strips holding its rows.
  func testACropOfAStripedPageDecodesOnlyItsStrips() throws {
    let data = try Self.tiff(tile: 0, height: 1000)
    let decoder = try TIFFDecoder(data: data)
    XCTAssertFalse(decoder.isTiled)
    XCTAssertLessThan(decoder.blockSize.height, 200, "the strips must be short enough for a crop to skip some")
    let full = try decoder.decodeAll()
    let crop = Rect(x: 10, y: 300, width: 100, height: 200)
    for streaming in [false, true] {
      let renderer = renderer(streaming: streaming, threads: 2)
      let before = TIFFDecoder.blocksDecodedInProcess
      let got = try renderer.render(try Image(data: data).cropped(to: crop))
      XCTAssertEqual(TIFFDecoder.blocksDecodedInProcess - before, blocks(crop, block: decoder.blockSize), "streaming \(streaming)")
      XCTAssertTrue(got.hasSamePixels(as: full.cropped(to: crop)), "streaming \(streaming)")
    }
  }

  /// A render of the whole page decodes every tile once and no region; a crop of a page already
  /// decoded whole is served from the cache, not decoded again.
  func testWholeRendersAndCachedPagesDecodeNoRegion() throws {
    let data = try Self.tiff(tile: 32)
    let image = try Image(data: data)
    for streaming in [false, true] {
      let renderer = renderer(streaming: streaming, threads: 2)
      let before = TIFFDecoder.blocksDecodedInProcess
      let whole = try renderer.render(image.blurred(sigma: 1))
      XCTAssertEqual(TIFFDecoder.blocksDecodedInProcess - before, 70, "streaming \(streaming)")
      XCTAssertEqual(renderer.statistics.regionDecodes, 0)
      XCTAssertEqual(whole.size, Size(width: 300, height: 200))
    }
    let renderer = renderer(streaming: false, threads: 2)
    _ = try renderer.render(image)
    let before = TIFFDecoder.blocksDecodedInProcess
    _ = try renderer.render(image.cropped(to: Rect(x: 70, y: 40, width: 50, height: 30)))
    XCTAssertEqual(TIFFDecoder.blocksDecodedInProcess - before, 0)
    XCTAssertEqual(renderer.statistics.regionDecodes, 0)
    XCTAssertEqual(renderer.statistics.hits, 1)
  }

  /// With the last tile's data destroyed, a crop away from it renders, and a crop touching it is
  /// a `.corrupt` error (and `write` leaves no file).
  func testDamageCountsOnlyInsideTheCrop() throws {
    var damaged = [UInt8](try Self.tiff(tile: 32))
    let offsets = try XCTUnwrap(TIFFTags.values(of: 324, in: damaged)), counts = try XCTUnwrap(TIFFTags.values(of: 325, in: damaged))
    XCTAssertEqual(offsets.count, 70)
    for i in offsets[69]..<(offsets[69] + counts[69]) { damaged[i] = 0xA5 }
    let image = try Image(data: Data(damaged))
    let full = try TIFFDecoder(data: try Self.tiff(tile: 32)).decodeAll()
    for streaming in [false, true] {
      let renderer = renderer(streaming: streaming, threads: 2)
      let safe = Rect(x: 0, y: 0, width: 250, height: 150)
      XCTAssertTrue(try renderer.render(image.cropped(to: safe)).hasSamePixels(as: full.cropped(to: safe)))
      let output = FileManager.default.temporaryDirectory.appendingPathComponent("region-\(UUID().uuidString).png")
      XCTAssertThrowsError(try renderer.write(image.cropped(to: Rect(x: 250, y: 150, width: 50, height: 50)), to: output)) {
        XCTAssertEqual(($0 as? CodecError)?.kind, .corrupt, "\($0)")
      }
      XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }
  }

  /// A region is refused by codecs that decode whole images, and outside the image.
  func testRegionsAreRefusedWhereTheyCannotBeRead() throws {
    let jpeg = try EncodedSource(contentsOf: Fixtures.url("jpeg/testorig.jpg"), options: LoadOptions())
    XCTAssertThrowsError(try jpeg.decode(region: Rect(x: 0, y: 0, width: 8, height: 8))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
    }
    let tiff = try EncodedSource(data: try Self.tiff(tile: 32), options: LoadOptions())
    for region in [Rect(x: 290, y: 0, width: 20, height: 5), Rect(x: 0, y: -1, width: 5, height: 5), Rect(x: 0, y: 0, width: 0, height: 5)] {
      XCTAssertThrowsError(try tiff.decode(region: region), "\(region)") {
        XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
      }
    }
    XCTAssertThrowsError(try tiff.decode(scaleDenominator: 4, region: Rect(x: 70, y: 0, width: 6, height: 5))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
    }
  }

  /// A TIFF file (read through its descriptor) renders the pixels of its bytes in memory, whole,
  /// cropped and reduced, streamed or not; a file cut short after it was opened is a clear error
  /// when rendered, and `write` leaves no output.
  func testFilesRenderLikeTheirBytesInMemory() throws {
    let data = try Self.tiff(tile: 0, height: 1000)
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("file-\(UUID().uuidString).tif")
    try data.write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let (file, memory) = (try Image(contentsOf: url), try Image(data: data))
    let graphs: [(String, (Image) -> Image)] = [
      ("whole", { $0 }), ("crop", { $0.cropped(to: Rect(x: 10, y: 300, width: 100, height: 200)) }),
      ("fit", { $0.scaled(toFit: Size(width: 100, height: 100)) }),
    ]
    for (name, graph) in graphs {
      for streaming in [false, true] {
        let expected = try renderer(streaming: streaming, threads: 2).render(graph(memory))
        XCTAssertTrue(try renderer(streaming: streaming, threads: 2).render(graph(file)).hasSamePixels(as: expected), "\(name), streaming \(streaming)")
      }
    }
    let cut = try Image(contentsOf: url)
    try FileHandle(forWritingTo: url).truncate(atOffset: 4096)
    for streaming in [false, true] {
      let output = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).png")
      XCTAssertThrowsError(try renderer(streaming: streaming, threads: 2).write(cut, to: output)) {
        XCTAssertTrue([.truncated, .corrupt].contains(($0 as? CodecError)?.kind), "\($0)")
      }
      XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }
  }
}
