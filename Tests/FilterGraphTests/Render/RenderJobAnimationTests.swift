// Tests of animated inputs through RenderJob (Job/PreparedRenderJob+Animation.swift): bytes of an
// animated GIF in, an animated GIF out (counted by Pillow), admitted by the frame loop's own
// memory estimate; to a still-only format, frame 1 with the decoder's warning, and frame options
// refused there; a quality target refused for an animation; a `page` asked for reads one frame.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class RenderJobAnimationTests: XCTestCase {
  private let recipe: (Image) throws -> Image = { $0.scaled(toWidth: 12) }

  /// Pillow's frame count and durations of `data`.
  private func pillowFrames(_ data: Data) throws -> String {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("python3 not installed") }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("RenderJobAnimationTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try data.write(to: folder.appendingPathComponent("out"))
    let script = """
      import json
      from PIL import Image, ImageSequence
      im = Image.open("out")
      print(json.dumps([im.format, im.n_frames, list(im.size), [int(f.info.get("duration", 0)) for f in ImageSequence.Iterator(im)]]))
      """
    let run = try ChildProcess.run("/usr/bin/python3", ["-c", script], in: folder)
    if run.stderr.contains("No module named 'PIL'") { throw XCTSkip("Pillow not installed") }
    XCTAssertEqual(run.status, 0, run.stderr)
    return run.text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// An animated GIF's bytes to memory, no format named: the input's format, every frame with its
  /// delay, no warning; the job's estimate is at least the frame loop's own for the same recipe.
  func testAnAnimatedInputInMemoryGivesAnAnimation() throws {
    let gif = try Fixtures.data("animation/disposal.gif")
    let renderer = Renderer()
    let prepared = try RenderJob(input: .data(gif), destination: .memory, recipe: recipe).prepare(on: renderer)
    XCTAssertEqual(prepared.animation?.frameCount, 5)
    XCTAssertTrue(try prepared.writesAnimation())
    let result = try prepared.render()
    XCTAssertEqual(result.format, .gif)
    XCTAssertEqual(result.frameCount, 5)
    XCTAssertEqual(result.size, Size(width: 12, height: 8))
    XCTAssertEqual(result.warnings, [])
    XCTAssertEqual(result.byteCount, result.data?.count)
    XCTAssertEqual(try pillowFrames(try XCTUnwrap(result.data)), #"["GIF", 5, [12, 8], [100, 50, 0, 200, 70]]"#)

    let defaults: FormatOptionValues = [:]
    let options = try defaults.resolved(by: GIFCodec.encodeOptions)
    let (_, summary) = try renderer.renderAnimation(from: try GIFCodec.makeFrameReader(gif, limits: .default), applying: recipe) {
      try GIFCodec.makeAnimationWriter(size: $0, layout: $1, loopCount: $2, frameCount: $3, options: options, metadata: ImageMetadata())
    }
    XCTAssertGreaterThanOrEqual(prepared.estimatedMemory, summary.estimatedBytes)
  }

  /// To JPEG the animation is its first frame, with one warning (not damage) naming the formats
  /// that keep every frame; frame options are refused there; `page` 2 reads frame 3 as a still.
  func testStillOutputsAndPages() throws {
    let gif = try Fixtures.data("animation/disposal.gif")
    let renderer = Renderer()
    var job = RenderJob(input: .data(gif), destination: .memory, options: WriteOptions(format: .jpeg), recipe: recipe)
    let still = try job.run(on: renderer)
    XCTAssertEqual(still.frameCount, 1)
    XCTAssertEqual(still.warnings.count, 1)
    XCTAssertTrue(still.warnings.first?.contains("only frame 1 is read") == true, "\(still.warnings)")
    XCTAssertTrue(still.warnings.first?.contains("GIF, WebP or PNG") == true, "\(still.warnings)")
    XCTAssertEqual(still.damage, [], "the input is whole: leaving frames out is the job's choice, not damage")
    job.animation.framesPerSecond = 10
    XCTAssertThrowsError(try job.run(on: renderer)) { XCTAssertEqual(($0 as? RenderJobError)?.stage, .options, "\($0)") }
    // A quality target re-encodes a still; an animation is refused it rather than written without it.
    var targeted = RenderJob(input: .data(gif), destination: .memory, options: WriteOptions(format: .webp), recipe: recipe)
    targeted.options.target = try QualityTarget(score: 70)
    XCTAssertThrowsError(try targeted.run(on: renderer)) { XCTAssertEqual(($0 as? RenderJobError)?.stage, .options, "\($0)") }

    let page = RenderJob(
      input: .data(gif), destination: .memory, loadOptions: LoadOptions(formatOptions: ["page": .integer(2)]), recipe: recipe)
    let prepared = try page.prepare(on: renderer)
    XCTAssertNil(prepared.animation)
    let one = try prepared.render()
    XCTAssertEqual(one.format, .gif)
    XCTAssertEqual(one.frameCount, 1)
    XCTAssertEqual(one.warnings, [])
    XCTAssertEqual(try pillowFrames(try XCTUnwrap(one.data)), #"["GIF", 1, [12, 8], [0]]"#)
  }
}
