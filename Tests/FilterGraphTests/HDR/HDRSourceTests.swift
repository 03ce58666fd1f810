// HDRSourceTests.swift — PQ and HLG AVIFs (made with heif-enc by scripts/hdr-tonemap-check.py) come
// out as SDR tone-mapped by BT.2446 method A and gamut-mapped to BT.709, matching the script's
// independent computation (numpy over libavif's decode, through imagecodecs in the oracles' venv)
// to ≥ 40 dB; `explain` shows the conversion, `--hdr keep` warns that the output is SDR, `--hdr sdr`
// does not; written as JPEG it becomes Ultra HDR (the tone-mapped base + the map that restores the
// HDR light), whose rendition as libvips 8.18 and libultrahdr read it is the source's light.
import FilterGraph
import Foundation
import ImageCodecs
import TestSupport
import XCTest

/// Warnings collected from the renderer's threads.
private final class Messages: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [String] = []
  func add(_ message: String) { lock.withLock { list.append(message) } }
  var all: [String] { lock.withLock { list } }
}

final class HDRSourceTests: XCTestCase {
  static let root = UltraHDRRoundTripTests.root

  func script(_ arguments: [String]) throws -> ChildProcess.Outcome {
    let python = Self.root.appendingPathComponent(".venv-oracles/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: python) else {
      throw XCTSkip("the HDR oracles are not installed (bash scripts/install-hdr-oracles.sh)")
    }
    let run = try ChildProcess.run(python, [Self.root.appendingPathComponent("scripts/hdr-tonemap-check.py").path] + arguments, in: Self.root)
    XCTAssertEqual(run.status, 0, run.stderr)
    return run
  }

