// ColourOptionTests.swift — fgrun's --profile, --intent, --bpc, explain and --stats for colour.
import Foundation
import ImageCodecs
import TestSupport
import XCTest

extension FGRunTests {
  func testColourProfileOptions() throws {
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
}
