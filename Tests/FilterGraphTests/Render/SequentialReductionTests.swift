// SequentialReductionTests.swift — a strong reduction of a large file reads it through a window of
// rows, not whole: the render runs its bands one at a time, one tile wide, so the reduction's
// input bands arrive in order and the file's rows are decoded as they are asked for (the 260 KB
// 16383² PNG blurred and fit to 256 held its 268 MB of rows; the 35-byte GIF with a 16383² screen
// and the 131 KB float TIFF of shared strips held 1 GB each). Checked on the renderer's own
// accounting: what is decoded whole, the streamed window, the estimate and the tile pool.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class SequentialReductionTests: XCTestCase {
  private func renderer(streaming: Bool = true) -> Renderer {
    Renderer(options: RendererOptions(threads: 2, streamingMinimumBytes: streaming ? 0 : .max))
  }

  /// A `width` × `height` 8-bit gray PNG of a diagonal pattern (every row different).
  private func grayPNG(width: Int, height: Int) throws -> Data {
    var buffer = PixelBuffer(width: width, height: height, format: .gray8, colorSpace: .sRGB)
    let pattern = (0..<(width + 256)).map { UInt8(truncatingIfNeeded: $0 * 7 + ($0 >> 5)) }
    pattern.withUnsafeBytes { src in
      buffer.withUnsafeMutableBaseAddress { base, rowBytes in
        for y in 0..<height { (base + y * rowBytes).copyMemory(from: src.baseAddress! + y % 251, byteCount: width) }
      }
    }
    return try PNGEncoder.encode(buffer)
  }

  /// A `side`² one-channel 32-bit float TIFF whose `side` one-row strips all point to one
  /// deflated row, a ramp from 0 to 1 (bench/make-hostile-inputs.py's float-strip.tif at any
  /// size, whose row is zeros).
  private func sharedStripTIFF(side: Int) throws -> Data {
    let ramp = (0..<side).flatMap { x in withUnsafeBytes(of: (Float(x) / Float(side)).bitPattern.littleEndian, Array.init) }
    let row = PNGBytes.storedZlib(ramp)
    let offsetsAt = 8 + row.count, countsAt = offsetsAt + 4 * side, ifdAt = countsAt + 4 * side
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255)] }
    func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
    var out = Array("II*\0".utf8) + le32(ifdAt) + row
    for _ in 0..<side { out += le32(8) }
    for _ in 0..<side { out += le32(row.count) }
    let entries: [(Int, Int, Int, Int)] = [
      (256, 4, 1, side), (257, 4, 1, side), (258, 3, 1, 32), (259, 3, 1, 8), (262, 3, 1, 1), (273, 4, side, offsetsAt),
      (277, 3, 1, 1), (278, 4, 1, 1), (279, 4, side, countsAt), (284, 3, 1, 1), (339, 3, 1, 3),
    ]
    out += le16(entries.count)
    for (tag, type, count, value) in entries { out += le16(tag) + le16(type) + le32(count) + (type == 3 && count == 1 ? le16(value) + [0, 0] : le32(value)) }
    return Data(out + le32(0))
  }

  /// Finding 2 at the smallest size that takes its input in bands: a 4200 × 1024 gray PNG after a
  /// computed step (an inversion), fit to 128 columns. Each output tile reads the whole file (in
  /// bands), so the parallel plan decoded it whole (4.3 MB); the sequential plan streams it through
  /// a window of a few hundred rows and says so in its estimate. Planned only: its renders take
  /// 20 s each in a debug build (twice that under ThreadSanitizer); the sequential plan's pixels
  /// are checked against a whole decode on the smaller TIFF below.
  func testAComputedLargePNGFitStreamsThroughAWindow() throws {
    let (width, height) = (4200, 1024)
    let image = try Image(data: try grayPNG(width: width, height: height)).inverted().scaled(toFit: Size(width: 128, height: 128))
    let plan = try renderer().prepare(image)
    XCTAssertTrue(plan.isSequential, "the reduction's bands run one at a time")
    XCTAssertTrue(plan.decoded.isEmpty, "the file is not decoded whole")
    let stream = try XCTUnwrap(plan.streamed.values.first, "the file is streamed")
    XCTAssertLessThanOrEqual(stream.capacity, height / 2, "a window of rows, not the file")
    let r = renderer()
    let estimate = r.memoryEstimate(for: image)
    XCTAssertEqual(estimate.decoded, 0, "nothing decoded whole in the estimate")
    XCTAssertEqual(estimate.window, stream.windowBytes, "the estimate holds the window the render holds")
  }

  /// Finding 9's TIFF: 16383² float samples in one shared strip, fit to 100. Planned only (its
  /// decode takes minutes in a debug build): streamed through about a thousand rows (the
  /// reduction's band and Lanczos's reach on both sides of a band boundary), not 1 GB decoded
  /// whole, and the estimate says so. A 2100² one is rendered: streamed, sequentially, with the pixels of a whole decode.
  func testAFloatTIFFOfSharedStripsIsStreamed() throws {
    let side = 16383
    let image = try Image(data: try sharedStripTIFF(side: side)).scaled(toFit: Size(width: 100, height: 100))
    let r = Renderer(options: RendererOptions(threads: 2))  // the default threshold: 4 MiB, and 64 MiB saved
    let plan = try r.prepare(image)
    XCTAssertTrue(plan.isSequential)
    XCTAssertTrue(plan.decoded.isEmpty, "not decoded whole")
    let stream = try XCTUnwrap(plan.streamed.values.first, "streamed")
    XCTAssertLessThan(stream.windowBytes, 80 << 20, "a window, not the 1 GB page")
    let estimate = Renderer().memoryEstimate(for: image)
    XCTAssertEqual(estimate.decoded, 0)
    XCTAssertLessThan(estimate.total, 160 << 20)

    let small = try Image(data: try sharedStripTIFF(side: 2100)).scaled(toFit: Size(width: 50, height: 50))
    let rendering = renderer()
    let got = try rendering.render(small)
    XCTAssertTrue(try renderer().prepare(small).isSequential)
    XCTAssertEqual(rendering.statistics.decodes, 0)
    XCTAssertEqual(rendering.statistics.streamedDecodes, 1)
    let whole = renderer(streaming: false)
    XCTAssertTrue(got.hasSamePixels(as: try whole.render(small)), "the same pixels as a whole decode")
    XCTAssertEqual(whole.statistics.decodes, 1)
  }

  /// Finding 9's GIF: a 16383² screen with one 1 × 1 frame. Its page streams from the screen
  /// (whose untouched pages cost nothing: the decoder says it holds one page's worth per row of
  /// its frames), so a fit to 100 holds a window of rows, not a 1 GB decoded canvas.
  func testAGIFsLargeScreenIsStreamed() throws {
    let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 0, 255)]
    let gif = GIFBuilder(width: 16383, height: 16383, palette: palette)
      .build([.init(left: 5000, top: 7000, width: 1, height: 1, indices: [0])])
    let header = try GIFCodec.readHeader(gif, request: DecodeRequest())
    XCTAssertLessThanOrEqual(header.decoderHeldBytes, 8192, "two pages for the frame's one row")
    let image = try Image(data: gif).scaled(toFit: Size(width: 100, height: 100))
    let r = Renderer(options: RendererOptions(threads: 2))
    let plan = try r.prepare(image)
    XCTAssertTrue(plan.decoded.isEmpty, "not decoded whole")
    let stream = try XCTUnwrap(plan.streamed.values.first, "streamed")
    XCTAssertLessThan(stream.windowBytes, 80 << 20)
    let estimate = Renderer().memoryEstimate(for: image)
    XCTAssertEqual(estimate.decoded, 0)
    XCTAssertLessThan(estimate.total, 160 << 20)
  }

  /// A GIF page read as streamed rows is the frame the animation reader composes, for every page
  /// of frames that restore the previous screen, clear to the background, or stay: the saved
  /// rectangle restores what the frame covered and nothing else. Checked pixel by pixel
  /// against the composition worked out by hand.
  func testGIFPagesStreamAsComposed() throws {
    let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
    let frames: [GIFBuilder.Frame] = [
      .init(left: 0, top: 0, width: 6, height: 4, indices: [UInt8](repeating: 0, count: 24)),  // red, stays
      .init(left: 2, top: 1, width: 3, height: 2, indices: [UInt8](repeating: 1, count: 6), disposal: 3),  // green, restored
      .init(left: 4, top: 2, width: 2, height: 2, indices: [2, 2, 2, 2], disposal: 2),  // blue, cleared
      .init(left: 1, top: 3, width: 1, height: 1, indices: [3]),  // white
    ]
    let gif = GIFBuilder(width: 7, height: 5, palette: palette).build(frames)
    let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
    let clear: [UInt8] = [0, 0, 0, 0], white: [UInt8] = [255, 255, 255, 255]
    func expected(page: Int, x: Int, y: Int) -> [UInt8] {
      var p = x < 6 && y < 4 ? red : clear
      if page == 1, (2..<5).contains(x), (1..<3).contains(y) { p = green }
      if page >= 2, (4..<6).contains(x), (2..<4).contains(y) { p = page == 2 ? blue : clear }
      if page == 3, x == 1, y == 3 { p = white }
      return p
    }
    let reader = try GIFFrameReader(gif, limits: .default)
    for page in 0..<4 {
      let decoder = try GIFCodec.makeDecoder(gif, request: DecodeRequest(options: ["page": .integer(page)]))
      var rows = try decoder.makeBuffer(rows: 2)
      var streamed: [[UInt8]] = []
      var y = 0
      while case let n = try decoder.readRows(2, into: &rows, at: 0), n > 0 {
        rows.withUnsafeBaseAddress { base, rowBytes in
          for r in 0..<n { streamed.append((0..<28).map { (base + r * rowBytes + $0).load(as: UInt8.self) }) }
        }
        y += n
      }
      XCTAssertEqual(y, 5)
      let frame = try XCTUnwrap(try reader.nextFrame())
      frame.withUnsafeBaseAddress { base, rowBytes in
        for y in 0..<5 {
          let whole = (0..<28).map { (base + y * rowBytes + $0).load(as: UInt8.self) }
          XCTAssertEqual(streamed[y], whole, "page \(page), row \(y): streamed and read as a frame")
          for x in 0..<7 { XCTAssertEqual(Array(streamed[y][x * 4..<x * 4 + 4]), expected(page: page, x: x, y: y), "page \(page) at \(x),\(y)") }
        }
      }
    }
  }
}
