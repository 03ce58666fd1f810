// UltraHDRRoundTripTests.swift — read → resize → write Ultra HDR, then read the output with libvips
// 8.18 (uhdrload) and libultrahdr (imagecodecs), through scripts/hdr-check.py in the oracles' venv
// (scripts/install-hdr-oracles.sh; `make test` installs it): the gain-map metadata comes back
// exactly (the headroom among it: sharp#4314 wrote it wrongly), the map keeps its resolution
// relative to the base, and the output's HDR rendition is within 35 dB of the input's resized in
// linear light.
import FilterGraph
import ImageCodecs
import Foundation
import TestSupport
import XCTest

final class UltraHDRRoundTripTests: XCTestCase {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// hdr-check.py's reading of `output` against `input`, whose rendition is first put through
  /// `edit` (a power, or `levels=WHITE,GAMMA,OUT_WHITE`: the script's usage).
  static func check(_ input: URL, _ output: URL, edit: String? = nil) throws -> [String: Any] {
    let python = Self.root.appendingPathComponent(".venv-oracles/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: python) else {
      throw XCTSkip("the HDR oracles are not installed (bash scripts/install-hdr-oracles.sh)")
    }
    let run = try ChildProcess.run(
      python, [Self.root.appendingPathComponent("scripts/hdr-check.py").path, input.path, output.path] + (edit.map { [$0] } ?? []), in: Self.root)
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
      let result = try Self.check(input, output)
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

  /// `--hdr hdr`: the rendition written as a float TIFF in linear light, as a 12-bit PQ AVIF with
  /// nclx BT.2020/PQ (read back by libavif) and as a 16-bit PQ PNG with cICP 9/16/0/1 (read back by
  /// libpng through imagecodecs), each taken to linear light by the ST 2084 EOTF, SDR white at
  /// 203 cd/m², is the input's (as libultrahdr renders it) resized. So are an HLG PNG and AVIF
  /// (`--hdr-transfer hlg`, cICP / nclx transfer 18), taken to display light by the checker's own
  /// BT.2100 inverse OETF and OOTF for a 1000 cd/m² display. The PNGs and AVIFs declare their light
  /// (`checkDeclaredLight`).
  /// gamma is a power of the light (c^(1/γ) in linear light), which extends to HDR light: the map's
  /// log boosts are scaled by 1/γ (GainMapPolicy.swift). After `gamma value=2 space=linear` and scale
  /// 0.5, libvips 8.18 reads the max boost and the headroom as the square roots of the input's, and
  /// libultrahdr's rendition of the output is ≥ 35 dB from the input's rendition squared-rooted and
  /// resized (the map carried unchanged: the metadata equal, seen failing).
  func testGammaRescalesTheMapsBoosts() throws {
    let psnr = try rescaledRoundTrip("gamma value=2 space=linear\nscale 0.5", edit: "0.5", power: 0.5)
    print("gamma 2 (linear light): HDR rendition \(psnr) dB from the input's rendition ^ 1/2 resized")
    XCTAssertGreaterThanOrEqual(psnr, 35)
  }

  /// levels with both black points 0 is k·c^(1/γ) on the encoded values: a power of the light times
  /// a gain (GainMapPolicy.swift), so the map's log boosts are scaled by 1/γ as gamma's are. After
  /// `levels white=0.9 gamma=1.3 out-white=0.9` and scale 0.5, libvips 8.18 reads the max boost and
  /// the headroom as the input's ^ (1/1.3), and libultrahdr's rendition of the output is ≥ 40 dB
  /// from the input's rendition put through the same levels (sRGB-encoded, the curve extended above
  /// 1) and resized (44.5 dB; the map carried unchanged: 32.4 dB, seen failing).
  func testLevelsWithBlackPointsZeroRescalesTheMapAsGamma() throws {
    let psnr = try rescaledRoundTrip("levels white=0.9 gamma=1.3 out-white=0.9\nscale 0.5", edit: "levels=0.9,1.3,0.9", power: 1 / 1.3)
    print("levels white=0.9 gamma=1.3 out-white=0.9: HDR rendition \(psnr) dB from the input's rendition so levelled and resized")
    XCTAssertGreaterThanOrEqual(psnr, 40)
  }

  /// exposure scales the light, so carried its HDR rendition is 2^ev × the input's up to where the
  /// SDR base clips; there the map is recomputed (GainMapClipping.swift). After `exposure ev=2` and
  /// scale 0.5 the max boost is widened by (4 + o)/(1 + o) (the most the clipping can add, o the SDR offset),
  /// the rest of the metadata unchanged, and libultrahdr's rendition of the output is compared with
  /// the input's rendition × 4 resized: 44.6 dB; with the map carried 26.0 dB (seen failing).
  func testExposureRecomputesTheMapWhereTheBaseClips() throws {
    let psnr = try rescaledRoundTrip("exposure ev=2\nscale 0.5", edit: "exposure=2", power: 1, largestOutput: 4)
    print("exposure ev=2: HDR rendition \(psnr) dB from the input's rendition × 4 resized")
    XCTAssertGreaterThanOrEqual(psnr, 40)
  }

  /// libultrahdr.jpg through `recipe`, written as Ultra HDR (Q95) and read by hdr-check.py against the
  /// input's rendition put through `edit`: libvips 8.18 reads the headroom and the max and min boosts
  /// as the input's ^ `power`, the max boost then × (k + o)/(1 + o) for an edit whose output reaches k
  /// (`largestOutput`, GainMapClipping.swift) and the input's SDR offset o. Returns the PSNR of the
  /// output's rendition.
  func rescaledRoundTrip(_ recipe: String, edit: String, power: Double, largestOutput k: Double = 1) throws -> Double {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uhdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = Fixtures.url("uhdr/libultrahdr.jpg"), output = folder.appendingPathComponent("edited.jpg")
    let image = try Recipe.parse(recipe, file: nil).compile(input: Image(contentsOf: input), context: FilterContext(baseDirectory: folder))
    try Renderer(options: RendererOptions(threads: 2)).write(image, to: output, options: WriteOptions(format: .jpeg, options: ["quality": 95]))
    let result = try Self.check(input, output, edit: edit)
    let before = try XCTUnwrap(result["input"] as? [String: Any]), after = try XCTUnwrap(result["output"] as? [String: Any])
    for key in ["gainmap-hdr-capacity-max", "gainmap-max-content-boost", "gainmap-min-content-boost"] {
      let b = (before[key] as? Double).map { [$0] } ?? before[key] as? [Double] ?? [], a = (after[key] as? Double).map { [$0] } ?? after[key] as? [Double] ?? []
      XCTAssertEqual(a.count, b.count, "\(recipe): \(key)")
      let offsets = (before["gainmap-offset-sdr"] as? Double).map { [$0] } ?? before["gainmap-offset-sdr"] as? [Double] ?? []
      for (i, (x, y)) in zip(a, b).enumerated() {
        let o = offsets.isEmpty ? 0 : offsets[min(i, offsets.count - 1)]
        let factor = key == "gainmap-max-content-boost" ? (k + o) / (1 + o) : 1
        XCTAssertEqual(x, pow(y, power) * factor, accuracy: 1e-4 * y * factor, "\(recipe): \(key)")
      }
    }
    return try XCTUnwrap(result["psnr_ic"] as? Double)
  }

  func testHDRRenditionAsFloatTIFFAndPQAVIFAndPNG() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uhdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let cases: [(String, String, HDRTransfer)] = [
      ("libultrahdr", "tif", .pq), ("vips", "tif", .pq), ("libultrahdr", "avif", .pq), ("vips", "avif", .pq), ("libultrahdr", "png", .pq),
      ("vips", "png", .pq), ("libultrahdr", "png", .hlg), ("vips", "avif", .hlg),
    ]
    for (name, format, transfer) in cases {
      let input = Fixtures.url("uhdr/\(name).jpg")
      let output = folder.appendingPathComponent("\(name)-\(transfer.rawValue).\(format)")
      var options = format == "avif" ? WriteOptions(format: .avif, options: ["quality": 90]) : WriteOptions()
      options.hdr = .hdr
      options.hdrTransfer = transfer
      try Renderer(options: RendererOptions(threads: 2)).write(Image(contentsOf: input).scaled(by: 0.5), to: output, options: options)
      let result = try Self.check(input, output)
      let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
      print("HDR rendition as \(transfer.rawValue) \(format) \(name): \(psnr) dB from libultrahdr's rendition resized")
      XCTAssertGreaterThanOrEqual(psnr, 35, "\(name) \(transfer.rawValue) \(format)")
      if format != "tif" {
        try checkDeclaredLight(result, peak: min(203 * 49.26108, transfer == .pq ? 10000 : 1000), "\(name) \(transfer.rawValue) \(format)")
        // Read again, the file's MaxCLL (cLLi / clli, as the checker parsed it) is its content peak
        // (at least 406 cd/m², HDRContentPeak.swift).
        let light = try XCTUnwrap((result["output"] as? [String: Any])?["light"] as? [String: Any])
        let declared = try XCTUnwrap(light["max_cll"] as? Double)
        XCTAssertEqual(try ImageFileInfo(contentsOf: output).hdrPeak ?? 0, max(declared, 406), accuracy: 0.01, "\(name) \(transfer.rawValue) \(format)")
      }
    }
  }

