// TIFFCodecTests.swift — TIFF decoding against the patterns the fixtures were made from (by
// Pillow, libvips and libtiff's tools: see Fixtures/tiff/NOTICE.md), against Pillow's and libvips'
// decodes of JPEG-compressed files, pages, orientation, ICC, regions, and bad input.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

/// The fixtures' pixel patterns (their definitions are in Fixtures/tiff/make_fixtures.py).
enum TIFFPattern {
  static let size = Size(width: 45, height: 37)

  /// (7x + 13y + 29c + (x·y mod 7)) mod 256; alpha (the last of 2 or 4 channels) (11x + 5y) mod 256.
  static func p8(_ x: Int, _ y: Int, _ c: Int, channels: Int) -> Int {
    if (channels == 2 || channels == 4) && c == channels - 1 { return (11 * x + 5 * y) % 256 }
    return (7 * x + 13 * y + 29 * c + (x * y) % 7) % 256
  }

  /// (2039x + 4093y + 8191c + 17·x·y) mod 65536; alpha (11x + 5y)·257 mod 65536.
  static func p16(_ x: Int, _ y: Int, _ c: Int, channels: Int) -> Int {
    if (channels == 2 || channels == 4) && c == channels - 1 { return ((11 * x + 5 * y) * 257) % 65536 }
    return (2039 * x + 4093 * y + 8191 * c + 17 * x * y) % 65536
  }

  /// Float((7x + 13y + 29c) mod 1000 − 250) / 997, in single precision.
  static func pf(_ x: Int, _ y: Int, _ c: Int) -> Float {
    Float((7 * x + 13 * y + 29 * c) % 1000 - 250) / Float(997)
  }

  /// Every sample of `size` × `channels`, row by row, from `value(x, y, c)`.
  static func samples<T>(_ size: Size = size, channels: Int, _ value: (Int, Int, Int) -> T) -> [T] {
    var out: [T] = []
    for y in 0..<size.height {
      for x in 0..<size.width {
        for c in 0..<channels { out.append(value(x, y, c)) }
      }
    }
    return out
  }
}

extension CodecTest {
  /// The samples of a buffer as `T` (its component type), row by row, without padding.
  static func values<T>(_ buffer: PixelBuffer, as type: T.Type) -> [T] {
    buffer.withUnsafeBaseAddress { base, rowBytes in
      (0..<buffer.height).flatMap { y in
        Array(UnsafeBufferPointer(start: (base + y * rowBytes).assumingMemoryBound(to: T.self), count: buffer.width * buffer.format.channelCount))
      }
    }
  }

  /// The samples of an 8- or 16-bit buffer as integers.
  static func integers(_ buffer: PixelBuffer) -> [Int] {
    buffer.format.component == .uint16 ? values(buffer, as: UInt16.self).map(Int.init) : values(buffer, as: UInt8.self).map(Int.init)
  }
}

final class TIFFCodecTests: XCTestCase {
  private func decode(_ name: String, page: Int = 0) throws -> PixelBuffer {
    try TIFFCodec.makeDecoder(CodecTest.data("tiff/" + name), request: DecodeRequest(options: ["page": .integer(page)])).decodeAll()
  }

