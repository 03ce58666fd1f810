// ColorOptionTests.swift — fgrun's --profile, --intent, --bpc, explain and --stats for colour.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

extension FGRunTests {
  func testColorProfileOptions() throws {
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
  func testColorConversionsMatchLcms2() throws {
    try copyFixture("colour/ring-rec2020.png", as: "ring.png")
    for intent in ["relative", "perceptual", "saturation", "absolute"] {
      let run = try fgrun(["-e", "blur sigma=0", "ring.png", "ring-\(intent).png", "--intent", intent])
      XCTAssertEqual(run.status, 0, run.stderr)
      let out = try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("ring-\(intent).png")))
      let reference = try PNGDecoder.decode(Fixtures.data("colour/ring-rec2020-srgb-\(intent).png"))
      XCTAssertGreaterThan(ColorPSNR.rgb8(out, reference), 40, intent)
    }
    try copyFixture("colour/cmyk-swop.jpg", as: "cmyk.jpg")
    let run = try fgrun(["-e", "blur sigma=0", "cmyk.jpg", "cmyk.png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(run.stderr, "")
    let out = try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("cmyk.png")))
    XCTAssertGreaterThan(ColorPSNR.rgb8(out, try PNGDecoder.decode(Fixtures.data("colour/cmyk-swop-srgb-relative.png"))), 40)
    // --intent and --bpc reach the CMYK decoder; --stats counts its transforms (the header's check
    // with the default rendering, then the one asked for); explain names the profile.
    try copyFixture("colour/cmyk-intents.jpg", as: "intents.jpg")
    for (flags, reference) in [(["--intent", "saturation"], "saturation"), (["--bpc"], "relative-bpc"), ([], "relative")] {
      let run = try fgrun(["-e", "blur sigma=0", "intents.jpg", "intents-\(reference).png", "--stats"] + flags)
      XCTAssertEqual(run.status, 0, run.stderr)
      XCTAssertTrue(run.stderr.contains("colour transforms built \(flags.isEmpty ? 1 : 2)"), run.stderr)
      let out = try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("intents-\(reference).png")))
      let expected = try PNGDecoder.decode(Fixtures.data("colour/cmyk-intents-srgb-\(reference).png"))
      XCTAssertGreaterThan(ColorPSNR.rgb8(out, expected), 40, reference)
    }
    let explain = String(decoding: try fgrun(["explain", "-e", "blur sigma=1", "intents.jpg"]).stdout, as: UTF8.self)
    XCTAssertTrue(explain.contains("[CMYK ICC 'FilterGraph test CMYK' → sRGB by the decoder (lcms2, relative)]"), explain)
    let asked = String(
      decoding: try fgrun(["explain", "-e", "blur sigma=1", "intents.jpg", "--intent", "perceptual", "--bpc", "--profile", "p3"]).stdout, as: UTF8.self)
    XCTAssertTrue(asked.contains("[CMYK ICC 'FilterGraph test CMYK' → sRGB by the decoder (lcms2, perceptual+bpc)]"), asked)
    XCTAssertTrue(asked.contains("'Display P3' embedded"), asked)
    XCTAssertEqual(try fgrun(["explain", "-e", "blur sigma=1", "intents.jpg", "--intent", "vivid"]).status, 64)
  }
}

extension FGRunTests {
  /// An ICC profile whose APP2 segments do not fit together (the photo's one segment renumbered
  /// "1 of 2"): a warning naming the file and the image read as sRGB; under --strict, exit 65.
  func testBrokenICCSegmentsWarnOrFailStrictly() throws {
    var jpeg = try Fixtures.data("colour/rocket-adobergb.jpg")
    let at = try XCTUnwrap(jpeg.range(of: Data("ICC_PROFILE".utf8))).upperBound + 1
    XCTAssertEqual(Array(jpeg[at..<at + 2]), [1, 1])
    jpeg[at + 1] = 2
    try jpeg.write(to: file("broken.jpg"))
    let lenient = try fgrun(["-e", "scale 0.25", "broken.jpg", "out.png"])
    XCTAssertEqual(lenient.status, 0, lenient.stderr)
    XCTAssertTrue(
      lenient.stderr.contains(
        "warning: broken.jpg: Its ICC profile is split over APP2 segments that do not fit together (segment 2 of 2 is missing); its colours are read as sRGB."),
      lenient.stderr)
    let strict = try fgrun(["-e", "scale 0.25", "broken.jpg", "strict.png", "--strict"])
    XCTAssertEqual(strict.status, 65, strict.stderr)
    XCTAssertTrue(strict.stderr.contains("error: broken.jpg: Its ICC profile is split over APP2 segments"), strict.stderr)
  }
}

extension FGRunTests {
  /// `convert profile=PATH intent=…` in a recipe: the output embeds the profile and equals
  /// `--profile PATH --intent …`; `explain` names it; a CMYK profile is an error at its path
  /// (line and column), an input error like a missing `load` file (exit 65).
  func testConvertToProfileRecipe() throws {
    try copyFixture("colour/ring-p3.png", as: "ring.png")
    try copyFixture("colour/DisplayP3.icc", as: "p3.icc")
    try JPEGDecoder.decode(Fixtures.data("colour/rocket-adobergb.jpg")).metadata.iccProfile!.write(to: file("adobe.icc"))
    try "scale 0.5\nconvert profile=adobe.icc intent=perceptual\n".write(to: file("r.txt"), atomically: true, encoding: .utf8)
    XCTAssertEqual(try fgrun(["r.txt", "ring.png", "recipe.png"]).status, 0)
    XCTAssertEqual(try fgrun(["-e", "scale 0.5", "ring.png", "option.png", "--profile", "adobe.icc", "--intent", "perceptual"]).status, 0)
    let recipe = try PNGDecoder.decode(Data(contentsOf: file("recipe.png")))
    XCTAssertEqual(recipe.metadata.iccProfile, try Data(contentsOf: file("adobe.icc")))
    XCTAssertTrue(recipe.hasSamePixels(as: try PNGDecoder.decode(Data(contentsOf: file("option.png")))))
    let explain = String(decoding: try fgrun(["explain", "r.txt", "ring.png"]).stdout, as: UTF8.self)
    XCTAssertTrue(explain.contains("stored through lcms2 into 'Adobe RGB (1998)' (perceptual)"), explain)
    var cmyk = try Fixtures.data("colour/cmyk-swop.jpg")
    cmyk = cmyk[cmyk.range(of: Data("ICC_PROFILE".utf8))!.upperBound + 3..<cmyk.count]
    try cmyk.prefix(8464).write(to: file("cmyk.icc"))
    try "scale 0.5\nconvert profile=cmyk.icc\n".write(to: file("bad.txt"), atomically: true, encoding: .utf8)
    let bad = try fgrun(["bad.txt", "ring.png", "x.png"])
    XCTAssertEqual(bad.status, 65, bad.stderr)
    XCTAssertTrue(bad.stderr.contains("bad.txt:2:17: error: convert: The ICC profile 'cmyk.icc' is CMYK"), bad.stderr)
  }
}

/// PSNR of two 8-bit RGB buffers of one size.
enum ColorPSNR {
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
