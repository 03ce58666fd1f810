// AnimationBombTests.swift — hostile animated WebPs are refused or bounded with clear errors
// (GIF's are GIFBombTests', APNG's APNGDecodeTests'): a huge canvas with a tiny frame, 100 000
// frames, zero delays, frames outside the canvas, a damaged frame.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class AnimationBombTests: XCTestCase {
  /// A frame of an animated WebP: where it goes on the canvas (even offsets), for how long.
  private struct Frame {
    var x = 0, y = 0, duration = 40
  }

  /// The VP8L chunk (header included) of a 1×1 lossless frame, cut from an animation libwebp wrote.
  private func onePixelFrameChunk() throws -> [UInt8] {
    let writer = try WebPAnimationWriter(
      size: Size(width: 1, height: 1), loopCount: 0, settings: WebPEncodeSettings(isLossless: true), metadata: ImageMetadata())
    for value: UInt8 in [0, 255] {
      var frame = PixelBuffer(width: 1, height: 1, format: .rgba8)
      frame.withUnsafeMutableBaseAddress { base, _ in for c in 0..<4 { base.storeBytes(of: c == 3 ? 255 : value, toByteOffset: c, as: UInt8.self) } }
      try writer.add(frame, delay: 40)
    }
    let bytes = [UInt8](try XCTUnwrap(writer.finish()))
    var i = 12
    while i + 8 <= bytes.count {
      let size = Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]) << 16 | Int(bytes[i + 7]) << 24
      if bytes[i..<i + 4].elementsEqual("ANMF".utf8) { return Array(bytes[(i + 24)..<(i + 8 + size)]) }
      i += 8 + size + size % 2
    }
    throw XCTSkip("libwebp wrote no ANMF chunk")
  }

  private func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
  private func le32(_ v: Int) -> [UInt8] { le24(v) + [UInt8(v >> 24 & 0xFF)] }

  private func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    Array(type.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
  }

  /// An animated WebP of a `width`×`height` canvas holding `frames` 1×1 frames, then `repeats`
  /// more copies of the last.
  private func webp(width: Int, height: Int, frames: [Frame], data: [UInt8], repeats: Int = 0) -> Data {
    var body = Array("WEBP".utf8)
    body += chunk("VP8X", [0x02, 0, 0, 0] + le24(width - 1) + le24(height - 1))
    body += chunk("ANIM", [0, 0, 0, 0, 0, 0])
    var lastChunk = body.count
    for f in frames {
      lastChunk = body.count
      body += chunk("ANMF", le24(f.x / 2) + le24(f.y / 2) + le24(0) + le24(0) + le24(f.duration) + [0x02] + data)
    }
    var whole = Data(Array("RIFF".utf8) + le32(body.count + repeats * (body.count - lastChunk)))
    whole.append(contentsOf: body)
    let last = Data(body[lastChunk...])
    for _ in 0..<repeats { whole.append(last) }
    return whole
  }

  private func assertError(_ kinds: [CodecError.Kind], _ saying: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try body(), file: file, line: line) {
      XCTAssertTrue(($0 as? CodecError).map { kinds.contains($0.kind) } ?? false, "\($0)", file: file, line: line)
      XCTAssertTrue("\($0)".contains(saying), "\($0)", file: file, line: line)
    }
  }

  /// WebP: a 65535² canvas with 1×1 frames is refused by the pixel limit before any memory is
  /// taken for the canvas; one past libwebp's largest area (2^24 on a side) is refused as damaged.
  func testHugeWebPCanvasIsRefused() throws {
    let pixel = try onePixelFrameChunk()
    let data = webp(width: 65535, height: 65535, frames: [Frame(), Frame()], data: pixel)
    assertError([.tooLarge], "65535") { _ = try WebPCodec.readAnimation(data, limits: .default) }
    assertError([.tooLarge], "65535") { _ = try WebPCodec.makeFrameReader(data, limits: .default) }
    let past = webp(width: 1 << 24, height: 1 << 24, frames: [Frame(), Frame()], data: pixel)
    assertError([.corrupt], "damaged") { _ = try WebPCodec.makeFrameReader(past, limits: .default) }
  }

  /// WebP: 100 000 frames pass the default limit of 10 000 and are refused naming --max-frames,
  /// before their durations are read; zero durations are kept as stored. (Counting them with the
  /// limit raised takes libwebp's demuxer time quadratic in the frames, so it is not done here.)
  func testHundredThousandWebPFramesAreRefusedAndZeroDelaysKept() throws {
    let pixel = try onePixelFrameChunk()
    let data = webp(width: 1, height: 1, frames: [Frame(duration: 0)], data: pixel, repeats: 99_999)
    assertError([.tooLarge], "--max-frames") { _ = try WebPCodec.readAnimation(data, limits: .default) }
    assertError([.tooLarge], "--max-frames") { _ = try WebPCodec.makeFrameReader(data, limits: .default) }
    let two = try WebPCodec.readAnimation(webp(width: 2, height: 2, frames: [Frame(duration: 0), Frame(duration: 0)], data: pixel), limits: .default)
    XCTAssertEqual(two.delays, [0, 0])
  }

  /// WebP: a frame outside the canvas (at x = 4 on a 4×4 canvas) is refused as damaged, not
  /// clipped silently or read outside the canvas.
  func testWebPFrameOutsideTheCanvasIsRefused() throws {
    let data = webp(width: 4, height: 4, frames: [Frame(), Frame(x: 4, y: 0)], data: try onePixelFrameChunk())
    XCTAssertThrowsError(try {
      let reader = try WebPCodec.makeFrameReader(data, limits: .default)
      while try reader.nextFrame() != nil {}
    }()) { XCTAssertNotNil($0 as? CodecError, "\($0)") }
  }

  /// WebP: a frame whose bitstream is damaged (the VP8L data zeroed after its header) gives an
  /// error naming the frame, and the frames before it are read.
  func testDamagedWebPFrameIsAnErrorNamingIt() throws {
    let pixel = try onePixelFrameChunk()
    var damaged = pixel
    for i in 13..<damaged.count { damaged[i] = 0xFF }
    var data = [UInt8](webp(width: 1, height: 1, frames: [Frame(), Frame()], data: pixel))
    data.replaceSubrange((data.count - pixel.count)..<data.count, with: damaged)
    let reader = try WebPCodec.makeFrameReader(Data(data), limits: .default)
    XCTAssertNotNil(try reader.nextFrame())
    XCTAssertThrowsError(try reader.nextFrame()) { XCTAssertTrue("\($0)".contains("Frame 2"), "\($0)") }
  }
}
