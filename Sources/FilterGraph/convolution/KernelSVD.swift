// KernelSVD.swift — a convolution kernel as a sum of separable (rank-1) kernels.
//
// Definition: a kernel K of n rows and m columns is written as its singular value decomposition
//
//     K = Σ_k σ_k · u_k v_kᵀ,      σ_1 ≥ σ_2 ≥ … ≥ 0,  u_k ∈ ℝⁿ and v_k ∈ ℝᵐ orthonormal,
//
// so convolving with K is Σ_k σ_k · (column filter u_k) ∘ (row filter v_k): each term costs
// m + n multiply–adds per pixel instead of m·n. A separable kernel (a Gaussian, a box, Sobel's) has
// one nonzero σ. Terms with σ_k ≤ 10⁻⁷·σ_1 are dropped: below Float's resolution relative to the
// largest term, so the decomposition loses nothing the Float arithmetic would have kept.
//
// Computed in Double by one-sided Jacobi (M. R. Hestenes, "Inversion of matrices by
// biorthogonalization and related results", J. SIAM 6(1), 1958): plane rotations applied to K's
// columns (and accumulated in V) until every pair of columns is orthogonal; then the column norms
// are the σ_k, the normalised columns the u_k, and V's columns the v_k. For the ≤ 15 × 15 kernels
// of `convolve` that takes microseconds, once per operation.

import Foundation

/// The rank-1 terms of a kernel (see the definition at the top of KernelSVD.swift).
struct KernelSVD: Sendable {
  /// One term σ · u vᵀ.
  struct Term: Sendable {
    /// The singular value σ.
    var sigma: Double
    /// The column (vertical) vector u, one entry per kernel row.
    var column: [Double]
    /// The row (horizontal) vector v, one entry per kernel column.
    var row: [Double]
  }

  /// The terms above the cut-off, largest σ first.
  let terms: [Term]

  /// The relative cut-off below which terms are dropped.
  static let cutoff = 1e-7

  /// Decomposes the kernel of `rows` × `columns` values given row by row.
  init(rows n: Int, columns m: Int, values: [Double]) {
    precondition(values.count == n * m)
    var a = values  // a[r * m + c]: its columns are rotated into orthogonality
    var v = (0..<(m * m)).map { $0 / m == $0 % m ? 1.0 : 0.0 }  // v[r * m + c], starts as I
    for _ in 0..<60 {
      var rotated = false
      for p in 0..<m {
        for q in (p + 1)..<m {
          var alpha = 0.0, beta = 0.0, gamma = 0.0
          for r in 0..<n {
            let x = a[r * m + p], y = a[r * m + q]
            alpha += x * x
            beta += y * y
            gamma += x * y
          }
          guard gamma != 0, abs(gamma) > 1e-15 * (alpha * beta).squareRoot() else { continue }
          rotated = true
          // The rotation that makes columns p and q orthogonal.
          let zeta = (beta - alpha) / (2 * gamma)
          let t = (zeta >= 0 ? 1.0 : -1.0) / (abs(zeta) + (1 + zeta * zeta).squareRoot())
          let c = 1 / (1 + t * t).squareRoot(), s = c * t
          for r in 0..<n {
            let x = a[r * m + p], y = a[r * m + q]
            a[r * m + p] = c * x - s * y
            a[r * m + q] = s * x + c * y
          }
          for r in 0..<m {
            let x = v[r * m + p], y = v[r * m + q]
            v[r * m + p] = c * x - s * y
            v[r * m + q] = s * x + c * y
          }
        }
      }
      if !rotated { break }
    }
    var terms: [Term] = (0..<m).map { c in
      let sigma = (0..<n).reduce(0.0) { $0 + a[$1 * m + c] * a[$1 * m + c] }.squareRoot()
      return Term(
        sigma: sigma, column: (0..<n).map { sigma > 0 ? a[$0 * m + c] / sigma : 0 }, row: (0..<m).map { v[$0 * m + c] })
    }
    terms.sort { $0.sigma > $1.sigma }
    let largest = terms.first?.sigma ?? 0
    self.terms = terms.filter { $0.sigma > Self.cutoff * largest }
  }

  /// The rank kept: how many terms.
  var rank: Int { terms.count }
}
