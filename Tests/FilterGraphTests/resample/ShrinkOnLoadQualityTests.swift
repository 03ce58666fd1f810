// ShrinkOnLoadQualityTests.swift — shrink-on-load against the exact result, per format: a
// thumbnail made from a reduced decode stays within 45 dB of the linear-light Lanczos resample of
// the full decode, on the project's sample photo (samples/flower.jpg, 2268×1512, fine detail) as
// JPEG and written as PNG and WebP. PNG's reduction is our box average, done in light with a
// margin of three times the target; JPEG's and WebP's are their libraries' (on encoded values).

import FilterGraph
import ImageCodecs
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

final class ShrinkOnLoadQualityTests: XCTestCase {
  typealias T = ResampleTestSupport

  /// PSNR of `image` rendered with shrink-on-load against without, and the decode scale used.
  private func psnr(_ image: Image) throws -> (psnr: Double, denominator: Int) {
    var node = T.tiled.optimized(image)
    while let input = node.inputs.first { node = input }
    let d = (node.operation as? EncodedSourceOperation)?.scaleDenominator ?? 1
    let a = try T.bytes(image, format: .rgb8, renderer: T.tiled).joined()
    let b = try T.bytes(image, format: .rgb8, renderer: T.exactTiled).joined()
    var squared = 0.0
    for (x, y) in zip(a, b) { squared += pow(Double(x) - Double(y), 2) }
    return (10 * log10(255 * 255 / max(squared / Double(a.count), 1e-9)), d)
  }

  private func flower() throws -> Image { try Image(contentsOf: Repository.url("samples/flower.jpg")) }

  /// The photo re-encoded in `format` (lossless PNG; WebP at quality 95), opened from memory.
  private func flower(as format: ImageFileFormat, options: FormatOptionValues = [:]) throws -> Image {
    let photo = try flower()
    let bytes = try T.tiled.encode(photo, format: format, options: WriteOptions(options: options))
    return try Image(data: bytes)
  }

  func testPNGBoxShrinkStaysWithin45dB() throws {
    let png = try flower(as: .png)
    var denominators: Set<Int> = []
    for side in [80, 100, 126, 150, 300] {
      let (value, d) = try psnr(png.scaled(toFit: Size(width: side, height: side)))
      denominators.insert(d)
      XCTAssertGreaterThan(value, 45, "fit \(side): 1/\(d)")
    }
    XCTAssertTrue(denominators.isSuperset(of: [2, 4]), "\(denominators)")
  }

  func testWebPScaledDecodeStaysWithin45dB() throws {
    let webp = try flower(as: .webp, options: ["quality": 95])
    for side in [80, 100, 126, 150, 300] {
      let (value, d) = try psnr(webp.scaled(toFit: Size(width: side, height: side)))
      XCTAssertGreaterThan(d, 1)
      XCTAssertGreaterThan(value, 45, "fit \(side): 1/\(d)")
    }
  }

  /// JPEG's DCT scaling (libjpeg's, on encoded values).
  func testJPEGScaledDecodeStaysWithin45dB() throws {
    let photo = try flower()
    for side in [80, 100, 126, 150, 300] {
      let (value, d) = try psnr(photo.scaled(toFit: Size(width: side, height: side)))
      XCTAssertGreaterThan(d, 1)
      XCTAssertGreaterThan(value, 45, "fit \(side): 1/\(d)")
    }
  }

  /// Sides the reduction does not divide (2267×1511: every reduction ends in a partial block).
  /// The scale maps positions as on the full image (ratio side / (d·out)); stretching the
  /// ⌈side / d⌉ reduced pixels over the output instead shifts the geometry (33.6 dB at fit 100).
  func testJPEGPartialBlocksKeepTheGeometry() throws {
    let odd = try T.tiled.encode(
      try flower().cropped(to: Rect(x: 0, y: 0, width: 2267, height: 1511)), format: .jpeg, options: WriteOptions(options: ["quality": 95]))
    let photo = try Image(data: odd)
    for side in [80, 100, 150, 300] {
      let (value, d) = try psnr(photo.scaled(toFit: Size(width: side, height: side)))
      XCTAssertGreaterThan(d, 1, "fit \(side)")
      XCTAssertGreaterThan(value, 45, "fit \(side): 1/\(d)")
    }
  }

  /// A downscale read only through a blur of σ ≥ 2 output pixels (here through a smart crop, as on
  /// the social card) decodes a reduction deeper than the margin of twice the target allows, and
  /// still stays within 45 dB of the exact resample blurred; a weaker blur, or a downscale that
  /// something else reads too, keeps the margin. (A 600×400 cut of the photo, fit into 150.)
  func testJPEGUnderAWideBlurDropsTheMarginWithin45dB() throws {
    let cut = try T.tiled.encode(
      try flower().cropped(to: Rect(x: 900, y: 500, width: 600, height: 400)), format: .jpeg,
      options: WriteOptions(options: ["quality": 95]))
    let scaled = try Image(data: cut).scaled(toFit: Size(width: 150, height: 150))
    let plain = try psnr(scaled).denominator
    XCTAssertEqual(plain, 2)
    for sigma in [2.0, 12.0] {
      let (value, d) = try psnr(scaled.smartCropped(to: Size(width: 150, height: 75)).blurred(sigma: sigma))
      XCTAssertEqual(d, 4, "σ \(sigma)")
      XCTAssertGreaterThan(value, 45, "σ \(sigma): 1/\(d)")
    }
    XCTAssertEqual(try psnr(scaled.blurred(sigma: 1.5)).denominator, plain, "σ 1.5 keeps the margin")
    var node = T.tiled.optimized(scaled.blurred(sigma: 12).composited(over: scaled))
    while let input = node.inputs.first { node = input }
    XCTAssertEqual((node.operation as? EncodedSourceOperation)?.scaleDenominator, plain, "the unblurred downscale is read too")
  }
}
