// SpectralRows.swift — the row pass of a long sampled kernel through the discrete Fourier
// transform.
//
// Definition: as `SeparableFilter.convolveRows`, out(x, y) = Σ_{|i| ≤ r} k(i)·in(x + i, y) for
// the symmetric kernel k of reach r, with x + i outside the image repeating the nearest edge
// pixel. Only the arithmetic differs.
//
// Computed in blocks of B = `blockWidth` outputs starting at multiples of B (absolute x, so a
// pixel's value does not depend on the tile it falls in: a tiled render equals a one-tile render
// bit for bit). For the block at x₀, the inputs u(t) = in(x₀ − r + t) for t < B + 2r (0 from there
// to N, the power of two ≥ B + 2r) are convolved circularly with h(t) = k(t) for t ≤ r,
// h(N − t) = k(t) for 1 ≤ t ≤ r, 0 between. For 0 ≤ j < B, (u ⊛ h)(r + j) = Σ_{|i| ≤ r}
// k(i)·u(r + j + i): the terms that wrap around meet h's zeros. The circular convolution is
// DFT⁻¹(DFT(u)·DFT(h)), and DFT(h) = Σ_t h(t)·cos(2πkt/N) is real since h is even, so the four
// channels go through one transform as two complex signals side by side, (c₀ + i·c₁, c₂ + i·c₃):
// multiplying by a real spectrum keeps each real and imaginary part apart. The transforms are
// iterative radix-2 FFTs in Double arithmetic, forward by decimation in time from the inputs
// loaded in bit-reversed order, back by decimation in frequency to outputs in bit-reversed order
// (so no pass reorders them), whose error (about 10⁻¹⁵ of the values) is far below the Float result's rounding:
// the result is the direct sum within float rounding (SpectralRowsTests checks 10⁻⁶ against a
// Double convolution), though not bit for bit the direct pass's Float sum.
//
// Cost: two N-point transforms per block of B outputs, O((N / B)·log N) per pixel, against the
// direct sum's r + 1 multiply-adds. On a 24 MP photo (docs/Reliability.md, finding 11) the whole
// split blur cost the same CPU either way at reach 129, 6 % less at 300 and 22 % less at 600;
// `minimumReach` (256) lies between.

import Foundation

/// A symmetric kernel's transform for the spectral row pass; see the file comment.
final class RowSpectrum: Sendable {
  /// Outputs per block, and the alignment of blocks.
  static let blockWidth = 512
  /// From this reach on, the row pass of a split exact blur runs through the transform.
  static let minimumReach = 256

  /// The kernel's reach r.
  let reach: Int
  /// The transform length N, a power of two ≥ `blockWidth` + 2r.
  let length: Int
  /// cos(2πk/N) and sin(2πk/N) for k < N/2.
  private let cosines: [Double]
  private let sines: [Double]
  /// The bit reversal of each index below N.
  private let reversed: [Int32]
  /// DFT(h)(k) / N: the kernel's spectrum with the inverse transform's 1/N folded in.
  private let spectrum: [Double]

  /// The transform of `weights` (`[0]` the centre, `[i]` the weight at ±i).
  init(weights: [Float]) {
    let r = weights.count - 1
    var n = 1, bits = 0
    while n < Self.blockWidth + 2 * r { (n, bits) = (2 * n, bits + 1) }
    let cosines = (0..<n / 2).map { cos(2 * Double.pi * Double($0) / Double(n)) }
    let sines = (0..<n / 2).map { sin(2 * Double.pi * Double($0) / Double(n)) }
    let reversed = (0..<n).map { i in
      var (v, out) = (i, 0)
      for _ in 0..<bits { (out, v) = (out << 1 | v & 1, v >> 1) }
      return Int32(out)
    }
    var re = [SIMD2<Double>](repeating: .zero, count: n), im = re
    for t in 0...r {
      let w = SIMD2<Double>(repeating: Double(weights[t]))
      re[Int(reversed[t])] = w
      if t > 0 { re[Int(reversed[n - t])] = w }
    }
    Self.forward(&re, &im, cosines: cosines, sines: sines)
    (reach, length, self.cosines, self.sines, self.reversed) = (r, n, cosines, sines, reversed)
    spectrum = re.map { $0.x / Double(n) }
  }

