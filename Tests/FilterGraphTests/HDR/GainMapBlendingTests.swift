// GainMapBlendingTests.swift — a blend of two images that both have gain maps keeps HDR: the
// output's map is made from the blend of the two HDR renditions (GainMapBlending.swift). Read back by
// libultrahdr (imagecodecs) and libvips 8.18 through scripts/hdr-check.py, the output's rendition is
// the two inputs' renditions blended, and its metadata holds both photos' headroom and range.
import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class GainMapBlendingTests: XCTestCase {
  /// The ramps photo (GainMapRerenderingTests.rampsPhoto: headroom 2², a gray quarter-size map)
  /// scaled to 96×72 and composited at (40, 32) with opacity 0.7 over the libvips fixture (headroom
  /// 49.26, gray map at a quarter): the output's map is at the base's resolution (192×128), and
  /// libultrahdr's rendition of the output against the fixture's rendition with the ramps' rendition,
  /// resized in linear light, blended over it in linear light: 47.1 dB over the whole picture and
  /// 43.4 dB within the overlay's rectangle. With the map made at the base map's quarter resolution
  /// (before): 29.9 and 24.5 dB, seen failing — the ratio's step at the overlay's right and bottom
  /// edges spread over the last map pixel inside (42.2 dB within the overlay without its 4-pixel
  /// border); with the overlay's map ignored, "no boost" under it, 20.7 and 15.2 dB. libvips reads the
  /// fixture's headroom (the larger) and the union of the two ranges: `over` is a weighted mean. A
  /// `multiply` blend keeps the map too, its range widened as a rerendering's.
  func testABlendOfTwoMappedPhotosIsTheBlendOfTheirRenditions() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blend-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let ramps = folder.appendingPathComponent("ramps.jpg"), output = folder.appendingPathComponent("blended.jpg")
    try GainMapRerenderingTests.rampsPhoto().write(to: ramps)
    let input = Fixtures.url("uhdr/vips.jpg")
    let overlay = try Image(contentsOf: ramps).scaled(toWidth: 96)
    XCTAssertEqual(overlay.size, Size(width: 96, height: 72))
    let image = try Image(contentsOf: input).overlaid(with: overlay, gravity: .northWest, offset: Point(x: 40, y: 32), opacity: 0.7)
    let branch = try XCTUnwrap(image.gainMapBranch().branch, "\(image.gainMapBranch().problem ?? "")")
    XCTAssertEqual(branch.map.size, Size(width: 192, height: 128))
    try Renderer(options: RendererOptions(threads: 2)).write(image, to: output, options: WriteOptions(format: .jpeg, options: ["quality": 95]))
    let result = try UltraHDRRoundTripTests.check(input, output, edit: "blend=\(ramps.path),40,32,96,72,0.7")
    let before = try XCTUnwrap(result["input"] as? [String: Any]), after = try XCTUnwrap(result["output"] as? [String: Any])
    for key in ["gainmap-hdr-capacity-max", "gainmap-max-content-boost", "gainmap-min-content-boost"] {
      XCTAssertEqual(Self.values(after[key]).first ?? 0, Self.values(before[key]).first ?? 1, accuracy: 1e-4, key)
    }
    let psnr = try XCTUnwrap(result["psnr_ic"] as? Double), region = try XCTUnwrap(result["psnr_region"] as? Double)
    print("blend of two Ultra HDR photos: HDR rendition \(psnr) dB from the blend of their renditions, \(region) dB within the overlay")
    XCTAssertGreaterThanOrEqual(psnr, 45)
    XCTAssertGreaterThanOrEqual(region, 41.5)

    let multiplied = try Image(contentsOf: input).overlaid(with: overlay, gravity: .northWest, offset: Point(x: 40, y: 32), mode: .multiply)
    let metadata = try XCTUnwrap(multiplied.gainMapBranch().branch).metadata
    let headroom = exp2(metadata.hdrCapacityMax), offset = 1.0 / 64
    XCTAssertEqual(headroom, 49.26108, accuracy: 1e-3)
    XCTAssertEqual(exp2(metadata.gainMapMax[0]), (headroom + offset) / offset, accuracy: 1e-3 * headroom / offset)
  }

  /// The ramps photo composited as above over an SDR JPEG (the sample photo at 192×128, no gain
  /// map): the base is SDR content, its HDR rendition its own light, so the output's map is made
  /// from the blend of that light and the ramps' rendition, and libultrahdr's rendition of the
  /// output is that blend (hdr-check.py: an input without a map is its sRGB light): 41.4 dB over
  /// the whole picture and 37.9 dB within the overlay. The reference's floor is its two decoders:
  /// outside the overlay, where libvips reads the map as exactly "no boost", libultrahdr's
  /// rendition is 35.2 dB from libjpeg-turbo's decode of the same base through the sRGB curve. The
  /// headroom is the ramps' (2²) and the range reaches a boost of 1, the base's. Before, the map
  /// ended there (no branch: the output an SDR JPEG, with a warning).
  func testAMappedPhotoOverAnSDRPhotoKeepsItsHDR() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blend-sdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let ramps = folder.appendingPathComponent("ramps.jpg"), base = folder.appendingPathComponent("base.jpg")
    let output = folder.appendingPathComponent("blended.jpg")
    try GainMapRerenderingTests.rampsPhoto().write(to: ramps)
    let renderer = Renderer(options: RendererOptions(threads: 2))
    let photo = try Image(contentsOf: UltraHDRRoundTripTests.root.appendingPathComponent("samples/flower.jpg")).scaled(toWidth: 192)
    XCTAssertEqual(photo.size, Size(width: 192, height: 128))
    try renderer.write(photo, to: base, options: WriteOptions(format: .jpeg, options: ["quality": 95]))
    let overlay = try Image(contentsOf: ramps).scaled(toWidth: 96)
    let image = try Image(contentsOf: base).overlaid(with: overlay, gravity: .northWest, offset: Point(x: 40, y: 32), opacity: 0.7)
    let branch = try XCTUnwrap(image.gainMapBranch().branch, "\(image.gainMapBranch().problem ?? "")")
    XCTAssertEqual(branch.map.size, Size(width: 192, height: 128))
    XCTAssertEqual(exp2(branch.metadata.hdrCapacityMax), 4, accuracy: 1e-6)
    XCTAssertLessThanOrEqual(branch.metadata.gainMapMin.max() ?? 1, 0)
    try renderer.write(image, to: output, options: WriteOptions(format: .jpeg, options: ["quality": 95]))
    let result = try UltraHDRRoundTripTests.check(base, output, edit: "blend=\(ramps.path),40,32,96,72,0.7")
    let after = try XCTUnwrap(result["output"] as? [String: Any])
    XCTAssertEqual(Self.values(after["gainmap-hdr-capacity-max"]).first ?? 0, 4, accuracy: 1e-4)
    let psnr = try XCTUnwrap(result["psnr_ic"] as? Double), region = try XCTUnwrap(result["psnr_region"] as? Double)
    print("an Ultra HDR photo over an SDR one: HDR rendition \(psnr) dB from the blend of their light, \(region) dB within the overlay")
    XCTAssertGreaterThanOrEqual(psnr, 40)
    XCTAssertGreaterThanOrEqual(region, 37)
  }

  /// A value libvips reads as a number or a list of numbers.
  static func values(_ value: Any?) -> [Double] { (value as? Double).map { [$0] } ?? value as? [Double] ?? [] }
}
