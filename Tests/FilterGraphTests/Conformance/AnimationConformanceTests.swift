// AnimationConformanceTests.swift — every registered filter works on an animation: its table's
// example (FilterConformanceTests' recipe: other images it names are the PngSuite RGBA PNG or
// the frame itself) runs through the frame loop on two different frames, and the loop's second
// frame equals the recipe rendered on that frame alone, byte for byte. So no filter's graph,
// analysis (normalize's histogram…) or overlay keeps frame 1's pixels for frame 2. Filters that
// choose a window (trim, smartcrop) cut frame 2 in frame 1's window instead, as
// AnimationLoopTests.testWindowsAreDecidedOnTheFirstFrame checks; here their frame 2 only keeps
// frame 1's size.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

/// Frames handed out from memory, in order.
private final class FramesInMemory: AnimationFrameReader {
  let info: AnimationInfo
  let frameFormat = PixelFormat.rgb8
  private var frames: [PixelBuffer]

  init(_ frames: [PixelBuffer]) {
    info = AnimationInfo(canvasSize: frames[0].size, delays: Array(repeating: 40, count: frames.count), loopCount: 0)
    self.frames = frames
  }

  func nextFrame() throws -> PixelBuffer? { frames.isEmpty ? nil : frames.removeFirst() }
}

/// Keeps every frame it is given.
private final class FramesKept: AnimationFrameWriter {
  var frames: [PixelBuffer] = []
  func add(_ frame: PixelBuffer, delay: Int) throws { frames.append(frame) }
  func finish() throws -> Data? { Data() }
  var stateBytes: Int { 0 }
}

final class AnimationConformanceTests: XCTestCase {
  /// Lines run instead of a table's example whose output is far larger than the 40×27 frames
  /// (seconds of debug-build rendering): the same filter and options at a small size.
  static let smallerOutputs = [
    "scale": "scale fit=24x24 kernel=lanczos3",
    "solid": "paper = solid color=#F4ECD8 size=40x27",
  ]

  func testEveryRegisteredFilterRendersEachFrameAsThatFrameAlone() throws {
    let renderer = Renderer(options: RendererOptions(threads: 2))
    let photo = try renderer.render(try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg")).scaled(toWidth: 40), format: .rgb8)
    // Frame 2: the photo mirrored, its channels rotated and darkened, so every statistic differs.
    let second = try renderer.render(
      Image(buffer: photo).flippedHorizontally().applyingColorMatrix(
        try XCTUnwrap(ColorMatrix(values: [0, 0, 0.7, 0, 0, 0.7, 0, 0, 0, 0, 0, 0.7, 0, 0, 0, 0, 0, 0, 1, 0]))),
      format: .rgb8)
    let context = FilterContext(baseDirectory: Fixtures.url("pngsuite"))
    var windowed: [String] = []
    for definition in FilterRegistry.all {
      let name = definition.descriptor.name
      let text = try Self.smallerOutputs[name] ?? FilterConformanceTests.recipe(for: definition)
      let recipe = { (frame: Image) in try Recipe.parse(text, file: name).compile(input: frame, context: context) }
      let kept = FramesKept()
      _ = try renderer.renderAnimation(from: FramesInMemory([photo, second]), applying: recipe) { _, _, _, _ in kept }
      XCTAssertEqual(kept.frames.count, 2, name)
      guard kept.frames.count == 2 else { continue }
      let alone = Renderer.sRGB(try recipe(Image(buffer: second)))
      if Self.choosesAWindow(alone.node) {
        windowed.append(name)
        XCTAssertEqual(kept.frames[1].size, kept.frames[0].size, name)
        continue
      }
      let expected = try renderer.render(alone, format: alone.info.layout.hasAlpha ? .rgba8 : .rgb8)
      XCTAssertTrue(kept.frames[1].hasSamePixels(as: expected), "\(name): frame 2 differs from the recipe on frame 2 alone (\(text))")
    }
    XCTAssertTrue(Set(windowed).isSubset(of: ["smartcrop", "trim"]), "\(windowed)")
  }

  /// True when an operation at or below `node` chooses a window from its pixels.
  private static func choosesAWindow(_ node: ImageNode) -> Bool {
    node.operation is any WindowChoosingOperation || node.inputs.contains(where: choosesAWindow)
  }
}
