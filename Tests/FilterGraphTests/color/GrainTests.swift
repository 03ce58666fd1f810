// GrainTests.swift — `grain` against its definition (Grain.swift): the noise statistics, the
// bilinear lattice, alpha, and the same bytes whatever the tiles, workers or seed reuse.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class GrainTests: XCTestCase {
  private let gray = Image(color: Color(white: 0.5), size: Size(width: 300, height: 200))

  private func bytes(_ image: Image, threads: Int, tile: Size) throws -> PixelBuffer {
    try Renderer(options: RendererOptions(threads: threads, tileSize: tile)).render(image, format: .rgb8)
  }

  /// The same seed gives the same bytes with one worker and one tile, two workers and small
  /// tiles, or four and odd-sized ones; another seed gives other grain.
  func testSameGrainWhateverTheTilingAndWorkers() throws {
    for size in [1.0, 2.5] {
      let image = gray.grained(amount: 0.1, size: size, seed: 42)
      let one = try bytes(image, threads: 1, tile: Size(width: 4096, height: 4096))
      XCTAssertTrue(one.hasSamePixels(as: try bytes(image, threads: 2, tile: Size(width: 64, height: 16))), "size \(size)")
      XCTAssertTrue(one.hasSamePixels(as: try bytes(image, threads: 4, tile: Size(width: 37, height: 23))), "size \(size)")
      XCTAssertTrue(one.hasSamePixels(as: try bytes(gray.grained(amount: 0.1, size: size, seed: 42), threads: 2, tile: Size(width: 100, height: 8))))
      XCTAssertFalse(one.hasSamePixels(as: try bytes(gray.grained(amount: 0.1, size: size, seed: 43), threads: 1, tile: Size(width: 4096, height: 4096))))
    }
  }

  /// Size 1: every pixel is mid-gray plus amount·G with G triangular on (−1, 1): mean 0,
  /// standard deviation 1/√6, and neighbours uncorrelated.
  func testNoiseStatistics() throws {
    let amount = 0.2
    let pixels = try renderFloat(gray.grained(amount: amount, seed: 9))
    let n = pixels.map { Double($0.x - 0.5) / amount }
    let mean = n.reduce(0, +) / Double(n.count)
    let sd = (n.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(n.count)).squareRoot()
    XCTAssertEqual(mean, 0, accuracy: 0.01)
    XCTAssertEqual(sd, 1 / 6.0.squareRoot(), accuracy: 0.01)
    XCTAssertLessThanOrEqual(n.map(abs).max()!, 1)
    let lag = zip(n, n.dropFirst()).map { $0 * $1 }.reduce(0, +) / Double(n.count - 1) / (sd * sd)
    XCTAssertEqual(lag, 0, accuracy: 0.03, "neighbours are independent at size 1")
    XCTAssertTrue(pixels.allSatisfy { $0.x == $0.y && $0.y == $0.z }, "the same grain on R, G and B")
  }

  /// Size 4: each pixel is the bilinear interpolation of the lattice, written out here.
  func testBilinearLattice() throws {
    let (amount, size, seed) = (0.3, 4.0, 5)
    let pixels = try renderFloat(gray.grained(amount: amount, size: size, seed: seed))
    for (x, y) in [(0, 0), (1, 2), (10, 7), (299, 199), (150, 3)] {
      let u = (Double(x) + 0.5) / size - 0.5, v = (Double(y) + 0.5) / size - 0.5
      let i = Int(floor(u)), j = Int(floor(v))
      let fx = u - Double(i), fy = v - Double(j)
      func g(_ a: Int, _ b: Int) -> Double { Double(GrainOperation.lattice(seed, a, b)) }
      let n = (1 - fy) * ((1 - fx) * g(i, j) + fx * g(i + 1, j)) + fy * ((1 - fx) * g(i, j + 1) + fx * g(i + 1, j + 1))
      XCTAssertEqual(Double(pixels[y * 300 + x].x), 0.5 + amount * n, accuracy: 1e-5, "(\(x), \(y))")
    }
    // Coarser grain: neighbours are correlated.
    let n = pixels.map { Double($0.x) - 0.5 }
    let lag = zip(n, n.dropFirst()).map { $0 * $1 }.reduce(0, +) / n.map { $0 * $0 }.reduce(0, +)
    XCTAssertGreaterThan(lag, 0.7)
  }

  /// Transparent pixels stay transparent; alpha is kept.
  func testAlphaKept() throws {
    let clear = Image(color: Color(red: 1, green: 0, blue: 0, alpha: 0), size: Size(width: 20, height: 20))
    XCTAssertTrue(try renderFloat(clear.grained(amount: 0.5)).allSatisfy { $0 == .zero })
    let half = Image(color: Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 0.5), size: Size(width: 20, height: 20))
    XCTAssertTrue(try renderFloat(half.grained(amount: 0.5)).allSatisfy { $0.w == 0.5 })
  }

  func testRecipeVerb() throws {
    let recipe = try compileRecipe("grain amount=8% size=2 seed=3", gray)
    XCTAssertEqual(recipe.node.structuralKey, gray.grained(amount: 0.08, size: 2, seed: 3).node.structuralKey)
    XCTAssertThrowsError(try compileRecipe("grain size=2%", gray))
  }
}
