// AnimationOutputMemoryTests.swift — an animation written to a file holds at most its output's
// buffer of the file, whatever the number of frames (AnimationOutput.swift), and the frame loop's
// memory estimate counts that buffer with the writer's state: 1,000 frames of 16×16 noise (256
// pixels, so a GIF's table holds them exactly) through the frame loop into GIF, APNG and lossless
// WebP files, each written to an unnamed file by `OutputFile` as a job's output is.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class AnimationOutputMemoryTests: XCTestCase {
  private let side = 16, count = 1000

  /// Frame `k`: RGB noise from its own seed, so every frame differs from the one before everywhere.
  private func frame(_ k: Int) -> PixelBuffer {
    PixelBuffer.random(width: side, height: side, format: .rgb8, seed: UInt64(k + 1))
  }

  /// The input: a GIF of the frames, 20 ms each, written to memory.
  private func input() throws -> Data {
    let writer = try GIFAnimationWriter(size: Size(width: side, height: side), hasAlpha: false, loopCount: 0, options: GIFEncodeOptions())
    for k in 0..<count { try writer.add(frame(k), delay: 20) }
    return try XCTUnwrap(writer.finish())
  }

  /// The frame loop from `gif` into `codec`'s writer on a file: the output's accounting, the
  /// writer's state, the loop's estimate, and the file.
  private func loop(
    _ gif: Data, into codec: any AnimationEncoding.Type, options: FormatOptionValues
  ) throws -> (output: AnimationOutput, state: Int, estimate: Int, file: Data) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("AnimationOutputMemoryTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("out")
    let resolved = try options.resolved(by: codec.encodeOptions)
    var result: (AnimationOutput, Int, Int)?
    try OutputFile.write(to: url) { handle in
      let output = AnimationOutput(handle: handle, format: "animation")
      let (writer, summary) = try Renderer().renderAnimation(from: try GIFCodec.makeFrameReader(gif, limits: .default), applying: { $0 }) {
        try codec.makeAnimationWriter(
          size: $0, layout: $1, loopCount: $2, frameCount: $3, options: resolved, metadata: ImageMetadata(), executor: nil, output: output)
      }
      XCTAssertNil(try writer.finish(), "a file's bytes are not handed back")
      result = (output, writer.stateBytes, summary.estimatedBytes)
    }
    let (output, state, estimate) = try XCTUnwrap(result)
    return (output, state, estimate, try Data(contentsOf: url))
  }

  /// Each format: the file is many buffers long, the bytes held never passed one buffer, the
  /// estimate covers the writer's state and those bytes, and the file has every frame, the last
  /// one exact.
  func testAThousandFramesHoldOneBufferOfTheFile() throws {
    let gif = try input()
    let last = frame(count - 1)
    let formats: [(any (AnimationEncoding & AnimationDecoding).Type, FormatOptionValues)] = [
      (GIFCodec.self, [:]), (PNGCodec.self, [:]), (WebPCodec.self, ["lossless": true]),
    ]
    for (codec, options) in formats {
      let name = codec.displayName
      let (output, state, estimate, file) = try loop(gif, into: codec, options: options)
      XCTAssertEqual(output.count, file.count, name)
      XCTAssertGreaterThan(file.count, 4 * AnimationOutput.bufferCapacity, name)
      XCTAssertGreaterThan(output.peakHeldBytes, 0, name)
      XCTAssertLessThanOrEqual(output.peakHeldBytes, AnimationOutput.bufferCapacity, name)
      XCTAssertGreaterThanOrEqual(estimate, state + output.peakHeldBytes, name)

      XCTAssertEqual(try codec.readAnimation(file, limits: .default).frameCount, count, name)
      let reader = try codec.makeFrameReader(file, limits: .default)
      try reader.skip(count - 1)
      let decoded = try XCTUnwrap(try reader.nextFrame(), name)
      XCTAssertNil(try reader.nextFrame(), name)
      let channels = decoded.format.channelCount
      var differing = 0
      decoded.withUnsafeBaseAddress { got, gotStride in
        last.withUnsafeBaseAddress { want, wantStride in
          for y in 0..<side {
            for x in 0..<side {
              for c in 0..<3 where got.load(fromByteOffset: y * gotStride + x * channels + c, as: UInt8.self)
                != want.load(fromByteOffset: y * wantStride + x * 3 + c, as: UInt8.self)
              {
                differing += 1
              }
            }
          }
        }
      }
      XCTAssertEqual(differing, 0, name)
    }
  }
}