  func testPQAndHLGAVIFsAreToneMappedAsTheDefinitionSays() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for transfer in ["pq", "hlg"] {
      let avif = folder.appendingPathComponent("\(transfer).avif"), png = folder.appendingPathComponent("\(transfer).png")
      _ = try script(["make", transfer, avif.path])
      let warnings = Messages()
      let renderer = Renderer(options: RendererOptions(threads: 2)) { warnings.add($0) }
      let image = try Image(contentsOf: avif)
      XCTAssertTrue(try renderer.explain(image).contains("BT.2446 method A"), transfer)
      try renderer.write(image, to: png, options: WriteOptions(format: .png, options: ["bit-depth": "16"]))
      XCTAssertEqual(warnings.all.count, 1, transfer)
      XCTAssertTrue(warnings.all.first?.contains("png output cannot carry it") ?? false, "\(warnings.all)")
      let result = try XCTUnwrap(JSONSerialization.jsonObject(with: script(["check", avif.path, png.path]).stdout) as? [String: Any])
      let psnr = try XCTUnwrap(result["psnr"] as? Double)
      print("HDR \(transfer) AVIF tone-mapped: \(psnr) dB from the reference computation (max error \(result["max_error"] ?? ""))")
      XCTAssertGreaterThanOrEqual(psnr, 40, transfer)

      var sdr = WriteOptions(format: .png)
      sdr.hdr = .sdr
      try renderer.write(image, to: png, options: sdr)
      XCTAssertEqual(warnings.all.count, 1, "--hdr sdr is silent")
    }
  }

  /// A PQ or HLG PNG (cICP chunk, scripts/png-cicp.py) comes out tone-mapped as the definition says
  /// (numpy over imagecodecs' decode of its 16-bit samples, ≥ 40 dB). A PQ PNG of the AVIF test's
  /// pattern (hdr-tonemap-check.py, 96×64, up to 4000 cd/m²) written as JPEG is Ultra HDR (libvips
  /// reads its map) whose rendition (libultrahdr) is ≥ 35 dB from the source's light resized, as the
  /// AVIF's is. (png-cicp.py's 32×16 ramp to 10000 cd/m² is no fair check of that: its saturated
  /// colours reach 81.8 × SDR white in BT.709, above the map's headroom of 49.3 where libultrahdr
  /// clips, and its light grows up to 1.5× per column, where resizing base and map apart is not
  /// resizing their product: 23 dB.)
  func testPQAndHLGPNGsAreToneMappedAndBecomeUltraHDR() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let renderer = Renderer(options: RendererOptions(threads: 2))
    for (transfer, code) in [("pq", "16"), ("hlg", "18")] {
      let source = folder.appendingPathComponent("\(transfer).png"), sdr = folder.appendingPathComponent("\(transfer)-sdr.png")
      let made = try ChildProcess.run("python3", [Self.root.appendingPathComponent("scripts/png-cicp.py").path, source.path, "9", code], in: Self.root)
      XCTAssertEqual(made.status, 0, made.stderr)
      let image = try Image(contentsOf: source)
      XCTAssertTrue(try renderer.explain(image).contains("BT.2446 method A"), transfer)
      var options = WriteOptions(format: .png, options: ["bit-depth": "16"])
      options.hdr = .sdr
      try renderer.write(image, to: sdr, options: options)
      let result = try XCTUnwrap(JSONSerialization.jsonObject(with: script(["check", source.path, sdr.path]).stdout) as? [String: Any])
      let psnr = try XCTUnwrap(result["psnr"] as? Double)
      print("HDR \(transfer) PNG tone-mapped: \(psnr) dB from the reference computation (max error \(result["max_error"] ?? ""))")
      XCTAssertGreaterThanOrEqual(psnr, 40, transfer)
    }
    let source = folder.appendingPathComponent("pattern.png"), jpeg = folder.appendingPathComponent("pattern.jpg")
    _ = try script(["make", "pq", source.path])
    let image = try Image(contentsOf: source).scaled(by: 0.5)
    XCTAssertTrue(try renderer.explain(image).contains("gain map (written as Ultra HDR to JPEG)"))
    try renderer.write(image, to: jpeg, options: WriteOptions(format: .jpeg, options: ["quality": 95]))
    let python = Self.root.appendingPathComponent(".venv-oracles/bin/python").path
    let run = try ChildProcess.run(python, [Self.root.appendingPathComponent("scripts/hdr-check.py").path, source.path, jpeg.path], in: Self.root)
    XCTAssertEqual(run.status, 0, run.stderr)
    let result = try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    let output = try XCTUnwrap(result["output"] as? [String: Any])
    XCTAssertEqual(output["map_width"] as? Int, 48)
    let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
    print("PQ PNG → Ultra HDR: HDR rendition \(psnr) dB from the source's light resized")
    XCTAssertGreaterThanOrEqual(psnr, 35)
  }

  /// A PQ PNG whose content peaks at 1000 cd/m² (the tone-mapping tests' pattern, hdr-tonemap-check.py)
  /// written as Ultra HDR JPEG after scale 0.5 gets the content's headroom: libvips 8.18's uhdrload
  /// (libultrahdr, which reads the ISO 21496-1 block) and the map's XMP (`hdrgm:`) both say
  /// HDRCapacityMax = log2(1000 / 203) and GainMapMax one stop above (HDRGainMap.swift), and
  /// libultrahdr's rendition is ≥ 35 dB from the source's light resized; its SDR base is method A with
  /// L_HDR = 1000 (hdr-tonemap-check.py's computation, ≥ 40 dB). The peak is measured without a cLLi
  /// chunk, declared by one (MaxCLL 1000), measured again when MaxCLL is absurd (0: ignored with a
  /// warning), and a plausible MaxCLL wins over the pixels (600); a mastering display (mDCv, 800)
  /// applies without a MaxCLL, which wins over it; the header says which (`hdrPeakSource`).
  func testUltraHDRHeadroomIsTheContentsPeak() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let cases: [(String, [String], Double, HDRPeakSource)] = [
      ("declared", ["1000"], 1000, .maxCLL), ("absurd", ["0"], 1000, .measured), ("lower", ["600"], 600, .maxCLL),
      ("mastering", ["-", "800"], 800, .masteringDisplay), ("both", ["700", "800"], 700, .maxCLL),
    ]
    for (name, declared, peak, peakSource) in cases {
      let source = folder.appendingPathComponent("\(name).png")
      _ = try script(["make", "pq", source.path, "1000"] + declared)
      let info = try ImageFileInfo(contentsOf: source)
      XCTAssertEqual(info.hdrPeak ?? 0, peak, accuracy: 0.01, name)
      XCTAssertEqual(info.hdrPeakSource, peakSource, name)
      XCTAssertEqual(info.warnings.contains { $0.contains("MaxCLL is 0.0 cd/m²") && $0.contains("measured from the pixels") }, name == "absurd", "\(info.warnings)")
    }
    let source = folder.appendingPathComponent("measured.png"), jpeg = folder.appendingPathComponent("measured.jpg")
    _ = try script(["make", "pq", source.path, "1000"])
    let renderer = Renderer(options: RendererOptions(threads: 2))
    try renderer.write(Image(contentsOf: source).scaled(by: 0.5), to: jpeg, options: WriteOptions(format: .jpeg, options: ["quality": 95]))
    let python = Self.root.appendingPathComponent(".venv-oracles/bin/python").path
    let run = try ChildProcess.run(python, [Self.root.appendingPathComponent("scripts/hdr-check.py").path, source.path, jpeg.path], in: Self.root)
    XCTAssertEqual(run.status, 0, run.stderr)
    let result = try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    let output = try XCTUnwrap(result["output"] as? [String: Any])
    let xmp = try XCTUnwrap(output["xmp"] as? [String: Double])
    XCTAssertEqual(output["gainmap-hdr-capacity-max"] as? Double ?? 0, 1000 / 203, accuracy: 1e-3)
    XCTAssertEqual((output["gainmap-max-content-boost"] as? [Double])?.first ?? 0, 2 * 1000 / 203, accuracy: 1e-3)
    XCTAssertEqual(xmp["HDRCapacityMax"] ?? 0, log2(1000 / 203), accuracy: 1e-4)
    XCTAssertEqual(xmp["GainMapMax"] ?? 0, log2(1000 / 203) + 1, accuracy: 1e-4)
    let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
    print("PQ PNG peaking at 1000 cd/m² → Ultra HDR: HDR rendition \(psnr) dB from the source's light resized")
    XCTAssertGreaterThanOrEqual(psnr, 35)
    let sdr = folder.appendingPathComponent("sdr.png")
    var options = WriteOptions(format: .png, options: ["bit-depth": "16"])
    options.hdr = .sdr
    try renderer.write(Image(contentsOf: source), to: sdr, options: options)
    let tones = try XCTUnwrap(JSONSerialization.jsonObject(with: script(["check", source.path, sdr.path]).stdout) as? [String: Any])
    XCTAssertEqual(tones["peak"] as? Double ?? 0, 1000, accuracy: 0.5)
    XCTAssertGreaterThanOrEqual(tones["psnr"] as? Double ?? 0, 40)
  }

  /// A PQ AVIF written as JPEG (`--hdr keep`) is an Ultra HDR JPEG whose HDR rendition, decoded by
  /// libultrahdr (imagecodecs), is the source's light (libavif's decode through the ST 2084 EOTF,
  /// BT.2020 → BT.709, SDR white at 203 cd/m²) resized, ≥ 35 dB; libvips 8.18's uhdrload reads its
  /// map and metadata.
  func testPQAVIFBecomesUltraHDR() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hdr-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let avif = folder.appendingPathComponent("pq.avif"), jpeg = folder.appendingPathComponent("pq.jpg")
    _ = try script(["make", "pq", avif.path])
    let warnings = Messages()
    let renderer = Renderer(options: RendererOptions(threads: 2)) { warnings.add($0) }
    let image = try Image(contentsOf: avif).scaled(by: 0.5)
    XCTAssertTrue(try renderer.explain(image).contains("gain map (written as Ultra HDR to JPEG)"))
    try renderer.write(image, to: jpeg, options: WriteOptions(format: .jpeg, options: ["quality": 95]))
    XCTAssertEqual(warnings.all, [])
    let python = Self.root.appendingPathComponent(".venv-oracles/bin/python").path
    let run = try ChildProcess.run(python, [Self.root.appendingPathComponent("scripts/hdr-check.py").path, avif.path, jpeg.path], in: Self.root)
    XCTAssertEqual(run.status, 0, run.stderr)
    let result = try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    let output = try XCTUnwrap(result["output"] as? [String: Any])
    XCTAssertEqual(output["map_width"] as? Int, 48)
    // The pattern's peak, 4000 cd/m², measured (no clli box) from libheif's decode of the lossy AVIF.
    XCTAssertEqual(output["gainmap-hdr-capacity-max"] as? Double ?? 0, 4000 / 203, accuracy: 4000 / 203 * 0.03)
    let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
    print("PQ AVIF → Ultra HDR: HDR rendition \(psnr) dB from the source's light resized")
    XCTAssertGreaterThanOrEqual(psnr, 35)
  }
}
