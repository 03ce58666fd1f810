// APNGDecodeTests.swift — APNG frames composed as browsers show them (every blend and dispose
// op, a default image that is not a frame, a palette with tRNS), frame by frame against Pillow's
// ImageSequence; delays, loop count; the translucent "over" formula; hostile animation chunks
// refused with clear errors (pages are AnimationDecodeTests').

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class APNGDecodeTests: XCTestCase {
  /// ops.png (every blend and dispose op, translucent pixels replaced, binary alpha composed,
  /// several fdAT chunks per frame), hidden.png (a default image that is not a frame, which
  /// Pillow lists as its frame 0) and pillow.png (Pillow's own writer): Pillow's frames. Pillow 9
  /// pastes an "over" frame with its alpha as the mask, exact only for alpha 0 and 255, which is
  /// all these fixtures compose.
  func testFramesEqualPillow() throws {
    for (path, hiddenDefault) in [("animation/ops.png", false), ("animation/hidden.png", true), ("animation/pillow.png", false)] {
      let ours = try AnimationReferences.ourFrames(path).frames
      let theirs = Array(try AnimationReferences.pillow(path).dropFirst(hiddenDefault ? 1 : 0))
      XCTAssertEqual(ours.count, theirs.count, path)
      for (i, (a, b)) in zip(ours, theirs).enumerated() {
        CodecTest.assertSame(a, b, ignoringHiddenColor: true, "\(path) frame \(i + 1)")
      }
    }
  }

  /// Delays from fcTL's fractions (0/0 is 0 ms, 1/3 s rounds to 333 ms) and acTL's play count
  /// (0 forever), as Pillow reads them (its `duration`, `loop`).
  func testDelaysAndLoopCount() throws {
    let ops = try PNGCodec.readAnimation(CodecTest.data("animation/ops.png"), limits: .default)
    XCTAssertEqual(ops.delays, [100, 50, 0, 30, 140, 333])
    XCTAssertEqual(ops.loopCount, 2)
    XCTAssertEqual(ops.canvasSize, Size(width: 20, height: 14))
    let hidden = try PNGCodec.readAnimation(CodecTest.data("animation/hidden.png"), limits: .default)
    XCTAssertEqual(hidden.delays, [80, 80, 80])
    XCTAssertEqual(hidden.loopCount, 0)
    let pillow = try PNGCodec.readAnimation(CodecTest.data("animation/pillow.png"), limits: .default)
    XCTAssertEqual(pillow.delays, [100, 40, 60, 80])
    XCTAssertEqual(pillow.loopCount, 3)
    let still = try PNGCodec.readAnimation(CodecTest.data("pngsuite/basn6a08.png"), limits: .default)
    XCTAssertEqual(still.frameCount, 1)
  }

  /// A translucent pixel over a translucent one, against the over operator computed by hand:
  /// (10, 200, 100, α 128) then (250, 0, 50, α 64) over it gives α = 64 + 128·191/255 = 159.9
  /// → 160, red = (250·64·255 + 10·128·191) / (64·255 + 128·191) = 106.07 → 106, green
  /// = 200·128·191 / 40 768 = 119.94 → 120, blue = (50·16 320 + 100·24 448) / 40 768 = 79.98 → 80.
  func testTranslucentOverFollowsTheOverOperator() throws {
    let png = APNGFile(width: 1, height: 1, frames: [
      .init(pixels: [10, 200, 100, 128]), .init(pixels: [250, 0, 50, 64], blend: 1),
    ])
    let frames = try readAll(png.bytes)
    XCTAssertEqual(frames[0], [10, 200, 100, 128])
    XCTAssertEqual(frames[1], [106, 120, 80, 160])
  }

  /// Hostile animation chunks: each is refused with an error that names what is wrong, before
  /// any pixel memory for the frames is taken.
  func testHostileAnimationChunksAreRefused() throws {
    let frame = APNGFile.Frame(pixels: [UInt8](repeating: 200, count: 4 * 4 * 2), width: 4, height: 2)
    var small = frame
    (small.width, small.height, small.pixels) = (2, 1, [1, 2, 3, 255, 4, 5, 6, 255])
    func refused(_ file: APNGFile, _ kind: CodecError.Kind, _ words: String, limits: DecodeLimits = .default, line: UInt = #line) {
      for attempt in [{ _ = try PNGCodec.readAnimation(Data(file.bytes), limits: limits) }, { _ = try PNGCodec.makeFrameReader(Data(file.bytes), limits: limits) }] {
        XCTAssertThrowsError(try attempt(), line: line) {
          XCTAssertEqual(($0 as? CodecError)?.kind, kind, "\($0)", line: line)
          XCTAssertTrue("\($0)".contains(words), "\($0)", line: line)
        }
      }
    }
    var many = APNGFile(width: 4, height: 2, frames: [frame, small])
    many.declaredFrames = 100_000
    refused(many, .tooLarge, "100000 frames, more than the limit of 10000")
    var limited = DecodeLimits.default
    limited.maxFrames = 1
    refused(APNGFile(width: 4, height: 2, frames: [frame, small]), .tooLarge, "more than the limit of 1", limits: limited)
    var outside = small
    outside.x = 3
    refused(APNGFile(width: 4, height: 2, frames: [frame, outside]), .corrupt, "frame 2 (2x1 at 3,0) lies outside the 4x2 canvas")
    var far = small
    far.y = 0x7FFF_FFFF
    refused(APNGFile(width: 4, height: 2, frames: [frame, far]), .corrupt, "lies outside the 4x2 canvas")
    var swapped = APNGFile(width: 4, height: 2, frames: [frame, small])
    swapped.sequenceOrder = { $0 == 1 ? 2 : $0 == 2 ? 1 : $0 }
    refused(swapped, .corrupt, "sequence number 2 where 1 was expected")
    var orphan = APNGFile(width: 4, height: 2, frames: [frame, small])
    orphan.dropsFrameControl = 1
    refused(orphan, .corrupt, "fdAT chunk (sequence number 1) comes before any fcTL chunk of its frame")
    var fewer = APNGFile(width: 4, height: 2, frames: [frame, small])
    fewer.declaredFrames = 3
    refused(fewer, .corrupt, "acTL declares 3 frames but the file holds 2")
    var badOp = small
    badOp.dispose = 7
    refused(APNGFile(width: 4, height: 2, frames: [frame, badOp]), .corrupt, "dispose op 7")
    var damaged = APNGFile(width: 4, height: 2, frames: [frame, small])
    damaged.damagesLastCRC = true
    refused(damaged, .corrupt, "fails its CRC check")
  }

  /// Every frame of `bytes` through the frame reader, as RGBA samples.
  private func readAll(_ bytes: [UInt8]) throws -> [[UInt8]] {
    let reader = try PNGCodec.makeFrameReader(Data(bytes), limits: .default)
    var frames: [[UInt8]] = []
    while let frame = try reader.nextFrame() { frames.append(CodecTest.samples(frame.converted(to: .rgba8))) }
    return frames
  }
}

