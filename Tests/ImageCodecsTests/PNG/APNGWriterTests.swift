// APNGWriterTests.swift — APNGs written by APNGAnimationWriter, read back by Pillow's APNG reader
// (PngImagePlugin, which composes each frame with its dispose and blend operations): every
// frame's pixels exact, delays and loop count; frames after the first store only the rectangle
// that changed; one frame gives a plain PNG.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class APNGWriterTests: XCTestCase {
  private var folder: URL!

  override func setUpWithError() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 not installed") }
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("apngwriter-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  private func frame(_ width: Int, _ height: Int, format: PixelFormat = .rgba8, _ pixel: (Int, Int) -> [UInt8]) -> PixelBuffer {
    var buffer = PixelBuffer(width: width, height: height, format: format)
    buffer.withUnsafeMutableBaseAddress { base, stride in
      for y in 0..<height {
        let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
        for x in 0..<width { for (c, v) in pixel(x, y).prefix(format.channelCount).enumerated() { row[format.channelCount * x + c] = v } }
      }
    }
    return buffer
  }

  private func write(_ frames: [PixelBuffer], delays: [Int], loop: Int = 0) throws -> Data {
    let size = Size(width: frames[0].width, height: frames[0].height)
    let writer = try APNGAnimationWriter(
      size: size, layout: frames[0].format.layout, loopCount: loop, frameCount: frames.count, options: PNGEncodeOptions(), metadata: ImageMetadata())
    for (k, f) in frames.enumerated() { try writer.add(f, delay: delays[k]) }
    return try XCTUnwrap(writer.finish())
  }

  /// Pillow's reading of `png`: its frames as RGBA samples, durations (ms), loop and format.
  private func pillow(_ png: Data) throws -> (frames: [[UInt8]], durations: [Double], loop: Int, isAnimated: Bool) {
    let path = folder.appendingPathComponent("out.png")
    try png.write(to: path)
    let script = """
      import sys, json
      from PIL import Image, ImageSequence
      im = Image.open(sys.argv[1]); w, h = im.size; durations = []
      for f in ImageSequence.Iterator(im):
          sys.stdout.buffer.write(f.convert("RGBA").tobytes())
          durations.append(f.info.get("duration", -1))
      print(json.dumps({"size": w * h * 4, "durations": durations, "loop": im.info.get("loop", -1),
                        "animated": getattr(im, "is_animated", False)}), file=sys.stderr)
      """
    let run = try ChildProcess.run("/usr/bin/python3", ["-c", script, path.path], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    let facts = try JSONSerialization.jsonObject(with: Data(run.stderr.utf8)) as! [String: Any]
    let frameBytes = facts["size"] as! Int
    let bytes = [UInt8](run.stdout)
    let frames = stride(from: 0, to: bytes.count, by: frameBytes).map { Array(bytes[$0..<$0 + frameBytes]) }
    let durations = (facts["durations"] as! [Any]).map { ($0 as? NSNumber)?.doubleValue ?? -1 }
    return (frames, durations, facts["loop"] as! Int, facts["animated"] as! Bool)
  }

  /// The chunks of `png`: type and payload, in order.
  private func chunks(_ png: Data) -> [(String, [UInt8])] {
    let b = [UInt8](png)
    var i = 8, result: [(String, [UInt8])] = []
    while i + 8 <= b.count {
      let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
      result.append((String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self), Array(b[(i + 8)..<(i + 8 + length)])))
      i += 12 + length
    }
    return result
  }

  private func big32(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }

  /// RGBA: an opaque square moving on a half-transparent background (blend OVER), a frame where
  /// the square turns half transparent (blend SOURCE), an unchanged frame, and pixels that become
  /// fully transparent: Pillow's frames equal the frames written; frames after the first are the
  /// changed rectangles with the right blend operations; fcTL and fdAT sequence numbers run on.
  func testAlphaFramesDecodeExactlyInPillow() throws {
    func scene(_ k: Int) -> PixelBuffer {
      frame(40, 24) { x, y in
        let left = 4 + 6 * min(k, 3)
        let inSquare = (left..<left + 8).contains(x) && (6..<14).contains(y)
        if inSquare { return k == 3 || k == 4 ? [200, 20, 20, 128] : [200, 20, 20, 255] }
        if k == 5 && y >= 20 { return [0, 0, 0, 0] }
        return [UInt8(x * 6), UInt8(y * 10), 90, x < 20 ? 255 : 100]
      }
    }
    let frames = (0..<6).map(scene)
    let png = try write(frames, delays: [40, 40, 40, 40, 40, 40])
    let read = try pillow(png)
    XCTAssertTrue(read.isAnimated)
    XCTAssertEqual(read.frames.count, 6)
    for (k, f) in frames.enumerated() where k < read.frames.count {
      CodecTest.assertSame(read.frames[k], CodecTest.samples(f), "frame \(k + 1)")
    }
    let controls = chunks(png).filter { $0.0 == "fcTL" }.map { $0.1 }
    XCTAssertEqual(controls.count, 6)
    // (x, y, width, height, blend) of each frame.
    let expected: [[Int]] = [
      [0, 0, 40, 24, 0], [4, 6, 14, 8, 1], [10, 6, 14, 8, 1], [16, 6, 14, 8, 0], [0, 0, 1, 1, 1], [0, 6, 40, 18, 0],
    ]
    for (k, c) in controls.enumerated() {
      XCTAssertEqual([big32(c, 12), big32(c, 16), big32(c, 4), big32(c, 8), Int(c[25])], expected[k], "frame \(k + 1)")
      XCTAssertEqual(c[24], 0, "dispose NONE")
    }
    let sequence = chunks(png).filter { $0.0 == "fcTL" || $0.0 == "fdAT" }.map { big32($0.1, 0) }
    XCTAssertEqual(sequence, Array(0..<sequence.count))
    // The default image (frame 1) through our own reader.
    CodecTest.assertSame(CodecTest.samples(try PNGDecoder.decode(png)), CodecTest.samples(frames[0]), "default image")
  }

  /// RGB: changed rectangles blended SOURCE decode exactly; delays come back as the fractions
  /// written (d / 1000 s reduced; past 65535 / 1000 to the nearest 1/100 s) and the loop count as
  /// acTL's plays.
  func testRGBFramesDelaysAndLoopCount() throws {
    let frames = (0..<5).map { k in
      frame(30, 20, format: .rgb8) { x, y in (3 * k..<3 * k + 5).contains(x) && y < 7 ? [250, 250, 0] : [UInt8(x * 8), 40, UInt8(y * 12)] }
    }
    for loop in [0, 3] {
      let png = try write(frames, delays: [0, 33, 1500, 123_457, 70_000], loop: loop)
      let read = try pillow(png)
      XCTAssertEqual(read.frames.count, 5)
      for (k, f) in frames.enumerated() where k < read.frames.count {
        CodecTest.assertSame(read.frames[k], CodecTest.samples(f.converted(to: .rgba8)), "frame \(k + 1)")
      }
      XCTAssertEqual(read.durations, [0, 33, 1500, 123_460, 70_000])
      XCTAssertEqual(read.loop, loop)
      let control = chunks(png).first { $0.0 == "acTL" }!.1
      XCTAssertEqual([big32(control, 0), big32(control, 4)], [5, loop])
      XCTAssertTrue(chunks(png).filter { $0.0 == "fcTL" }.dropFirst().allSatisfy { $0.1[25] == 0 }, "blend SOURCE")
    }
  }

  /// One frame is a plain PNG: no acTL or fcTL, Pillow sees no animation.
  func testOneFrameIsAPlainPNG() throws {
    let still = frame(8, 8) { x, y in [UInt8(x * 30), UInt8(y * 30), 0, 255] }
    let png = try write([still], delays: [100])
    XCTAssertEqual(chunks(png).map { $0.0 }, ["IHDR", "sRGB", "IDAT", "IEND"])
    let read = try pillow(png)
    XCTAssertFalse(read.isAnimated)
    CodecTest.assertSame(read.frames[0], CodecTest.samples(still), "still")
  }

  /// Frames of another size or channel count are refused; no frame, no file; 16 bits is refused
  /// with a reason.
  func testBadFramesAreRefused() throws {
    let writer = try APNGAnimationWriter(
      size: Size(width: 4, height: 4), layout: .rgb, loopCount: 0, frameCount: 2, options: PNGEncodeOptions(), metadata: ImageMetadata())
    XCTAssertThrowsError(try writer.add(PixelBuffer(width: 5, height: 4, format: .rgb8), delay: 10))
    XCTAssertThrowsError(try writer.add(PixelBuffer(width: 4, height: 4, format: .rgba8), delay: 10))
    XCTAssertThrowsError(try writer.finish())
    let sixteen = try (["bit-depth": "16"] as FormatOptionValues).resolved(by: PNGCodec.encodeOptions)
    XCTAssertThrowsError(
      try PNGCodec.makeAnimationWriter(size: Size(width: 4, height: 4), layout: .rgb, loopCount: 0, frameCount: 2, options: sixteen, metadata: ImageMetadata())
    ) { XCTAssertTrue("\($0)".contains("8 bits"), "\($0)") }
  }
}
