// MedianTests.swift — median against the definition (Median.swift), computed by sorting each window.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class MedianTests: XCTestCase {
  typealias H = ConvolutionTestHelpers
  typealias G = GeometryTestSupport

  /// The definition: per channel, the middle of the sorted (2r+1)² window, coordinates clamped.
  func bruteForce(_ pixels: [[SIMD4<Float>]], radius r: Int) -> [[SIMD4<Float>]] {
    let h = pixels.count, w = pixels[0].count
    return (0..<h).map { y in
      (0..<w).map { x in
        var window: [SIMD4<Float>] = []
        for j in -r...r {
          for i in -r...r { window.append(pixels[min(max(y + j, 0), h - 1)][min(max(x + i, 0), w - 1)]) }
        }
        var out = SIMD4<Float>()
        for c in 0..<4 { out[c] = window.map { $0[c] }.sorted()[window.count / 2] }
        return out
      }
    }
  }

  /// Renderers with tile sizes that do not divide the test images, and one tile.
  let renderers = [
    Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 17, height: 13))),
    ConvolutionTestHelpers.tiled(), ConvolutionTestHelpers.oneTile(),
  ]

  /// 8-bit data: the network (r ≤ 2) and the sliding histogram (r ≥ 3) give the sorted middle.
  func testEightBitEqualsTheSortedWindowMiddle() throws {
    let image = H.randomImage(width: 53, height: 41, seed: 21)
    let input = try H.renderFloat(image, renderer: H.oneTile())
    for r in [1, 2, 3, 5] {
      let expected = bruteForce(input, radius: r)
      for renderer in renderers {
        XCTAssertEqual(try H.renderFloat(image.median(radius: r), renderer: renderer), expected, "radius \(r)")
      }
    }
  }

  /// Float data with repeated values and partial alpha: the network and the selection path.
  func testFloatDataEqualsTheSortedWindowMiddle() throws {
    var rng = SeededGenerator(seed: 8)
    let w = 45, h = 38
    let values = (0..<(w * h)).map { _ in
      let a = Float.random(in: 0.1...1, using: &rng)
      func c() -> Float { Bool.random(using: &rng) ? 0.5 * a : Float.random(in: 0...1, using: &rng) * a }
      return SIMD4(c(), c(), c(), a)
    }
    let image = H.floatImage(width: w, height: h) { x, y in values[y * w + x] }
    let input = try H.renderFloat(image, renderer: H.oneTile())
    for r in [1, 2, 3, 4] {
      let expected = bruteForce(input, radius: r)
      for renderer in renderers {
        XCTAssertEqual(try H.renderFloat(image.median(radius: r), renderer: renderer), expected, "radius \(r)")
      }
    }
  }

  /// libvips's 3×3 median (`vips rank … 3 3 4`) gives the same bytes on an 8-bit photo, edges
  /// included. (Its larger windows are not a reference: `vips rank … 5 5 12` disagrees with the
  /// sorted-window median that NumPy and this filter compute.)
  func testRadiusOneEqualsLibvipsRank() throws {
    let image = H.randomImage(width: 61, height: 47, seed: 13)
    let reference = try H.vips("rank", image, ["3", "3", "4"])
    XCTAssertTrue(try H.oneTile().render(image.median(radius: 1), format: .rgb8).hasSamePixels(as: reference))
  }

  /// The 0–1 principle: a function made of min and max selects the k-th smallest of every input
  /// iff it does for every input of zeros and ones: all 2⁹ of them for the sorted-column 3×3
  /// median and Batcher's 3×3 network (the 5×5 network, 113 comparators, is checked on random data).
  func testThreeByThreeSelectionsPickTheMiddleOfEveryZeroOneInput() {
    let network = MedianNetwork(selecting: 4, of: 9)
    for bits in 0..<(1 << 9) {
      let inputs = (0..<9).map { Float((bits >> $0) & 1) }
      let expected: Float = bits.nonzeroBitCount >= 5 ? 1 : 0
      XCTAssertEqual(MedianOfNine.median(of: inputs.map { SIMD4(repeating: $0) }), SIMD4(repeating: expected), "input \(bits)")
      var wires = inputs
      for c in network.comparators {
        let (u, v) = (wires[c.low], wires[c.high])
        if c.writesLow { wires[c.low] = min(u, v) }
        if c.writesHigh { wires[c.high] = max(u, v) }
      }
      XCTAssertEqual(wires[network.result], expected, "input \(bits)")
    }
    XCTAssertEqual(network.comparators.count, 24)
    XCTAssertEqual(MedianNetwork.fiveByFive.comparators.count, 113)
  }

  /// Isolated salt and pepper pixels vanish; a vertical and a diagonal step edge stay in place.
  func testRadiusOneRemovesSaltAndKeepsAStepEdge() throws {
    let w = 40, h = 30
    let salt: Set<Int> = [3 * w + 5, 10 * w + 30, 20 * w + 12, 0, 29 * w + 39]
    let image = H.floatImage(width: w, height: h) { x, y in
      let base: Float = x < 20 ? 0.2 : 0.8
      if salt.contains(y * w + x) { return base < 0.5 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) }
      return SIMD4(base, base, base, 1)
    }
    let out = try H.renderFloat(image.median(radius: 1))
    for y in 0..<h {
      for x in 0..<w {
        let v: Float = x < 20 ? 0.2 : 0.8
        XCTAssertEqual(out[y][x], SIMD4(v, v, v, 1), "(\(x), \(y))")
      }
    }
    let diagonal = H.floatImage(width: w, height: h) { x, y in x > y ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) }
    XCTAssertEqual(try H.renderFloat(diagonal.median(radius: 1)), try H.renderFloat(diagonal))
  }

  func testTiledRenderEqualsOneTileRenderBitForBit() throws {
    let image = H.randomImage(width: 100, height: 70, seed: 4)
    for r in [1, 2, 6] { try H.assertTilingInvariant(image.median(radius: r)) }
    let soft = image.boxBlurred(radius: 1)
    try H.assertTilingInvariant(soft.median(radius: 3))
  }

  func testRecipeBuildsTheSwiftGraph() throws {
    let image = H.randomImage(width: 8, height: 8, seed: 1)
    XCTAssertEqual(G.signature(try G.compile("median radius=2", input: image).node), G.signature(image.median(radius: 2).node))
    XCTAssertEqual(G.signature(try G.compile("median", input: image).node), G.signature(image.median(radius: 1).node))
    XCTAssertTrue(image.median(radius: 0).node === image.node)
    XCTAssertEqual(try H.renderFloat(image.applying(MedianOperation(.setting { $0.radius = 0 }))), try H.renderFloat(image))
    XCTAssertEqual((image.median(radius: 1000).node.operation as? MedianOperation)?.parameters.radius, 100)
    XCTAssertThrowsError(try G.compile("median radius=-1", input: image))
  }
}
