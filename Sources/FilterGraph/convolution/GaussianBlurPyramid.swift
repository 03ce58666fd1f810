// GaussianBlurPyramid.swift — large Gaussian blurs computed on a reduced image.
//
// A tile of a blur reads its rectangle widened by the reach (≈ 3σ) on every side, so at large σ
// each tile recomputes far more input than it writes: on a 24 MP photo σ = 200 took 16 s and
// σ = 500 over 100 s. Above `GaussianBlurOperation.pyramidThreshold` (σ > 32) the automatic
// method therefore blurs a reduced copy instead:
//
//   blur_σ(I) ≈ up_k( blur_σ′( down_k(I) ) ),   k = ⌊σ / 8⌋,   σ′ = √(σ² − k²/4) / k
//
// down_k averages k × k blocks (`scale` with the box kernel: variance k²/12 per axis, in input
// pixels), blur_σ′ is the ordinary blur at about σ′ ≈ 8 reduced pixels, and up_k interpolates
// linearly back to the input's size (the tent's variance is k²/6). The three variances add up to
// σ², and the Gaussian dominates the sum, so the result is a Gaussian of standard deviation σ
// within two 8-bit levels, mean error below 0.35 level; in the outermost k pixels, where the
// interpolation has no reduced pixel beyond the edge, within six levels (checked against the
// exact kernel in GaussianBlurPyramidTests);
// the box's zeros at multiples of 1/k cancel what would alias onto low frequencies. All three
// steps work in the same space (linear light unless `linearLight` is false) on premultiplied
// RGBA. `method=exact` and `method=box` keep the single-pass methods at any σ.
//
// Cost: both reduced images are held (HeldInput.swift), each computed whole once per render
// before the first output tile: down_k(I), whose tiles read disjoint k × k blocks of the source,
// so each source pixel is read once whatever σ; then blur_σ′ of it, whose tiles overlap by the
// reduced blur's reach (3σ′ ≈ 24 reduced pixels) but read that held copy, not the source; up_k
// reads the second. Computed tile by tile instead, every output tile would pull its share of the
// reduction again, k² input pixels for each reduced pixel within the blur's reach, and at large σ
// that share is most of the image (σ 500 on 24 MP took over 100 s so); held with the reduction
// and the blur in one step, the reduced tiles would pull their overlapping source regions as float
// tiles of k² times their pixels (a whole 24 MP source as one 490 MB tile at σ 500). The
// reduction's tiles are sized by the source region they pull (`Renderer.tileSize(for:bounded:)`),
// so the memory it takes is a few MB per worker and the streamed source's window of rows. The held
// copies cost 2 × 16 bytes per reduced pixel, 2/k² of the image's pixels (k ≥ 4).

import PixelBufferModule

extension GaussianBlurOperation {
  /// Above this σ the automatic method blurs a reduced image (see the file's header).
  public static let pyramidThreshold: Double = 32

  /// The reduction factor k for this blur, or nil when it runs at full size.
  var pyramidFactor: Int? {
    guard parameters.method == .automatic, parameters.sigma > Self.pyramidThreshold else { return nil }
    return Int(parameters.sigma / 8)
  }
}

extension Image {
  /// `image` with the blur `op` applied: directly, or for large σ through a reduced copy.
  func applyingBlur(_ op: GaussianBlurOperation) -> Image {
    let (sigma, linearLight) = (op.parameters.sigma, op.parameters.linear)
    guard sigma > 0 else { return self }
    guard let k = op.pyramidFactor else {
      let kernel: SeparableKernel =
        op.usesBoxes ? .boxes(GaussianKernel.boxCascade(sigma: sigma)) : .sampled(GaussianKernel(sigma: sigma).floatWeights)
      return applyingSeparable(op, kernel: kernel)
    }
    let reduced = Size(width: max(1, (size.width + k / 2) / k), height: max(1, (size.height + k / 2) / k))
    let kk = Double(k)
    var reducedBlur = op.parameters
    (reducedBlur.sigma, reducedBlur.method) = ((sigma * sigma - kk * kk / 4).squareRoot() / kk, .automatic)
    let blur = GaussianBlurOperation(reducedBlur)
    let blurredCopy =
      self
      .scaled(to: reduced, kernel: .box, linearLight: linearLight, allowsShrinkOnLoad: false)
      .applying(HeldInputOperation(operation: blur))
    let up = ScaleOperation(targetSize: size, kernel: .linear, linearLight: linearLight, allowsShrinkOnLoad: false)
    return blurredCopy.applying(HeldInputOperation(operation: up))
  }
}