  /// `--hdr hdr` to HEIC: the rendition as a 12-bit PQ HEIC and a 10-bit HLG one. Each declares its
  /// signal in an nclx `colr` box — heif-info (libheif's reader) says "color profile: nclx", and
  /// hdr-check.py parses the box (ISO/IEC 23008-12 6.5.5: BT.2020 primaries 9, transfer 16 or 18,
  /// matrix BT.601 6 as libheif converted to YCbCr, full range) — and decoded by heif-convert
  /// (libheif's tool over libde265, not the x265 that encoded it) and taken to linear light as the
  /// AVIF is, it is 35 dB or better from libultrahdr's rendition of the input resized; the files
  /// declare their light as the AVIF does, and read back the MaxCLL as their peak. With the shim
  /// leaving libheif's macOS workaround on (no nclx box: "color profile: no"), seen failing.
  func testHDRRenditionAsPQAndHLGHEIC() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uhdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for (name, transfer, depth) in [("libultrahdr", HDRTransfer.pq, "12"), ("vips", HDRTransfer.hlg, "10")] {
      let input = Fixtures.url("uhdr/\(name).jpg")
      let output = folder.appendingPathComponent("\(name)-\(transfer.rawValue).heic")
      var options = WriteOptions(format: .heic, options: ["quality": 90])
      options.formatOptions.values["bit-depth"] = .choice(depth)
      options.hdr = .hdr
      options.hdrTransfer = transfer
      try Renderer(options: RendererOptions(threads: 2)).write(Image(contentsOf: input).scaled(by: 0.5), to: output, options: options)
      let info = try ChildProcess.run("heif-info", [output.path], in: folder)
      XCTAssertEqual(info.status, 0, info.stderr)
      XCTAssertTrue(String(decoding: info.stdout, as: UTF8.self).contains("color profile: nclx"), "\(name): heif-info reads no nclx profile")
      let result = try Self.check(input, output)
      let nclx = try XCTUnwrap((result["output"] as? [String: Any])?["nclx"] as? [Int], "\(name): no nclx box")
      XCTAssertEqual(nclx, [9, transfer == .pq ? 16 : 18, 6, 1], "\(name) \(transfer.rawValue): primaries, transfer, matrix, full range")
      let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
      print("HDR rendition as \(depth)-bit \(transfer.rawValue) heic \(name): \(psnr) dB from libultrahdr's rendition resized")
      XCTAssertGreaterThanOrEqual(psnr, 35, "\(name) \(transfer.rawValue) heic")
      try checkDeclaredLight(result, peak: min(203 * 49.26108, transfer == .pq ? 10000 : 1000), "\(name) \(transfer.rawValue) heic")
      let light = try XCTUnwrap((result["output"] as? [String: Any])?["light"] as? [String: Any])
      let declared = try XCTUnwrap(light["max_cll"] as? Double)
      XCTAssertEqual(try ImageFileInfo(contentsOf: output).hdrPeak ?? 0, max(declared, 406), accuracy: 0.01, "\(name) \(transfer.rawValue) heic")
    }
  }

  /// The mastering display (mDCv / mdcv) is BT.709's primaries and D65 from 0 to `peak` cd/m² (203 ×
  /// the map's headroom, at most the transfer's 10000 or 1000), and MaxCLL and MaxFALL (cLLi / clli) are those of the decoded
  /// pixels (CTA-861.3, computed by the checker): within 0.5 % for the lossless PNG, 5 % for the
  /// lossy AVIF.
  func checkDeclaredLight(_ result: [String: Any], peak: Double, _ name: String) throws {
    let output = try XCTUnwrap(result["output"] as? [String: Any], name)
    let light = try XCTUnwrap(output["light"] as? [String: Any], name)
    let mastering = try XCTUnwrap(light["mastering"] as? [Double], "\(name): no mastering display colour volume")
    for (value, expected) in zip(mastering, [0.640, 0.330, 0.300, 0.600, 0.150, 0.060, 0.3127, 0.3290, peak, 0]) {
      XCTAssertEqual(value, expected, accuracy: expected > 1 ? 0.01 : 1e-4, "\(name): mastering display \(mastering)")
    }
    let tolerance = name.hasSuffix("png") ? 0.005 : 0.05
    for key in ["max_cll", "max_fall"] {
      let declared = try XCTUnwrap(light[key] as? Double, "\(name): no \(key)")
      let measured = try XCTUnwrap(light["\(key)_pixels"] as? Double, name)
      print("\(name): \(key) declared \(declared) cd/m², measured \(measured)")
      XCTAssertEqual(declared, measured, accuracy: measured * tolerance + 1, "\(name): \(key)")
    }
  }
}
