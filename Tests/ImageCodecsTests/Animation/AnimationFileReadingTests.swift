// AnimationFileReadingTests.swift — an animated GIF, APNG or WebP file is read in place, never held
// whole (issue #24: memory is one frame, whatever the number of frames): 1,000 frames of 32×32
// noise of 256 colours, written to a file and read frame by frame through the codec's file reader, which holds
// at most its read buffer and a few frames' compressed data (its own count, `heldInputBytes`),
// while the frames equal an independent decoder's (libvips `[n=-1]` for GIF and WebP, Pillow for
// APNG).

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class AnimationFileReadingTests: XCTestCase {
  private let side = 32, count = 1000
  /// The frames compared with the other decoder.
  private let compared = [0, 1, 500, 999]

  /// Frame `k`: noise of 256 colours (16 of them transparent), from its own seed: incompressible
  /// enough that the file is many frames long, few enough colours that no writer quantises.
  private func frame(_ k: Int) -> PixelBuffer {
    var buffer = PixelBuffer(width: side, height: side, format: .rgba8)
    var state = UInt64(k + 1) &* 0x9E37_79B9_7F4A_7C15
    buffer.withUnsafeMutableBaseAddress { base, stride in
      for y in 0..<side {
        let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
        for x in 0..<side {
          state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          let i = Int(state >> 56)
          (row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]) = (UInt8(i * 37 & 255), UInt8(i * 91 & 255), UInt8(i * 53 & 255), i < 16 ? 0 : 255)
        }
      }
    }
    return buffer
  }

  /// The animation of `frames` frames (default `count`) in `codec`'s format, written to a new file.
  private func write(_ codec: any AnimationEncoding.Type, options: FormatOptionValues = [:], frames: Int? = nil) throws -> URL {
    let frames = frames ?? count
    let writer = try codec.makeAnimationWriter(
      size: Size(width: side, height: side), layout: .rgba, loopCount: 0, frameCount: frames,
      options: try options.resolved(by: codec.encodeOptions), metadata: ImageMetadata())
    for k in 0..<frames { try writer.add(frame(k), delay: 40) }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("anim-\(UUID().uuidString).\(codec.fileExtensions[0])")
    try XCTUnwrap(try writer.finish()).write(to: url)
    addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
  }

  /// Reads every frame of the file at `url` through `codec`'s file reader: the frame count, the
  /// bytes of the file the reader held at most (after each frame), and the compared frames.
  private func read(_ url: URL, _ codec: any AnimationDecoding.Type) throws -> (frames: Int, held: Int, kept: [Int: [UInt8]]) {
    let file = try FileHandle(forReadingFrom: url)
    defer { try? file.close() }
    XCTAssertTrue((codec as? any FileReadingCodec.Type)?.readsInPlace(file: file, request: DecodeRequest()) ?? false)
    XCTAssertEqual(try codec.readAnimation(file: file, limits: .default).frameCount, count)
    let reader = try codec.makeFrameReader(file: file, limits: .default)
    var frames = 0, held = reader.heldInputBytes, kept: [Int: [UInt8]] = [:]
    while let frame = try reader.nextFrame() {
      XCTAssertEqual(frame.format, .rgba8)
      if compared.contains(frames) { kept[frames] = CodecTest.samples(frame) }
      frames += 1
      held = max(held, reader.heldInputBytes)
    }
    return (frames, held, kept)
  }

  /// The most a reader may hold: its 64 KiB buffer (a GIF's, an APNG's window of chunk headers)
  /// or the 64 KiB-aligned windows a mapped WebP frame's decode touches, and four frames' data on
  /// average; the file is many times that.
  private func assertBounded(_ held: Int, file url: URL, _ name: String) throws {
    let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    let bound = 2 * (64 << 10) + 4 * size / count
    XCTAssertGreaterThan(size, 8 * bound, "\(name): the file is not large enough to tell")
    XCTAssertGreaterThan(held, 0, name)
    XCTAssertLessThanOrEqual(held, bound, "\(name): \(held) bytes of a \(size)-byte file held")
  }

  /// Writes the animation with `codec`, reads it back through the file reader and checks the
  /// frame count, the bytes held and the compared frames against `reference`'s decode of the file.
  private func assertReadInPlace(
    _ codec: any (AnimationEncoding & AnimationDecoding).Type, options: FormatOptionValues = [:],
    reference: (URL) throws -> [[UInt8]]
  ) throws {
    let name = codec.displayName
    let url = try write(codec, options: options)
    let (frames, held, kept) = try read(url, codec)
    XCTAssertEqual(frames, count, name)
    try assertBounded(held, file: url, name)
    let theirs = try reference(url)
    XCTAssertEqual(theirs.count, count, name)
    for k in compared { CodecTest.assertSame(try XCTUnwrap(kept[k]), theirs[k], ignoringHiddenColor: true, "\(name) frame \(k + 1)") }
  }

  func testAGIFFileIsReadInPlace() throws {
    try assertReadInPlace(GIFCodec.self) { try AnimationReferences.libvips($0, frameHeight: side) }
  }

  func testAnAPNGFileIsReadInPlace() throws {
    try assertReadInPlace(PNGCodec.self) { try AnimationReferences.pillow($0) }
  }

  func testAnAnimatedWebPFileIsReadInPlace() throws {
    try assertReadInPlace(WebPCodec.self, options: ["lossless": true, "effort": 0]) {
      try AnimationReferences.libvips($0, frameHeight: side)
    }
  }

  /// A pipe (a FIFO named as the input, `<(…)`) is not read in place but into memory, within the
  /// limit, as before: it has no size, and cannot be read at offsets.
  func testAPipeIsNotReadInPlace() throws {
    let pipe = Pipe()
    for codec in [GIFCodec.self, PNGCodec.self, WebPCodec.self] as [any FileReadingCodec.Type] {
      XCTAssertFalse(codec.readsInPlace(file: pipe.fileHandleForReading, request: DecodeRequest()), codec.displayName)
    }
  }

  /// A file cut short while its reader reads it is a `.truncated` error, not a crash (a mapped
  /// WebP's pages past the new end read as zeros, `GuardedMapping`), nor frames of garbage.
  func testAFileTruncatedWhileItIsReadIsTruncated() throws {
    let formats: [(any (AnimationEncoding & AnimationDecoding).Type, FormatOptionValues)] = [
      (GIFCodec.self, [:]), (PNGCodec.self, [:]), (WebPCodec.self, ["lossless": true]),
    ]
    for (codec, options) in formats {
      let url = try write(codec, options: options, frames: 200)
      let file = try FileHandle(forReadingFrom: url)
      defer { try? file.close() }
      let reader = try codec.makeFrameReader(file: file, limits: .default)
      XCTAssertNotNil(try reader.nextFrame())
      let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
      XCTAssertEqual(truncate(url.path, off_t(size / 2)), 0)
      var error: CodecError?
      do {
        while try reader.nextFrame() != nil {}
      } catch let caught as CodecError {
        error = caught
      }
      XCTAssertEqual(error?.kind, .truncated, "\(codec.displayName): \(String(describing: error))")
    }
  }
}
