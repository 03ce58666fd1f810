// AnimationDecodeTests.swift — GIF and animated WebP frames, composed as browsers show them,
// frame by frame against libvips and Pillow; delays and loop counts against libvips; pages.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class AnimationDecodeTests: XCTestCase {
  /// Every disposal method (none, background, previous), transparency, a local colour table, an
  /// interlaced frame, a frame reaching past the screen; a first frame smaller than the screen;
  /// WebP frames at offsets with and without blending, disposed and kept: libvips's frames.
  func testFramesEqualLibvips() throws {
    for path in ["animation/disposal.gif", "animation/background.gif", "animation/blend.webp"] {
      let ours = try AnimationReferences.ourFrames(path)
      let theirs = try AnimationReferences.libvips(path, frameHeight: ours.info.canvasSize.height)
      XCTAssertEqual(ours.frames.count, theirs.count, path)
      for (i, (a, b)) in zip(ours.frames, theirs).enumerated() {
        CodecTest.assertSame(a, b, ignoringHiddenColor: true, "\(path) frame \(i + 1)")
      }
    }
  }

  /// The same frames as Pillow's ImageSequence, except where Pillow 9 departs from browsers:
  /// it fills a rectangle disposed "to background" with the opaque background colour when the
  /// next frame has no transparent colour (disposal.gif's frames 3–5); browsers and libvips
  /// clear it to transparent.
  func testFramesEqualPillow() throws {
    for (path, compared) in [("animation/disposal.gif", 0..<2), ("animation/background.gif", 0..<3), ("animation/blend.webp", 0..<4)] {
      let ours = try AnimationReferences.ourFrames(path).frames, theirs = try AnimationReferences.pillow(path)
      XCTAssertEqual(ours.count, theirs.count, path)
      for i in compared { CodecTest.assertSame(ours[i], theirs[i], ignoringHiddenColor: true, "\(path) frame \(i + 1)") }
    }
  }

  /// Per-frame delays (including a zero delay) and loop counts as libvips reads them: GIF's
  /// NETSCAPE count 3 is 4 plays, 0 is forever; WebP's count as stored.
  func testDelaysAndLoopCountEqualLibvips() throws {
    for path in ["animation/disposal.gif", "animation/background.gif", "animation/blend.webp"] {
      let data = try CodecTest.data(path)
      let codec = try XCTUnwrap(CodecRegistry.sniff(data) as? any AnimationDecoding.Type)
      let info = try codec.readAnimation(data, limits: .default)
      let vips = try AnimationReferences.libvipsTiming(path)
      XCTAssertEqual(info.delays, vips.delays, path)
      XCTAssertEqual(info.loopCount, vips.loop, path)
    }
    let gif = try GIFCodec.readAnimation(CodecTest.data("animation/disposal.gif"), limits: .default)
    XCTAssertEqual(gif.delays, [100, 50, 0, 200, 70])
    XCTAssertEqual(gif.loopCount, 4)
    XCTAssertEqual(gif.canvasSize, Size(width: 24, height: 16))
  }

  /// GIF, WebP and APNG count frames alike as pages, and every page decodes to its frame (an
  /// APNG's page 0 is its first frame, not a default image outside the animation); a page past
  /// the last is a clear error. Reading page 0 of an animation without asking warns once.
  func testPagesAreFrames() throws {
    for (path, count) in [
      ("animation/disposal.gif", 5), ("animation/blend.webp", 4), ("animation/ops.png", 6), ("animation/hidden.png", 3),
    ] {
      let data = try CodecTest.data(path)
      let codec = try XCTUnwrap(CodecRegistry.sniff(data))
      let header = try codec.readHeader(data, request: DecodeRequest())
      XCTAssertEqual(header.pageCount, count, path)
      XCTAssertEqual(header.animation?.frameCount, count, path)
      let frames = try AnimationReferences.ourFrames(path).frames
      for page in 0..<count {
        let decoder = try codec.makeDecoder(data, request: DecodeRequest(options: ["page": .integer(page)]))
        XCTAssertEqual(CodecTest.samples(try decoder.decodeAll()), frames[page], "\(path) page \(page)")
        XCTAssertEqual(decoder.warnings, [], "\(path) page \(page) was asked for")
      }
      XCTAssertThrowsError(try codec.readHeader(data, request: DecodeRequest(options: ["page": .integer(count)]))) {
        XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument, path)
        XCTAssertTrue("\($0)".contains("has \(count) frames"), "\($0)")
      }
      let unasked = try codec.makeDecoder(data, request: DecodeRequest())
      XCTAssertEqual(unasked.warnings.count, 1, path)
      XCTAssertTrue(unasked.warnings.first?.contains("only frame 1 is read") ?? false, "\(unasked.warnings)")
    }
  }
}
