// SpectralRowsTests.swift — the row pass of a long exact kernel through the discrete Fourier
// transform (SpectralRows.swift) is the direct sum within float rounding, and gives the same
// pixels whatever the tiles.

import Foundation
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class SpectralRowsTests: XCTestCase {
  typealias H = ConvolutionTestHelpers

  /// σ 110: reach 330, over `RowSpectrum.minimumReach`.
  private let sigma = 110.0

  /// Pixel (x, y) of a float pattern whose pixels all differ (premultiplied, alpha varying).
  private func pixel(_ x: Int, _ y: Int) -> SIMD4<Float> {
    let a = Float((x * 7 + y * 13) % 97) / 96
    return SIMD4(Float((x * 31 + y) % 251) / 250 * a, Float((x + y * 17) % 101) / 100 * a, a * 0.5, a)
  }

  /// On 1100 × 2 pixels (three 512-pixel blocks, edges repeated in the first and last), in 64 × 32
  /// tiles: Σ_{|i| ≤ r} k(i)·in(x + i, y) with the pass's own Float taps, summed in Double.
  func testTheRowPassIsTheDirectSumWithinFloatRounding() throws {
    let width = 1100, height = 2
    let weights = GaussianKernel(sigma: sigma).floatWeights, r = weights.count - 1
    let blur = GaussianBlurOperation(.setting { ($0.sigma, $0.linear, $0.method) = (sigma, false, .exact) })
    let pass = RowPassOperation(blur: SplitBlur(.sampled(weights), of: blur))
    XCTAssertNotNil(pass.spectrum, "reach \(r) runs through the transform")
    let got = try H.renderFloat(H.floatImage(width: width, height: height, pixel).applying(pass))
    var worst = 0.0
    for y in 0..<height {
      for x in 0..<width {
        var sum = SIMD4<Double>()
        for i in -r...r {
          let p = pixel(min(max(x + i, 0), width - 1), y)
          sum += Double(weights[abs(i)]) * SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w))
        }
        for c in 0..<4 { worst = max(worst, abs(Double(got[y][x][c]) - sum[c])) }
      }
    }
    XCTAssertLessThan(worst, 1e-6, "largest difference from the direct sum")
  }

  /// The split exact blur σ 110 of a 600 × 2 image (two blocks): 64 × 32 tiles on two threads and
  /// one tile give the same pixels, bit for bit (blocks start at multiples of 512 whatever the tile).
  func testTheSplitExactBlurIsTheSameWhateverTheTiles() throws {
    try H.assertTilingInvariant(H.randomImage(width: 600, height: 2, seed: 11).blurred(sigma: sigma, linearLight: false, method: .exact))
  }
}
