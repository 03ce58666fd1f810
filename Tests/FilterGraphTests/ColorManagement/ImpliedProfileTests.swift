// ImpliedProfileTests.swift — PNGs described by gAMA + cHRM instead of an ICC profile, and gray
// images with a gray ICC profile, against the mathematical definition: linear = value^(1/gAMA)
// (or the profile's curve), the primaries' RGB→XYZ matrix (white D65, so no adaptation), XYZ → linear
// sRGB, the sRGB curve.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class ImpliedProfileTests: XCTestCase {
  let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))
  let d65 = (x: 0.3127, y: 0.3290)
  let adobe: [Double] = [0.64, 0.33, 0.21, 0.71, 0.15, 0.06]

  /// A PNG of `buffer` with extra chunks after IHDR.
  func png(_ buffer: PixelBuffer, chunks: [(String, [UInt8])], colorSpace: ColorSpace = .linearSRGB) throws -> Data {
    var options = PNGEncodeOptions()
    options.writeSRGBChunk = false
    let encoder = try PNGStreamEncoder(size: buffer.size, layout: buffer.format.layout, component: .uint8, options: options, colorSpace: colorSpace)
    try encoder.write(rows: buffer)
    var data = try XCTUnwrap(encoder.finish())
    var extra: [UInt8] = []
    for (type, payload) in chunks { extra += PNGBytes.chunk(type, payload) }
    data.insert(contentsOf: extra, at: 33)
    return data
  }

  /// A buffer of `format` whose sample at (x, y, c) is `value(x, y, c)` × 255, rounded.
  func buffer(_ width: Int, _ height: Int, _ format: PixelFormat, _ value: (Int, Int, Int) -> Float) -> PixelBuffer {
    var b = PixelBuffer(width: width, height: height, format: format)
    let channels = format.channelCount
    b.withUnsafeMutableBaseAddress { base, rowBytes in
      for y in 0..<height { for x in 0..<width { for c in 0..<channels {
        base.storeBytes(of: UInt8((value(x, y, c) * 255).rounded()), toByteOffset: y * rowBytes + x * channels + c, as: UInt8.self)
      } } }
    }
    return b
  }

  func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

  func gAMA(_ g: Double) -> (String, [UInt8]) { ("gAMA", be32(Int((g * 100_000).rounded()))) }
  func cHRM(_ primaries: [Double]) -> (String, [UInt8]) {
    ("cHRM", ([d65.x, d65.y] + primaries).flatMap { be32(Int(($0 * 100_000).rounded())) })
  }

  /// RGB → XYZ for `primaries` with white D65 (Y of white = 1).
  func rgbToXYZ(_ p: [Double]) -> [[Double]] {
    func xyz(_ x: Double, _ y: Double) -> [Double] { [x / y, 1, (1 - x - y) / y] }
    let r = xyz(p[0], p[1]), g = xyz(p[2], p[3]), b = xyz(p[4], p[5]), w = xyz(d65.x, d65.y)
    let m = [[r[0], g[0], b[0]], [r[1], g[1], b[1]], [r[2], g[2], b[2]]]
    let s = solve(m, w)
    return m.map { row in (0..<3).map { row[$0] * s[$0] } }
  }

  /// Solves m·x = v (Cramer).
  func solve(_ m: [[Double]], _ v: [Double]) -> [Double] {
    func det(_ a: [[Double]]) -> Double {
      a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
    }
    let d = det(m)
    return (0..<3).map { c in det(m.enumerated().map { i, row in row.enumerated().map { j, x in j == c ? v[i] : x } }) / d }
  }

  func srgbEncode(_ l: Double) -> Double {
    let c = min(max(l, 0), 1)
    return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055
  }

  func testRGBWithGammaAndChromaticitiesIsConvertedThroughThem() throws {
    let buffer = self.buffer(32, 8, .rgb8) { x, y, c in [Float(x) / 31, Float(y) / 7, Float((x * 7 + y * 3) % 32) / 31][c] }
    let data = try png(buffer, chunks: [gAMA(1 / 2.2), cHRM(adobe)])
    let image = try Image(data: data)
    guard case .icc = image.info.colorSpace else { return XCTFail("not converted: \(image.info.colorSpace)") }
    let out = try PNGDecoder.decode(renderer.encode(image, format: .png))
    // XYZ → linear sRGB is the inverse of sRGB's RGB → XYZ.
    let toXYZ = rgbToXYZ(adobe)
    let srgb = rgbToXYZ([0.64, 0.33, 0.30, 0.60, 0.15, 0.06])
    var worst = 0.0, unconverted = 0.0
    for y in 0..<8 { for x in 0..<32 {
      let stored = (0..<3).map { Double(buffer.value(x: x, y: y, channel: $0)) }
      let linear = stored.map { pow($0, 2.2) }
      let xyz = toXYZ.map { row in (0..<3).reduce(0) { $0 + row[$1] * linear[$1] } }
      let rgb = solve(srgb, xyz)
      for c in 0..<3 {
        let expected = srgbEncode(rgb[c]) * 255
        worst = max(worst, abs(Double(out.value(x: x, y: y, channel: c)) * 255 - expected))
        unconverted = max(unconverted, abs(stored[c] * 255 - expected))
      }
    } }
    XCTAssertLessThanOrEqual(worst, 1.0)
    XCTAssertGreaterThan(unconverted, 20, "the stored numbers differ from the converted ones (the test can fail)")
    // Without cHRM, a lone gAMA is not interpreted; with an sRGB chunk (and the cHRM libpng
    // accepts beside it, sRGB's own), cHRM is not used.
    XCTAssertEqual(try Image(data: png(buffer, chunks: [gAMA(1 / 2.2)])).info.colorSpace, .sRGB)
    let srgbPrimaries = [0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
    XCTAssertEqual(try Image(data: png(buffer, chunks: [("sRGB", [0]), gAMA(1 / 2.2), cHRM(srgbPrimaries)])).info.colorSpace, .sRGB)
    XCTAssertNotEqual(try Image(data: png(buffer, chunks: [gAMA(1 / 2.2), cHRM(srgbPrimaries)])).info.colorSpace, .sRGB)
  }

  func testGrayWithGammaAndWhiteFollowsTheCurve() throws {
    let buffer = self.buffer(64, 2, .gray8) { x, _, _ in Float(x * 4) / 255 }
    let out = try PNGDecoder.decode(renderer.encode(try Image(data: png(buffer, chunks: [gAMA(1 / 1.8), cHRM(adobe)])), format: .png))
    var worst = 0.0
    for x in 0..<64 {
      let expected = srgbEncode(pow(Double(x * 4) / 255, 1.8)) * 255
      worst = max(worst, abs(Double(out.value(x: x, y: 0, channel: 0)) * 255 - expected))
    }
    XCTAssertLessThanOrEqual(worst, 1.0)
  }

  func testGrayImageWithGrayICCProfileFollowsItsCurve() throws {
    let profile = try XCTUnwrap(ICCProfile.gammaProfile(exponent: 1.8, white: [d65.x, d65.y], primaries: nil))
    XCTAssertEqual(try ICCProfile(profile).model, .gray)
    let buffer = self.buffer(64, 2, .gray8) { x, _, _ in Float(x * 4) / 255 }
    let image = try Image(data: png(buffer, chunks: [], colorSpace: .icc(profile)))
    for format in [ImageFileFormat.png, .jpeg] {
      let file = try renderer.encode(image.blurred(sigma: 0.3), format: format)
      let out = format == .png ? try PNGDecoder.decode(file) : try JPEGDecoder.decode(file)
      XCTAssertEqual(out.format.layout, .gray)
      var worst = 0.0
      for x in 2..<62 {
        let expected = srgbEncode(pow(Double(x * 4) / 255, 1.8)) * 255
        worst = max(worst, abs(Double(out.value(x: x, y: 0, channel: 0)) * 255 - expected))
      }
      XCTAssertLessThanOrEqual(worst, format == .png ? 1.0 : 3.0, "\(format)")
    }
  }
}