  /// The working buffers of one row pass: two of `length` complex pairs.
  struct Buffers {
    let re: UnsafeMutablePointer<SIMD2<Double>>
    let im: UnsafeMutablePointer<SIMD2<Double>>
    /// Owns `re` and `im`.
    private let storage: (PixelStorage, PixelStorage)

    init(length: Int) throws(PixelAllocationError) {
      let (reStorage, re) = try TileMemoryPool.scratch(SIMD2<Double>.self, count: length)
      let (imStorage, im) = try TileMemoryPool.scratch(SIMD2<Double>.self, count: length)
      (self.re, self.im, storage) = (re, im, (reStorage, imStorage))
    }
  }

  /// The row pass of `input` for `columns` of each row of `rows` (absolute, inside `input`), into
  /// `dst(y)`. `input` covers the blocks the columns fall in widened by r, clipped to the image;
  /// columns beyond it repeat its edge pixels.
  func convolveRows(
    _ input: Tile, columns: Range<Int>, rows: Range<Int>, buffers: Buffers, into dst: (Int) -> UnsafeMutablePointer<SIMD4<Float>>
  ) {
    let src = input.rect, n = length, r = reach, span = Self.blockWidth + 2 * r
    let (re, im) = (buffers.re, buffers.im)
    let first = Self.block(of: columns.lowerBound), last = Self.block(of: columns.upperBound - 1)
    input.withPixels { pixels in
      reversed.withUnsafeBufferPointer { reversed in
        spectrum.withUnsafeBufferPointer { spectrum in
          cosines.withUnsafeBufferPointer { cosines in
            sines.withUnsafeBufferPointer { sines in
          for y in rows {
            let row = pixels[row: y - src.y], out = dst(y)
            for block in first...last {
              let x0 = block * Self.blockWidth
              for t in 0..<n {
                let p = t < span ? row[min(max(x0 - r + t, src.x), src.maxX - 1) - src.x] : SIMD4<Float>()
                let at = Int(reversed[t])
                re[at] = SIMD2(Double(p.x), Double(p.z))
                im[at] = SIMD2(Double(p.y), Double(p.w))
              }
              Self.forward(re, im, count: n, cosines: cosines, sines: sines)
              for k in 0..<n {
                re[k] *= spectrum[k]
                im[k] *= spectrum[k]
              }
              Self.inverse(re, im, count: n, cosines: cosines, sines: sines)
              for x in max(x0, columns.lowerBound)..<min(x0 + Self.blockWidth, columns.upperBound) {
                let t = Int(reversed[x - x0 + r])
                out[x - columns.lowerBound] = SIMD4(Float(re[t].x), Float(im[t].x), Float(re[t].y), Float(im[t].y))
              }
            }
          }
        }
      }
    }
      }
    }
  }

  /// The block `x` falls in.
  static func block(of x: Int) -> Int { x >= 0 ? x / blockWidth : -((blockWidth - 1 - x) / blockWidth) }

  /// The input region of the row pass for `output`: its blocks, widened by r, clipped to `extent`.
  func inputRegion(for output: Rect, extent: Rect) -> Rect {
    let lo = Self.block(of: output.x) * Self.blockWidth, hi = (Self.block(of: output.maxX - 1) + 1) * Self.blockWidth
    let wide = Rect(x: lo - reach, y: output.y, width: hi - lo + 2 * reach, height: output.height)
    let clipped = wide.intersection(extent)
    return clipped.isEmpty ? output : clipped
  }

