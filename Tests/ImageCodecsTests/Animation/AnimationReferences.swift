// AnimationReferences.swift — every frame of an animated file as libvips (`[n=-1]`) and Pillow
// (`ImageSequence`) compose it, and as FilterGraph's frame readers do, as 8-bit RGBA samples.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

enum AnimationReferences {
  /// The frames of the fixture at `path` through its codec's frame reader.
  static func ourFrames(_ path: String, limits: DecodeLimits = .default) throws -> (info: AnimationInfo, frames: [[UInt8]]) {
    let data = try CodecTest.data(path)
    guard let codec = CodecRegistry.sniff(data) as? any AnimationDecoding.Type else { throw CodecError(.unsupported, "no frame reader") }
    let reader = try codec.makeFrameReader(data, limits: limits)
    var frames: [[UInt8]] = []
    while let frame = try reader.nextFrame() {
      XCTAssertEqual(frame.format.layout, .rgba, path)
      frames.append(CodecTest.samples(frame))
    }
    return (reader.info, frames)
  }

  /// libvips's decode of every page (`vips copy FILE[n=-1]`: one strip of frames), split into frames.
  static func libvips(_ path: String, frameHeight: Int) throws -> [[UInt8]] {
    try libvips(Fixtures.url(path), frameHeight: frameHeight)
  }

  /// libvips's frames of the file at `url`.
  static func libvips(_ url: URL, frameHeight: Int) throws -> [[UInt8]] {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/vips") else { throw XCTSkip("libvips tools not installed") }
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try ChildProcess.run("vips", ["copy", url.path + "[n=-1]", "strip.png"], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    let strip = try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("strip.png")))
    XCTAssertEqual(strip.format.layout, .rgba)
    let samples = CodecTest.samples(strip), frameBytes = strip.width * frameHeight * 4
    return stride(from: 0, to: samples.count, by: frameBytes).map { Array(samples[$0..<$0 + frameBytes]) }
  }

  /// libvips's `delay` and `loop` fields of the file (`vipsheader -f`).
  static func libvipsTiming(_ path: String) throws -> (delays: [Int], loop: Int) {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    func field(_ name: String) throws -> String {
      let run = try ChildProcess.run("vipsheader", ["-f", name, Fixtures.url(path).path], in: folder)
      XCTAssertEqual(run.status, 0, run.stderr)
      return run.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return (try field("delay").split(separator: " ").compactMap { Int($0) }, Int(try field("loop")) ?? -1)
  }

  /// Pillow's frames (`ImageSequence`, each converted to RGBA).
  static func pillow(_ path: String) throws -> [[UInt8]] {
    try pillow(Fixtures.url(path))
  }

  /// Pillow's frames of the file at `url`.
  static func pillow(_ url: URL) throws -> [[UInt8]] {
    let path = url.lastPathComponent
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 not installed") }
    let script = """
      import sys
      from PIL import Image, ImageSequence
      im = Image.open(sys.argv[1]); w, h = im.size
      for f in ImageSequence.Iterator(im):
          sys.stdout.buffer.write(f.convert("RGBA").crop((0, 0, w, h)).tobytes())
      print(w * h * 4, file=sys.stderr)
      """
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try ChildProcess.run("/usr/bin/python3", ["-c", script, url.path], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    guard let frameBytes = Int(run.stderr.trimmingCharacters(in: .whitespacesAndNewlines)), frameBytes > 0 else {
      throw XCTSkip("Pillow cannot read \(path): \(run.stderr)")
    }
    let bytes = [UInt8](run.stdout)
    return stride(from: 0, to: bytes.count, by: frameBytes).map { Array(bytes[$0..<$0 + frameBytes]) }
  }

  private static func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("animation-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }
}
