// ColourOptionTests.swift — fgrun's --profile, --intent, --bpc, explain and --stats for colour.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

extension FGRunTests {
  func testColourProfileOptions() throws {
    try copyFixture("colour/rocket-adobergb.jpg", as: "adobe.jpg")
    let srgb = try fgrun(["-e", "scale 0.25", "adobe.jpg", "srgb.png", "--stats"])
    XCTAssertEqual(srgb.status, 0, srgb.stderr)
    XCTAssertTrue(srgb.stderr.contains("colour transforms built 1"), srgb.stderr)
    XCTAssertNil(try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("srgb.png"))).metadata.iccProfile)
    XCTAssertEqual(try fgrun(["-e", "scale 0.25", "adobe.jpg", "p3.jpg", "--profile", "p3", "--intent", "perceptual", "--bpc"]).status, 0)
    let p3 = try JPEGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("p3.jpg")))
    XCTAssertEqual(p3.metadata.iccProfile?.count, 580)
    XCTAssertEqual(try fgrun(["-e", "scale 0.25", "adobe.jpg", "keep.jpg", "--profile", "keep"]).status, 0)
    let kept = try JPEGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("keep.jpg")))
    XCTAssertEqual(kept.metadata.iccProfile?.count, 560)
    let bad = try fgrun(["-e", "scale 0.25", "adobe.jpg", "x.png", "--profile", "nowhere.icc"])
    XCTAssertEqual(bad.status, 64, bad.stderr)
    XCTAssertEqual(try fgrun(["-e", "scale 0.25", "adobe.jpg", "x.png", "--intent", "vivid"]).status, 64)
    let explain = try fgrun(["explain", "-e", "scale 0.25", "adobe.jpg"])
    let text = String(decoding: explain.stdout, as: UTF8.self)
    XCTAssertTrue(text.contains("Adobe RGB (1998)' → linear sRGB"), text)
  }

  /// fgrun's own conversions of a Rec. 2020 chart (each intent) and of a CMYK JPEG with a profile
  /// are within 40 dB of lcms2's (Pillow's ImageCms references).
  func testColourConversionsMatchLcms2() throws {
    try copyFixture("colour/ring-rec2020.png", as: "ring.png")
    for intent in ["relative", "perceptual", "saturation", "absolute"] {
      let run = try fgrun(["-e", "blur sigma=0", "ring.png", "ring-\(intent).png", "--intent", intent])
      XCTAssertEqual(run.status, 0, run.stderr)
      let out = try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("ring-\(intent).png")))
      let reference = try PNGDecoder.decode(Fixtures.data("colour/ring-rec2020-srgb-\(intent).png"))
      XCTAssertGreaterThan(ColourPSNR.rgb8(out, reference), 40, intent)
    }
    try copyFixture("colour/cmyk-swop.jpg", as: "cmyk.jpg")
    let run = try fgrun(["-e", "blur sigma=0", "cmyk.jpg", "cmyk.png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(run.stderr, "")
    let out = try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("cmyk.png")))
    XCTAssertGreaterThan(ColourPSNR.rgb8(out, try PNGDecoder.decode(Fixtures.data("colour/cmyk-swop-srgb-relative-bpc.png"))), 40)
  }
}

/// PSNR of two 8-bit RGB buffers of one size.
enum ColourPSNR {
  static func rgb8(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    precondition(a.size == b.size && a.format == .rgb8 && b.format == .rgb8)
    var sum = 0.0
    a.withUnsafePixels(as: UInt8.self) { pa in
      b.withUnsafePixels(as: UInt8.self) { pb in
        for y in 0..<a.height { for i in 0..<(a.width * 3) {
          let d = Double(pa[row: y][i]) - Double(pb[row: y][i])
          sum += d * d
        } }
      }
    }
    let mse = sum / Double(a.width * a.height * 3)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
  }
}
