// GainMapOverlayTests.swift — an SDR overlay composited on an Ultra HDR photo renders at its SDR
// value on an HDR screen: read back by libvips 8.18 (uhdrload, uhdr2scRGB) through
// scripts/hdr-overlay-check.py in the oracles' venv, the HDR rendition over the SDR base is ≈ 1 under
// the overlay and the photo's boost elsewhere.
import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class GainMapOverlayTests: XCTestCase {
  /// The ratio HDR / SDR (linear light, medians) inside and outside a rectangle, as libvips renders `file`.
  func ratios(_ file: Data, inside rect: Rect) throws -> (inside: Double, outside: Double) {
    let root = UltraHDRRoundTripTests.root
    let python = root.appendingPathComponent(".venv-oracles/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: python) else {
      throw XCTSkip("the HDR oracles are not installed (bash scripts/install-hdr-oracles.sh)")
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("overlay-\(UUID().uuidString).jpg")
    defer { try? FileManager.default.removeItem(at: url) }
    try file.write(to: url)
    let run = try ChildProcess.run(
      python, [root.appendingPathComponent("scripts/hdr-overlay-check.py").path, url.path] + [rect.x, rect.y, rect.width, rect.height].map(String.init),
      in: root)
    XCTAssertEqual(run.status, 0, run.stderr)
    let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Double])
    return (try XCTUnwrap(json["inside"]), try XCTUnwrap(json["outside"]))
  }

  /// A 256×192 mid-gray photo whose map boosts it everywhere by 2^2 (map 255, max boost log2 2).
  func boostedPhoto() throws -> Data {
    let renderer = Renderer(options: RendererOptions(threads: 2))
    var options = WriteOptions(format: .jpeg, options: ["quality": 95])
    options.keptMetadata = []
    let base = try renderer.encode(Image(color: Color(red: 0.5, green: 0.5, blue: 0.5), size: Size(width: 256, height: 192)), format: .jpeg, options: options)
    let map = try renderer.encode(Image(color: .white, size: Size(width: 64, height: 48)).converted(to: .gray), format: .jpeg, options: options)
    return try UltraHDRFile.assemble(primary: base, map: map, metadata: GainMapMetadata(gainMapMax: [2, 2, 2], hdrCapacityMax: 2))
  }

  func testAnOverlayRendersAtItsSDRValue() throws {
    let photo = try Image(data: boostedPhoto())
    let logo = Image(color: Color(red: 0.8, green: 0.7, blue: 0.6), size: Size(width: 96, height: 64))
    let image = photo.overlaid(with: logo, gravity: .center, margin: 0)
    XCTAssertNotNil(image.gainMapBranch().branch)
    let file = try Renderer(options: RendererOptions(threads: 2)).encode(image, format: .jpeg)
    // The logo covers (80, 64)–(176, 128); measured 8 pixels in from its edges and from the rest.
    let measured = try ratios(file, inside: Rect(x: 88, y: 72, width: 80, height: 48))
    XCTAssertEqual(measured.inside, 1, accuracy: 0.03, "the logo renders at its SDR value")
    XCTAssertGreaterThan(measured.outside, 3.8, "the photo keeps its boost (2^2)")
    // At half opacity the log boost is halved: 2^1.
    let half = photo.overlaid(with: logo, gravity: .center, margin: 0, opacity: 0.5)
    let halfMeasured = try ratios(Renderer(options: RendererOptions(threads: 2)).encode(half, format: .jpeg), inside: Rect(x: 88, y: 72, width: 80, height: 48))
    XCTAssertEqual(halfMeasured.inside, 2, accuracy: 0.1)
  }

  /// Where a mask removes the photo the output is what it is flattened onto (SDR content): libvips
  /// renders it at HDR/SDR 1 there, and the photo keeps its 2^2 beside it (the map carried past the
  /// mask: 4 under it, seen failing).
  func testWhereAMaskRemovesThePhotoItRendersAtItsSDRValue() throws {
    let photo = try Image(data: boostedPhoto())
    let hole = Image(color: .black, size: Size(width: 96, height: 64))
    let mask = Image(color: .white, size: Size(width: 256, height: 192)).overlaid(with: hole, gravity: .center, margin: 0)
    let image = photo.masked(by: mask).flattened(onto: Color(red: 0.5, green: 0.5, blue: 0.5))
    XCTAssertNotNil(image.gainMapBranch().branch)
    let file = try Renderer(options: RendererOptions(threads: 2)).encode(image, format: .jpeg)
    let measured = try ratios(file, inside: Rect(x: 88, y: 72, width: 80, height: 48))
    XCTAssertEqual(measured.inside, 1, accuracy: 0.03, "the flatten colour renders at its SDR value")
    XCTAssertGreaterThan(measured.outside, 3.8, "the photo keeps its boost (2^2)")
  }

  /// Half a mask (m = 0.5 everywhere) over the photo boosted 2^2, flattened onto the photo's own
  /// gray: the map is flattened onto "no boost" on its stored values, so its log boost is halved
  /// (gamma 1) and libvips renders HDR/SDR (S + o)·2/S − o/S = 2.07 for S the gray's light 0.216
  /// and o = 1/64 (flattened in linear light the stored values gave 2^1.47: 2.9, seen failing).
  func testAHalfMaskHalvesTheLogBoost() throws {
    let gray = Color(red: 0.5, green: 0.5, blue: 0.5)
    let image = try Image(data: boostedPhoto()).masked(by: Image(color: gray, size: Size(width: 256, height: 192))).flattened(onto: gray)
    let file = try Renderer(options: RendererOptions(threads: 2)).encode(image, format: .jpeg)
    let measured = try ratios(file, inside: Rect(x: 8, y: 8, width: 240, height: 176))
    let sdr = 0.2158, offset = 1.0 / 64
    print("half mask: HDR/SDR \(measured.inside)")
    XCTAssertEqual(measured.inside, ((sdr + offset) * 2 - offset) / sdr, accuracy: 0.1, "the log boost halved")
  }

  /// `exposure ev=3` takes the photo (gray 0.216 in light, boosted 2^2, max boost 2^2) past SDR
  /// white: the base clips at 1 and the map's log boost rises by log2((8·0.216 + o)/(1 + o)) = 0.78
  /// past its max, which the output's max boost is widened to hold (by log2((8 + o)/(1 + o)):
  /// GainMapClipping.swift). libvips renders HDR/SDR (1 + o)·2^2.78 − o = 6.96 (2^3 · the input's
  /// 0.92 is 7.3; clamped at the old max boost: 4.0, seen failing).
  func testExposurePastTheMaxBoostWidensIt() throws {
    let image = try Recipe.parse("exposure ev=3", file: nil).compile(
      input: Image(data: boostedPhoto()), context: FilterContext(baseDirectory: URL(fileURLWithPath: ".")))
    let file = try Renderer(options: RendererOptions(threads: 2)).encode(image, format: .jpeg)
    let measured = try ratios(file, inside: Rect(x: 8, y: 8, width: 240, height: 176))
    print("exposure ev=3 past the max boost: HDR/SDR \(measured.inside)")
    XCTAssertEqual(measured.inside, 6.96, accuracy: 0.25, "the boost past the old max is kept")
    let offset = 1.0 / 64
    let maxBoost = try XCTUnwrap(EncodedSource(data: file, options: LoadOptions()).header.gainMap?.metadata.gainMapMax.first)
    XCTAssertEqual(maxBoost, 2 + log2((8 + offset) / (1 + offset)), accuracy: 1e-4)
  }

  /// A shadow grows the canvas by its margin: the shadow and the canvas are SDR content (HDR/SDR 1
  /// there, as libvips renders it) and the photo keeps its 2^2 (the margin boosted as the photo
  /// beside it: 4, seen failing).
  func testAShadowsMarginRendersAtItsSDRValue() throws {
    let photo = try Image(data: boostedPhoto())
    let image = try Recipe.parse("shadow sigma=3 x=4 y=4 color=#00000080\nflatten color=#808080", file: nil).compile(
      input: photo, context: FilterContext(baseDirectory: URL(fileURLWithPath: ".")))
    XCTAssertNotNil(image.gainMapBranch().branch)
    let file = try Renderer(options: RendererOptions(threads: 2)).encode(image, format: .jpeg)
    // The canvas is 282×218 (margin 13); the photo is at (13, 13)–(269, 205), measured 8 pixels in.
    let measured = try ratios(file, inside: Rect(x: 21, y: 21, width: 240, height: 176))
    XCTAssertGreaterThan(measured.inside, 3.8, "the photo keeps its boost (2^2)")
    XCTAssertEqual(measured.outside, 1, accuracy: 0.03, "the margin renders at its SDR value")
  }
}
