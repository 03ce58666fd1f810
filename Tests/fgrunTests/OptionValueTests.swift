// OptionValueTests.swift — fgrun's typed option values: a bad one is a usage error naming what is accepted.

import Foundation
import XCTest

extension FGRunTests {
  /// --intent, --format, --keep, --shard and --profile are parsed into their types; a bad value
  /// fails with status 64 before any input is read, and the message lists or names what is valid.
  func testBadOptionValuesListWhatIsAccepted() throws {
    let cases: [(flags: [String], expected: [String])] = [
      (["--intent", "vivid"], ["vivid", "perceptual", "relative", "saturation", "absolute"]),
      (["--format", "bmp"], ["bmp", "jpeg", "png", "webp", "tiff"]),
      (["--keep", "gps"], ["gps", "exif", "xmp", "iptc", "icc", "comment"]),
      (["--shard", "4/3"], ["4/3", "K/N with 1 ≤ K ≤ N"]),
      (["--profile", "nowhere.icc"], ["nowhere.icc"]),
    ]
    for (flags, expected) in cases {
      let run = try fgrun(["-e", "flip", "missing.png", "out.png"] + flags)
      XCTAssertEqual(run.status, 64, "\(flags): \(run.stderr)")
      for word in expected { XCTAssertTrue(run.stderr.contains(word), "\(flags): '\(word)' missing from: \(run.stderr)") }
      XCTAssertFalse(run.stderr.contains("missing.png"), "\(flags): the input was looked at before the options were checked")
    }
    let explain = try fgrun(["explain", "-e", "flip", "--format", "bmp"])
    XCTAssertEqual(explain.status, 64, explain.stderr)
    XCTAssertTrue(explain.stderr.contains("jpeg"), explain.stderr)
  }
}
