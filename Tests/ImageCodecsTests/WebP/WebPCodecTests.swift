// WebPCodecTests.swift — WebP decoding against dwebp and the source PNGs, encoding round trips,
// metadata, animation, reduced-size decoding and bad input.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class WebPCodecTests: XCTestCase {
  /// Lossy: exactly dwebp's decode (the same libwebp, an independent caller), and above 27 dB
  /// against the source picture (q75 of a graphic with sharp edges).
  func testLossyDecodeEqualsDwebp() throws {
    let webp = try CodecTest.decode(CodecTest.data("webp/lossy.webp"))
    let dwebp = try PNGDecoder.decode(CodecTest.data("webp/lossy.dwebp.png"))
    XCTAssertEqual(webp.format, PixelFormat(layout: .rgb, component: .uint8))
    CodecTest.assertSame(CodecTest.samples(webp), CodecTest.samples(dwebp))
    let source = try PNGDecoder.decode(CodecTest.data("pngsuite/PngSuite.png"))
    XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(webp), CodecTest.samples(source)), 27)
  }

  /// Lossless with alpha (`cwebp -exact`): exactly the source PNG's pixels, alpha included.
  func testLosslessAlphaIsExact() throws {
    let webp = try CodecTest.decode(CodecTest.data("webp/lossless-alpha.webp"))
    let source = try PNGDecoder.decode(CodecTest.data("pngsuite/basn6a08.png"))
    XCTAssertEqual(webp.format, PixelFormat(layout: .rgba, component: .uint8))
    CodecTest.assertSame(CodecTest.samples(webp), CodecTest.samples(source))
  }

  /// Lossy with lossless alpha: dwebp's RGBA exactly; the alpha equals the source's.
  func testLossyAlphaEqualsDwebp() throws {
    let webp = try CodecTest.decode(CodecTest.data("webp/lossy-alpha.webp"))
    let dwebp = try PNGDecoder.decode(CodecTest.data("webp/lossy-alpha.dwebp.png"))
    CodecTest.assertSame(CodecTest.samples(webp), CodecTest.samples(dwebp))
    let source = CodecTest.samples(try PNGDecoder.decode(CodecTest.data("pngsuite/basn6a08.png")))
    let alpha = CodecTest.samples(webp).enumerated().filter { $0.offset % 4 == 3 }.map(\.element)
    CodecTest.assertSame(alpha, source.enumerated().filter { $0.offset % 4 == 3 }.map(\.element))
  }

  /// ICC, EXIF and XMP are read; the EXIF orientation reaches the header.
  func testMetadataIsRead() throws {
    let data = try CodecTest.data("webp/metadata.webp")
    let file = try WebPFile(data)
    XCTAssertEqual(file.iccProfile, try CodecTest.data("webp/metadata.icc"))
    XCTAssertEqual(file.exif, try CodecTest.data("webp/metadata.exif"))
    XCTAssertEqual(file.xmp, try CodecTest.data("webp/metadata.xmp"))
    let header = try WebPCodec.readHeader(data, request: DecodeRequest())
    XCTAssertEqual(header.metadata.orientation, .right)
    XCTAssertEqual(header.metadata.iccProfile, file.iccProfile)
  }

  /// The first frame of an animation, composited on the canvas, with its alpha.
  func testAnimationGivesItsFirstFrame() throws {
    let data = try CodecTest.data("webp/animated.webp")
    let header = try WebPCodec.readHeader(data, request: DecodeRequest())
    XCTAssertEqual(header.pageCount, 3)
    let webp = try CodecTest.decode(data)
    let frame = try PNGDecoder.decode(CodecTest.data("webp/animated-frame0.png"))
    CodecTest.assertSame(CodecTest.samples(webp), CodecTest.samples(frame))
    XCTAssertEqual(try CodecTest.decode(data, scale: 2).size, Size(width: 12, height: 8))
  }

  /// Encoding: lossless round trips exactly (alpha too); lossy stays within 30 dB and gets
  /// smaller with quality; ICC, EXIF and XMP come back.
  func testRoundTrips() throws {
    let source = try PNGDecoder.decode(CodecTest.data("pngsuite/basn6a08.png"))
    func encode(_ settings: WebPEncodeSettings, icc: Data? = nil, exif: Data? = nil, xmp: Data? = nil) throws -> Data {
      let encoder = try WebPStreamEncoder(
        size: source.size, format: source.format, settings: settings, iccProfile: icc, exif: exif, xmp: xmp)
      try encoder.write(rows: source.cropped(to: Rect(x: 0, y: 0, width: 32, height: 10)))
      try encoder.write(rows: source.cropped(to: Rect(x: 0, y: 10, width: 32, height: 22)))
      return try XCTUnwrap(encoder.finish())
    }
    let lossless = try encode(WebPEncodeSettings(isLossless: true))
    XCTAssertTrue(try WebPFile(lossless).isLossless)
    CodecTest.assertSame(CodecTest.samples(try CodecTest.decode(lossless)), CodecTest.samples(source), ignoringHiddenColor: true)
    let photo = try PNGDecoder.decode(CodecTest.data("pngsuite/PngSuite.png"))
    var sizes: [Int] = []
    for quality in [30, 90] {
      let encoder = try WebPStreamEncoder(size: photo.size, format: photo.format, settings: WebPEncodeSettings(quality: quality, effort: 6))
      try encoder.write(rows: photo)
      let bytes = try XCTUnwrap(encoder.finish())
      sizes.append(bytes.count)
      XCTAssertFalse(try WebPFile(bytes).isLossless)
      XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(try CodecTest.decode(bytes)), CodecTest.samples(photo)), 28)
    }
    XCTAssertLessThan(sizes[0], sizes[1])
    let icc = try CodecTest.data("webp/metadata.icc"), exif = try CodecTest.data("webp/metadata.exif")
    let xmp = try CodecTest.data("webp/metadata.xmp")
    let tagged = try WebPFile(try encode(WebPEncodeSettings(quality: 50), icc: icc, exif: exif, xmp: xmp))
    XCTAssertEqual(tagged.iccProfile, icc)
    XCTAssertEqual(tagged.exif, exif)
    XCTAssertEqual(tagged.xmp, xmp)
    XCTAssertEqual(tagged.orientation, .right)
  }

  /// The registry's options reach libwebp: lossless, near-lossless, effort, alpha quality.
  func testOptionsReachTheEncoder() throws {
    let source = try PNGDecoder.decode(CodecTest.data("pngsuite/basn6a08.png"))
    func encode(_ values: FormatOptionValues) throws -> Data {
      let encoder = try WebPCodec.makeEncoder(
        EncodeRequest(
          size: source.size, pixelFormat: source.format, colorSpace: .sRGB, metadata: ImageMetadata(),
          options: try values.resolved(by: WebPCodec.encodeOptions), handle: nil, executor: nil))
      try encoder.write(rows: source)
      return try XCTUnwrap(encoder.finish())
    }
    XCTAssertTrue(try WebPFile(encode(["lossless": true])).isLossless)
    let near = try CodecTest.decode(encode(["lossless": true, "near-lossless": 0]))
    XCTAssertNotEqual(CodecTest.samples(near), CodecTest.samples(source), "near-lossless 0 changes pixels")
    let lowAlpha = try CodecTest.decode(encode(["quality": 90, "alpha-quality": 0]))
    let alpha = CodecTest.samples(lowAlpha).enumerated().filter { $0.offset % 4 == 3 }.map(\.element)
    let sourceAlpha = CodecTest.samples(source).enumerated().filter { $0.offset % 4 == 3 }.map(\.element)
    XCTAssertNotEqual(alpha, sourceAlpha, "alpha-quality 0 is lossy")
    XCTAssertThrowsError(try FormatOptionValues(["effort": 7]).resolved(by: WebPCodec.encodeOptions))
  }

  /// Reduced-size decoding (libwebp's scaler) is within 25 dB of a full decode box-averaged to
  /// the same size, and has the promised size.
  func testReducedDecodeIsCloseToFullDecode() throws {
    let data = try CodecTest.data("webp/lossy.webp")
    let full = try CodecTest.decode(data)
    for d in [2, 4, 8] {
      let reduced = try CodecTest.decode(data, scale: d)
      XCTAssertEqual(reduced.size, Size(width: 256 / d, height: 256 / d))
      let psnr = CodecTest.psnr(CodecTest.samples(reduced), CodecTest.samples(full.boxShrunk(by: d)))
      XCTAssertGreaterThan(psnr, 25, "1/\(d)")
    }
  }

  /// Truncations, corrupt headers and absurd sizes give CodecErrors, never a crash.
  func testBadInputIsRejected() throws {
    let good = try CodecTest.data("webp/lossy.webp")
    for cut in [12, 20, 30, 100, good.count / 2, good.count - 1] {
      CodecTest.assertRejected(good.prefix(cut), [.truncated, .corrupt], "cut at \(cut)")
    }
    var header = [UInt8](good)
    header[20...29] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    CodecTest.assertRejected(Data(header), [.corrupt, .truncated], "damaged VP8 header")
    var body = [UInt8](good)
    for i in stride(from: 60, to: body.count, by: 7) { body[i] ^= 0x5A }
    do {
      _ = try CodecTest.decode(Data(body))  // libwebp may decode damaged lossy data as garbage
    } catch let error as CodecError {
      XCTAssertFalse(error.message.isEmpty)
    }
    XCTAssertThrowsError(try WebPFile(good, limits: DecodeLimits(maxPixels: 100))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .tooLarge)
    }
    XCTAssertThrowsError(try WebPStreamEncoder(size: Size(width: 20000, height: 2), format: .rgb8)) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
    }
  }

  /// 40 frames of a square moving on a still background have one whole-canvas frame, the first
  /// (the others store the changed rectangle), and every frame decodes as written (lossless;
  /// opaque frames are stored without alpha).
  func testAnimationWriterStoresChangedRectangles() throws {
    let size = Size(width: 32, height: 32)
    let writer = try WebPAnimationWriter(size: size, loopCount: 0, settings: WebPEncodeSettings(isLossless: true), metadata: ImageMetadata())
    var written: [[UInt8]] = []
    for k in 0..<40 {
      var frame = PixelBuffer(width: 32, height: 32, format: .rgba8)
      frame.withUnsafeMutableBaseAddress { base, stride in
        for y in 0..<32 {
          for x in 0..<32 {
            let inSquare = (k % 28..<k % 28 + 4).contains(x) && (10..<14).contains(y)
            let pixel: [UInt8] = inSquare ? [255, 0, 0, 255] : [UInt8(x * 8), UInt8(y * 8), 100, 255]
            for c in 0..<4 { base.storeBytes(of: pixel[c], toByteOffset: y * stride + 4 * x + c, as: UInt8.self) }
          }
        }
      }
      written.append(CodecTest.samples(frame))
      try writer.add(frame, delay: 40)
    }
    let bytes = [UInt8](try XCTUnwrap(writer.finish()))
    var i = 12, whole = 0
    while i + 8 <= bytes.count {
      let length = Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]) << 16 | Int(bytes[i + 7]) << 24
      if bytes[i..<i + 4].elementsEqual("ANMF".utf8) {
        func le24(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 }
        if le24(i + 14) + 1 == 32 && le24(i + 17) + 1 == 32 { whole += 1 }
      }
      i += 8 + length + length % 2
    }
    XCTAssertEqual(whole, 1)
    let reader = try WebPCodec.makeFrameReader(Data(bytes), limits: .default)
    for (k, expected) in written.enumerated() {
      guard let frame = try reader.nextFrame() else { return XCTFail("frame \(k + 1) is missing") }
      CodecTest.assertSame(CodecTest.samples(frame.converted(to: .rgba8)), expected, "frame \(k + 1)")
    }
  }
}
