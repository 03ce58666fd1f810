// HeldEnlargedInputTests.swift — a resample that enlarges a computed image holds that input
// (`Optimizer.holdEnlargedInputs`): computed once before the tiles, instead of once per output tile
// (`scale size=65535x1; scale size=1x65535` recomputed its 65535-pixel row for each of 1,024
// bands). Holding changes the schedule, never a pixel; sources and reductions are left alone.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class HeldEnlargedInputTests: XCTestCase {
  private let photo = { try! Image(contentsOf: Fixtures.url("jpeg/testorig.jpg")) }()

  private func renderer(holding: Bool) -> Renderer {
    Renderer(
      options: RendererOptions(
        threads: 2, tileSize: Size(width: 64, height: 16), optimizer: OptimizerOptions(holdEnlargedInputs: holding)))
  }

  private func heldNodes(_ image: Image, _ renderer: Renderer) -> Int {
    var count = 0, seen: Set<ObjectIdentifier> = []
    var pending = [renderer.scheduled(image).node]
    while let node = pending.popLast() {
      guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
      if node.operation is HeldInputOperation { count += 1 }
      pending.append(contentsOf: node.inputs)
    }
    return count
  }

  /// Enlargements of computed images are held, and render the same bytes as without holding.
  func testAnEnlargedComputedImageIsHeldAndRendersTheSame() throws {
    // Not under ThreadSanitizer (make test-tsan): equal bytes of large renders, ~100 s instrumented; held inputs' threads run in HeldAnalysedInputTests.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] == "thread" { throw XCTSkip("not under ThreadSanitizer") }
    let cases: [(String, Image)] = [
      ("blur then ×4", photo.blurred(sigma: 1).scaled(by: 4)),
      ("a row made a column", photo.scaled(to: Size(width: 4000, height: 1)).scaled(to: Size(width: 1, height: 4000))),
      ("vignette then taller", photo.vignetted().scaled(to: Size(width: 227, height: 600), kernel: .cubic)),
    ]
    for (name, image) in cases {
      XCTAssertEqual(heldNodes(image, renderer(holding: true)), 1, "\(name): the enlarged input is held")
      XCTAssertEqual(heldNodes(image, renderer(holding: false)), 0, name)
      let held = try renderer(holding: true).render(image, format: .rgba8)
      let recomputed = try renderer(holding: false).render(image, format: .rgba8)
      XCTAssertEqual(RecipeExamplesTests.packed(held), RecipeExamplesTests.packed(recomputed), "\(name): same bytes")
      let explained = try renderer(holding: true).explain(image)
      XCTAssertTrue(explained.contains("the whole input held in memory"), "\(name): explain says so\n\(explained)")
    }
  }

  /// A source is read from its decode, and a reduction reads each input pixel for one tile
  /// (or streams it): neither is held.
  func testSourcesAndReductionsAreNotHeld() {
    let holding = renderer(holding: true)
    XCTAssertEqual(heldNodes(photo.scaled(by: 4), holding), 0, "an enlarged source")
    XCTAssertEqual(heldNodes(photo.blurred(sigma: 1).scaled(by: 0.5), holding), 0, "a reduced computed image")
  }
}
