// BrokenProfileTests.swift — an ICC profile that cannot be used, in every format that carries
// one (PNG iCCP, WebP ICCP, TIFF tag 34675, HEIF colr/prof), gives one warning naming the file and
// the pixels read as sRGB, or an error for a strict load; JPEG's APP2 cases are in
// ColourManagementTests.testBadProfilesWarnAndFallBackToSRGB.
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

  /// The Adobe RGB profile of the rocket photo, and three ways to break it: its colour space
  /// made CMYK, cut to 300 bytes, every tag's offset moved past the end.
  func brokenProfiles() throws -> [(String, Data)] {
    let adobe = try JPEGDecoder.decode(Fixtures.data("colour/rocket-adobergb.jpg")).metadata.iccProfile!
    var cmyk = adobe
    cmyk.replaceSubrange(16..<20, with: Array("CMYK".utf8))
    var corrupt = adobe
    let tags = Int(adobe[131]) | Int(adobe[130]) << 8
    for i in 0..<tags { corrupt.replaceSubrange(132 + 12 * i + 4..<132 + 12 * i + 8, with: [0, 0x0F, 0x42, 0x40]) }
    return [("CMYK on RGB", cmyk), ("truncated", adobe.prefix(300)), ("corrupt", corrupt)]
  }

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
    for (name, profile) in try brokenProfiles() {
      let png = Self.inserting(Self.chunk("iCCP", Array("p".utf8) + [0, 0] + Self.storedZlib([UInt8](profile))), into: plain)
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
      for (name, profile) in try brokenProfiles() {
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

  /// A PNG chunk: length, type, data, CRC-32 (ISO 3309, as PNG specifies it).
  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in body {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    crc ^= 0xFFFF_FFFF
    return bigEndian(UInt32(data.count)) + body + bigEndian(crc)
  }

  static func bigEndian(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

  /// `bytes` as a zlib stream of stored (uncompressed) deflate blocks (RFC 1950, 1951).
  static func storedZlib(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var at = 0
    repeat {
      let n = min(65535, bytes.count - at)
      out += [at + n == bytes.count ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
      out += bytes[at..<at + n]
      at += n
    } while at < bytes.count
    var a: UInt32 = 1, b: UInt32 = 0
    for byte in bytes {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    return out + bigEndian(b << 16 | a)
  }

  /// `png` with `chunk` inserted after its IHDR chunk (8 + 25 bytes in).
  static func inserting(_ chunk: [UInt8], into png: Data) -> Data { png.prefix(33) + chunk + png.dropFirst(33) }
}
