// UltraHDRPhotoTests.swift — a phone's Ultra HDR photo through fgrun's thumbnail recipe, written as
// Ultra HDR and read back by libvips 8.18 (uhdrload) and libultrahdr (imagecodecs) through
// scripts/hdr-check.py: the photo (Pixel 6 Pro, Google Camera; fixtures/uhdr/NOTICE.md) keeps its
// gain-map metadata exactly, in the ISO 21496-1 block and the hdrgm: XMP — its 4.61× headroom among it, which sharp#4314 wrote wrongly — its
// map's resolution relative to the base (a quarter), and an HDR rendition within 35 dB of the
// photo's own rendition resized in linear light.
import FilterGraph
import Foundation
import TestSupport
import XCTest

final class UltraHDRPhotoTests: XCTestCase {
  func testAPhonePhotoComesOutOfTheThumbnailRecipeAsUltraHDR() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uhdr-photo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = Fixtures.url("uhdr/pixel6pro-05.jpg"), output = folder.appendingPathComponent("thumbnail.jpg")
    let recipe = try String(contentsOf: UltraHDRRoundTripTests.root.appendingPathComponent("recipes/thumbnail.txt"), encoding: .utf8)
    let image = try Recipe.parse(recipe, file: nil).compile(input: Image(contentsOf: input), context: FilterContext(baseDirectory: folder))
    try Renderer(options: RendererOptions(threads: 2)).write(image, to: output)

    let result = try UltraHDRRoundTripTests.check(input, output)
    let before = try XCTUnwrap(result["input"] as? [String: Any]), after = try XCTUnwrap(result["output"] as? [String: Any])
    let keys = before.keys.filter { $0.hasPrefix("gainmap-") }
    XCTAssertFalse(keys.isEmpty, "libvips reads no gain map in the photo")
    for key in keys { XCTAssertEqual("\(before[key]!)", "\(after[key]!)", key) }
    XCTAssertEqual(after["xmp"] as? [String: Double], before["xmp"] as? [String: Double], "the hdrgm: XMP")
    XCTAssertEqual(after["gainmap-hdr-capacity-max"] as? Double ?? 0, 4.6119, accuracy: 1e-3)
    XCTAssertEqual(after["width"] as? Int, 800)
    XCTAssertEqual(after["height"] as? Int, 602)
    XCTAssertEqual(after["map_width"] as? Int, 200)
    XCTAssertEqual(after["map_bands"] as? Int, before["map_bands"] as? Int)
    let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
    print("Pixel 6 Pro Ultra HDR photo, thumbnail recipe: HDR rendition \(psnr) dB from the photo's resized")
    XCTAssertGreaterThanOrEqual(psnr, 35)
  }
}
