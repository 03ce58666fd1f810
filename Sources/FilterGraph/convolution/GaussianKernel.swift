// GaussianKernel.swift — the sampled, normalised 1-D Gaussian that blur and sharpen share, and
// the extended-box cascade that stands in for it at large sigma.
//
// Definition: for standard deviation σ > 0 (in pixels) the kernel has radius r = ⌈3σ⌉ (at least
// 1) and weights
//
//     w(i) = exp(−i² / 2σ²) / Σ_{j=−r…r} exp(−j² / 2σ²)      for i = −r … r,
//
// computed in Double, so they sum to 1. Truncating at 3σ drops 0.27 % of the continuous Gaussian's
// mass, which the normalisation hands back to the taps that remain. (libvips instead stops where
// the sampled curve falls below an amplitude of 0.2 — about 1.8σ — so its kernels are shorter.)
// σ = 0 is the identity kernel (r = 0, w(0) = 1).
//
// The Float taps the filters run with (`floatWeights`) are the Double weights rounded once, with
// the centre tap adjusted so that the Float taps also sum to 1 as closely as Float allows.
//
// Large σ: `GaussianKernel.boxCascade(sigma:passes:)` gives `passes` extended boxes (Gwosdek,
// Grewenig, Bruhn & Weickert, "Theoretical foundations of Gaussian convolution by extended box
// filtering", 2011) whose successive convolution has variance exactly σ²: each box has an integer
// radius r, unit weight on −r…r and a fractional weight α ∈ [0, 1) on ±(r + 1), with r the
// largest radius whose plain box variance r(r+1)/3 does not exceed σ²/passes and α solving
//
//     (r(r+1)(2r+1)/3 + 2α(r+1)²) / (2r + 1 + 2α) = σ² / passes.

import Foundation

/// The sampled, normalised Gaussian for a standard deviation in pixels.
public struct GaussianKernel: Hashable, Sendable {
  /// The standard deviation, in pixels.
  public let sigma: Double
  /// The radius r: taps run from −r to r.
  public let radius: Int
  /// `weights[i]` is the weight at offsets +i and −i, for i = 0 … radius; all 2r + 1 weights sum to 1.
  public let weights: [Double]

  /// The radius used for `sigma`: ⌈3σ⌉, at least 1 when σ > 0, and 0 when σ ≤ 0.
  public static func radius(for sigma: Double) -> Int {
    guard sigma > 0, sigma.isFinite else { return 0 }
    return max(1, Int((3 * sigma).rounded(.up)))
  }

  /// The kernel for `sigma` (≤ 0 gives the identity kernel), over `radius` taps each side
  /// (default ⌈3σ⌉).
  public init(sigma: Double, radius: Int? = nil) {
    let s = sigma.isFinite ? max(sigma, 0) : 0
    let r = max(0, radius ?? GaussianKernel.radius(for: s))
    self.sigma = s
    self.radius = r
    if s == 0 || r == 0 {
      weights = [1] + Array(repeating: 0, count: r)
      return
    }
    let raw = (0...r).map { i in exp(-Double(i * i) / (2 * s * s)) }
    let total = raw[0] + 2 * raw.dropFirst().reduce(0, +)
    weights = raw.map { $0 / total }
  }

  /// The weight at `offset` (0 outside −radius … radius).
  public func weight(at offset: Int) -> Double {
    let i = abs(offset)
    return i <= radius ? weights[i] : 0
  }

  /// The weights as Float, `[0]` the centre, the centre adjusted so that the 2r + 1 Float taps
  /// sum to 1 as closely as Float can.
  public var floatWeights: [Float] {
    var taps = weights.map { Float($0) }
    let sides = taps.dropFirst().reduce(0.0) { $0 + 2 * Double($1) }
    taps[0] = Float(1 - sides)
    return taps
  }

  /// The extended boxes whose successive convolution has variance σ² (see the file comment);
  /// empty when σ ≤ 0.
  static func boxCascade(sigma: Double, passes: Int = 3) -> [ExtendedBox] {
    guard sigma > 0, sigma.isFinite, passes > 0 else { return [] }
    let v = sigma * sigma / Double(passes)
    let r = max(0, Int(((1 + 12 * v).squareRoot() - 1) / 2))
    let rr = Double(r)
    let alpha = (2 * rr + 1) * (v - rr * (rr + 1) / 3) / (2 * ((rr + 1) * (rr + 1) - v))
    let box = ExtendedBox(radius: r, alpha: min(max(alpha, 0), 1))
    return Array(repeating: box, count: passes)
  }
}
