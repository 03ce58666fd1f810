// ToolFixtureTests.swift — animations written by the tools that make most of them on the web
// (gifsicle, ImageMagick, img2webp, apngasm, Pillow; Fixtures/animation/make_tool_fixtures.sh), each
// choosing its own disposal, blending, offsets and palettes, read frame by frame against two
// independent decoders: libvips (`[n=-1]`) and Pillow (`ImageSequence`) for GIF and WebP;
// Pillow and apngdis (a second APNG decoder, which writes each composed frame as a PNG) for
// APNG, whose frames libvips does not read.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class ToolFixtureTests: XCTestCase {
  private let gifs = ["animation/tool-gifsicle.gif", "animation/tool-gifsicle-O3.gif", "animation/tool-magick.gif", "animation/tool-magick-opt.gif"]

  /// Every frame of every GIF and of the WebP equals libvips's, and their delays and loop counts.
  func testFramesEqualLibvips() throws {
    for path in gifs + ["animation/tool-img2webp.webp"] {
      let ours = try AnimationReferences.ourFrames(path)
      XCTAssertEqual(ours.frames.count, 5, path)
      let theirs = try AnimationReferences.libvips(path, frameHeight: ours.info.canvasSize.height)
      XCTAssertEqual(ours.frames.count, theirs.count, path)
      for (i, (a, b)) in zip(ours.frames, theirs).enumerated() {
        CodecTest.assertSame(a, b, ignoringHiddenColor: true, "\(path) frame \(i + 1)")
      }
      let timing = try AnimationReferences.libvipsTiming(path)
      XCTAssertEqual(ours.info.delays, timing.delays, path)
      XCTAssertEqual(ours.info.loopCount, timing.loop, path)
    }
  }

  /// The frames equal Pillow's, except where Pillow 9 departs from browsers and libvips: after
  /// a frame disposed "to background" whose next frame has no transparent colour, it fills the
  /// rectangle with the opaque background colour instead of clearing it (gifsicle's and
  /// ImageMagick's placed frames, frames 3–5).
  func testFramesEqualPillow() throws {
    let compared = [
      "animation/tool-gifsicle.gif": 0..<2, "animation/tool-gifsicle-O3.gif": 0..<5, "animation/tool-magick.gif": 0..<2,
      "animation/tool-magick-opt.gif": 0..<5, "animation/tool-img2webp.webp": 0..<5,
    ]
    for (path, frames) in compared.sorted(by: { $0.key < $1.key }) {
      let ours = try AnimationReferences.ourFrames(path).frames, theirs = try AnimationReferences.pillow(path)
      XCTAssertEqual(ours.count, theirs.count, path)
      for i in frames { CodecTest.assertSame(ours[i], theirs[i], ignoringHiddenColor: true, "\(path) frame \(i + 1)") }
    }
  }

  /// Every frame of apngasm's and Pillow's APNGs (Pillow's with every dispose and blend op), and
  /// of the project's own APNG fixtures (every blend and dispose op, a default image that is not a
  /// frame, Pillow's writer), equals apngdis's, and apngasm's and Pillow's equal Pillow's reading
  /// (but for Pillow's reading of translucent pixels laid over transparent ones).
  func testAPNGFramesEqualApngdisAndPillow() throws {
    // hidden.png's default image is not a frame; apngdis, like Pillow, lists it as the first.
    for (path, hiddenDefault) in [
      ("animation/tool-apngasm.png", false), ("animation/tool-pillow.png", false), ("animation/ops.png", false),
      ("animation/hidden.png", true), ("animation/pillow.png", false),
    ] {
      let ours = try AnimationReferences.ourFrames(path).frames, theirs = Array(try apngdis(path).dropFirst(hiddenDefault ? 1 : 0))
      XCTAssertEqual(ours.count, theirs.count, path)
      for (i, (a, b)) in zip(ours, theirs).enumerated() {
        CodecTest.assertSame(a, b, ignoringHiddenColor: true, "\(path) frame \(i + 1) (apngdis)")
      }
    }
    let ours = try AnimationReferences.ourFrames("animation/tool-apngasm.png")
    let pillow = try AnimationReferences.pillow("animation/tool-apngasm.png")
    XCTAssertEqual(ours.frames, pillow)
    XCTAssertEqual(ours.info.delays, [100, 100, 100, 100, 100])
    XCTAssertEqual(ours.info.loopCount, 2)
    let pillowWritten = try AnimationReferences.ourFrames("animation/tool-pillow.png")
    let pillowRead = try AnimationReferences.pillow("animation/tool-pillow.png")
    XCTAssertEqual(pillowWritten.frames.count, 5)
    XCTAssertEqual(pillowWritten.frames.count, pillowRead.count)
    // Frame 4 lays translucent pixels OVER transparent ones, where Pillow's reader pastes with the
    // alpha as the mask and so scales their colour (255 at α 128 reads 127); apngdis, browsers and
    // the APNG formula keep it (checked above).
    for i in [0, 1, 2, 4] {
      CodecTest.assertSame(pillowWritten.frames[i], pillowRead[i], ignoringHiddenColor: true, "tool-pillow.png frame \(i + 1) (Pillow)")
    }
    XCTAssertEqual(pillowWritten.info.delays, [100, 50, 10, 200, 70])
    XCTAssertEqual(pillowWritten.info.loopCount, 2)
  }

  /// apngdis's frames of the fixture at `path` (`apngdis FILE f`: f1.png, f2.png… each the
  /// composed canvas), as 8-bit RGBA samples read by the project's PNG decoder.
  private func apngdis(_ path: String) throws -> [[UInt8]] {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/apngdis") else { throw XCTSkip("apngdis not installed") }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apngdis-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.copyItem(at: Fixtures.url(path), to: folder.appendingPathComponent("in.png"))
    let run = try ChildProcess.run("/usr/bin/apngdis", ["in.png", "f"], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("f") && $0.hasSuffix(".png") }
    return try names.sorted { Int($0.dropFirst().dropLast(4)) ?? 0 < Int($1.dropFirst().dropLast(4)) ?? 0 }.map { name in
      let frame = try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent(name)))
      XCTAssertEqual(frame.format, .rgba8, name)
      return CodecTest.samples(frame)
    }
  }
}
