// PyramidShrinkOnLoadTests.swift — a thumbnail of a pyramidal TIFF is resampled from the
// smallest stored level still at least twice the target (shrink-on-load, like JPEG's DCT
// scaling): only that level's tiles are decoded, the result stays within a stated PSNR of
// resampling the full decode (47 dB at 1/2 … 26 dB for an 8-pixel thumbnail), and a file whose
// levels are painted unlike their page shows the level was read.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class PyramidShrinkOnLoadTests: XCTestCase {
  private typealias T = ResampleTestSupport

  /// A new renderer (its own decode cache, so every render decodes), with or without shrink-on-load.
  private func renderer(shrinking: Bool = true) -> Renderer {
    Renderer(
      options: RendererOptions(
        threads: 2, tileSize: Size(width: 64, height: 32), optimizer: OptimizerOptions(shrinkOnLoad: shrinking)))
  }

  /// The source operation a render of `image` reads, after optimisation.
  private func source(_ image: Image) -> EncodedSourceOperation? {
    var node = renderer().optimized(image)
    while let input = node.inputs.first { node = input }
    return node.operation as? EncodedSourceOperation
  }

  private func psnr(_ a: [[UInt8]], _ b: [[UInt8]]) -> Double {
    let pairs = zip(a.joined(), b.joined())
    let squared = pairs.reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) }
    return 10 * log10(255 * 255 / max(squared / Double(a.joined().count), 1e-9))
  }

  /// 320×241 (libvips pyramids, levels 160×120 … 20×15, 32×32 tiles) fitted into boxes: each
  /// reads the level of the largest scale still ≥ 2 × the box, only its tiles, and stays close
  /// to the full decode resampled.
  func testThumbnailsResampleTheLevelTheyNeed() throws {
    for name in ["pyramid-chain", "pyramid-subifd", "pyramid-jpeg"] {
      let photo = try Image(contentsOf: Fixtures.url("tiff/\(name).tif"))
      // (box, scale chosen, tiles of that level, PSNR against the full decode resampled). The
      // levels are libvips's 2×2 box averages of gamma-encoded values, repeated; the exact render
      // resamples in linear light. The 8×6 thumbnail shows the pattern near its Nyquist frequency
      // and a 1/16 level 15.06 rows of content high read as 16 (⌈241 / 16⌉, as every
      // shrink-on-load decode rounds): 26.5 dB there. The same file without levels (the page
      // box-averaged while decoded, by at most 8) gives 48.3, 40.0, 32.9 and 32.1 dB.
      for (box, d, tiles, minimum) in [(100, 1, 80, 100.0), (70, 2, 20, 47), (40, 4, 6, 39), (20, 8, 2, 32.5), (8, 16, 1, 26)] {
        let small = photo.scaled(toFit: Size(width: box, height: box))
        XCTAssertEqual(source(small)?.scaleDenominator, d, "\(name) → \(box)")
        let level = d == 1 ? "full decode" : "decoded at 1/\(d) from its stored \(Size(width: 320 / d, height: 241 / d)) level"
        XCTAssertTrue(try renderer().explain(small).contains(level), "\(name) → \(box): \((try? renderer().explain(small)) ?? "")")
        let before = TIFFDecoder.blocksDecodedInProcess
        let fast = try T.bytes(small, format: .rgb8, renderer: renderer())
        XCTAssertEqual(TIFFDecoder.blocksDecodedInProcess - before, tiles, "\(name) → \(box): tiles decoded")
        let exact = try T.bytes(small, format: .rgb8, renderer: renderer(shrinking: false))
        XCTAssertEqual(fast.count, exact.count)
        XCTAssertGreaterThan(psnr(fast, exact), minimum, "\(name) → \(box)")
      }
    }
  }

  /// With its 1/2 level painted flat, a thumbnail that needs at most half the size is flat: the
  /// level was read, not the page.
  func testAThumbnailReadsThePaintedLevel() throws {
    let painted = TIFFBuilder.Directory(width: 100, height: 60, subfileType: 1) { _, _, c in [200, 30, 90][c] }
    let page = TIFFBuilder.Directory(width: 200, height: 120, subIFDs: [painted]) { x, y, c in UInt8((x + 2 * y + 50 * c) % 256) }
    let image = try Image(data: TIFFBuilder.file([page]))
    let thumbnail = try T.bytes(image.scaled(toFit: Size(width: 50, height: 50)), format: .rgb8, renderer: renderer())
    XCTAssertEqual(Set(thumbnail.joined()), [200, 30, 90])
    XCTAssertEqual(thumbnail.count, 30)
    let exact = try T.bytes(image.scaled(toFit: Size(width: 50, height: 50)), format: .rgb8, renderer: renderer(shrinking: false))
    XCTAssertGreaterThan(Set(exact.joined()).count, 3, "the page itself is not flat")
  }

  /// A crop of the page reads only the page's tiles it touches; a crop of a thumbnail only the
  /// level's.
  func testCropsReadOnlyTheirTiles() throws {
    let photo = try Image(contentsOf: Fixtures.url("tiff/pyramid-chain.tif"))
    var before = TIFFDecoder.blocksDecodedInProcess
    let crop = try renderer().render(photo.cropped(to: Rect(x: 40, y: 40, width: 30, height: 20)))
    XCTAssertEqual(TIFFDecoder.blocksDecodedInProcess - before, 2, "columns 40…69 of row 40…59: tiles (1, 1) and (2, 1)")
    XCTAssertEqual(crop.size, Size(width: 30, height: 20))
    before = TIFFDecoder.blocksDecodedInProcess
    // Fitted into 70×70 the 1/2 level (160×120 in 5×4 tiles) is read; the top-left 20×10 of
    // the 70×53 thumbnail needs the level's columns 0…~53 (Lanczos-3 at 160/70) and rows 0…~30:
    // two of its 20 tiles.
    _ = try renderer().render(photo.scaled(toFit: Size(width: 70, height: 70)).cropped(to: Rect(x: 0, y: 0, width: 20, height: 10)))
    XCTAssertEqual(TIFFDecoder.blocksDecodedInProcess - before, 2)
  }
}
