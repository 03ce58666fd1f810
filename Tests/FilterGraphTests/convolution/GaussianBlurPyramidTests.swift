// GaussianBlurPyramidTests.swift — large blurs through a reduced copy equal the exact Gaussian
// within two 8-bit levels (six in the outermost k pixels), keep the image's size and tile-invariance, and are used only where
// they should be.
import Locking
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class GaussianBlurPyramidTests: XCTestCase {
  /// Coloured rectangles, a disc and a gradient on 240 × 180: edges of every direction.
  private let scene = ConvolutionTestHelpers.floatImage(width: 240, height: 180) { x, y in
    if (40..<120).contains(x) && (30..<90).contains(y) { return SIMD4(0.9, 0.1, 0.1, 1) }
    let dx = Float(x - 170), dy = Float(y - 110)
    if dx * dx + dy * dy < 45 * 45 { return SIMD4(0.1, 0.2, 0.95, 1) }
    if x > 200 && y < 40 { return SIMD4(1, 1, 1, 1) }
    return SIMD4(Float(x) / 240, Float(y) / 180 * 0.5, 0.3, 1)
  }

  private func render8(_ image: Image) throws -> [Int] {
    try ConvolutionTestHelpers.oneTile().render(image, format: .rgba8).integerValues()
  }

  func testALargeBlurMatchesTheExactGaussianWithinTwoLevels() throws {
    for (sigma, linear) in [(40.0, true), (60.0, false)] {
      let pyramid = scene.blurred(sigma: sigma, linearLight: linear)
      XCTAssertNotNil(GaussianBlurOperation(.setting { ($0.sigma, $0.linear) = (sigma, linear) }).pyramidFactor)
      let exact = scene.applying(GaussianBlurOperation(.setting { ($0.sigma, $0.linear, $0.method) = (sigma, linear, .exact) }))
      let a = try render8(pyramid), b = try render8(exact)
      XCTAssertEqual(a.count, b.count)
      let differences = zip(a, b).map { abs($0 - $1) }
      let mean = Double(differences.reduce(0, +)) / Double(differences.count)
      XCTAssertLessThan(mean, 0.35, "σ \(sigma)")
      // Within the outermost k pixels the reduced copy cannot follow the edge pixel exactly.
      let k = Int(sigma / 8)
      for (i, d) in differences.enumerated() {
        let x = i / 4 % 240, y = i / 4 / 240
        let inner = x >= k && x < 240 - k && y >= k && y < 180 - k
        XCTAssertLessThanOrEqual(d, inner ? 2 : 6, "σ \(sigma) at (\(x), \(y))")
        if d > (inner ? 2 : 6) { break }
      }
    }
  }

  func testThePyramidKeepsTheSizeAndIsTileInvariant() throws {
    let blurred = scene.blurred(sigma: 50)
    XCTAssertEqual(blurred.size, scene.size)
    try ConvolutionTestHelpers.assertTilingInvariant(blurred)
  }

  func testOnlyLargeAutomaticBlursUseThePyramid() throws {
    XCTAssertNil(GaussianBlurOperation(.setting { $0.sigma = 32 }).pyramidFactor)
    XCTAssertEqual(GaussianBlurOperation(.setting { $0.sigma = 33 }).pyramidFactor, 4)
    XCTAssertEqual(GaussianBlurOperation(.setting { $0.sigma = 500 }).pyramidFactor, 62)
    XCTAssertNil(GaussianBlurOperation(.setting { ($0.sigma, $0.method) = (500, .exact) }).pyramidFactor)
    XCTAssertNil(GaussianBlurOperation(.setting { ($0.sigma, $0.method) = (500, .box) }).pyramidFactor)
    // The recipe verb builds the same graph as the Swift method.
    let recipe = try Recipe.parse("blur sigma=200", file: nil).compile(
      input: scene, context: FilterContext(baseDirectory: URL(fileURLWithPath: "/")))
    XCTAssertEqual(recipe.node.structuralKey, scene.blurred(sigma: 200).node.structuralKey)
    XCTAssertTrue(recipe.node.operation is HeldInputOperation, recipe.node.structuralKey)
    XCTAssertTrue(recipe.node.structuralKey.hasPrefix("scale"), recipe.node.structuralKey)
  }

  /// How many source pixels one render of `blurred(sigma:)` of a 1200 × 900 image pulls.
  private func pixelsPulled(sigma: Double, renderer: Renderer) throws -> Int {
    let source = CountingSource(size: Size(width: 1200, height: 900))
    let out = try renderer.render(Image(node: ImageNode(operation: source, inputs: [])).blurred(sigma: sigma), format: .rgba8)
    XCTAssertEqual(out.size, source.size)
    return source.pulled.withLock { $0 }
  }

  /// The reduced copy is computed once per render, so the work does not grow with σ. Computed tile
  /// by tile, σ 40 pulled 37 times the source's pixels with 64 × 32 tiles and 6.5 times with the
  /// default tiles, and σ 500 the whole source for every output tile; with the reduction and the
  /// blur held as one copy, σ 40 pulled 3.7 and 1.8 times (the reduced tiles overlapped by the
  /// reduced blur's reach); with the reduction held on its own, its tiles read disjoint blocks.
  func testTheSourceIsReadAboutOnceWhateverSigma() throws {
    let area = 1200 * 900
    for sigma in [40.0, 100, 250, 500] {
      for renderer in [ConvolutionTestHelpers.tiled(), Renderer(options: RendererOptions(threads: 2))] {
        let pulled = try pixelsPulled(sigma: sigma, renderer: renderer)
        XCTAssertLessThanOrEqual(Double(pulled), 1.05 * Double(area), "σ \(sigma), \(renderer.options.tileSize) tiles")
        XCTAssertGreaterThanOrEqual(pulled, area, "σ \(sigma): every source pixel is read")
      }
    }
  }

  func testARenderComputesTheHeldCopiesOnceAndKeepsThemWithinTheByteLimit() throws {
    let renderer = ConvolutionTestHelpers.tiled()
    let image = scene.blurred(sigma: 100)
    let first = try renderer.render(image, format: .rgba8)
    XCTAssertEqual(renderer.analysisStatistics.computed, 2, "the reduction, then its blur")
    // 240 × 180 at k = 12: two 20 × 15 float copies, kept for the next render of the same graph.
    XCTAssertEqual(renderer.analyses.retainedBytes, 2 * 20 * 15 * 16)
    XCTAssertTrue(try renderer.render(image, format: .rgba8).hasSamePixels(as: first))
    XCTAssertEqual(renderer.analysisStatistics.computed, 2)
    XCTAssertGreaterThanOrEqual(renderer.analysisStatistics.reused, 1)
    // A renderer whose cache allows less keeps nothing and computes the copies again.
    let small = Renderer(options: RendererOptions(threads: 2, cacheLimitBytes: 4 * 20 * 15 * 16 - 1))
    XCTAssertTrue(try small.render(image, format: .rgba8).hasSamePixels(as: first))
    XCTAssertTrue(try small.render(image, format: .rgba8).hasSamePixels(as: first))
    XCTAssertEqual(small.analyses.retainedBytes, 0)
    XCTAssertEqual(small.analysisStatistics.computed, 4)
  }

  /// The held reduction is computed in strips (bands of a few reduced rows, each pulling at most
  /// `inputTileByteLimit` of the source), the blur on it in ordinary tiles; the result equals
  /// the same three steps computed tile by tile with nothing held (large tiles: each pulls its
  /// share of the reduction whole), as the pyramid was first computed.
  func testTheStripsGiveTheSameImageAsTheUnheldSteps() throws {
    // Not under ThreadSanitizer (make test-tsan): equal floats over 800×600 at three sigmas; the held strips' threads run in the other pyramid tests.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] == "thread" { throw XCTSkip("not under ThreadSanitizer") }
    let source = ConvolutionTestHelpers.floatImage(width: 800, height: 600) { x, y in
      let dx = Float(x - 470), dy = Float(y - 260)
      if dx * dx + dy * dy < 150 * 150 { return SIMD4(0.1, 0.2, 0.95, 1) }
      if (70..<330).contains(x) && (400..<530).contains(y) { return SIMD4(0.9, 0.1, 0.1, 0.5) }
      return SIMD4(Float(x) / 800, Float(y) / 600 * 0.5, Float((x / 37 + y / 23) % 2), 1)
    }
    // Not holding the enlarged input either: held, the blurred reduction would be computed in
    // bounded strips too, each pulling the source again for the blur's reach (~20 times the work).
    let unheldRenderer = Renderer(
      options: RendererOptions(
        threads: 2, tileSize: Size(width: 4096, height: 4096), optimizer: OptimizerOptions(holdEnlargedInputs: false)))
    let strips = Renderer(options: RendererOptions(threads: 2))
    for sigma in [40.0, 100, 500] {
      let k = try XCTUnwrap(GaussianBlurOperation(.setting { $0.sigma = sigma }).pyramidFactor)
      // The reduction's view really is cut into strips pulling ≤ the limit from the source.
      let reduction = source.scaled(
        to: Size(width: (800 + k / 2) / k, height: (600 + k / 2) / k), kernel: .box, linearLight: true, allowsShrinkOnLoad: false)
      let bounded = strips.tileSize(for: reduction.node, bounded: true)
      XCTAssertLessThan(bounded.height, reduction.size.height, "σ \(sigma): strips")
      XCTAssertLessThanOrEqual(
        Renderer.largestInputBytes(reduction.node, Rect(x: 0, y: 0, width: bounded.width, height: bounded.height)),
        Renderer.inputTileByteLimit)
      // The same steps, unheld.
      let kk = Double(k)
      let unheld = reduction
        .applying(GaussianBlurOperation(.setting { ($0.sigma, $0.method) = ((sigma * sigma - kk * kk / 4).squareRoot() / kk, .automatic) }))
        .applying(ScaleOperation(targetSize: source.size, kernel: .linear, linearLight: true, allowsShrinkOnLoad: false))
      let expected = try unheldRenderer.render(unheld, format: ConvolutionTestHelpers.floatFormat)
      let got = try strips.render(source.blurred(sigma: sigma), format: ConvolutionTestHelpers.floatFormat)
      XCTAssertTrue(got.hasSamePixels(as: expected), "σ \(sigma): the held strips differ from one whole tile")
    }
  }
}

/// A generated gradient that counts the pixels tiles pull from it.
private struct CountingSource: SourceOperation {
  let size: Size
  let pulled = Locked(0)

  var descriptor: OperationDescriptor { ColorSourceOperation.table }
  var arguments: Arguments { Arguments([("size", .size(size))]) }
  var identity: String { "counting:\(ObjectIdentifier(pulled).hashValue)" }

  func outputInfo(inputs: [ImageInfo]) -> ImageInfo { ImageInfo(size: size, layout: .rgb, component: .uint8, colorSpace: .sRGB) }

  func decodePixels() throws -> PixelBuffer? { nil }

  func fill(_ tile: inout Tile, space: WorkingSpace) {
    pulled.withLock { $0 += tile.rect.width * tile.rect.height }
    let rect = tile.rect, size = size
    tile.withMutablePixels { px in
      for y in 0..<px.height {
        for x in 0..<px.width {
          px[row: y][x] = SIMD4(Float(rect.x + x) / Float(size.width), Float(rect.y + y) / Float(size.height), 0.5, 1)
        }
      }
    }
  }
}
