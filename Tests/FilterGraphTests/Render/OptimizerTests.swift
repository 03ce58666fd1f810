// OptimizerTests.swift — common subgraphs computed once; rewrites keep the pixels.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class OptimizerTests: XCTestCase {
  private let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 16, height: 8)))

  private func nodeCount(_ root: ImageNode) -> Int {
    var seen: Set<ObjectIdentifier> = []
    func visit(_ n: ImageNode) {
      guard seen.insert(ObjectIdentifier(n)).inserted else { return }
      n.inputs.forEach(visit)
    }
    visit(root)
    return seen.count
  }

  func testIdenticalChainsBuiltSeparatelyAreComputedOnce() throws {
    let buffer = PixelBuffer(width: 6, height: 4, format: .rgb8, zeroed: true)
    func branch() -> Image {
      Image(buffer: buffer).rotated(byDegrees: 90).composited(over: Image(color: .white, size: Size(width: 9, height: 9)), gravity: .north)
    }
    let a = branch(), b = branch()
    XCTAssertFalse(a.node === b.node)
    let img = a.composited(over: b, mode: .multiply)
    XCTAssertEqual(nodeCount(img.node), 9)  // 2 × (buffer, orient, solid, composite) + root
    let optimized = renderer.optimized(img)
    XCTAssertEqual(nodeCount(optimized), 5)  // buffer, orient, solid, composite, root
    XCTAssertTrue(optimized.inputs[0] === optimized.inputs[1])
    XCTAssertTrue(GraphPrinter.describe(optimized).contains("computed once"), GraphPrinter.describe(optimized))
    XCTAssertTrue(GraphPrinter.describe(optimized).contains("[read by 2]"))
    XCTAssertEqual(try renderer.render(img).size, Size(width: 9, height: 9))
  }

  func testDifferentArgumentsAreNotMerged() {
    let buffer = PixelBuffer(width: 6, height: 4, format: .rgb8, zeroed: true)
    let a = Image(buffer: buffer).rotated(byDegrees: 90), b = Image(buffer: buffer).rotated(byDegrees: 270)
    let optimized = renderer.optimized(a.composited(over: b))
    XCTAssertFalse(optimized.inputs[0] === optimized.inputs[1])
    // Only the shared buffer source is read twice.
    XCTAssertEqual(GraphPrinter.describe(optimized).components(separatedBy: "computed once").count - 1, 1)
  }

  func testOptimizedAndUnoptimizedRendersAreEqual() throws {
    let photo = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    let img = photo.rotated(byDegrees: 90).flippedHorizontally().rotated(byDegrees: 180)
      .composited(over: photo.flippedVertically().flippedVertically(), mode: .screen, opacity: 0.5)
    let plain = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 16, height: 8), optimizer: .none))
    // The plain renderer runs the graph as built; the default one folds the orients and shares
    // the source, so the two renders compute the pixels in different ways.
    XCTAssertEqual(nodeCount(plain.optimized(img)), nodeCount(img.node))
    XCTAssertLessThan(nodeCount(renderer.optimized(img)), nodeCount(img.node))
    XCTAssertTrue(try renderer.render(img, format: .rgbaFloatPremultiplied).hasSamePixels(as: try plain.render(img, format: .rgbaFloatPremultiplied)))
  }

  func testFusedRunsOfDifferentFiltersOverOneInputStayApart() throws {
    // Two different per-pixel chains read one photo: each fuses into its own pass, and the two
    // passes must not be taken for the same computation.
    let photo = Image(buffer: PixelBuffer.random(width: 19, height: 11, format: .rgb8, seed: 5))
    let warm = photo.tinted(Color(hex: "#FF8000")!, amount: 0.5), cool = photo.tinted(Color(hex: "#0040FF")!, amount: 0.5)
    let img = warm.composited(over: cool, mode: .multiply)
    let plain = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 16, height: 8), optimizer: .none))
    let optimized = renderer.optimized(img)
    XCTAssertFalse(optimized.inputs[0] === optimized.inputs[1], GraphPrinter.describe(optimized))
    XCTAssertTrue(try renderer.render(img).hasSamePixels(as: try plain.render(img)))
  }
}
