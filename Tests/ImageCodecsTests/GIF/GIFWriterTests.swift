// GIFWriterTests.swift — GIFs written by GIFAnimationWriter, decoded back by libvips
// (`vips copy FILE[n=-1]`, which reads GIFs with its own nsgif, not giflib): frames within a
// stated PSNR of what was written, exact where a frame has few colours; delays and loop count
// round-trip; frames after the first store only what changed, and decode as the full frames do;
// one-colour, many-colour and transparent animations; lossy frame differences.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class GIFWriterTests: XCTestCase {
  private var folder: URL!

  override func setUpWithError() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/vips") else { throw XCTSkip("libvips tools not installed") }
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("gifwriter-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  /// A frame from RGBA samples.
  private func frame(_ width: Int, _ height: Int, _ pixel: (Int, Int) -> [UInt8]) -> PixelBuffer {
    var buffer = PixelBuffer(width: width, height: height, format: .rgba8)
    buffer.withUnsafeMutableBaseAddress { base, stride in
      for y in 0..<height {
        let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
        for x in 0..<width { for (c, v) in pixel(x, y).enumerated() { row[4 * x + c] = v } }
      }
    }
    return buffer
  }

  /// Writes `frames` and returns the file.
  private func write(
    _ frames: [PixelBuffer], delays: [Int]? = nil, loop: Int = 0, options: GIFEncodeOptions = GIFEncodeOptions(), hasAlpha: Bool = false
  ) throws -> Data {
    let size = Size(width: frames[0].width, height: frames[0].height)
    let writer = try GIFAnimationWriter(size: size, hasAlpha: hasAlpha, loopCount: loop, options: options)
    for (k, f) in frames.enumerated() { try writer.add(f, delay: delays?[k] ?? 40) }
    return try XCTUnwrap(writer.finish())
  }

  /// libvips's frames of `gif` as RGBA samples.
  private func libvipsFrames(_ gif: Data, height: Int) throws -> [[UInt8]] {
    let path = folder.appendingPathComponent("out.gif")
    try gif.write(to: path)
    let run = try ChildProcess.run("vips", ["copy", path.path + "[n=-1]", "strip.png"], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    var strip = try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("strip.png")))
    if strip.format.layout != .rgba { strip = strip.converted(to: .rgba8) }
    let samples = CodecTest.samples(strip), frameBytes = strip.width * height * 4
    return stride(from: 0, to: samples.count, by: frameBytes).map { Array(samples[$0..<$0 + frameBytes]) }
  }

  private func vipsField(_ name: String) throws -> String {
    let run = try ChildProcess.run("vipsheader", ["-f", name, folder.appendingPathComponent("out.gif").path], in: folder)
    return run.text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// PSNR of the RGB of opaque pixels (dB; infinity when equal).
  private func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    var sum = 0.0, count = 0
    for i in stride(from: 0, to: min(a.count, b.count), by: 4) {
      for c in 0..<3 {
        let d = Double(a[i + c]) - Double(b[i + c])
        sum += d * d
      }
      count += 3
    }
    return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / Double(count)))
  }

  /// The image descriptors' rectangles (x, y, width, height), walked from the file's blocks.
  private func rectangles(_ gif: Data) -> [Rect] {
    let b = [UInt8](gif)
    var i = 13, result: [Rect] = []
    if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 7) + 1) }
    func skipBlocks() { while i < b.count, b[i] != 0 { i += Int(b[i]) + 1 }; i += 1 }
    while i < b.count {
      switch b[i] {
      case 0x21: i += 2; skipBlocks()
      case 0x2C:
        func le(_ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
        result.append(Rect(x: le(i + 1), y: le(i + 3), width: le(i + 5), height: le(i + 7)))
        let flags = b[i + 9]
        i += 10
        if flags & 0x80 != 0 { i += 3 << (Int(flags & 7) + 1) }
        i += 1; skipBlocks()
      default: return result
      }
    }
    return result
  }

  /// A smooth many-colour scene (about 6,000 colours) with a square moving across it.
  private func scene(_ k: Int, width: Int = 96, height: Int = 64) -> PixelBuffer {
    frame(width, height) { x, y in
      let inSquare = (10 + 6 * k..<26 + 6 * k).contains(x) && (20..<36).contains(y)
      return inSquare ? [250, 240, 20, 255] : [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x + y) * 255 / (width + height)), 255]
    }
  }

  /// Many colours (about 6,000 a frame): every frame decodes (libvips) within 33 dB of what was
  /// written with Floyd–Steinberg or ordered dithering, 35 dB without (measured 34.0–34.4, 34.1–34.4
  /// and 35.7–36.0; palettes made of the boxes' corners instead of their means give 26.6–27.2).
  func testManyColorFramesDecodeWithinPSNR() throws {
    let frames = (0..<6).map { scene($0) }
    for (dither, floor) in [(GIFDither.floydSteinberg, 33.0), (.ordered, 33), (.none, 35)] {
      var options = GIFEncodeOptions()
      options.dither = dither
      let decoded = try libvipsFrames(try write(frames, options: options), height: 64)
      XCTAssertEqual(decoded.count, 6)
      for (k, f) in frames.enumerated() where k < decoded.count {
        let p = psnr(decoded[k], CodecTest.samples(f))
        XCTAssertGreaterThan(p, floor, "\(dither) frame \(k + 1): \(p) dB")
      }
    }
  }

  /// Dithering keeps local means: a three-channel gradient in 8 colours, averaged over 4×4
  /// blocks, is nearer the source (PSNR of the block means) with Floyd–Steinberg (measured 24.2 dB)
  /// and ordered dithering (22.6) than mapped to the nearest entry (21.3).
  func testDitheringKeepsLocalMeans() throws {
    let gradient = frame(96, 64) { x, y in [UInt8(x * 255 / 96), UInt8(y * 255 / 64), UInt8((x + y) * 255 / 160), 255] }
    func blockMeans(_ samples: [UInt8]) -> [UInt8] {
      var means: [UInt8] = []
      for by in stride(from: 0, to: 64, by: 4) {
        for bx in stride(from: 0, to: 96, by: 4) {
          for c in 0..<3 {
            var sum = 0
            for y in by..<by + 4 { for x in bx..<bx + 4 { sum += Int(samples[(y * 96 + x) * 4 + c]) } }
            means += [UInt8((sum + 8) / 16)]
          }
          means += [255]
        }
      }
      return means
    }
    var quality: [GIFDither: Double] = [:]
    for dither in GIFDither.allCases {
      var options = GIFEncodeOptions()
      options.colors = 8
      options.dither = dither
      let decoded = try libvipsFrames(try write([gradient], options: options), height: 64)[0]
      quality[dither] = psnr(blockMeans(decoded), blockMeans(CodecTest.samples(gradient)))
    }
    XCTAssertGreaterThan(quality[.floydSteinberg]!, quality[.none]! + 2, "\(quality)")
    XCTAssertGreaterThan(quality[.ordered]!, quality[.none]! + 1, "\(quality)")
  }

  /// The first image descriptor's local colour table, as RGB triples.
  private func firstLocalTable(_ gif: Data) -> [[Int]] {
    let b = [UInt8](gif)
    var i = 13
    if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 7) + 1) }
    while i < b.count, b[i] == 0x21 {
      i += 2
      while i < b.count, b[i] != 0 { i += Int(b[i]) + 1 }
      i += 1
    }
    guard i + 10 < b.count, b[i] == 0x2C, b[i + 9] & 0x80 != 0 else { return [] }
    let entries = 2 << Int(b[i + 9] & 7)
    return (0..<entries).map { k in (0..<3).map { Int(b[i + 10 + 3 * k + $0]) } }
  }

  /// Mapping against its definition (quantize.c), at dither amounts a of 1, ½ and 0: without
  /// dithering a pixel shows the entry of the frame's table nearest (first of equals) its colour;
  /// with ordered dithering, nearest its colour plus round(a·A·((M(x mod 8, y mod 8) + ½)/64 − ½))
  /// a channel, A = 64/∛n for n entries; with Floyd–Steinberg, its colour plus a times the 7/16,
  /// 3/16, 5/16, 1/16 shares of its neighbours' errors (each channel's sum of sixteenths e becomes
  /// (e·s + 8·4096) / (16·4096) rounded toward zero, s = round(4096·a)). The table is read from
  /// the file, the pixels decoded by libvips; amount 0 is `none` byte for byte.
  func testPixelsMapToTheNearestEntryAsDitheringDefinesIt() throws {
    let width = 48, height = 32
    let picture = frame(width, height) { x, y in
      [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x * y) % 256), 255]
    }
    let source = CodecTest.samples(picture)
    let bayer: [[Int]] = [
      [0, 32, 8, 40, 2, 34, 10, 42], [48, 16, 56, 24, 50, 18, 58, 26], [12, 44, 4, 36, 14, 46, 6, 38],
      [60, 28, 52, 20, 62, 30, 54, 22], [3, 35, 11, 43, 1, 33, 9, 41], [51, 19, 59, 27, 49, 17, 57, 25],
      [15, 47, 7, 39, 13, 45, 5, 37], [63, 31, 55, 23, 61, 29, 53, 21],
    ]
    func clamp(_ v: Int) -> Int { min(255, max(0, v)) }
    func nearest(_ c: [Int], _ table: [[Int]]) -> Int {
      var best = 0, bestDistance = Int.max
      for (k, e) in table.enumerated() {
        let d = (0..<3).reduce(0) { $0 + (e[$1] - c[$1]) * (e[$1] - c[$1]) }
        if d < bestDistance { (best, bestDistance) = (k, d) }
      }
      return best
    }
    for (dither, amount) in [(GIFDither.ordered, 1.0), (.floydSteinberg, 1), (.ordered, 0.5), (.floydSteinberg, 0.5), (.ordered, 0)] {
      var options = GIFEncodeOptions()
      options.colors = 16
      options.dither = dither
      options.ditherAmount = amount
      let gif = try write([picture], options: options)
      let table = Array(firstLocalTable(gif).prefix(16))
      XCTAssertEqual(table.count, 16)
      let decoded = try libvipsFrames(gif, height: height)[0]
      let amplitude = amount * 64 / cbrt(Double(table.count)), share = Int((amount * 4096).rounded())
      var errors = [[Int]](repeating: [Int](repeating: 0, count: 3 * (width + 2)), count: height + 1)
      var differing = 0
      for y in 0..<height {
        for x in 0..<width {
          var c = (0..<3).map { Int(source[(y * width + x) * 4 + $0]) }
          if dither == .ordered {
            let offset = Int((amplitude * ((Double(bayer[y & 7][x & 7]) + 0.5) / 64 - 0.5)).rounded())
            c = c.map { clamp($0 + offset) }
          } else if dither == .floydSteinberg {
            c = (0..<3).map { clamp(c[$0] + (errors[y][3 * (x + 1) + $0] * share + 8 * 4096) / (16 * 4096)) }
          }
          let entry = table[nearest(c, table)]
          for ch in 0..<3 {
            let e = c[ch] - entry[ch]
            errors[y][3 * (x + 2) + ch] += 7 * e
            errors[y + 1][3 * x + ch] += 3 * e
            errors[y + 1][3 * (x + 1) + ch] += 5 * e
            errors[y + 1][3 * (x + 2) + ch] += e
          }
          if (0..<3).contains(where: { Int(decoded[(y * width + x) * 4 + $0]) != entry[$0] }) { differing += 1 }
        }
      }
      XCTAssertEqual(differing, 0, "\(dither) at \(amount): pixels other than the definition's")
      if amount == 0 {
        options.dither = .none
        XCTAssertEqual(gif, try write([picture], options: options), "amount 0 is no dithering")
      }
    }
  }

  /// Delays in ms become centiseconds rounded to the nearest (5 ms up); libvips and our reader
  /// read them and the loop count back (n plays: NETSCAPE n − 1; once: no extension).
  func testDelaysAndLoopCountRoundTrip() throws {
    let frames = (0..<6).map { scene($0, width: 16, height: 8) }
    for loop in [0, 1, 2, 7] {
      let gif = try write(frames, delays: [100, 50, 0, 2000, 34, 35], loop: loop)
      _ = try libvipsFrames(gif, height: 8)
      XCTAssertEqual(try vipsField("delay"), "100 50 0 2000 30 40")
      XCTAssertEqual(try vipsField("n-pages"), "6")
      let info = try GIFCodec.readAnimation(gif, limits: .default)
      XCTAssertEqual(info.delays, [100, 50, 0, 2000, 30, 40])
      XCTAssertEqual(info.loopCount, loop, "loop \(loop)")
      // libvips's `loop` is the number of plays too (1 without the extension, NETSCAPE n: n + 1).
      XCTAssertEqual(try vipsField("loop"), "\(loop)", "loop \(loop)")
    }
  }

  /// Few colours a frame: frames decode exactly, and every frame after the first is the
  /// rectangle the square moved through (not the canvas), so the file is smaller than the frames
  /// written as stills; the stills decode to the same pixels.
  func testFrameDifferencesDecodeAsFullFrames() throws {
    let frames = (0..<5).map { k in
      frame(64, 40) { x, y in
        (8 + 5 * k..<20 + 5 * k).contains(x) && (10..<22).contains(y) ? [200, 30, 30, 255] : x < 32 ? [20, 40, 200, 255] : [20, 160, 60, 255]
      }
    }
    let gif = try write(frames)
    let decoded = try libvipsFrames(gif, height: 40)
    XCTAssertEqual(decoded.count, 5)
    var stills = 0
    for (k, f) in frames.enumerated() where k < decoded.count {
      CodecTest.assertSame(decoded[k], CodecTest.samples(f), "frame \(k + 1)")
      let still = try write([f])
      stills += still.count
      CodecTest.assertSame(try libvipsFrames(still, height: 40)[0], decoded[k], "frame \(k + 1) alone")
    }
    let rects = rectangles(gif)
    XCTAssertEqual(rects.count, 5)
    XCTAssertEqual(rects.first, Rect(x: 0, y: 0, width: 64, height: 40))
    for (k, r) in rects.enumerated().dropFirst() {
      XCTAssertEqual(r, Rect(x: 8 + 5 * (k - 1), y: 10, width: 17, height: 12), "frame \(k + 1)")
    }
    XCTAssertLessThan(gif.count, stills)
  }

  /// `lossy` 8, a background stepping by RGB distance 5.2 a frame under a moving square: in frame
  /// 2 the step is dropped (libvips decodes frame 1's colour) except where the square left, which
  /// is written, and frame 2 stores only the rectangle of the square's two places; in frame 3 the
  /// background is 10.4 from what is shown and is written, except where frame 2 wrote its colour
  /// (5.2 away): compared with the shown pixels, not the last target, small steps cannot drift
  /// unseen. `lossy` 0 writes every change.
  func testLossyDropsSmallChangesFromWhatIsShown() throws {
    func background(_ k: Int) -> [UInt8] { [UInt8(60 + 3 * k), UInt8(90 + 3 * k), UInt8(120 + 3 * k), 255] }
    /// The square at `square`, the background of step `k`, and of step `left.k` over `left.x`'s columns.
    func picture(_ k: Int, square: Int, patches: [(x: Int, k: Int)] = []) -> PixelBuffer {
      frame(40, 20) { x, y in
        guard (4..<10).contains(y) else { return background(k) }
        if (square..<square + 6).contains(x) { return [220, 20, 20, 255] }
        return patches.first { ($0.x..<$0.x + 6).contains(x) }.map { background($0.k) } ?? background(k)
      }
    }
    let frames = [picture(0, square: 2), picture(1, square: 12), picture(2, square: 22)]
    let lossy = try write(frames, options: { var o = GIFEncodeOptions(); o.lossy = 8; return o }())
    let decoded = try libvipsFrames(lossy, height: 20)
    XCTAssertEqual(decoded.count, 3)
    guard decoded.count == 3 else { return }
    CodecTest.assertSame(decoded[0], CodecTest.samples(frames[0]), "frame 1")
    CodecTest.assertSame(decoded[1], CodecTest.samples(picture(0, square: 12, patches: [(2, 1)])), "frame 2")
    CodecTest.assertSame(decoded[2], CodecTest.samples(picture(2, square: 22, patches: [(2, 1)])), "frame 3")
    XCTAssertEqual(rectangles(lossy)[1], Rect(x: 2, y: 4, width: 16, height: 6))
    let exact = try libvipsFrames(try write(frames), height: 20)
    for k in 0..<3 { CodecTest.assertSame(exact[k], CodecTest.samples(frames[k]), "lossy 0 frame \(k + 1)") }
  }

  /// One colour: frames of one colour each (the same twice, then another) decode exactly; an
  /// unchanged frame is one transparent pixel.
  func testOneColorFrames() throws {
    let colors: [[UInt8]] = [[255, 0, 0, 255], [255, 0, 0, 255], [0, 0, 255, 255]]
    let frames = colors.map { c in frame(20, 10) { _, _ in c } }
    let gif = try write(frames)
    let decoded = try libvipsFrames(gif, height: 10)
    XCTAssertEqual(decoded.count, 3)
    for (k, f) in frames.enumerated() where k < decoded.count { CodecTest.assertSame(decoded[k], CodecTest.samples(f), "frame \(k + 1)") }
    XCTAssertEqual(rectangles(gif)[1], Rect(x: 0, y: 0, width: 1, height: 1))
  }

  /// Alpha: below 128 is transparent, 128 and above opaque; a disc moving on a transparent
  /// canvas leaves no trail (the frame before a frame that clears pixels restores the background).
  func testAlphaAndPixelsThatBecomeTransparent() throws {
    let frames = (0..<4).map { k in
      frame(48, 24) { x, y in
        let dx = x - (10 + 9 * k), dy = y - 12
        if dx * dx + dy * dy <= 36 { return [240, 200, 0, 255] }
        return x < 4 ? [0, 0, 0, y < 12 ? 127 : 128] : [0, 0, 0, 0]
      }
    }
    let gif = try write(frames, hasAlpha: true)
    let decoded = try libvipsFrames(gif, height: 24)
    XCTAssertEqual(decoded.count, 4)
    for (k, f) in frames.enumerated() where k < decoded.count {
      let expected = CodecTest.samples(f).enumerated().map { i, v in i % 4 == 3 ? (v >= 128 ? 255 : 0) : v }
      var differing = 0
      for i in stride(from: 0, to: expected.count, by: 4) {
        let a = Array(decoded[k][i..<i + 4]), b = Array(expected[i..<i + 4])
        if a[3] != b[3] || (b[3] == 255 && a != b) { differing += 1 }
      }
      XCTAssertEqual(differing, 0, "frame \(k + 1)")
    }
  }

  /// Wrong frame sizes and formats are refused; a writer without frames cannot finish.
  func testBadFramesAreRefused() throws {
    let writer = try GIFAnimationWriter(size: Size(width: 4, height: 4), hasAlpha: false, loopCount: 0, options: GIFEncodeOptions())
    XCTAssertThrowsError(try writer.add(PixelBuffer(width: 5, height: 4, format: .rgb8), delay: 10))
    XCTAssertThrowsError(try writer.finish())
    XCTAssertThrowsError(try GIFAnimationWriter(size: Size(width: 70000, height: 4), hasAlpha: false, loopCount: 0, options: GIFEncodeOptions()))
  }
}
