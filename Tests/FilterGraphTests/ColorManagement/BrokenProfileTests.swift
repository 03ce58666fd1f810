// BrokenProfileTests.swift — an ICC profile that cannot be used, in every format that carries
// one (PNG iCCP, WebP ICCP, TIFF tag 34675, HEIF colr/prof), gives one warning naming the file and
// the pixels read as sRGB, or an error for a strict load; JPEG's APP2 cases are in
// ColorManagementTests.testBadProfilesWarnAndFallBackToSRGB.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class BrokenProfileTests: XCTestCase {
  /// A 16×16 RGB pattern.
  let pixels: PixelBuffer = {
    var rgb = PixelBuffer(width: 16, height: 16, format: .rgb8)
    rgb.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<16 { for x in 0..<16 { p[row: y][3 * x] = UInt8(x * 16); p[row: y][3 * x + 1] = UInt8(y * 16); p[row: y][3 * x + 2] = 128 } }
    }
    return rgb
  }()

  /// Renders `data` leniently (returning the pixels and the warnings) and checks that a strict
  /// load refuses it at render.
  func renderBoth(_ data: Data, _ name: String) throws -> (PixelBuffer, [String]) {
    let warnings = WarningLog()
    let renderer = Renderer(options: RendererOptions(threads: 2)) { warnings.append($0) }
    let image = try Image(data: data)
    let out = try renderer.render(image)
    XCTAssertEqual(image.sourceWarnings, warnings.messages, name)
    XCTAssertThrowsError(try renderer.render(Image(data: data, options: LoadOptions(strict: true))), name) { error in
      XCTAssertTrue("\(error)".contains("read as sRGB"), "\(name): \(error)")
    }
    return (out, warnings.messages)
  }

  /// PNG: libpng rejects each broken iCCP chunk; the header reports it once (not again as a
  /// decode warning), the pixels are the file's numbers as sRGB.
  func testPNGWithBrokenICCP() throws {
    let plain = try PNGEncoder.encode(pixels)
    for (name, profile) in try BrokenProfiles.all() {
      let png = Self.inserting(PNGBytes.chunk("iCCP", Array("p".utf8) + [0, 0] + PNGBytes.storedZlib([UInt8](profile))), into: plain)
      let (out, warnings) = try renderBoth(png, name)
      XCTAssertEqual(warnings.count, 1, "\(name): \(warnings)")
      XCTAssertTrue(warnings.first?.hasPrefix("image data: The ICC profile of its iCCP chunk was rejected (libpng: “iCCP: ") ?? false, "\(name): \(warnings)")
      XCTAssertTrue(out.hasSamePixels(as: pixels), name)
    }
  }

  /// WebP, TIFF and AVIF and HEIC (where an encoder is present) embed the profile bytes as given; lcms2
  /// then refuses them as the source's profile: one warning, the numbers read as sRGB (WebP
  /// lossless and TIFF keep them exactly).
  func testOtherFormatsWithBrokenProfiles() throws {
    for format in [ImageFileFormat.webp, .tiff, .avif, .heic] {
      guard let codec = CodecRegistry.codec(for: format), codec.canEncode else { continue }
      for (name, profile) in try BrokenProfiles.all() {
        var buffer = pixels
        buffer.metadata.iccProfile = profile
        var options = WriteOptions()
        options.profile = .keep
        options.formatOptions = format == .tiff ? [:] : ["lossless": true]
        let file = try Renderer(options: RendererOptions(threads: 2)).encode(Image(buffer: buffer), format: format, options: options)
        XCTAssertNotNil(try Image(data: file).info.metadata.iccProfile, "\(format) \(name): the profile is in the file")
        let (out, warnings) = try renderBoth(file, "\(format) \(name)")
        XCTAssertEqual(warnings.count, 1, "\(format) \(name): \(warnings)")
        XCTAssertTrue(warnings.first?.contains("read as sRGB") ?? false, "\(format) \(name): \(warnings)")
        if format == .webp || format == .tiff { XCTAssertTrue(out.hasSamePixels(as: pixels), "\(format) \(name)") }
      }
    }
  }

  // MARK: PNG chunks by hand

  /// `png` with `chunk` inserted after its IHDR chunk (8 + 25 bytes in).
  static func inserting(_ chunk: [UInt8], into png: Data) -> Data { png.prefix(33) + chunk + png.dropFirst(33) }
}

/// The Adobe RGB profile of the rocket photo, and three ways to break it: its colour space made
/// CMYK, cut to 300 bytes, every tag's offset moved past the end.
enum BrokenProfiles {
  /// The intact profile.
  static func adobeRGB() throws -> Data {
    try JPEGDecoder.decode(Fixtures.data("colour/rocket-adobergb.jpg")).metadata.iccProfile!
  }

  /// The three broken profiles, each with its name.
  static func all() throws -> [(String, Data)] {
    let adobe = try adobeRGB()
    var cmyk = adobe
    cmyk.replaceSubrange(16..<20, with: Array("CMYK".utf8))
    var corrupt = adobe
    let tags = Int(adobe[131]) | Int(adobe[130]) << 8
    for i in 0..<tags { corrupt.replaceSubrange(132 + 12 * i + 4..<132 + 12 * i + 8, with: [0, 0x0F, 0x42, 0x40]) }
    return [("CMYK on RGB", cmyk), ("truncated", adobe.prefix(300)), ("corrupt", corrupt)]
  }
}
