// AnimationBombTests.swift — hostile animated WebPs and APNGs are refused or bounded with clear
// errors (GIF's are GIFBombTests'): a huge canvas with a tiny frame, 100 000 frames, zero delays,
// frames outside the canvas, a damaged frame; an APNG's animation chunks, however hostile, do not
// reach the reader (it reads the default image).

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
    let bytes = [UInt8](try writer.finish())
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

  /// The CRC-32 of PNG chunks (ISO 3309, bit by bit).
  private func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes {
      crc ^= UInt32(b)
      for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    return ~crc
  }

  /// APNG: an acTL claiming 100 000 frames and a later fcTL far outside the canvas are not read:
  /// the file decodes as its default image (frame 1), whatever the animation chunks say.
  func testHostileAPNGChunksAreNotRead() throws {
    let writer = try APNGAnimationWriter(size: Size(width: 4, height: 2), layout: .rgb, loopCount: 0, options: PNGEncodeOptions(), metadata: ImageMetadata())
    var first = PixelBuffer(width: 4, height: 2, format: .rgb8)
    first.withUnsafeMutableBaseAddress { base, stride in for i in 0..<(2 * stride) { base.storeBytes(of: UInt8(i * 17 & 0xFF), toByteOffset: i, as: UInt8.self) } }
    try writer.add(first, delay: 40)
    try writer.add(PixelBuffer(width: 4, height: 2, format: .rgb8), delay: 0)
    var bytes = [UInt8](try writer.finish())
    func patch(_ type: String, occurrence: Int, at offset: Int, _ value: [UInt8]) {
      var i = 8, seen = 0
      while i + 8 <= bytes.count {
        let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        if bytes[(i + 4)..<(i + 8)].elementsEqual(type.utf8) {
          if seen == occurrence {
            bytes.replaceSubrange((i + 8 + offset)..<(i + 8 + offset + value.count), with: value)
            let crc = crc32(bytes[(i + 4)..<(i + 8 + length)])
            bytes.replaceSubrange((i + 8 + length)..<(i + 12 + length), with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
          }
          seen += 1
        }
        i += 12 + length
      }
    }
    patch("acTL", occurrence: 0, at: 0, [0, 1, 0x86, 0xA0])  // 100 000 frames
    patch("fcTL", occurrence: 1, at: 12, [0x7F, 0xFF, 0xFF, 0xFF])  // x far outside
    let decoded = try PNGDecoder.decode(Data(bytes))
    XCTAssertEqual(decoded.size, Size(width: 4, height: 2))
    CodecTest.assertSame(CodecTest.samples(decoded), CodecTest.samples(first), "default image")
  }
}
