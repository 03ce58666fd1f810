// AnimationCommandTests.swift — fgrun with animated inputs: `info` gives frames, canvas,
// delays and loop count for GIF and WebP alike; --page picks a frame; frame 1 written as a
// still warns once; --max-frames refuses long animations.

import FilterGraph
import Foundation
import XCTest

extension FGRunTests {
  func testInfoDescribesAnimationsAlike() throws {
    try copyFixture("animation/disposal.gif", as: "anim.gif")
    try copyFixture("animation/blend.webp", as: "anim.webp")
    let run = try fgrun(["info", "--json", "anim.gif", "anim.webp"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let objects = try run.text.split(separator: "\n").map {
      try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    let gif = try XCTUnwrap(objects[0]["animation"] as? [String: Any]), webp = try XCTUnwrap(objects[1]["animation"] as? [String: Any])
    XCTAssertEqual(objects[0]["pages"] as? Int, 5)
    XCTAssertEqual(gif["frames"] as? Int, 5)
    XCTAssertEqual(gif["delays"] as? [Int], [100, 50, 0, 200, 70])
    XCTAssertEqual(gif["loop"] as? Int, 4)
    XCTAssertEqual(gif["canvas_width"] as? Int, 24)
    XCTAssertEqual(objects[1]["pages"] as? Int, 4)
    XCTAssertEqual(webp["frames"] as? Int, 4)
    XCTAssertEqual(webp["delays"] as? [Int], [100, 50, 70, 30])
    XCTAssertEqual(webp["loop"] as? Int, 2)
    let text = try fgrun(["info", "anim.gif"])
    XCTAssertTrue(text.text.contains("  frames       5 on a 24x16 canvas, 420 ms in all\n  delays       100, 50, 0, 200, 70 ms\n  plays        4 times"), text.text)
    let still = try fgrun(["info", "--json", "in.png"])
    XCTAssertFalse(still.text.contains("animation"), still.text)
  }

  /// `--page 1` of a WebP (which `info` counts as frames) and of a GIF give that frame, silently;
  /// without --page, frame 1 is written with one warning; --max-frames refuses.
  func testPagesOfAnimationsAndTheStillWarning() throws {
    try copyFixture("animation/disposal.gif", as: "anim.gif")
    try copyFixture("animation/blend.webp", as: "anim.webp")
    for name in ["anim.gif", "anim.webp"] {
      let page = try fgrun(["-e", "orient", "--page", "1", name, "page1.png"])
      XCTAssertEqual(page.status, 0, page.stderr)
      XCTAssertFalse(page.stderr.contains("warning"), page.stderr)
      let still = try fgrun(["-e", "orient", name, "still.png"])
      XCTAssertEqual(still.status, 0, still.stderr)
      XCTAssertEqual(still.stderr.components(separatedBy: "only frame 1 is read").count, 2, still.stderr)
      let refused = try fgrun(["-e", "orient", "--max-frames", "3", name, "refused.png"])
      XCTAssertNotEqual(refused.status, 0)
      XCTAssertTrue(refused.stderr.contains("--max-frames"), refused.stderr)
    }
  }
}
