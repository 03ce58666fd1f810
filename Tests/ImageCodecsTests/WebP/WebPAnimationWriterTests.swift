// WebPAnimationWriterTests.swift — the animated WebP writer: frames decoded by libwebp's animation
// decoder (ours, and Pillow's as an independent caller) against the source frames, the stored
// rectangles (even offsets, inside the canvas, no blending or disposal), delays, loop count,
// unchanged frames, frame order with frames encoded in parallel, and a failing frame's encode.

import Dispatch
import Foundation
@testable import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class WebPAnimationWriterTests: XCTestCase {
  /// A frame of `size` in `format`: a diagonal gradient moved `shift` pixels right, with an
  /// 8×6 square of `square` at (`x`, 9); in RGBA the square is transparent when `square` is nil.
  private func frame(_ size: Size, _ format: PixelFormat, shift: Int = 0, x: Int, square: [UInt8]?) -> PixelBuffer {
    var frame = PixelBuffer(width: size.width, height: size.height, format: format)
    let channels = format.channelCount
    frame.withUnsafeMutableBaseAddress { base, stride in
      for py in 0..<size.height {
        for px in 0..<size.width {
          let inSquare = (x..<x + 8).contains(px) && (9..<15).contains(py)
          let background = [UInt8((px + shift) * 4 % 256), UInt8(py * 7), 120, 255]
          let pixel = inSquare ? (square ?? [0, 0, 0, 0]) : background
          for c in 0..<channels { base.storeBytes(of: pixel[c], toByteOffset: py * stride + channels * px + c, as: UInt8.self) }
        }
      }
    }
    return frame
  }

  /// The stored frames of an animated WebP: rectangle, duration, and the ANMF flags byte.
  private func storedFrames(_ data: Data) -> [(rect: Rect, duration: Int, flags: UInt8)] {
    let bytes = [UInt8](data)
    func le24(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 }
    var frames: [(Rect, Int, UInt8)] = []
    var i = 12
    while i + 8 <= bytes.count {
      let length = le24(i + 4) | Int(bytes[i + 7]) << 24
      if bytes[i..<i + 4].elementsEqual("ANMF".utf8) {
        let rect = Rect(x: 2 * le24(i + 8), y: 2 * le24(i + 11), width: le24(i + 14) + 1, height: le24(i + 17) + 1)
        frames.append((rect, le24(i + 20), bytes[i + 23]))
      }
      i += 8 + length + length % 2
    }
    return frames
  }

  /// Every frame through our reader (libwebp's animation decoder), as RGBA samples.
  private func decodedFrames(_ data: Data) throws -> [[UInt8]] {
    let reader = try WebPCodec.makeFrameReader(data, limits: .default)
    var frames: [[UInt8]] = []
    while let frame = try reader.nextFrame() { frames.append(CodecTest.samples(frame.converted(to: .rgba8))) }
    return frames
  }

  /// Pillow's frames of `data` (an independent caller of libwebp's decoder), as RGBA samples.
  private func pillowFrames(_ data: Data) throws -> [[UInt8]] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webp-anim-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try data.write(to: folder.appendingPathComponent("a.webp"))
    let script = """
      import sys
      from PIL import Image, ImageSequence
      im = Image.open("a.webp")
      for f in ImageSequence.Iterator(im): sys.stdout.buffer.write(f.convert("RGBA").tobytes())
      """
    let run = try ChildProcess.run("/usr/bin/python3", ["-c", script], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    let bytes = [UInt8](run.stdout), frameBytes = storedCanvasBytes(data)
    return stride(from: 0, to: bytes.count, by: frameBytes).map { Array(bytes[$0..<min(bytes.count, $0 + frameBytes)]) }
  }

  private func storedCanvasBytes(_ data: Data) -> Int {
    let info = try? WebPCodec.readAnimation(data, limits: .default)
    return (info?.canvasSize.width ?? 0) * (info?.canvasSize.height ?? 0) * 4
  }

  /// `samples` (RGBA) with the colour of fully transparent pixels zeroed: libwebp may change it.
  private func visible(_ samples: [UInt8]) -> [UInt8] {
    var out = samples
    for i in stride(from: 0, to: out.count, by: 4) where out[i + 3] == 0 { out[i] = 0; out[i + 1] = 0; out[i + 2] = 0 }
    return out
  }

  /// Lossy, opaque: a square moving on a still background. Each frame, decoded by our reader and
  /// by Pillow, is as close to its source as a still WebP of it at the same quality (within
  /// 1 dB of PSNR); frame 1 is the whole canvas, every later one only
  /// the rectangle the square touched (even offsets, inside the canvas, replacing its pixels:
  /// no blending, no disposal), and the opaque frames store no alpha.
  func testLossyFramesMatchTheirSourcesThroughChangedRectangles() throws {
    let size = Size(width: 48, height: 32)
    let threads = Threads(3)
    let writer = try WebPAnimationWriter(
      size: size, loopCount: 0, settings: WebPEncodeSettings(quality: 90), metadata: ImageMetadata(), executor: threads)
    var sources: [[UInt8]] = [], stills: [Double] = []
    for k in 0..<6 {
      let source = frame(size, .rgb8, x: 3 + 5 * k, square: [255, 40, 0])
      sources.append(CodecTest.samples(source.converted(to: .rgba8)))
      let still = try WebPStreamEncoder(size: size, format: .rgb8, settings: WebPEncodeSettings(quality: 90))
      try still.write(rows: source)
      let decoded = try CodecTest.decode(try XCTUnwrap(try still.finish()))
      stills.append(CodecTest.psnr(CodecTest.samples(decoded.converted(to: .rgba8)), sources[k]))
      try writer.add(source, delay: 40)
    }
    let data = try XCTUnwrap(writer.finish())
    let stored = storedFrames(data)
    XCTAssertEqual(stored.count, 6)
    XCTAssertEqual(stored.first?.rect, Rect(x: 0, y: 0, width: 48, height: 32))
    for (k, s) in stored.enumerated().dropFirst() {
      XCTAssertTrue(s.rect.x % 2 == 0 && s.rect.y % 2 == 0, "frame \(k + 1) at \(s.rect)")
      XCTAssertTrue(s.rect.x + s.rect.width <= 48 && s.rect.y + s.rect.height <= 32, "frame \(k + 1) at \(s.rect)")
      // The square moved 5 pixels: its old and new places, 13 wide, grown to an even x.
      XCTAssertEqual(s.rect, Rect(x: (3 + 5 * (k - 1)) & ~1, y: 8, width: 13 + (3 + 5 * (k - 1)) % 2, height: 7), "frame \(k + 1)")
    }
    XCTAssertTrue(stored.allSatisfy { $0.flags == 0b10 }, "no blending, no disposal: \(stored.map(\.flags))")
    XCTAssertFalse(try WebPFile(data, limits: .default).hasAlpha)
    for (name, frames) in [("ours", try decodedFrames(data)), ("Pillow", try pillowFrames(data))] {
      XCTAssertEqual(frames.count, 6, name)
      for (k, decoded) in frames.enumerated() {
        XCTAssertGreaterThan(CodecTest.psnr(decoded, sources[k]), stills[k] - 1, "\(name), frame \(k + 1)")
      }
    }
  }

  /// Lossless, with alpha: pixels that turn transparent, then opaque again, come out exactly as
  /// the source frames (the colour of transparent pixels aside), through our reader and Pillow.
  func testLosslessFramesAreExactWhenPixelsTurnTransparent() throws {
    let size = Size(width: 24, height: 20)
    let writer = try WebPAnimationWriter(
      size: size, loopCount: 0, settings: WebPEncodeSettings(isLossless: true), metadata: ImageMetadata(), executor: Threads(2))
    let squares: [[UInt8]?] = [[0, 200, 0, 255], nil, [9, 9, 200, 128], nil, [0, 200, 0, 255]]
    var sources: [[UInt8]] = []
    for (k, square) in squares.enumerated() {
      let source = frame(size, .rgba8, shift: k / 3, x: 5 + k, square: square)
      sources.append(visible(CodecTest.samples(source)))
      try writer.add(source, delay: 30)
    }
    let data = try XCTUnwrap(writer.finish())
    XCTAssertEqual(storedFrames(data).count, 5)
    for (name, frames) in [("ours", try decodedFrames(data)), ("Pillow", try pillowFrames(data))] {
      XCTAssertEqual(frames.count, 5, name)
      for (k, decoded) in frames.enumerated() { XCTAssertEqual(visible(decoded), sources[k], "\(name), frame \(k + 1)") }
    }
  }

  /// Delays and the loop count read back as written; a frame equal to the one before lengthens
  /// it instead of adding a frame (10, 20, 30, 40 ms with frames 2 and 3 equal: 10, 50, 40).
  func testDelaysAndLoopCountRoundTripAndUnchangedFramesLengthenThePreviousOne() throws {
    let size = Size(width: 16, height: 16)
    let writer = try WebPAnimationWriter(
      size: size, loopCount: 3, settings: WebPEncodeSettings(quality: 80), metadata: ImageMetadata(), executor: Threads(2))
    for (x, delay) in [(0, 10), (4, 20), (4, 30), (8, 40)] { try writer.add(frame(size, .rgb8, x: x, square: [0, 0, 0]), delay: delay) }
    let data = try XCTUnwrap(writer.finish())
    let info = try WebPCodec.readAnimation(data, limits: .default)
    XCTAssertEqual(info.delays, [10, 50, 40])
    XCTAssertEqual(info.loopCount, 3)
    XCTAssertEqual(try decodedFrames(data).count, 3)
  }

  /// Frames finish out of order on four threads (each encode waits a pseudo-random time) and
  /// still come out in order: 24 solid frames, lossless, each decoded to its own colour.
  func testFramesComeOutInOrderWhenEncodedInParallel() throws {
    let size = Size(width: 8, height: 8)
    let writer = try WebPAnimationWriter(
      size: size, loopCount: 0, settings: WebPEncodeSettings(isLossless: true), metadata: ImageMetadata(), executor: Threads(4),
      output: AnimationOutput(handle: nil, format: "animated WebP")
    ) { frame, rect, settings in
      let value = frame.withUnsafeBaseAddress { base, _ in base.load(as: UInt8.self) }
      usleep(useconds_t(value % 5) * 2000)
      return try WebPAnimationWriter.encode(frame, rect, settings)
    }
    let colors = (0..<24).map { UInt8($0 * 10 + 3) }
    for value in colors {
      var solid = PixelBuffer(width: 8, height: 8, format: .rgb8)
      solid.withUnsafeMutableBaseAddress { base, stride in
        for i in 0..<8 * stride { base.storeBytes(of: value, toByteOffset: i, as: UInt8.self) }
      }
      try writer.add(solid, delay: 20)
    }
    let frames = try decodedFrames(try XCTUnwrap(writer.finish()))
    XCTAssertEqual(frames.map { $0[0] }, colors)
  }

  /// An encode that fails in frame 3 (of 6, two threads) makes the writer throw an error naming
  /// the frame and the cause, from `add` or `finish`, and `finish` gives no bytes.
  func testAFailedFrameEncodeFailsTheAnimation() throws {
    let size = Size(width: 8, height: 8)
    var number = 0
    let writer = try WebPAnimationWriter(
      size: size, loopCount: 0, settings: WebPEncodeSettings(), metadata: ImageMetadata(), executor: Threads(2),
      output: AnimationOutput(handle: nil, format: "animated WebP")
    ) { frame, rect, settings in
      if frame.withUnsafeBaseAddress({ base, _ in base.load(as: UInt8.self) }) == 3 {
        throw CodecError(.tooLarge, "libwebp ran out of memory.")
      }
      return try WebPAnimationWriter.encode(frame, rect, settings)
    }
    var thrown: (any Error)?
    do {
      for value in 1...6 {
        number = value
        var solid = PixelBuffer(width: 8, height: 8, format: .rgb8)
        solid.withUnsafeMutableBaseAddress { base, stride in
          for i in 0..<8 * stride { base.storeBytes(of: UInt8(value), toByteOffset: i, as: UInt8.self) }
        }
        try writer.add(solid, delay: 20)
      }
      _ = try writer.finish()
    } catch {
      thrown = error
    }
    let error = try XCTUnwrap(thrown as? CodecError, "the failed frame (added as frame \(number)) was not reported")
    XCTAssertEqual(error.kind, .tooLarge)
    XCTAssertEqual(error.message, "Frame 3 of the animated WebP cannot be encoded: libwebp ran out of memory.")
    XCTAssertThrowsError(try writer.finish())
  }

  /// The changed rectangle is the bounding box of the differing pixels (against a direct scan),
  /// in RGB and RGBA, and nil for equal frames.
  func testChangedRectangleIsTheBoundingBoxOfTheDifferences() {
    var generator = SeededGenerator(seed: 24)
    for format in [PixelFormat.rgb8, .rgba8] {
      let channels = format.channelCount
      for _ in 0..<20 {
        let old = frame(Size(width: 19, height: 11), format, x: 2, square: [1, 2, 3, 4])
        var new = old
        var changed: [(Int, Int)] = []
        for _ in 0..<Int(generator.next() % 4) {
          let x = Int(generator.next() % 19), y = Int(generator.next() % 11), c = Int(generator.next() % UInt64(channels))
          new.withUnsafeMutableBaseAddress { base, stride in
            let at = y * stride + x * channels + c
            base.storeBytes(of: base.load(fromByteOffset: at, as: UInt8.self) &+ 1, toByteOffset: at, as: UInt8.self)
          }
          changed.append((x, y))
        }
        let expected = changed.isEmpty ? nil : Rect(
          x: changed.map(\.0).min()!, y: changed.map(\.1).min()!,
          width: changed.map(\.0).max()! - changed.map(\.0).min()! + 1, height: changed.map(\.1).max()! - changed.map(\.1).min()! + 1)
        XCTAssertEqual(new.changedRectangle(since: old), expected, "\(format) \(changed)")
      }
    }
  }
}

/// Jobs on Dispatch's global queue, said to have `threadCount` threads.
private final class Threads: CodecExecutor, @unchecked Sendable {  // immutable
  let threadCount: Int

  init(_ threadCount: Int) { self.threadCount = threadCount }

  func submit(_ job: @escaping () -> Void) {
    let handed = HandedJob(run: job)
    DispatchQueue.global().async { handed.run() }
  }
}

/// A job handed to another thread, run there once.
private struct HandedJob: @unchecked Sendable {  // run by one thread only
  let run: () -> Void
}