/// An RGBA APNG built chunk by chunk (the first frame is the default image), with the ways a
/// hostile file departs from the specification.
private struct APNGFile {
  struct Frame {
    var pixels: [UInt8]
    var width = 1, height = 1, x = 0, y = 0
    var dispose: UInt8 = 0, blend: UInt8 = 0
  }

  var width: Int, height: Int, frames: [Frame]
  /// acTL's frame count (default: the frames given).
  var declaredFrames: Int?
  /// Maps each chunk's sequence number to the one written.
  var sequenceOrder: (Int) -> Int = { $0 }
  /// The frame whose fcTL is left out.
  var dropsFrameControl: Int?
  /// Writes the last fdAT chunk with a wrong CRC.
  var damagesLastCRC = false

  init(width: Int, height: Int, frames: [Frame]) {
    (self.width, self.height, self.frames) = (width, height, frames)
  }

  var bytes: [UInt8] {
    func be32(_ v: Int) -> [UInt8] { PNGBytes.bigEndian(UInt32(truncatingIfNeeded: v)) }
    var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    out += PNGBytes.chunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
    out += PNGBytes.chunk("acTL", be32(declaredFrames ?? frames.count) + be32(0))
    var sequence = 0
    for (i, frame) in frames.enumerated() {
      if dropsFrameControl != i {
        out += PNGBytes.chunk(
          "fcTL",
          be32(sequenceOrder(sequence)) + be32(frame.width) + be32(frame.height) + be32(frame.x) + be32(frame.y) + [0, 1, 0, 10]
            + [frame.dispose, frame.blend])
        sequence += 1
      }
      var rows: [UInt8] = []
      for y in 0..<frame.height { rows += [0] + frame.pixels[(y * frame.width * 4)..<((y + 1) * frame.width * 4)] }
      let data = PNGBytes.storedZlib(rows)
      if i == 0 {
        out += PNGBytes.chunk("IDAT", data)
      } else {
        var chunk = PNGBytes.chunk("fdAT", be32(sequenceOrder(sequence)) + data)
        if damagesLastCRC && i == frames.count - 1 { chunk[chunk.count - 1] ^= 0xFF }
        out += chunk
        sequence += 1
      }
    }
    return out + PNGBytes.chunk("IEND", [])
  }
}
