// SharedGraphTests.swift — a graph that reuses its images (`nK = blend nK-1 nK-2`) has
// exponentially many paths but few nodes and edges: its keys, walks, explanation, estimate and
// render cost its nodes and edges, not its paths.
@testable import FilterGraph
import PixelBufferModule
import XCTest

final class SharedGraphTests: XCTestCase {
  /// n0 a grey image, n1 its blur, nK = nK-1 screened at half opacity over nK-2: `count` + 1
  /// nodes, 2·`count` − 1 edges, about φ^`count` paths from the output to the grey.
  private func fibonacciGraph(_ count: Int, opacity: Double = 0.5) -> Image {
    let grey = Image(color: Color(white: 0.25), size: Size(width: 24, height: 16))
    var older = grey, newer = grey.blurred(sigma: 0.5)
    for _ in 2...count {
      (older, newer) = (newer, newer.composited(over: older, mode: .screen, opacity: opacity))
    }
    return newer
  }

  func testStructuralKeysStayShortAndStillTellGraphsApart() {
    // Spelled out in full, this key is about 3 MB (it doubles every two steps).
    let image = fibonacciGraph(24)
    let key = image.node.structuralKey
    XCTAssertLessThanOrEqual(key.utf8.count, 2 * ImageNode.longestSpelledKey, "the key spells out every path")
    XCTAssertTrue(key.contains("sha256:"), key)
    // The same graph built again (other objects) has the same key; one argument changed at the
    // bottom of the graph gives another.
    XCTAssertEqual(fibonacciGraph(24).node.structuralKey, key)
    XCTAssertNotEqual(fibonacciGraph(24, opacity: 0.5001).node.structuralKey, key)
    // Small graphs are spelled out.
    XCTAssertFalse(fibonacciGraph(3).node.structuralKey.contains("sha256:"))
  }

  func testTheRegionWalkFollowsEachNodeOncePerRegion() throws {
    let image = fibonacciGraph(24)
    var visits = 0
    Regions.walk(from: image.node, Rect(x: 0, y: 0, width: 24, height: 16)) { _, _, _ in
      visits += 1
      return true
    }
    // 47 edges, each read for one region (the blur reads a larger one of the grey).
    XCTAssertLessThanOrEqual(visits, 2 * 24, "the walk follows paths, not edges")
  }

  func testAGraphOfSixtySharedStepsExplainsEstimatesAndRenders() throws {
    let image = fibonacciGraph(60)
    let renderer = Renderer(options: RendererOptions(threads: 2))
    let text = try renderer.explain(image)
    XCTAssertEqual(text.components(separatedBy: "computed once").count - 1, 2 * 59, text)
    XCTAssertLessThan(renderer.estimatedMemory(for: image), 64 << 20)
    let shared = try renderer.render(image)
    // The same graph run exactly as built, without common-subgraph elimination: the same pixels.
    let plain = try Renderer(options: RendererOptions(threads: 1, optimizer: .none)).render(image)
    XCTAssertEqual(shared.size, Size(width: 24, height: 16))
    XCTAssertEqual(shared.integerValues(), plain.integerValues())
  }
}
