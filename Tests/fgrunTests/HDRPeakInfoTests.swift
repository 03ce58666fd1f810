// HDRPeakInfoTests.swift — `fgrun info` says whether an HDR file's content peak was declared (MaxCLL,
// mastering display) or measured from its pixels, in the HDR line and as `hdr_peak_source` in --json.

import Foundation
import XCTest

extension FGRunTests {
  /// A PQ PNG written by `--hdr hdr` declares MaxCLL (cLLi) and its mastering display (mDCv); the same
  /// file without cLLi takes the mastering display's maximum, and without either the peak is measured.
  func testInfoSaysWhereTheHDRPeakCameFrom() throws {
    try copyFixture("uhdr/vips.jpg", as: "hdr.jpg")
    let written = try fgrun(["--hdr", "hdr", "-e", "scale 0.5", "hdr.jpg", "maxcll.png"])
    XCTAssertEqual(written.status, 0, written.stderr)
    let png = try Data(contentsOf: file("maxcll.png"))
    try Self.removingChunks(["cLLi"], from: png).write(to: file("mastering.png"))
    try Self.removingChunks(["cLLi", "mDCv"], from: png).write(to: file("measured.png"))
    let files = ["maxcll.png", "mastering.png", "measured.png"]

    let json = try fgrun(["info", "--json"] + files)
    XCTAssertEqual(json.status, 0, json.stderr)
    let objects = try json.text.split(separator: "\n").map {
      try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    XCTAssertEqual(objects.map { $0["hdr_peak_source"] as? String }, ["max-cll", "mastering-display", "measured"])
    XCTAssertEqual(objects.map { $0["hdr_transfer"] as? String }, ["pq", "pq", "pq"])

    let text = try fgrun(["info"] + files).text
    let lines = text.split(separator: "\n").filter { $0.hasPrefix("  HDR ") }
    XCTAssertEqual(lines.count, 3, text)
    for (line, phrase) in zip(lines, ["the peak declared by its MaxCLL", "the peak declared by its mastering display", "the peak measured from the pixels"]) {
      XCTAssertTrue(line.hasSuffix(phrase), String(line))
    }
  }

  /// `png` without its chunks of the given types (whole chunks: length, type, data, CRC).
  static func removingChunks(_ types: Set<String>, from png: Data) -> Data {
    let bytes = [UInt8](png)
    var out = Array(bytes[0..<8])
    var at = 8
    while at + 12 <= bytes.count {
      let length = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
      let end = min(at + 12 + length, bytes.count)
      if !types.contains(String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)) { out += bytes[at..<end] }
      at = end
    }
    return Data(out)
  }
}
