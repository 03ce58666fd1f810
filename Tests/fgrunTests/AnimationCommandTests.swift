// AnimationCommandTests.swift — fgrun with animated inputs: `info` gives frames, canvas,
// delays and loop count for GIF and WebP alike; --page picks a frame; frame 1 written as a
// still warns once; --max-frames refuses long animations; --frames and --speed as typed.

import FilterGraph
import Foundation
import ImageCodecs
import TestSupport
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
  /// without --page, frame 1 is written to a still-only format (JPEG) with one warning;
  /// --max-frames refuses.
  func testPagesOfAnimationsAndTheStillWarning() throws {
    try copyFixture("animation/disposal.gif", as: "anim.gif")
    try copyFixture("animation/blend.webp", as: "anim.webp")
    for name in ["anim.gif", "anim.webp"] {
      let page = try fgrun(["-e", "orient", "--page", "1", name, "page1.png"])
      XCTAssertEqual(page.status, 0, page.stderr)
      XCTAssertFalse(page.stderr.contains("warning"), page.stderr)
      let still = try fgrun(["-e", "orient", name, "still.jpg"])
      XCTAssertEqual(still.status, 0, still.stderr)
      XCTAssertEqual(still.stderr.components(separatedBy: "only frame 1 is read").count, 2, still.stderr)
      let refused = try fgrun(["-e", "orient", "--max-frames", "3", name, "refused.png"])
      XCTAssertNotEqual(refused.status, 0)
      XCTAssertTrue(refused.stderr.contains("--max-frames"), refused.stderr)
    }
  }

  /// --frames and --speed as typed: frames 2-4 at half speed are 3 frames with twice the delays,
  /// `4-` runs to the last frame, a backwards range is a usage error, and on a
  /// still input the flags warn that they do nothing. (The GIF writer's delays are checked
  /// against Pillow and libvips elsewhere; here they are read back by the GIF reader.)
  func testFramesAndSpeedFlags() throws {
    try copyFixture("animation/disposal.gif", as: "anim.gif")
    let slow = try fgrun(["-e", "scale width=12", "--frames", "2-4", "--speed", "0.5", "anim.gif", "slow.gif"])
    XCTAssertEqual(slow.status, 0, slow.stderr)
    XCTAssertEqual(try GIFCodec.readAnimation(Data(contentsOf: file("slow.gif")), limits: .default).delays, [100, 0, 400])
    let tail = try fgrun(["-e", "scale width=12", "--frames", "4-", "anim.gif", "tail.gif"])
    XCTAssertEqual(tail.status, 0, tail.stderr)
    XCTAssertEqual(try GIFCodec.readAnimation(Data(contentsOf: file("tail.gif")), limits: .default).delays, [200, 70])
    let backwards = try fgrun(["-e", "orient", "--frames", "3-2", "anim.gif", "no.gif"])
    XCTAssertEqual(backwards.status, 64, backwards.stderr)
    XCTAssertTrue(backwards.stderr.contains("--frames takes N-M, N- or N with 1 ≤ N ≤ M"), backwards.stderr)
    XCTAssertFalse(exists("no.gif"))
    let still = try fgrun(["-e", "orient", "--frames", "2-4", "in.png", "still.png"])
    XCTAssertEqual(still.status, 0, still.stderr)
    XCTAssertTrue(still.stderr.contains("in.png is read as one still image; --frames, --fps and --speed do nothing."), still.stderr)
  }

  /// An animated GIF written to lossless WebP keeps every frame, delay and loop count: libvips's
  /// decode of the output equals each frame written alone with --frame N (lossless: exact where
  /// visible), and `vipsheader` reads the GIF's delays and loop count back. `explain` shows the loop.
  func testAnimatedGIFToAnimatedWebP() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/vips") else { throw XCTSkip("libvips tools not installed") }
    try copyFixture("animation/disposal.gif", as: "anim.gif")
    let run = try fgrun(["-e", "scale width=48; sharpen", "--lossless", "anim.gif", "out.webp"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertFalse(run.stderr.contains("warning"), run.stderr)
    let strip = try ChildProcess.run("vips", ["copy", file("out.webp").path + "[n=-1]", file("strip.png").path], in: folder)
    XCTAssertEqual(strip.status, 0, strip.stderr)
    let renderer = Renderer()
    let frames = try renderer.render(try Image(contentsOf: file("strip.png")), format: .rgba8)
    XCTAssertEqual(frames.size, Size(width: 48, height: 32 * 5))
    for k in 1...5 {
      let alone = try fgrun(["-e", "scale width=48; sharpen", "--frame", "\(k)", "anim.gif", "frame\(k).png"])
      XCTAssertEqual(alone.status, 0, alone.stderr)
      XCTAssertFalse(alone.stderr.contains("warning"), alone.stderr)
      let expected = try renderer.render(try Image(contentsOf: file("frame\(k).png")), format: .rgba8)
      let got = frames.cropped(to: Rect(x: 0, y: 32 * (k - 1), width: 48, height: 32))
      let a = rgba(got), b = rgba(expected)
      XCTAssertEqual(a.count, b.count)
      var differing = 0
      for i in stride(from: 0, to: min(a.count, b.count), by: 4) {
        let hidden = a[i + 3] == 0 && b[i + 3] == 0
        if !hidden && Array(a[i..<i + 4]) != Array(b[i..<i + 4]) { differing += 1 }
      }
      XCTAssertEqual(differing, 0, "frame \(k)")
    }
    func field(_ name: String) throws -> String {
      try ChildProcess.run("vipsheader", ["-f", name, file("out.webp").path], in: folder).text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    XCTAssertEqual(try field("delay"), "100 50 0 200 70")
    XCTAssertEqual(try field("loop"), "4")
    XCTAssertEqual(try field("n-pages"), "5")
    let explain = try fgrun(["explain", "-e", "trim", "anim.gif"])
    XCTAssertTrue(explain.text.contains("frame loop: 5 frames on a 24x16 canvas"), explain.text)
  }

  /// An animated WebP written to PNG becomes an APNG: Pillow's APNG reader gives every frame
  /// exactly as Pillow reads that frame rendered alone with --frame N, and the delays and loop count.
  func testAnimationWrittenToAPNG() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 not installed") }
    try copyFixture("animation/blend.webp", as: "anim.webp")
    let run = try fgrun(["-e", "scale width=48; sharpen", "anim.webp", "out.png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertFalse(run.stderr.contains("warning"), run.stderr)
    for k in 1...4 {
      let alone = try fgrun(["-e", "scale width=48; sharpen", "--frame", "\(k)", "anim.webp", "frame\(k).png"])
      XCTAssertEqual(alone.status, 0, alone.stderr)
    }
    // Per frame: the samples that differ from frame k's still.
    let script = """
      import json
      from PIL import Image, ImageSequence
      im = Image.open("out.png"); durations = []; differing = []
      for k, f in enumerate(ImageSequence.Iterator(im)):
          a = f.convert("RGBA").tobytes(); b = Image.open(f"frame{k + 1}.png").convert("RGBA").tobytes()
          differing.append(sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))); durations.append(f.info.get("duration"))
      print(json.dumps([im.format, im.n_frames, im.info.get("loop"), durations, differing]))
      """
    let read = try ChildProcess.run("/usr/bin/python3", ["-c", script], in: folder)
    XCTAssertEqual(read.status, 0, read.stderr)
    XCTAssertEqual(read.text.trimmingCharacters(in: .whitespacesAndNewlines), #"["PNG", 4, 2, [100.0, 50.0, 70.0, 30.0], [0, 0, 0, 0]]"#)
  }

  /// Animated GIF and WebP written to GIF keep every frame, delay and loop count: libvips's
  /// decode of the output is within 30 dB (PSNR of the visible pixels) of each frame rendered
  /// alone with --frame N to PNG, and transparent exactly where that frame is (alpha < 128).
  /// A still input gives a one-frame GIF without a loop extension.
  func testAnimationsWrittenToGIF() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/vips") else { throw XCTSkip("libvips tools not installed") }
    try copyFixture("animation/disposal.gif", as: "anim.gif")
    try copyFixture("animation/blend.webp", as: "anim.webp")
    let renderer = Renderer()
    for (name, frames, delays, loop) in [("anim.gif", 5, "100 50 0 200 70", "4"), ("anim.webp", 4, "100 50 70 30", "2")] {
      let run = try fgrun(["-e", "scale width=48; sharpen", name, "out.gif"])
      XCTAssertEqual(run.status, 0, run.stderr)
      XCTAssertFalse(run.stderr.contains("warning"), run.stderr)
      let strip = try ChildProcess.run("vips", ["copy", file("out.gif").path + "[n=-1]", file("strip.png").path], in: folder)
      XCTAssertEqual(strip.status, 0, strip.stderr)
      let decoded = try renderer.render(try Image(contentsOf: file("strip.png")), format: .rgba8)
      let height = decoded.height / frames
      XCTAssertEqual(decoded.height, height * frames, name)
      for k in 1...frames {
        let alone = try fgrun(["-e", "scale width=48; sharpen", "--frame", "\(k)", name, "frame\(k).png"])
        XCTAssertEqual(alone.status, 0, alone.stderr)
        let expected = rgba(try renderer.render(try Image(contentsOf: file("frame\(k).png")), format: .rgba8))
        let got = rgba(decoded.cropped(to: Rect(x: 0, y: height * (k - 1), width: 48, height: height)))
        XCTAssertEqual(got.count, expected.count, name)
        var squares = 0.0, samples = 0, alphaWrong = 0
        for i in stride(from: 0, to: min(got.count, expected.count), by: 4) {
          if (expected[i + 3] >= 128) != (got[i + 3] == 255) { alphaWrong += 1 }
          guard expected[i + 3] >= 128 else { continue }
          for c in 0..<3 { squares += pow(Double(got[i + c]) - Double(expected[i + c]), 2) }
          samples += 3
        }
        let psnr = squares == 0 ? Double.infinity : 10 * log10(255 * 255 / (squares / Double(max(1, samples))))
        XCTAssertEqual(alphaWrong, 0, "\(name) frame \(k)")
        XCTAssertGreaterThan(psnr, 30, "\(name) frame \(k)")
      }
      func field(_ field: String) throws -> String {
        try ChildProcess.run("vipsheader", ["-f", field, file("out.gif").path], in: folder).text.trimmingCharacters(in: .whitespacesAndNewlines)
      }
      XCTAssertEqual(try field("delay"), delays, name)
      XCTAssertEqual(try field("loop"), loop, name)
    }
    let still = try fgrun(["-e", "scale width=40", "in.png", "still.gif"])
    XCTAssertEqual(still.status, 0, still.stderr)
    let pages = try ChildProcess.run("vipsheader", ["-f", "n-pages", file("still.gif").path], in: folder)
    XCTAssertEqual(pages.text.trimmingCharacters(in: .whitespacesAndNewlines), "1")
    XCTAssertFalse(try Data(contentsOf: file("still.gif")).range(of: Data("NETSCAPE2.0".utf8)) != nil, "a still has no loop extension")
  }

  /// An RGBA8 buffer's samples, row by row.
  private func rgba(_ buffer: PixelBuffer) -> [UInt8] {
    buffer.withUnsafeBaseAddress { base, rowBytes in
      (0..<buffer.height).flatMap { y in
        Array(UnsafeBufferPointer(start: (base + y * rowBytes).assumingMemoryBound(to: UInt8.self), count: buffer.width * 4))
      }
    }
  }
}