  /// The DFT of `re + i·im` (N ≥ 4 points, in bit-reversed order) in place, in natural order:
  /// decimation in time.
  private static func forward(
    _ re: UnsafeMutablePointer<SIMD2<Double>>, _ im: UnsafeMutablePointer<SIMD2<Double>>, count n: Int,
    cosines: UnsafeBufferPointer<Double>, sines: UnsafeBufferPointer<Double>
  ) {
    // The stages of half 1 and 2 at once, whose twiddles are 1 and −i.
    for a in stride(from: 0, to: n, by: 4) {
      let (s0r, s0i, d0r, d0i) = (re[a] + re[a + 1], im[a] + im[a + 1], re[a] - re[a + 1], im[a] - im[a + 1])
      let (s1r, s1i, d1r, d1i) = (re[a + 2] + re[a + 3], im[a + 2] + im[a + 3], re[a + 2] - re[a + 3], im[a + 2] - im[a + 3])
      (re[a], im[a], re[a + 2], im[a + 2]) = (s0r + s1r, s0i + s1i, s0r - s1r, s0i - s1i)
      (re[a + 1], im[a + 1], re[a + 3], im[a + 3]) = (d0r + d1i, d0i - d1r, d0r - d1i, d0i + d1r)
    }
    var half = 4
    while half < n {
      let step = n / (2 * half)
      for start in stride(from: 0, to: n, by: 2 * half) {
        for k in 0..<half {
          // (b_re + i·b_im)·w, w = e^{−2πik/(2·half)} = c − i·s.
          let c = cosines[k * step], s = sines[k * step]
          let a = start + k, b = a + half
          let tr = re[b] * c + im[b] * s, ti = im[b] * c - re[b] * s
          (re[b], im[b], re[a], im[a]) = (re[a] - tr, im[a] - ti, re[a] + tr, im[a] + ti)
        }
      }
      half *= 2
    }
  }

  /// N·DFT⁻¹ of `re + i·im` (N ≥ 4 points, in natural order) in place, in bit-reversed order:
  /// decimation in frequency, with e^{+2πikt/N}.
  private static func inverse(
    _ re: UnsafeMutablePointer<SIMD2<Double>>, _ im: UnsafeMutablePointer<SIMD2<Double>>, count n: Int,
    cosines: UnsafeBufferPointer<Double>, sines: UnsafeBufferPointer<Double>
  ) {
    var half = n / 2
    while half > 2 {
      let step = n / (2 * half)
      for start in stride(from: 0, to: n, by: 2 * half) {
        for k in 0..<half {
          // (a − b)·w, w = e^{+2πik/(2·half)} = c + i·s.
          let c = cosines[k * step], s = sines[k * step]
          let a = start + k, b = a + half
          let dr = re[a] - re[b], di = im[a] - im[b]
          (re[a], im[a], re[b], im[b]) = (re[a] + re[b], im[a] + im[b], dr * c - di * s, di * c + dr * s)
        }
      }
      half /= 2
    }
    // The stages of half 2 and 1 at once, whose twiddles are 1 and +i.
    for a in stride(from: 0, to: n, by: 4) {
      let (s0r, s0i, s1r, s1i) = (re[a] + re[a + 2], im[a] + im[a + 2], re[a + 1] + re[a + 3], im[a + 1] + im[a + 3])
      let (d0r, d0i) = (re[a] - re[a + 2], im[a] - im[a + 2])
      let (d1r, d1i) = (-(im[a + 1] - im[a + 3]), re[a + 1] - re[a + 3])  // (a₁ − a₃)·i
      (re[a], im[a], re[a + 1], im[a + 1]) = (s0r + s1r, s0i + s1i, s0r - s1r, s0i - s1i)
      (re[a + 2], im[a + 2], re[a + 3], im[a + 3]) = (d0r + d1r, d0i + d1i, d0r - d1r, d0i - d1i)
    }
  }

  /// `forward` over arrays.
  private static func forward(_ re: inout [SIMD2<Double>], _ im: inout [SIMD2<Double>], cosines: [Double], sines: [Double]) {
    let n = re.count
    re.withUnsafeMutableBufferPointer { re in
      im.withUnsafeMutableBufferPointer { im in
        cosines.withUnsafeBufferPointer { cosines in
          sines.withUnsafeBufferPointer { sines in
            forward(re.baseAddress!, im.baseAddress!, count: n, cosines: cosines, sines: sines)
          }
        }
      }
    }
  }
}
