// AnimationTests.swift — the server keeps animations: an animated GIF resized over a real
// loopback request comes back as an animated GIF (its own format, every frame and delay) or WebP
// (named by the URL, every frame), as Pillow reads the response, and no Render-Warning.

import Foundation
import TestSupport
import XCTest

@testable import ImageServer

final class AnimationTests: XCTestCase {
  func testAnAnimatedGIFIsServedWithEveryFrame() async throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 not installed") }
    let folder = try ServedFolder()
    try Fixtures.data("animation/disposal.gif").write(to: folder.url("anim.gif"))
    let running = try await RunningServer.start(root: folder.root)
    let cases = [("", "image/gif", #"["GIF", 5, [12, 8], [100, 50, 0, 200, 70]]"#), ("@webp", "image/webp", #"["WEBP", 5, [12, 8], null]"#)]
    for (suffix, type, expected) in cases {
      let response = try await running.get("/_/w:12/plain/local:///anim.gif\(suffix)")
      XCTAssertEqual(response.status, 200, response.text)
      XCTAssertEqual(response.headers["content-type"], type)
      XCTAssertNil(response.headers["render-warning"])
      try response.body.write(to: folder.url("out"))
      let script = """
        import json
        from PIL import Image, ImageSequence
        im = Image.open("out")
        # Pillow gives a GIF frame's duration; a WebP frame's it does not.
        durations = [int(f.info.get("duration", 0)) for f in ImageSequence.Iterator(im)] if im.format == "GIF" else None
        print(json.dumps([im.format, im.n_frames, list(im.size), durations]))
        """
      let read = try ChildProcess.run("/usr/bin/python3", ["-c", script], in: folder.root)
      if read.stderr.contains("No module named 'PIL'") { throw XCTSkip("Pillow not installed") }
      XCTAssertEqual(read.status, 0, read.stderr)
      XCTAssertEqual(read.text.trimmingCharacters(in: .whitespacesAndNewlines), expected)
    }
    try await running.stop()
  }
}
