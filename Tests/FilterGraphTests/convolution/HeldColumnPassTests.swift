// HeldColumnPassTests.swift — a blur of large reach runs as a row pass and a column pass over the
// held rows (HeldColumnPass.swift): each tile reads its own rows, not a halo of the reach on every
// side (`boxblur radius=1000` on 24 MP took 79 s, `blur sigma=200 method=exact` 89 s: issue #28
// finding 11), and the result is the blur's definition, bit for bit the one-operation blur's.

import Foundation
import Locking
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class HeldColumnPassTests: XCTestCase {
  typealias H = ConvolutionTestHelpers

  /// Passes its input through, counting the pixels of the tiles asked of it: the pixels the
  /// operation above reads.
  private struct Counting: ImageOperation {
    final class Counter: Sendable {
      let pixels = Locked(0)
    }
    let counter = Counter()
    var descriptor: OperationDescriptor {
      OperationDescriptor(name: "count", category: .convolution, summary: "Counts the pixels read.", parameters: [], example: "")
    }
    var arguments: Arguments { Arguments([("id", .size(Size(width: ObjectIdentifier(counter).hashValue & 0xFFFF, height: 1)))]) }
    var workingSpace: WorkingSpace? { nil }
    func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect { output }
    func render(into output: inout Tile, inputs: [Tile]) throws {
      counter.pixels.withLock { $0 += output.rect.width * output.rect.height }
      let input = inputs[0]
      input.withPixels { src in
        output.withMutablePixels { dst in
          for y in 0..<dst.height { dst[row: y].update(from: src[row: y], count: dst.width) }
        }
      }
    }
  }

  /// How many input pixels rendering `blur` of `image` reads, per pixel of the image.
  private func readsPerPixel(_ image: Image, _ renderer: Renderer, _ blur: (Image) -> Image) throws -> Double {
    let counting = Counting()
    _ = try renderer.render(blur(image.applying(counting)), format: .rgba8)
    return Double(counting.counter.pixels.withLock { $0 }) / Double(image.size.width * image.size.height)
  }

  /// Bands of two rows, the image's width: each tile of a one-operation blur read the image's
  /// full height (its halo) for its two rows, height / 2 times the image in all; the row pass reads each
  /// tile's own rows.
  private let bands = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 256, height: 2)))

  /// `boxblur radius=256` of a 120 × 30 image.
  func testALargeBoxBlurReadsRowsNotAHaloOnEverySide() throws {
    let reads = try readsPerPixel(H.randomImage(width: 120, height: 30, seed: 3), bands) { $0.boxBlurred(radius: 256) }
    XCTAssertLessThan(reads, 2, "input pixels read per image pixel")
  }

  /// `blur sigma=43 method=exact` (reach 129) of a 200 × 60 image.
  func testALargeExactBlurReadsRowsNotAHaloOnEverySide() throws {
    let reads = try readsPerPixel(H.randomImage(width: 200, height: 60, seed: 4), bands) { $0.blurred(sigma: 43, method: .exact) }
    XCTAssertLessThan(reads, 2, "input pixels read per image pixel")
  }

  /// A render told to stop (a batch's `--timeout`, a request's deadline) stops in the row pass it
  /// holds, computed before the first band, not after it: nothing below the blur is read.
  func testAStoppedRenderStopsInTheHeldRowPass() throws {
    let counting = Counting()
    let blurred = H.randomImage(width: 200, height: 60, seed: 5).applying(counting).blurred(sigma: 43, method: .exact)
    XCTAssertThrowsError(try bands.encode(blurred, format: .png, options: WriteOptions(), stop: { true })) {
      XCTAssertTrue($0 is CancellationError, "\($0)")
    }
    XCTAssertEqual(counting.counter.pixels.withLock { $0 }, 0, "pixels read below the blur")
  }

  /// A float image whose pixels all differ (premultiplied, alpha varying), sRGB-encoded.
  private func pattern(width: Int, height: Int) -> (Image, (Int, Int) -> SIMD4<Double>) {
    let pixel: (Int, Int) -> SIMD4<Float> = { x, y in
      let a = Float((x * 7 + y * 13) % 97) / 96
      return SIMD4(Float((x * 31 + y) % 251) / 250 * a, Float((x + y * 17) % 101) / 100 * a, a * 0.5, a)
    }
    let image = H.floatImage(width: width, height: height, pixel)
    return (image, { x, y in
      let p = pixel(min(max(x, 0), width - 1), min(max(y, 0), height - 1))
      return SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w))
    })
  }

  /// Σᵢ Σⱼ w(i)·w(j)·in(x + i, y + j), edges repeated, in Double (rows, then columns).
  private func separableSum(_ w: [Double], _ size: Size, _ pixel: (Int, Int) -> SIMD4<Double>) -> [[SIMD4<Double>]] {
    let r = (w.count - 1) / 2
    let rows = (0..<size.height).map { y in
      (0..<size.width).map { x in (-r...r).reduce(SIMD4<Double>()) { $0 + w[$1 + r] * pixel(x + $1, y) } }
    }
    return (0..<size.height).map { y in
      (0..<size.width).map { x in (-r...r).reduce(SIMD4<Double>()) { $0 + w[$1 + r] * rows[min(max(y + $1, 0), size.height - 1)][x] } }
    }
  }

  private func largestDifference(_ got: [[SIMD4<Float>]], _ expected: [[SIMD4<Double>]]) -> Double {
    var worst = 0.0
    for (a, b) in zip(got, expected) {
      for (p, q) in zip(a, b) {
        for c in 0..<4 { worst = max(worst, abs(Double(p[c]) - q[c])) }
      }
    }
    return worst
  }

  /// The split box blur (radius 260 on 100 × 8: the window is wider than the image, so edges
  /// repeat on every row and column) is the mean over the (2r + 1)² square within float rounding, and
  /// the one-operation blur bit for bit.
  func testTheSplitBoxBlurIsTheMeanOverTheSquare() throws {
    let size = Size(width: 100, height: 8), r = 260
    let (image, pixel) = pattern(width: size.width, height: size.height)
    let split = image.boxBlurred(radius: r, linearLight: false)
    XCTAssertTrue(split.node.operation is HeldInputOperation, "split from radius \(ColumnPassOperation.boxSplitReach)")
    let got = try H.renderFloat(split)
    let box = [Double](repeating: 1 / Double(2 * r + 1), count: 2 * r + 1)
    XCTAssertLessThan(largestDifference(got, separableSum(box, size, pixel)), 1e-6)
    let whole = try H.renderFloat(image.applying(BoxBlurOperation(.setting { ($0.radius, $0.linear) = (r, false) })), renderer: H.oneTile())
    XCTAssertEqual(got, whole, "the one-operation box blur, bit for bit")
  }

  /// The split exact blur (σ 43, reach 129) is Σ w(i)·w(j)·in(x + i, y + j) with w the sampled
  /// Gaussian of radius ⌈3σ⌉ normalised (GaussianBlur.swift's definition), computed here in
  /// Double, within float rounding; and the one-operation exact blur bit for bit.
  func testTheSplitExactBlurIsTheSampledGaussian() throws {
    let size = Size(width: 140, height: 12), sigma = 43.0
    let (image, pixel) = pattern(width: size.width, height: size.height)
    let split = image.blurred(sigma: sigma, linearLight: false, method: .exact)
    XCTAssertTrue(split.node.operation is HeldInputOperation, "split from reach \(ColumnPassOperation.sampledSplitReach)")
    let got = try H.renderFloat(split)
    let r = Int((3 * sigma).rounded(.up))
    let raw = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
    let total = raw.reduce(0, +)
    XCTAssertLessThan(largestDifference(got, separableSum(raw.map { $0 / total }, size, pixel)), 1e-6)
    let op = GaussianBlurOperation(.setting { ($0.sigma, $0.linear, $0.method) = (sigma, false, .exact) })
    let whole = try H.renderFloat(image.applying(op), renderer: H.oneTile())
    XCTAssertEqual(got, whole, "the one-operation exact blur, bit for bit")
  }
}