  /// Every integer layout, depth, compression, strips, tiles and planar files decode to exactly
  /// the pattern they were written from.
  func testIntegerLayoutsDecodeExactly() throws {
    typealias Case = (file: String, format: PixelFormat, value: (Int, Int, Int) -> Int)
    let p8 = TIFFPattern.p8, p16 = TIFFPattern.p16
    let cases: [Case] = [
      ("gray8.tif", .gray8, { x, y, c in p8(x, y, c, 1) }),
      ("gray8-miniswhite.tif", .gray8, { x, y, c in 255 - p8(x, y, c, 1) }),
      ("graya8.tif", PixelFormat(layout: .grayAlpha, component: .uint8), { x, y, c in p8(x, y, c, 2) }),
      ("rgb8-lzw.tif", .rgb8, { x, y, c in p8(x, y, c, 3) }),
      ("rgb8-packbits.tif", .rgb8, { x, y, c in p8(x, y, c, 3) }),
      ("rgb8-separate.tif", .rgb8, { x, y, c in p8(x, y, c, 3) }),
      ("rgb8-deflate-tiled.tif", .rgb8, { x, y, c in p8(x, y, c, 3) }),
      ("rgba8-deflate.tif", .rgba8, { x, y, c in p8(x, y, c, 4) }),
      ("rgba8-separate.tif", .rgba8, { x, y, c in p8(x, y, c, 4) }),
      ("gray16.tif", PixelFormat(layout: .gray, component: .uint16), { x, y, c in p16(x, y, c, 1) }),
      ("rgb16-lzw.tif", .rgb16, { x, y, c in p16(x, y, c, 3) }),
      ("rgb16-deflate-tiled.tif", .rgb16, { x, y, c in p16(x, y, c, 3) }),
      ("rgba16.tif", .rgba16, { x, y, c in p16(x, y, c, 4) }),
      ("multipage.tif", .rgb8, { x, y, c in p8(x, y, c, 3) }),
      // Index (x + 3y) mod 256 into a colormap whose entry i is p8 at (i mod 45, (i div 45) mod 37).
      ("palette8.tif", .rgb8, { x, y, c in let i = (x + 3 * y) % 256; return p8(i % 45, (i / 45) % 37, c, 3) }),
      // 1-bit, CCITT group 4: white where (x + y) mod 3 = 0.
      ("bilevel-g4.tif", .gray8, { x, y, _ in (x + y) % 3 == 0 ? 255 : 0 }),
      // CMYK p8 converted as R = (255 − C)(255 − K) / 255, rounded.
      ("cmyk8.tif", .rgb8, { x, y, c in ((255 - p8(x, y, c, 4)) * (255 - p8(x, y, 3, 4)) + 127) / 255 }),
    ]
    for (file, format, value) in cases {
      let buffer = try decode(file)
      XCTAssertEqual(buffer.format, format, file)
      XCTAssertEqual(buffer.size, TIFFPattern.size, file)
      let expected = TIFFPattern.samples(channels: format.channelCount, value)
      let got = CodecTest.integers(buffer)
      let wrong = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }
      XCTAssertNil(wrong, "\(file): sample \(wrong?.offset ?? 0) is \(wrong?.element.0 ?? 0), not \(wrong?.element.1 ?? 0)")
    }
  }

  /// 32-bit float samples (deflate and LZW with the floating-point predictor, strips and tiles)
  /// come out bit for bit, negative and above-one values included.
  func testFloatSamplesAreExact() throws {
    for (file, channels) in [("rgbf-deflate.tif", 3), ("grayf-tiled.tif", 1)] {
      let buffer = try decode(file)
      XCTAssertEqual(buffer.format.component, .float32, file)
      XCTAssertEqual(buffer.format.channelCount, channels, file)
      let expected = TIFFPattern.samples(channels: channels) { x, y, c in TIFFPattern.pf(x, y, c) }
      XCTAssertEqual(CodecTest.values(buffer, as: Float.self).map(\.bitPattern), expected.map(\.bitPattern), file)
    }
  }

  /// Associated alpha is divided out: multiplying the decoded colour by alpha again gives the
  /// stored premultiplied value, round(c · a / 255), for every visible pixel; invisible ones are 0.
  func testAssociatedAlphaBecomesStraight() throws {
    let decoder = try TIFFDecoder(data: CodecTest.data("tiff/rgba8-associated.tif"))
    XCTAssertTrue(decoder.hasAssociatedAlpha)
    let got = CodecTest.integers(try decoder.decodeAll())
    var checked = 0
    for y in 0..<37 {
      for x in 0..<45 {
        let i = (y * 45 + x) * 4, a = TIFFPattern.p8(x, y, 3, channels: 4)
        XCTAssertEqual(got[i + 3], a)
        for c in 0..<3 {
          let stored = (TIFFPattern.p8(x, y, c, channels: 4) * a + 127) / 255
          if a == 0 {
            XCTAssertEqual(got[i + c], 0)
          } else {
            XCTAssertEqual((got[i + c] * a + 127) / 255, stored, "(\(x), \(y)) channel \(c)")
            checked += 1
          }
        }
      }
    }
    XCTAssertGreaterThan(checked, 4000)
  }

  /// A CMYK page with a CMYK profile goes through it: 16-bit sRGB close to Pillow's lcms2
  /// conversion (relative colorimetric, by default without black-point compensation, with it
  /// when the request says so; Pillow converts in 8 bits), far from the naive conversion; the
  /// profile does not stay with the (now sRGB) pixels, the header names it.
  func testCMYKGoesThroughItsProfile() throws {
    let data = try CodecTest.data("tiff/cmyk8-icc.tif")
    for (rendering, file) in [(ColorRendering(), "cmyk8-icc.pillow-nobpc.png"), (ColorRendering(blackPointCompensation: true), "cmyk8-icc.pillow.png")] {
      let decoder = try TIFFDecoder(data: data, colorRendering: rendering)
      XCTAssertTrue(decoder.isCMYK)
      XCTAssertNil(decoder.header.metadata.iccProfile)
      XCTAssertNotNil(decoder.header.cmykProfile)
      XCTAssertEqual(decoder.colorSpace, .sRGB)
      let buffer = try decoder.decodeAll()
      XCTAssertEqual(buffer.format, .rgb16)
      let got = CodecTest.integers(buffer).map { ($0 + 128) / 257 }
      let reference = CodecTest.samples(try PNGDecoder.decode(CodecTest.data("tiff/" + file))).map(Int.init)
      XCTAssertEqual(got.count, reference.count)
      // Pillow's 8-bit lcms2 transform interpolates a coarser, 8-bit table than our float one: a
      // few samples differ by up to 6 codes, the mean by a quarter of a code. (With and without
      // black-point compensation the references differ by 13.6 codes on average, up to 40.)
      let differences = zip(got, reference).map { abs($0 - $1) }
      XCTAssertLessThanOrEqual(differences.max() ?? 0, 8, file)
      XCTAssertLessThan(Double(differences.reduce(0, +)) / Double(differences.count), 0.5, file)
      XCTAssertLessThan(differences.filter { $0 > 2 }.count, differences.count / 50, file)
      let naive = CodecTest.integers(try decode("cmyk8.tif"))
      XCTAssertGreaterThan(zip(got, naive).map { abs($0 - $1) }.max() ?? 0, 20, "the profile changes the colours")
    }
    // Its profile made an RGB one: converted naively, and the header says so (a strict load fails on it).
    var damaged = data
    let at = try XCTUnwrap(damaged.range(of: Data("CMYK".utf8), in: damaged.index(damaged.startIndex, offsetBy: 8)..<damaged.endIndex)).lowerBound
    damaged.replaceSubrange(at..<at + 4, with: Data("RGB ".utf8))
    let fallback = try TIFFDecoder(data: damaged)
    XCTAssertNil(fallback.header.cmykProfile)
    XCTAssertEqual(fallback.header.warnings.count, 1)
    XCTAssertTrue(fallback.header.warnings.first?.hasPrefix("Its CMYK page was converted without its ICC profile") ?? false, "\(fallback.header.warnings)")
    XCTAssertEqual(fallback.warnings, [])
    XCTAssertEqual(CodecTest.integers(try fallback.decodeAll()), CodecTest.integers(try decode("cmyk8.tif")))
  }

  /// JPEG-compressed pages (RGB and YCbCr) equal Pillow's and libvips' decodes of the same files,
  /// and stay near the pattern (q90; YCbCr's 4:2:0 chroma costs much more on a pattern whose
  /// channels differ from pixel to pixel).
  func testJPEGCompressedPagesEqualReferenceDecodes() throws {
    for (file, reference, minimum) in [("rgb8-jpeg.tif", "rgb8-jpeg.pillow.png", 30.0), ("rgb8-jpeg-ycbcr.tif", "rgb8-jpeg-ycbcr.vips.png", 17)] {
      let buffer = try decode(file)
      let expected = try PNGDecoder.decode(CodecTest.data("tiff/" + reference))
      CodecTest.assertSame(CodecTest.samples(buffer), CodecTest.samples(expected), file)
      let pattern = TIFFPattern.samples(channels: 3) { x, y, c in UInt8(TIFFPattern.p8(x, y, c, channels: 3)) }
      XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(buffer), pattern), minimum, file)
    }
  }

  /// Pages: the count, each page's own size and layout, and a clear error past the last.
  func testPagesAreSelected() throws {
    let data = try CodecTest.data("tiff/multipage.tif")
    let header = try TIFFCodec.readHeader(data, request: DecodeRequest())
    XCTAssertEqual(header.pageCount, 3)
    XCTAssertEqual(header.size, TIFFPattern.size)
    let second = try decode("multipage.tif", page: 1)
    XCTAssertEqual(second.format, .gray8)
    XCTAssertEqual(second.size, Size(width: 30, height: 20))
    XCTAssertEqual(
      CodecTest.integers(second), TIFFPattern.samples(Size(width: 30, height: 20), channels: 1) { x, y, c in TIFFPattern.p8(x, y, c, channels: 1) })
    let third = try decode("multipage.tif", page: 2)
    XCTAssertEqual(third.format, .rgba8)
    XCTAssertEqual(
      CodecTest.integers(third), TIFFPattern.samples(Size(width: 12, height: 10), channels: 4) { x, y, c in TIFFPattern.p8(x, y, c, channels: 4) })
    XCTAssertEqual(try TIFFCodec.readHeader(data, request: DecodeRequest(options: ["page": 2])).size, Size(width: 12, height: 10))
    XCTAssertThrowsError(try decode("multipage.tif", page: 3)) { error in
      XCTAssertEqual((error as? CodecError)?.kind, .invalidArgument)
      XCTAssertTrue("\(error)".contains("3 pages"), "\(error)")
    }
  }

  /// The orientation tag reaches the header (the renderer applies it like EXIF orientation); the
  /// ICC profile is read and tags the pixels.
  func testOrientationAndProfileAreRead() throws {
    let rotated = try TIFFCodec.readHeader(CodecTest.data("tiff/rgb8-orientation6.tif"), request: DecodeRequest())
    XCTAssertEqual(rotated.metadata.orientation, .right)
    XCTAssertEqual(rotated.orientedSize, Size(width: 37, height: 45))
    XCTAssertEqual(try TIFFCodec.readHeader(CodecTest.data("tiff/rgb8-lzw.tif"), request: DecodeRequest()).metadata.orientation, .up)
    let icc = try CodecTest.data("webp/metadata.icc")
    let tagged = try decode("rgb8-icc.tif")
    XCTAssertEqual(tagged.metadata.iccProfile, icc)
    XCTAssertEqual(tagged.colorSpace, .icc(icc))
  }

  /// Reading in uneven bands (the renderer's streamed reads) gives the same rows as a whole decode.
  func testBandsEqualTheWholeDecode() throws {
    for file in ["rgb16-deflate-tiled.tif", "rgb8-lzw.tif", "rgba8-separate.tif", "bilevel-g4.tif", "rgb8-jpeg-ycbcr.tif"] {
      let data = try CodecTest.data("tiff/" + file)
      let whole = try TIFFCodec.makeDecoder(data, request: DecodeRequest()).decodeAll()
      let decoder = try TIFFCodec.makeDecoder(data, request: DecodeRequest())
      var ring = try decoder.makeBuffer(rows: 7)
      var y = 0
      while y < decoder.outputSize.height {
        let n = try decoder.readRows(5, into: &ring, at: 1)
        let expected = whole.cropped(to: Rect(x: 0, y: y, width: whole.width, height: n))
        XCTAssertTrue(expected.hasSamePixels(as: ring.cropped(to: Rect(x: 0, y: 1, width: ring.width, height: n))), "\(file) rows \(y)")
        y += n
      }
    }
  }

  /// A region equals the same crop of a full decode, and decodes only the tiles it touches: with
  /// the last tile's data destroyed, a region inside the first tile still decodes while the whole
  /// page fails.
  func testRegionsDecodeOnlyTheirTiles() throws {
    for file in ["rgb16-deflate-tiled.tif", "rgb8-deflate-tiled.tif", "rgb8-separate.tif", "grayf-tiled.tif"] {
      let data = try CodecTest.data("tiff/" + file)
      let whole = try TIFFDecoder(data: data).decodeAll()
      for region in [Rect(x: 0, y: 0, width: 45, height: 37), Rect(x: 3, y: 5, width: 30, height: 20), Rect(x: 17, y: 33, width: 28, height: 4), Rect(x: 44, y: 0, width: 1, height: 37)] {
        let part = try TIFFDecoder(data: data).decodeRegion(region)
        XCTAssertTrue(part.hasSamePixels(as: whole.cropped(to: region)), "\(file) \(region)")
      }
    }
    var damaged = [UInt8](try CodecTest.data("tiff/rgb16-deflate-tiled.tif"))
    let tiles = try XCTUnwrap(TIFFTags.values(of: 324, in: damaged)), counts = try XCTUnwrap(TIFFTags.values(of: 325, in: damaged))
    XCTAssertEqual(tiles.count, 9)
    for i in tiles[8]..<(tiles[8] + counts[8]) { damaged[i] = 0xA5 }
    let corrupt = Data(damaged)
    let first = try TIFFDecoder(data: corrupt).decodeRegion(Rect(x: 2, y: 2, width: 10, height: 10))
    let reference = try decode("rgb16-deflate-tiled.tif")
    XCTAssertTrue(first.hasSamePixels(as: reference.cropped(to: Rect(x: 2, y: 2, width: 10, height: 10))))
    XCTAssertThrowsError(try TIFFDecoder(data: corrupt).decodeAll()) { error in
      XCTAssertEqual((error as? CodecError)?.kind, .corrupt, "\(error)")
    }
    XCTAssertThrowsError(try TIFFDecoder(data: corrupt).decodeRegion(Rect(x: 40, y: 0, width: 6, height: 3))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
    }
  }

  /// Shrink-on-load: at 1/2, 1/4 and 1/8 an opaque page is the box average of light of each d×d
  /// block of the full decode (clipped at the edges; the sRGB curve removed, averaged, put back,
  /// rounded to the nearest value), computed here from the definition within one value; float
  /// pages refuse reduced scales.
  func testReducedDecodeIsTheBoxAverage() throws {
    for file in ["rgb16-deflate-tiled.tif", "rgb8-separate.tif", "gray8.tif"] {
      let data = try CodecTest.data("tiff/" + file)
      let full = try TIFFDecoder(data: data).decodeAll()
      let channels = full.format.channelCount, samples = CodecTest.integers(full)
      XCTAssertEqual(TIFFCodec.reducedScaleDenominators(for: try TIFFCodec.readHeader(data, request: DecodeRequest())), [2, 4, 8])
      for d in [2, 4, 8] {
        let reduced = try TIFFCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: d)).decodeAll()
        let size = Size(width: (45 + d - 1) / d, height: (37 + d - 1) / d)
        XCTAssertEqual(reduced.size, size)
        var expected: [Int] = []
        for oy in 0..<size.height {
          for ox in 0..<size.width {
            for c in 0..<channels {
              var sum = 0.0, n = 0.0
              let top = Double(full.format.component == .uint16 ? 65535 : 255)
              for y in oy * d..<min(oy * d + d, 37) {
                for x in ox * d..<min(ox * d + d, 45) {
                  sum += SRGBTransfer.decode(Double(samples[(y * 45 + x) * channels + c]) / top)
                  n += 1
                }
              }
              expected.append(Int((SRGBTransfer.encode(sum / n) * top).rounded()))
            }
          }
        }
        let got = CodecTest.integers(reduced)
        XCTAssertEqual(got.count, expected.count)
        XCTAssertLessThanOrEqual(zip(got, expected).map { abs($0 - $1) }.max() ?? 0, 1, "\(file) 1/\(d)")
      }
    }
    let float = try CodecTest.data("tiff/rgbf-deflate.tif")
    XCTAssertEqual(TIFFCodec.reducedScaleDenominators(for: try TIFFCodec.readHeader(float, request: DecodeRequest())), [])
    XCTAssertThrowsError(try TIFFCodec.makeDecoder(float, request: DecodeRequest(scaleDenominator: 2))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
    }
  }

  /// A decoder started with a region reads that rectangle's rows, at full size or reduced (the
  /// boxes aligned as in a reduced decode of the whole page): the same rectangle of the whole
  /// decode at that scale, whether read at once or in uneven bands.
  func testRegionRequestsEqualTheSameRectangleOfTheWholeDecode() throws {
    for file in ["rgb16-deflate-tiled.tif", "rgb8-lzw.tif", "rgba8-separate.tif"] {
      let data = try CodecTest.data("tiff/" + file)
      for d in [1, 2, 4] {
        let whole = try TIFFCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: d)).decodeAll()
        let (w, h) = (whole.width, whole.height)
        for region in [Rect(x: 0, y: 0, width: w, height: h), Rect(x: 1, y: 2, width: w - 1, height: h - 3), Rect(x: w / 2, y: h / 3, width: 2, height: 1)] {
          let what = "\(file) 1/\(d) \(region)"
          let request = DecodeRequest(scaleDenominator: d, region: region)
          XCTAssertTrue(try TIFFCodec.makeDecoder(data, request: request).decodeAll().hasSamePixels(as: whole.cropped(to: region)), what)
          let decoder = try TIFFCodec.makeDecoder(data, request: request)
          XCTAssertEqual(decoder.outputSize, region.size, what)
          var band = try decoder.makeBuffer(rows: 3)
          var y = 0
          while y < region.height {
            let n = try decoder.readRows(3, into: &band, at: 0)
            let expected = whole.cropped(to: Rect(x: region.x, y: region.y + y, width: region.width, height: n))
            XCTAssertTrue(band.cropped(to: Rect(x: 0, y: 0, width: region.width, height: n)).hasSamePixels(as: expected), "\(what) row \(y)")
            y += n
          }
        }
      }
    }
  }

  /// Sniffing: classic and BigTIFF in both byte orders; nothing else.
  func testSniffing() {
    XCTAssertTrue(TIFFCodec.sniff([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]))
    XCTAssertTrue(TIFFCodec.sniff([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]))
    XCTAssertTrue(TIFFCodec.sniff([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0]))
    XCTAssertFalse(TIFFCodec.sniff([0x49, 0x49, 0x2A]))
    XCTAssertFalse(TIFFCodec.sniff([0x4D, 0x4D, 0x2A, 0x00]))
    XCTAssertTrue(ImageFileFormat.sniff((try? CodecTest.data("tiff/gray8.tif")) ?? Data()) == .tiff)
  }
}
