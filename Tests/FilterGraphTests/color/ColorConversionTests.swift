// ColorConversionTests.swift — gray, sRGB, linear sRGB and Display P3 conversions.
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class ColorConversionTests: XCTestCase {
  func rgb8(_ values: [UInt8], width: Int) -> Image {
    var buffer = PixelBuffer(width: width, height: values.count / (3 * width), format: .rgb8)
    buffer.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<p.height { for i in 0..<width * 3 { p[row: y][i] = values[y * width * 3 + i] } }
    }
    return Image(buffer: buffer)
  }

  /// Pure red, green and blue become enc(0.2126), enc(0.7152), enc(0.0722).
  func testGrayOfPrimariesIsEncodedRec709Luminance() throws {
    let image = rgb8([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255], width: 4).converted(to: .gray)
    XCTAssertEqual(image.info.layout, .gray)
    let got = try renderFloat(image).map(\.x)
    let want: [Float] = [0.2126, 0.7152, 0.0722, 1].map { SRGBCurve.encode($0) }
    for (g, w) in zip(got, want) { XCTAssertEqual(g, w, accuracy: 1e-5) }
    // Not a luma of encoded values: red would then be 0.2126.
    XCTAssertEqual(got[0], 0.4985, accuracy: 1e-3)
    let bytes = try colorRenderer.render(image)
    XCTAssertEqual(bytes.format, .gray8)
    XCTAssertEqual((0..<4).map { bytes.value(x: $0, y: 0, channel: 0) * 255 }, want.map { ($0 * 255).rounded() })
  }

  func testGrayKeepsAlpha() throws {
    let px: [SIMD4<Float>] = [SIMD4(1, 0, 0, 0.5), SIMD4(0.2, 0.4, 0.6, 0.25)]
    let image = floatImage(px, width: 2).converted(to: .gray)
    XCTAssertEqual(image.info.layout, .grayAlpha)
    let got = try renderFloat(image)
    let y1 = SRGBCurve.encode(0.2126 * SRGBCurve.decode(0.2) + 0.7152 * SRGBCurve.decode(0.4) + 0.0722 * SRGBCurve.decode(0.6))
    assertPixelsClose(got, [SIMD4(repeating: SRGBCurve.encode(0.2126)).replacing(with: 0.5, where: [false, false, false, true]), SIMD4(y1, y1, y1, 0.25)], tolerance: 1e-5)
  }

  /// The derived sRGB → P3 matrix agrees with published values; red lands where it should.
  func testSRGBToP3MatrixAndTag() throws {
    let m = Primaries.sRGB.conversion(to: .displayP3)
    let published: [[Double]] = [[0.8224621, 0.1775380, 0], [0.0331941, 0.9668058, 0], [0.0170827, 0.0723974, 0.9105199]]
    for i in 0..<3 { for j in 0..<3 { XCTAssertEqual(m.m[i][j], published[i][j], accuracy: 1e-5) } }
    let image = floatImage([SIMD4(1, 0, 0, 1)], width: 1).converted(to: .displayP3)
    XCTAssertEqual(image.info.colorSpace, .displayP3)
    let got = try renderFloat(image)
    XCTAssertEqual(try colorRenderer.render(image).colorSpace, .displayP3)
    assertPixelsClose(got, [SIMD4(SRGBCurve.encode(0.8224621), SRGBCurve.encode(0.0331941), SRGBCurve.encode(0.0170827), 1)], tolerance: 1e-5)
    // Luminance weights of P3 come from the same derivation.
    let w = Primaries.displayP3.luminanceWeights
    XCTAssertEqual(w.x + w.y + w.z, 1, accuracy: 1e-6)
    XCTAssertEqual(w.y, 0.6917, accuracy: 1e-4)
  }

  func testSRGBToP3ToSRGBRoundTrip() throws {
    let pixels = samplePixels(120, seed: 11)
    let image = floatImage(pixels, width: 12).converted(to: .displayP3).converted(to: .sRGB)
    XCTAssertEqual(image.info.colorSpace, .sRGB)
    assertPixelsClose(try renderFloat(image), pixels, tolerance: 1e-4)
    // … and the P3 values differ from the input (the matrix did something).
    let p3 = try renderFloat(floatImage(pixels, width: 12).converted(to: .displayP3))
    XCTAssertGreaterThan(zip(p3, pixels).map { maxDifference($0, $1) }.max()!, 0.01)
  }

  /// A linear-tagged image is written without the curve: sRGB 128 is stored as linear code 55.
  func testLinearConversionTagAndValues() throws {
    let image = rgb8([128, 128, 128, 255, 64, 0], width: 2).converted(to: .linearSRGB)
    XCTAssertEqual(image.info.colorSpace, .linearSRGB)
    let out = try colorRenderer.render(image)
    XCTAssertEqual(out.colorSpace, .linearSRGB)
    let want = [128, 128, 128, 255, 64, 0].map { UInt8((SRGBTransfer.decodeTable8[$0] * 255).rounded()) }
    XCTAssertEqual(want[0], 55)
    XCTAssertEqual((0..<6).map { UInt8(out.value(x: $0 / 3, y: 0, channel: $0 % 3) * 255) }, want)
    // Back to sRGB: only the tag changes; the bytes come back.
    let back = try colorRenderer.render(image.converted(to: .sRGB))
    XCTAssertEqual(back.colorSpace, .sRGB)
    XCTAssertEqual((0..<6).map { UInt8(back.value(x: $0 / 3, y: 0, channel: $0 % 3) * 255) }, [128, 128, 128, 255, 64, 0])
  }

  func testTileParallelEqualsOneTile() throws {
    let image = Image(buffer: randomRGBA8(width: 150, height: 70)).converted(to: .displayP3).converted(to: .gray)
    XCTAssertTrue(try colorRenderer.render(image).hasSamePixels(as: try oneTileRenderer.render(image)))
  }
}
