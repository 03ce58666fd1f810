// UltraHDRRoundTripTests.swift — read → resize → write Ultra HDR, then read the output with libvips
// 8.18 (uhdrload) and libultrahdr (imagecodecs), through scripts/hdr-check.py in the oracles' venv
// (scripts/install-hdr-oracles.sh; `make test` installs it): the gain-map metadata comes back
// exactly (the headroom among it: sharp#4314 wrote it wrongly), the map keeps its resolution
// relative to the base, and the output's HDR rendition is within 35 dB of the input's resized in
// linear light.
import FilterGraph
import Foundation
import TestSupport
import XCTest

final class UltraHDRRoundTripTests: XCTestCase {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  func check(_ input: URL, _ output: URL) throws -> [String: Any] {
    let python = Self.root.appendingPathComponent(".venv-oracles/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: python) else {
      throw XCTSkip("the HDR oracles are not installed (bash scripts/install-hdr-oracles.sh)")
    }
    let run = try ChildProcess.run(python, [Self.root.appendingPathComponent("scripts/hdr-check.py").path, input.path, output.path], in: Self.root)
    XCTAssertEqual(run.status, 0, run.stderr)
    return try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
  }

  func testResizedUltraHDRReadsBackInLibvipsAndLibultrahdr() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uhdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let renderer = Renderer(options: RendererOptions(threads: 2))
    for (name, mapScale) in [("libultrahdr", 1), ("vips", 4)] {
      let input = Fixtures.url("uhdr/\(name).jpg")
      let output = folder.appendingPathComponent("\(name)-half.jpg")
      try renderer.write(Image(contentsOf: input).scaled(by: 0.5), to: output)
      let result = try check(input, output)
      let before = try XCTUnwrap(result["input"] as? [String: Any]), after = try XCTUnwrap(result["output"] as? [String: Any])
      for key in before.keys where key.hasPrefix("gainmap-") {
        XCTAssertEqual("\(before[key]!)", "\(after[key]!)", "\(name): \(key)")
      }
      XCTAssertEqual(after["gainmap-hdr-capacity-max"] as? Double ?? 0, 49.26108, accuracy: 1e-4, name)
      XCTAssertEqual(after["width"] as? Int, 96)
      XCTAssertEqual(after["map_width"] as? Int, 96 / mapScale, name)
      XCTAssertEqual(after["map_bands"] as? Int, before["map_bands"] as? Int, name)
      let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
      print("Ultra HDR round trip \(name): HDR rendition \(psnr) dB from the input's resized")
      XCTAssertGreaterThanOrEqual(psnr, 35, name)
    }
  }

  /// `--hdr hdr`: the rendition written as a float TIFF in linear light, and as a 12-bit PQ AVIF
  /// with nclx BT.2020/PQ (read back by libavif and taken to linear light by the ST 2084 EOTF, SDR
  /// white at 203 cd/m²), is the input's (as libultrahdr renders it) resized.
  func testHDRRenditionAsFloatTIFFAndPQAVIF() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uhdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for (name, format) in [("libultrahdr", "tif"), ("vips", "tif"), ("libultrahdr", "avif"), ("vips", "avif")] {
      let input = Fixtures.url("uhdr/\(name).jpg")
      let output = folder.appendingPathComponent("\(name).\(format)")
      var options = format == "avif" ? WriteOptions(format: .avif, options: ["quality": 90]) : WriteOptions()
      options.hdr = .hdr
      try Renderer(options: RendererOptions(threads: 2)).write(Image(contentsOf: input).scaled(by: 0.5), to: output, options: options)
      let result = try check(input, output)
      let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
      print("HDR rendition as \(format) \(name): \(psnr) dB from libultrahdr's rendition resized")
      XCTAssertGreaterThanOrEqual(psnr, 35, "\(name) \(format)")
    }
  }
}
