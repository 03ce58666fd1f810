// GainMapCommandTests.swift — fgrun with Ultra HDR files: `info` describes the gain map, a resize
// writes Ultra HDR again, a PNG output or a filter the map cannot follow warns on standard error,
// `--hdr sdr` writes SDR without a word.

import Foundation
import XCTest

extension FGRunTests {
  func testGainMapInfoAndHDROption() throws {
    try copyFixture("uhdr/vips.jpg", as: "hdr.jpg")
    let info = try fgrun(["info", "hdr.jpg"])
    XCTAssertEqual(info.status, 0, info.stderr)
    XCTAssertTrue(
      info.text.contains("  gain map     48x32 gray, boost 1…49.26 (log2 0…5.622), gamma 1, headroom 49.26 (log2 0…5.622), from ISO 21496-1"),
      info.text)
    let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: try fgrun(["info", "--json", "hdr.jpg"]).stdout) as? [String: Any])
    let map = try XCTUnwrap(json["gain_map"] as? [String: Any])
    XCTAssertEqual(map["width"] as? Int, 48)
    XCTAssertEqual(map["hdr_capacity_max"] as? Double ?? 0, 5.6224, accuracy: 1e-4)

    let explained = try fgrun(["explain", "-e", "rotate 90\nscale 0.5", "hdr.jpg"])
    XCTAssertTrue(explained.text.contains("gain map (written as Ultra HDR to JPEG):\n#1 scale size=16x24"), explained.text)
    let edges = try fgrun(["explain", "-e", "convolve preset=edges", "hdr.jpg"]).text
    XCTAssertTrue(
      edges.contains("gain map: not written (convolve preset=edges draws where the picture changes, not the scene's light, so it has no HDR rendition)"),
      edges)
    let inverted = try fgrun(["explain", "-e", "invert", "hdr.jpg"]).text
    XCTAssertTrue(inverted.contains("gain map (written as Ultra HDR to JPEG):\n#1 gain map from renditions"), inverted)

    let half = try fgrun(["-e", "scale 0.5", "hdr.jpg", "half.jpg"])
    XCTAssertEqual(half.status, 0, half.stderr)
    XCTAssertEqual(half.stderr, "")
    XCTAssertTrue(try fgrun(["info", "half.jpg"]).text.contains("  gain map     24x16 gray"))

    let png = try fgrun(["-e", "scale 0.5", "hdr.jpg", "half.png"])
    XCTAssertEqual(png.status, 0, png.stderr)
    XCTAssertTrue(png.stderr.contains("the gain map (HDR) is not written: png output cannot carry it"), png.stderr)
    let convolved = try fgrun(["-e", "convolve preset=edges", "hdr.jpg", "convolved.jpg"])
    XCTAssertTrue(
      convolved.stderr.contains(
        "the gain map (HDR) is not written: convolve preset=edges draws where the picture changes, not the scene's light, so it has no HDR rendition; the output is SDR only"),
      convolved.stderr)
    XCTAssertFalse(try fgrun(["info", "convolved.jpg"]).text.contains("gain map"))

    let sdr = try fgrun(["-e", "scale 0.5", "--hdr", "sdr", "hdr.jpg", "sdr.jpg"])
    XCTAssertEqual(sdr.status, 0, sdr.stderr)
    XCTAssertEqual(sdr.stderr, "")
    XCTAssertFalse(try fgrun(["info", "sdr.jpg"]).text.contains("gain map"))
    let notTIFF = try fgrun(["-e", "scale 0.5", "--hdr", "hdr", "hdr.jpg", "x.jpg"])
    XCTAssertNotEqual(notTIFF.status, 0)
    XCTAssertTrue(notTIFF.stderr.contains("--hdr hdr writes a float TIFF"), notTIFF.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("x.jpg").path))
    let float = try fgrun(["-e", "scale 0.5", "--hdr", "hdr", "hdr.jpg", "hdr.tif"])
    XCTAssertEqual(float.status, 0, float.stderr)
    XCTAssertTrue(try fgrun(["info", "hdr.tif"]).text.contains("  depth        32-bit float"))
    // --hdr-transfer chooses --hdr hdr's transfer: alone it is a usage error, and a float TIFF
    // (linear light) has none to choose.
    let alone = try fgrun(["-e", "scale 0.5", "--hdr-transfer", "hlg", "hdr.jpg", "alone.jpg"])
    XCTAssertEqual(alone.status, 64, alone.stderr)
    XCTAssertTrue(alone.stderr.contains("give --hdr hdr with it"), alone.stderr)
    let linear = try fgrun(["-e", "scale 0.5", "--hdr", "hdr", "--hdr-transfer", "hlg", "hdr.jpg", "hlg.tif"])
    XCTAssertNotEqual(linear.status, 0)
    XCTAssertTrue(linear.stderr.contains("a float TIFF holds linear light"), linear.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("alone.jpg").path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("hlg.tif").path))
  }
}
