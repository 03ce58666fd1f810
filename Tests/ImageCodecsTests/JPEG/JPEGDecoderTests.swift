// JPEGDecoderTests.swift — decoded pixels against reference decodes, scaling and strip decoding.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class JPEGDecoderTests: XCTestCase {
  /// `djpeg -fast` (the "-dct int -fast" references): `-fast` overrides `-dct int` with the fast
  /// integer IDCT and turns fancy upsampling off — checked with djpeg 2.1.5.
  private let djpegFast = JPEGDecodeOptions(dctMethod: .fast, usesFancyUpsampling: false)

  private func assertDecodes(
    _ jpeg: String, options: JPEGDecodeOptions = JPEGDecodeOptions(), to reference: String,
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let result = try JPEGDecoder.decodeReportingWarnings(JPEGTest.data(jpeg), options: options)
    let expected = try JPEGTest.reference(reference)
    XCTAssertEqual(result.buffer.size, expected.size, file: file, line: line)
    XCTAssertEqual(result.buffer.format, expected.format, file: file, line: line)
    XCTAssertTrue(
      result.buffer.hasSamePixels(as: expected),
      "\(jpeg) differs from \(reference): PSNR \(JPEGTest.psnr(result.buffer, expected)) dB",
      file: file, line: line)
    XCTAssertEqual(result.warnings, [], file: file, line: line)
  }

  func testDefaultDecodeMatchesReferenceExactly() throws {
    try assertDecodes("testorig.jpg", to: "testimg.ppm")
  }

  func testFastDecodeWithoutFancyUpsamplingMatchesReference() throws {
    try assertDecodes("testorig.jpg", options: djpegFast, to: "testimgint.ppm")
  }

  func testFastIDCTMatchesReference() throws {
    try assertDecodes("testorig.jpg", options: JPEGDecodeOptions(dctMethod: .fast), to: "testimgfst.ppm")
  }

  func testProgressiveDecodesMatchReference() throws {
    try assertDecodes("testprog.jpg", to: "testimg.ppm")
    try assertDecodes("testimgp.jpg", options: djpegFast, to: "testimgari.ppm")
    XCTAssertTrue(try JPEGDecoder(data: JPEGTest.data("testprog.jpg")).isProgressive)
  }

  func testArithmeticCodedDecodeMatchesReference() throws {
    try assertDecodes("testimgari.jpg", options: djpegFast, to: "testimgari.ppm")
    XCTAssertTrue(try JPEGDecoder(data: JPEGTest.data("testimgari.jpg")).isArithmeticCoded)
  }

  func testGrayscaleDecodesToGray8() throws {
    try assertDecodes("testimggray.jpg", to: "testimggray.pgm")
    XCTAssertEqual(try JPEGDecoder.readHeader(JPEGTest.data("testimggray.jpg")).layout, .gray)
  }

  func testAdobeCMYKIsConvertedNaivelyToRGB() throws {
    try assertDecodes("cmyk-adobe.jpg", to: "cmyk-adobe.ppm")
    let decoder = try JPEGDecoder(data: JPEGTest.data("cmyk-adobe.jpg"))
    XCTAssertEqual(decoder.componentCount, 4)
    XCTAssertEqual(decoder.header.layout, .rgb)
    let buffer = try JPEGDecoder.decode(JPEGTest.data("cmyk-adobe.jpg"))
    buffer.withUnsafePixels(as: UInt8.self) { p in
      // CMYK 40,80,120,100 → R = (255−40)(255−100)/255 ≈ 131, G ≈ 106, B ≈ 82 (±1 for JPEG loss).
      let pixel = Array(UnsafeBufferPointer(start: p[row: 24] + 24 * 3, count: 3))
      XCTAssertEqual(Double(pixel[0]), 131, accuracy: 2)
      XCTAssertEqual(Double(pixel[1]), 106, accuracy: 2)
      XCTAssertEqual(Double(pixel[2]), 82, accuracy: 2)
    }
  }

  /// An Adobe CMYK JPEG with a CMYK profile (a SWOP-like one) goes through it: within 40 dB of
  /// Pillow's lcms2 conversion (relative colorimetric; the profile has one table, so intents and
  /// black-point compensation do not change it), far from the naive
  /// conversion of the same pixels; the profile is used up (the pixels are sRGB). Decoded in strips,
  /// at 1/2 size and with the profile damaged, it still decodes.
  func testCMYKWithProfileGoesThroughIt() throws {
    let data = try Fixtures.data("colour/cmyk-swop.jpg")
    let decoder = try JPEGDecoder(data: data)
    XCTAssertEqual(decoder.componentCount, 4)
    XCTAssertNil(decoder.header.metadata.iccProfile)
    XCTAssertNil(decoder.cmykProfileProblem)
    XCTAssertNotNil(decoder.header.cmykProfile)
    XCTAssertEqual(decoder.outputColorSpace, .sRGB)
    let buffer = try JPEGDecoder.decode(data)
    let reference = try PNGDecoder.decode(Fixtures.data("colour/cmyk-swop-srgb-relative.png"))
    XCTAssertGreaterThan(JPEGTest.psnr(buffer, reference), 40)
    // The same file without its APP2 segment: naive conversion, far from lcms2's.
    let naive = try JPEGDecoder.decode(Self.removingAPP2(data))
    XCTAssertLessThan(JPEGTest.psnr(naive, reference), 30)

    let strips = try JPEGDecoder(data: data)
    try strips.start()
    var rows = try strips.makeBuffer()
    while !strips.isComplete { try strips.readRows(7, into: &rows, at: strips.nextRow) }
    XCTAssertTrue(rows.hasSamePixels(as: buffer))
    let half = try JPEGDecoder.decode(data, options: JPEGDecodeOptions(scaleDenominator: 2))
    XCTAssertEqual(half.size, Size(width: 128, height: 128))

    // The decoder converts with the requested intent and black-point compensation.
    let intents = try Fixtures.data("colour/cmyk-intents.jpg")
    for (rendering, file) in [
      (ColorRendering(intent: .saturation), "cmyk-intents-srgb-saturation.png"),
      (ColorRendering(blackPointCompensation: true), "cmyk-intents-srgb-relative-bpc.png"),
    ] {
      let converted = try JPEGDecoder.decode(intents, options: JPEGDecodeOptions(colorRendering: rendering))
      XCTAssertGreaterThan(JPEGTest.psnr(converted, try PNGDecoder.decode(Fixtures.data("colour/" + file))), 40, file)
    }

    // A profile that is not CMYK leaves the naive conversion, and says why.
    var damaged = data
    let at = damaged.range(of: Data("CMYKLab ".utf8))!.lowerBound
    damaged.replaceSubrange(at..<at + 4, with: Data("RGB ".utf8))
    let fallback = try JPEGDecoder(data: damaged)
    XCTAssertNotNil(fallback.cmykProfileProblem)
    XCTAssertTrue(try JPEGDecoder.decode(damaged).hasSamePixels(as: naive))
  }

  /// `data` without its APP2 segments.
  static func removingAPP2(_ data: Data) -> Data {
    var out = Data(data.prefix(2)), i = 2
    let b = [UInt8](data)
    while i + 4 <= b.count, b[i] == 0xFF, b[i + 1] != 0xDA {
      let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
      if b[i + 1] != 0xE2 { out.append(contentsOf: b[i..<i + 2 + length]) }
      i += 2 + length
    }
    out.append(contentsOf: b[i...])
    return out
  }

  func testHeaderOnlyRead() throws {
    let header = try JPEGDecoder.readHeader(JPEGTest.data("testorig.jpg"))
    XCTAssertEqual(header.fileFormat, .jpeg)
    XCTAssertEqual(header.size, Size(width: 227, height: 149))
    XCTAssertEqual(header.layout, .rgb)
    XCTAssertEqual(header.component, .uint8)
    XCTAssertEqual(header.metadata.orientation, .up)
    XCTAssertNil(header.metadata.iccProfile)
    let decoder = try JPEGDecoder(data: JPEGTest.data("testorig.jpg"))
    XCTAssertNil(decoder.scaledSize)
    XCTAssertEqual(decoder.nextRow, 0)
    XCTAssertEqual(decoder.outputColorSpace, .sRGB)
  }

  func testDCTScaledSizes() throws {
    let data = try JPEGTest.data("testorig.jpg")
    let expected = [1: Size(width: 227, height: 149), 2: Size(width: 114, height: 75),
                    4: Size(width: 57, height: 38), 8: Size(width: 29, height: 19)]
    for (denominator, size) in expected {
      let decoder = try JPEGDecoder(data: data)
      XCTAssertEqual(decoder.outputSize(scaleDenominator: denominator), size)
      XCTAssertEqual(try decoder.start(options: JPEGDecodeOptions(scaleDenominator: denominator)), size)
      let buffer = try JPEGDecoder.decode(data, options: JPEGDecodeOptions(scaleDenominator: denominator))
      XCTAssertEqual(buffer.size, size)
    }
    assertCodecError(.invalidArgument) {
      try JPEGDecoder.decode(data, options: JPEGDecodeOptions(scaleDenominator: 3))
    }
  }

  /// Measured: 1/2 DCT scaling vs a 2×2 box average of the full decode gives 44.4 dB on
  /// testorig.jpg; the threshold leaves room.
  func testHalfScaleDecodeIsCloseToBoxDownsampledFullDecode() throws {
    let data = try JPEGTest.data("testorig.jpg")
    let half = try JPEGDecoder.decode(data, options: JPEGDecodeOptions(scaleDenominator: 2))
    let boxed = JPEGTest.boxDownsample2x(try JPEGDecoder.decode(data))
    let psnr = JPEGTest.psnr(half, boxed)
    print("1/2 DCT-scaled decode vs box-downsampled full decode: PSNR \(psnr) dB")
    XCTAssertGreaterThan(psnr, 40)
  }

  func testStripDecodingMatchesFullDecode() throws {
    let data = try JPEGTest.data("testorig.jpg")
    let full = try JPEGDecoder.decode(data)
    let decoder = try JPEGDecoder(data: data)
    try decoder.start()
    var assembled = try decoder.makeBuffer()
    var strip = try decoder.makeBuffer(rows: 16)
    XCTAssertEqual(strip.colorSpace, .sRGB)
    while !decoder.isComplete {
      let first = decoder.nextRow
      let n = try decoder.readRows(16, into: &strip)
      XCTAssertTrue(n > 0 && n <= 16)
      let src = strip.cropped(to: Rect(x: 0, y: 0, width: strip.width, height: n))
      assembled.withUnsafeMutableBaseAddress { dst, dstStride in
        src.withUnsafeBaseAddress { s, sStride in
          for y in 0..<n {
            (dst + (first + y) * dstStride).copyMemory(from: s + y * sStride, byteCount: src.width * 3)
          }
        }
      }
    }
    XCTAssertEqual(decoder.nextRow, 149)
    XCTAssertEqual(try decoder.readRows(16, into: &strip), 0)
    XCTAssertTrue(assembled.hasSamePixels(as: full))
  }

  func testRowsCanBeWrittenAtAnOffsetAndSkipped() throws {
    let data = try JPEGTest.data("testorig.jpg")
    let full = try JPEGDecoder.decode(data)
    let decoder = try JPEGDecoder(data: data)
    try decoder.start()
    XCTAssertEqual(try decoder.skipRows(50), 50)
    XCTAssertEqual(decoder.nextRow, 50)
    var buffer = try decoder.makeBuffer()
    XCTAssertEqual(try decoder.readRows(200, into: &buffer, at: 50), 99)
    let rect = Rect(x: 0, y: 50, width: 227, height: 99)
    XCTAssertTrue(buffer.cropped(to: rect).hasSamePixels(as: full.cropped(to: rect)))
  }

  func testMisuseIsReportedNotTrapped() throws {
    let decoder = try JPEGDecoder(data: JPEGTest.data("testorig.jpg"))
    var wrong = PixelBuffer(width: 10, height: 10, format: .rgb8)
    assertCodecError(.invalidArgument) { try decoder.readRows(1, into: &wrong) }
    try decoder.start()
    assertCodecError(.invalidArgument) { try decoder.start() }
    assertCodecError(.invalidArgument) { try decoder.readRows(1, into: &wrong) }
    var short = try decoder.makeBuffer(rows: 4)
    assertCodecError(.invalidArgument) { try decoder.readRows(8, into: &short) }
  }
}
