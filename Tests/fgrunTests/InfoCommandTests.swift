// InfoCommandTests.swift — `fgrun info`: header facts, --stats against Pillow + numpy, --json,
// and a bad file among good ones.

import FilterGraph
import Foundation
import XCTest

extension FGRunTests {
  /// The JSON objects `fgrun info --json` printed, one per line.
  private func objects(_ run: Outcome) throws -> [[String: Any]] {
    try run.text.split(separator: "\n").map { line in
      try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
    }
  }

  func testInfoDescribesHeadersAndReportsABadFileLast() throws {
    try copyFixture("colour/rocket-adobergb.jpg", as: "rocket.jpg")
    try write("not an image", to: "bad.png")
    let run = try fgrun(["info", "--json", "in.png", "bad.png", "rocket.jpg", "deep.png"])
    XCTAssertEqual(run.status, 65, run.stderr)
    let all = try objects(run)
    XCTAssertEqual(all.count, 4)
    XCTAssertEqual(all[0]["format"] as? String, "png")
    XCTAssertEqual(all[0]["width"] as? Int, 32)
    XCTAssertEqual(all[0]["depth"] as? Int, 8)
    XCTAssertEqual(all[0]["channels"] as? Int, 3)
    XCTAssertTrue(all[0]["profile"] is NSNull)
    XCTAssertEqual(all[0]["pages"] as? Int, 1)
    XCTAssertEqual(all[1]["file"] as? String, "bad.png")
    XCTAssertNotNil(all[1]["error"] as? String)
    XCTAssertEqual(all[2]["format"] as? String, "jpeg")
    XCTAssertTrue((all[2]["profile"] as? String ?? "").contains("Adobe RGB"), "\(all[2])")
    XCTAssertEqual((all[2]["metadata"] as? [String])?.first, "ICC profile")
    XCTAssertEqual(all[3]["depth"] as? Int, 16)
    // An EXIF orientation that turns the picture: the stored and upright sizes differ.
    try copyFixture("metadata/orient-6.jpg", as: "turned.jpg")
    let turned = try objects(try fgrun(["info", "--json", "turned.jpg"]))[0]
    XCTAssertEqual(turned["orientation"] as? Int, 6)
    XCTAssertEqual(turned["width"] as? Int, turned["stored_height"] as? Int)
    XCTAssertEqual(turned["height"] as? Int, turned["stored_width"] as? Int)
    XCTAssertNotEqual(turned["width"] as? Int, turned["height"] as? Int)
    XCTAssertTrue((turned["metadata"] as? [String] ?? []).contains("EXIF"), "\(turned)")
    // A CMYK JPEG names the profile its decoder converts through; a profile split over APP2
    // segments that do not fit together is a warning.
    try copyFixture("colour/cmyk-intents.jpg", as: "cmyk.jpg")
    XCTAssertEqual(
      try objects(try fgrun(["info", "--json", "cmyk.jpg"]))[0]["profile"] as? String,
      "FilterGraph test CMYK (CMYK, converted to sRGB when decoded)")
    var broken = try Data(contentsOf: file("rocket.jpg"))
    broken[try XCTUnwrap(broken.range(of: Data("ICC_PROFILE".utf8))).upperBound + 2] = 2
    try broken.write(to: file("broken.jpg"))
    let warned = try fgrun(["info", "broken.jpg"])
    XCTAssertEqual(warned.status, 0, warned.stderr)
    XCTAssertTrue(warned.text.contains("  profile      none (sRGB assumed)\n"), warned.text)
    XCTAssertTrue(warned.text.contains("  warnings     Its ICC profile is split over APP2 segments that do not fit together (segment 2 of 2 is missing)"), warned.text)
    XCTAssertEqual(try objects(try fgrun(["info", "--json", "rocket.jpg"]))[0]["warnings"] as? [String], [])
    let text = try fgrun(["info", "in.png", "bad.png"])
    XCTAssertEqual(text.status, 65)
    XCTAssertTrue(text.text.contains("  format       png\n  size         32x32\n  depth        8-bit\n  channels     3 (rgb)"), text.text)
    XCTAssertTrue(text.stderr.contains("bad.png"), text.stderr)
  }

  func testInfoStatisticsMatchPillowAndNumpy() throws {
    let python = "/usr/bin/python3"
    guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("no python3") }
    // Pillow reads 16-bit gray as it is stored (16-bit RGB it would reduce to 8 bits).
    try copyFixture("pngsuite/basn0g16.png", as: "gray16.png")
    let files = ["in.png", "gray16.png"]
    let run = try fgrun(["info", "--json", "--stats"] + files.map { file($0).path })
    XCTAssertEqual(run.status, 0, run.stderr)
    let all = try objects(run)
    // Per channel: min max mean population-deviation, from Pillow's decode and numpy. Both files
    // carry only gAMA 1.0 (linear light, PNG specification), which FilterGraph reads on every path
    // (LinearPNGSourceTests) and Pillow ignores: the reference puts Pillow's codes through the
    // sRGB curve (IEC 61966-2-1) as every render writes them.
    let script = """
      import sys, json
      try:
          import numpy, PIL.Image
      except ImportError:
          sys.exit(77)
      for path in sys.argv[1:]:
          im = PIL.Image.open(path)
          a = numpy.asarray(im).astype(numpy.float64)
          if a.ndim == 2:
              a = a[:, :, None]
          if abs(im.info.get("gamma", 0.45455) - 1) < 0.01:
              top = 65535.0 if im.mode.startswith("I") else 255.0
              v = a / top
              a = top * numpy.where(v <= 0.0031308, 12.92 * v, 1.055 * numpy.power(v, 1 / 2.4) - 0.055)
          print(json.dumps([[float(a[..., c].min()), float(a[..., c].max()), float(a[..., c].mean()), float(a[..., c].std())] for c in range(a.shape[2])]))
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["-c", script] + files.map { file($0).path }
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    if process.terminationStatus == 77 { throw XCTSkip("Pillow or numpy missing") }
    XCTAssertEqual(process.terminationStatus, 0)
    let expected = try String(decoding: output, as: UTF8.self).split(separator: "\n").map {
      try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [[Double]])
    }
    XCTAssertEqual(expected.count, files.count)
    for (i, name) in files.enumerated() {
      let stats = try XCTUnwrap(all[i]["statistics"] as? [String: Any], name)
      let channels = try XCTUnwrap(stats["channels"] as? [[String: Any]])
      XCTAssertEqual(channels.count, expected[i].count, name)
      let scale = try XCTUnwrap(stats["scale"] as? Double)
      for (c, reference) in zip(channels, expected[i]) {
        let got = ["min", "max", "mean", "deviation"].map { c[$0] as? Double ?? .nan }
        for k in 0..<4 {
          XCTAssertEqual(got[k], reference[k], accuracy: scale * 2e-5, "\(name) \(c["name"] ?? "") \(["min", "max", "mean", "deviation"][k])")
        }
      }
      XCTAssertNotNil(stats["dominant"] as? String)
    }
  }
}
