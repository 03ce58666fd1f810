// GIFBombTests.swift — hostile GIFs are refused or bounded with clear errors: a huge screen with a
// tiny frame, a huge frame on a tiny screen, 100 000 frames, zero delays, colour indices past the
// table, LZW data that runs on past the pixels or never ends, frames outside the screen.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class GIFBombTests: XCTestCase {
  private let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 0, 255)]

  private func frames(_ data: Data, limits: DecodeLimits = .default) throws -> [[UInt8]] {
    let reader = try GIFCodec.makeFrameReader(data, limits: limits)
    var frames: [[UInt8]] = []
    while let frame = try reader.nextFrame() { frames.append(CodecTest.samples(frame)) }
    return frames
  }

  private func assertError(_ kind: CodecError.Kind, _ saying: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try body(), file: file, line: line) {
      XCTAssertEqual(($0 as? CodecError)?.kind, kind, "\($0)", file: file, line: line)
      XCTAssertTrue("\($0)".contains(saying), "\($0)", file: file, line: line)
    }
  }

  /// A 65535² screen is refused before any memory is taken for it; so is a 65535² frame on a
  /// small screen (its rows would be decoded even though they are clipped).
  func testHugeScreensAndFramesAreRefused() {
    let screen = GIFBuilder(width: 65535, height: 65535, palette: palette).build([.init(width: 1, height: 1, indices: [0])])
    assertError(.tooLarge, "65535×65535") { _ = try GIFCodec.readHeader(screen, request: DecodeRequest()) }
    assertError(.tooLarge, "65535×65535") { _ = try GIFCodec.makeFrameReader(screen, limits: .default) }
    var frame = GIFBuilder(width: 4, height: 4, palette: palette).head()
    frame += GIFBuilder.frame(.init(width: 1, height: 1, indices: [0]))
    frame += [0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0] + GIFBuilder.lzw([1]) + [0x3B]
    assertError(.tooLarge, "frame 2 is 65535 × 65535") { _ = try GIFCodec.readHeader(Data(frame), request: DecodeRequest()) }
  }

  /// 100 000 one-pixel frames pass the default limit of 10 000 frames and are refused, naming
  /// --max-frames; with the limit raised they are counted (each frame's pixels skipped, not decoded).
  func testHundredThousandFramesAreRefused() throws {
    let one = GIFBuilder.frame(.init(width: 1, height: 1, indices: [1]))
    var bytes = GIFBuilder(width: 1, height: 1, palette: palette, loop: 0).head()
    bytes.reserveCapacity(bytes.count + one.count * 100_000 + 1)
    for _ in 0..<100_000 { bytes += one }
    let data = Data(bytes + [0x3B])
    assertError(.tooLarge, "--max-frames") { _ = try GIFCodec.readHeader(data, request: DecodeRequest()) }
    assertError(.tooLarge, "more than 10000 frames") { _ = try GIFCodec.makeFrameReader(data, limits: .default) }
    let raised = try GIFCodec.readAnimation(data, limits: DecodeLimits(maxFrames: 100_000))
    XCTAssertEqual(raised.frameCount, 100_000)
    XCTAssertEqual(raised.loopCount, 0)
  }

  /// Zero delays are kept as stored (0 ms; browsers show them for 100 ms).
  func testZeroDelaysAreKept() throws {
    let data = GIFBuilder(width: 2, height: 1, palette: palette).build([
      .init(width: 2, height: 1, indices: [0, 1]), .init(width: 2, height: 1, indices: [1, 0]),
    ])
    let info = try GIFCodec.readAnimation(data, limits: .default)
    XCTAssertEqual(info.delays, [0, 0])
    XCTAssertEqual(info.loopCount, 1, "no NETSCAPE extension: played once")
    XCTAssertEqual(try frames(data), [[255, 0, 0, 0, 0, 255], [0, 0, 255, 255, 0, 0]])
  }

  /// Indices past a two-colour table are opaque black (as libvips and Pillow show them).
  func testIndicesPastThePaletteAreBlack() throws {
    let data = GIFBuilder(width: 3, height: 1, palette: palette).build([.init(width: 3, height: 1, indices: [1, 7, 200])])
    XCTAssertEqual(try frames(data), [[0, 0, 255, 0, 0, 0, 0, 0, 0]])
  }

  /// LZW data running on past a frame's pixels is skipped (the next frame is read); data that
  /// never ends before the file does is a truncation naming the frame.
  func testLZWThatRunsOnOrNeverEnds() throws {
    let builder = GIFBuilder(width: 2, height: 1, palette: palette)
    var runOn = builder.head()
    runOn += Array(GIFBuilder.frame(.init(width: 2, height: 1, indices: [0, 0])).dropLast(GIFBuilder.lzw([0, 0]).count))
    runOn += GIFBuilder.lzw([UInt8](repeating: 1, count: 50_000))
    runOn += GIFBuilder.frame(.init(width: 2, height: 1, indices: [1, 0])) + [0x3B]
    XCTAssertEqual(try frames(Data(runOn)), [[0, 0, 255, 0, 0, 255], [0, 0, 255, 255, 0, 0]])

    var endless = builder.head() + GIFBuilder.frame(.init(width: 2, height: 1, indices: [0, 1]))
    endless += Array(GIFBuilder.frame(.init(width: 2, height: 1, indices: [1, 1])).prefix(20))
    for _ in 0..<200 { endless += [255] + [UInt8](repeating: 0x55, count: 255) }
    let data = Data(endless)
    assertError(.truncated, "ends before its data does") { _ = try GIFCodec.readHeader(data, request: DecodeRequest()) }
    let reader = try? GIFCodec.makeFrameReader(data, limits: .default)
    XCTAssertNil(reader, "the record scan finds the file truncated before any frame is decoded")
  }

  /// Frames partly or wholly outside the screen are clipped to it (RGBA: they do not cover it).
  func testFramesOutsideTheScreenAreClipped() throws {
    let data = GIFBuilder(width: 2, height: 2, palette: palette).build([
      .init(width: 2, height: 2, indices: [0, 0, 0, 0]),
      .init(left: 60000, top: 60000, width: 3, height: 3, indices: [UInt8](repeating: 1, count: 9)),
      .init(left: 1, top: 1, width: 3, height: 3, indices: [UInt8](repeating: 1, count: 9)),
    ])
    let red: [UInt8] = [255, 0, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
    XCTAssertEqual(try frames(data), [red + red + red + red, red + red + red + red, red + red + red + blue])
  }
}
