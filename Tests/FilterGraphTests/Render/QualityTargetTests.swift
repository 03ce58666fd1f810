// Tests of WriteOptions.target (Render/QualityTarget.swift, Render/Renderer+Target.swift): on three
// photos written as JPEG and WebP, the file scores within one point above the target, the search
// took at most three encodes, the next lower quality misses the target (so the file is the
// smallest that reaches it), and the scores are recomputed here from the file's decoded pixels.

import FilterGraph
import Foundation
import ImageCodecs
import TestSupport
import XCTest

final class QualityTargetTests: XCTestCase {
  /// The photos: two 256 × 256 corpus crops and samples/flower.jpg at 384 × 256.
  static func inputs() throws -> [(name: String, data: Data, recipe: (Image) throws -> Image)] {
    [
      ("rocket", try Fixtures.data("ssimulacra2/rocket.jpg"), { $0 }),
      ("kodim23", try Fixtures.data("ssimulacra2/kodim23.jpg"), { $0 }),
      ("flower", try Data(contentsOf: URL(fileURLWithPath: "samples/flower.jpg")), { $0.scaled(toWidth: 384) }),
    ]
  }

  func testLandsWithinOnePointInAtMostThreeEncodes() throws {
    let renderer = Renderer()
    for (i, input) in try Self.inputs().enumerated() {
      let image = try input.recipe(Image(data: input.data))
      let rendered = try renderer.render(image, format: .rgb8)
      for (j, format) in [ImageFileFormat.jpeg, .webp].enumerated() {
        let goal = [60.0, 70, 80][(i + j) % 3]
        let label = "\(input.name) \(format) ssimulacra2=\(goal)"
        var options = WriteOptions(format: format)
        options.target = try QualityTarget(score: goal)
        let result = try RenderJob(input: .data(input.data), destination: .memory, options: options, recipe: input.recipe)
          .run(on: renderer)
        let outcome = try XCTUnwrap(result.target, label)
        let file = try XCTUnwrap(result.data)
        XCTAssertLessThanOrEqual(outcome.encodes, 3, label)
        XCTAssertEqual(outcome.byteCount, file.count, label)
        let score = try SSIMULACRA2.score(renderer.render(Image(data: file), format: .rgb8), against: rendered)
        XCTAssertEqual(score, outcome.score, accuracy: 1e-9, label)
        XCTAssert((goal...(goal + 1)).contains(score), "\(label): \(outcome)")
        var lower = WriteOptions(format: format, options: ["quality": .integer(outcome.quality - 1)])
        lower.target = nil
        let smaller = try renderer.encode(image, format: format, options: lower)
        XCTAssertLessThan(try SSIMULACRA2.score(renderer.render(Image(data: smaller), format: .rgb8), against: rendered), goal, label)
        print(label, outcome)
      }
    }
  }

  /// An unreachable target writes the best encode found, warns, and says it was not reached; a
  /// lossless format and a target given with a quality are errors.
  func testUnreachableAndInvalidTargets() throws {
    let input = try Fixtures.data("ssimulacra2/rocket.jpg")
    var options = WriteOptions(format: .jpeg)
    options.target = try QualityTarget(score: 99)
    let result = try RenderJob(input: .data(input), destination: .memory, options: options).run(on: Renderer())
    let outcome = try XCTUnwrap(result.target)
    XCTAssertFalse(outcome.reached)
    XCTAssertLessThanOrEqual(outcome.encodes, 3)
    XCTAssert(result.warnings.contains { $0.contains("was not reached") }, "\(result.warnings)")
    options.format = .png
    XCTAssertThrowsError(try RenderJob(input: .data(input), destination: .memory, options: options).run(on: Renderer()))
    options.format = .jpeg
    options.formatOptions = ["quality": 80]
    XCTAssertThrowsError(try RenderJob(input: .data(input), destination: .memory, options: options).run(on: Renderer()))
    XCTAssertThrowsError(try QualityTarget(parsing: "psnr=40"))
    XCTAssertThrowsError(try QualityTarget(parsing: "ssimulacra2=120"))
    XCTAssertEqual(try QualityTarget(parsing: "SSIMULACRA2=72.5").score, 72.5)
  }
}
