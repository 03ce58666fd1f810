// TIFFPyramidTests.swift — pyramidal TIFFs: the levels libvips writes (main chain, SubIFDs, JPEG
// tiles) are listed in the header and decode like libvips decodes them; reduced decodes read the
// level (files whose levels are painted unlike their page, made with TIFFBuilder, show which
// directory was read); reduced directories are levels, not pages; odd levels are ignored and
// thousands of them cost nothing.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class TIFFPyramidTests: XCTestCase {
  /// The libvips fixtures (Fixtures/tiff/make_pyramids.py): 320×241, 32×32 tiles, four levels
  /// (in the main chain of a classic TIFF and of a BigTIFF, as SubIFDs, with JPEG tiles).
  private static let fixtures = ["pyramid-chain", "pyramid-subifd", "pyramid-jpeg", "pyramid-bigtiff"]
  private static let levelSizes = [Size(width: 160, height: 120), Size(width: 80, height: 60), Size(width: 40, height: 30), Size(width: 20, height: 15)]

  /// The decode of a PNG reference.
  private func reference(_ path: String) throws -> PixelBuffer { try CodecTest.decode(try CodecTest.data(path)) }

  func testLevelsAreListedAndDecodeLikeLibvips() throws {
    for name in Self.fixtures {
      let data = try CodecTest.data("tiff/\(name).tif")
      let header = try TIFFCodec.readHeader(data, request: DecodeRequest())
      XCTAssertEqual(header.size, Size(width: 320, height: 241), name)
      XCTAssertEqual(header.pageCount, 1, "\(name): reduced directories are not pages")
      XCTAssertEqual(header.reducedLevelSizes, Self.levelSizes, name)
      XCTAssertEqual(TIFFCodec.reducedScaleDenominators(for: header), [2, 4, 8, 16], name)
      let file = try FileHandle(forReadingFrom: Fixtures.url("tiff/\(name).tif"))
      defer { try? file.close() }
      for level in 1...4 {
        let referenceName = name == "pyramid-bigtiff" ? "pyramid-chain" : name
        let expected = CodecTest.samples(try reference("tiff/\(referenceName).level\(level).vips.png"))
        for decoder in [try TIFFDecoder(data: data, level: level), try TIFFDecoder(file: file, level: level)] {
          XCTAssertEqual(decoder.outputSize, Self.levelSizes[level - 1], "\(name) level \(level)")
          XCTAssertEqual(decoder.header.size, header.size, "the header stays the page's")
          let got = CodecTest.samples(try decoder.decodeAll())
          if name == "pyramid-jpeg" {
            // libvips and libtiff decode the same JPEG tiles with libjpeg-turbo (their upsampling may differ).
            XCTAssertGreaterThan(CodecTest.psnr(got, expected), 45, "\(name) level \(level)")
          } else {
            CodecTest.assertSame(got, expected, "\(name) level \(level)")
          }
        }
      }
      XCTAssertThrowsError(try TIFFDecoder(data: data, level: 5), name) {
        XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
      }
    }
  }

  /// A reduced decode reads the level of its scale (only its tiles), and a level a pixel short of
  /// ⌈side / d⌉ (241 rows: the 1/2 level has 120, not 121) repeats its last row.
  func testReducedDecodesReadTheirLevel() throws {
    let data = try CodecTest.data("tiff/pyramid-chain.tif")
    for (d, level) in [(2, 1), (4, 2), (8, 3), (16, 4)] {
      let levelPixels = try TIFFDecoder(data: data, level: level).decodeAll()
      let before = TIFFDecoder.blocksDecodedInProcess
      let reduced = try TIFFCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: d)).decodeAll()
      let tiles = ((levelPixels.width + 31) / 32) * ((levelPixels.height + 31) / 32)
      XCTAssertEqual(TIFFDecoder.blocksDecodedInProcess - before, tiles, "1/\(d) decodes the level's tiles only")
      XCTAssertEqual(reduced.size, Size(width: (320 + d - 1) / d, height: (241 + d - 1) / d))
      let w = levelPixels.width * 3
      let got = CodecTest.samples(reduced), level = CodecTest.samples(levelPixels)
      for y in 0..<reduced.height {
        let source = min(y, levelPixels.height - 1)
        XCTAssertEqual(Array(got[(y * w)..<(y * w + w)]), Array(level[(source * w)..<(source * w + w)]), "1/\(d) row \(y)")
      }
    }
    // A region of a reduced decode is that rectangle of it.
    let whole = try TIFFCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: 2)).decodeAll()
    let rect = Rect(x: 30, y: 100, width: 130, height: 21)
    let part = try TIFFCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: 2, region: rect)).decodeAll()
    XCTAssertTrue(part.hasSamePixels(as: whole.cropped(to: rect)))
  }

  /// A page of 64×48 pixels (pattern `seed`) with levels painted one flat colour each.
  private static func page(seed: Int, levels: [(Size, UInt8)], asSubIFDs: Bool) -> [TIFFBuilder.Directory] {
    let painted = levels.map { size, colour in
      TIFFBuilder.Directory(width: size.width, height: size.height, subfileType: 1) { _, _, c in c == 0 ? colour : 7 }
    }
    let page = TIFFBuilder.Directory(width: 64, height: 48, subIFDs: asSubIFDs ? painted : []) { x, y, c in
      UInt8((x * 3 + y * 5 + c * 40 + seed * 60) % 256)
    }
    return [page] + (asSubIFDs ? [] : painted)
  }

  /// The first sample of a flat decode, after checking that every pixel has it.
  private func flatRed(_ buffer: PixelBuffer, file: StaticString = #filePath, line: UInt = #line) -> Int? {
    let s = CodecTest.samples(buffer)
    let red = Set(stride(from: 0, to: s.count, by: 3).map { s[$0] })
    return red.count == 1 ? Int(red.first!) : nil
  }

  func testReducedDecodesUseThePaintedLevel() throws {
    let levels: [(Size, UInt8)] = [(Size(width: 32, height: 24), 200), (Size(width: 16, height: 12), 150), (Size(width: 4, height: 3), 50)]
    for asSubIFDs in [false, true] {
      let data = TIFFBuilder.file(Self.page(seed: 0, levels: levels, asSubIFDs: asSubIFDs))
      let header = try TIFFCodec.readHeader(data, request: DecodeRequest())
      XCTAssertEqual(header.pageCount, 1)
      XCTAssertEqual(TIFFCodec.reducedScaleDenominators(for: header), [2, 4, 8, 16])
      // 1/2 and 1/4 read their levels; 1/8 is the 1/4 level box-averaged; 1/16 reads the 4×3 level.
      for (d, red) in [(2, 200), (4, 150), (8, 150), (16, 50)] {
        let decoded = try TIFFCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: d)).decodeAll()
        XCTAssertEqual(decoded.size, Size(width: 64 / d, height: 48 / d))
        XCTAssertEqual(flatRed(decoded), red, "1/\(d), SubIFDs \(asSubIFDs)")
      }
      XCTAssertNil(flatRed(try TIFFCodec.makeDecoder(data, request: DecodeRequest()).decodeAll()), "the page itself is not flat")
    }
  }

  /// Pages are the directories not marked reduced: page 1 is the second full-size image, with
  /// its own levels; a reduced directory before any page is a page.
  func testReducedDirectoriesAreNotPages() throws {
    let first = Self.page(seed: 0, levels: [(Size(width: 32, height: 24), 200)], asSubIFDs: false)
    let second = Self.page(seed: 1, levels: [(Size(width: 32, height: 24), 100)], asSubIFDs: false)
    let data = TIFFBuilder.file(first + second)
    let header = try TIFFCodec.readHeader(data, request: DecodeRequest(options: ["page": .integer(1)]))
    XCTAssertEqual(header.pageCount, 2)
    XCTAssertEqual(header.reducedLevelSizes, [Size(width: 32, height: 24)])
    let page1 = CodecTest.samples(try TIFFCodec.makeDecoder(data, request: DecodeRequest(options: ["page": .integer(1)])).decodeAll())
    XCTAssertEqual(page1, second[0].pixels)
    let reduced = try TIFFCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: 2, options: ["page": .integer(1)])).decodeAll()
    XCTAssertEqual(flatRed(reduced), 100)
    XCTAssertThrowsError(try TIFFCodec.readHeader(data, request: DecodeRequest(options: ["page": .integer(2)]))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
    }
    // The first directory is a page even when marked reduced.
    var marked = first
    marked[0].subfileType = 1
    XCTAssertEqual(try TIFFCodec.readHeader(TIFFBuilder.file(marked), request: DecodeRequest()).pageCount, 1)
  }

  /// Levels of another layout, larger than the page, or of a size no scale gives are not used.
  func testUnusableLevelsAreIgnored() throws {
    let gray = TIFFBuilder.Directory(width: 32, height: 24, channels: 1, subfileType: 1) { _, _, _ in 9 }
    let larger = TIFFBuilder.Directory(width: 128, height: 96, subfileType: 1) { _, _, _ in 9 }
    let odd = TIFFBuilder.Directory(width: 30, height: 24, subfileType: 1) { _, _, _ in 9 }
    let data = TIFFBuilder.file(Self.page(seed: 0, levels: [], asSubIFDs: false) + [gray, larger, odd])
    let header = try TIFFCodec.readHeader(data, request: DecodeRequest())
    XCTAssertEqual(header.pageCount, 1)
    XCTAssertEqual(header.reducedLevelSizes, [Size(width: 30, height: 24)], "the gray and the larger level are dropped")
    XCTAssertEqual(TIFFCodec.reducedScaleDenominators(for: header), [2, 4, 8], "a 30×24 level of 64×48 serves no scale")
    XCTAssertNil(flatRed(try TIFFCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: 2)).decodeAll()))
  }

  /// A SubIFD offset past the end of the file, or to bytes that are no directory, is skipped:
  /// the page still reads, at every scale.
  func testBrokenSubIFDsAreSkipped() throws {
    var page = Self.page(seed: 0, levels: [], asSubIFDs: false)[0]
    page.subIFDs = [TIFFBuilder.Directory(width: 32, height: 24, subfileType: 1) { _, _, _ in 200 }]
    let good = [UInt8](TIFFBuilder.file([page]))
    // The page's SubIFDs entry: tag 330, LONG, count 1, then the offset.
    let entry = try XCTUnwrap((0..<(good.count - 12)).first { good[$0..<($0 + 8)] == [0x4A, 0x01, 4, 0, 1, 0, 0, 0] })
    for offset in [0xFFFF_FF00, 9] {
      var bytes = good
      for k in 0..<4 { bytes[entry + 8 + k] = UInt8(truncatingIfNeeded: offset >> (8 * k)) }
      let data = Data(bytes)
      let header = try TIFFCodec.readHeader(data, request: DecodeRequest())
      XCTAssertEqual(header.reducedLevelSizes, [], "offset \(offset)")
      for d in [1, 2] {
        let decoded = try TIFFCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: d)).decodeAll()
        XCTAssertNil(flatRed(decoded), "offset \(offset), 1/\(d): the page, box-averaged")
      }
    }
  }

  /// A file of 20,000 reduced directories (and a page with 40 SubIFDs) opens quickly, and only the
  /// first CTIFF_MAX_LEVELS (32) candidates are looked at.
  func testThousandsOfLevelsAreBounded() throws {
    let level = TIFFBuilder.Directory(width: 32, height: 24, subfileType: 1) { _, _, _ in 200 }
    let many = TIFFBuilder.file(Self.page(seed: 0, levels: [], asSubIFDs: false) + Array(repeating: level, count: 20_000))
    let header = try TIFFCodec.readHeader(many, request: DecodeRequest())
    XCTAssertEqual(header.pageCount, 1)
    XCTAssertEqual(header.reducedLevelSizes, [Size(width: 32, height: 24)], "copies of one size count once")
    XCTAssertEqual(flatRed(try TIFFCodec.makeDecoder(many, request: DecodeRequest(scaleDenominator: 2)).decodeAll()), 200)
    var page = Self.page(seed: 0, levels: [], asSubIFDs: false)[0]
    page.subIFDs = (0..<40).map { i in TIFFBuilder.Directory(width: 40 - i, height: 24, subfileType: 1) { _, _, _ in 1 } }
    let sub = try TIFFCodec.readHeader(TIFFBuilder.file([page]), request: DecodeRequest())
    XCTAssertEqual(sub.reducedLevelSizes.count, 32)
  }
}
