// Affine+Sampler.swift — one tile's resampling for AffineOperation (Affine.swift, whose header
// defines the output pixel): the window and general paths, and the sampled kernel tables.

import CKernels
import Foundation
import PixelBufferModule

/// One tile's resampling: the output pixel centred at (cx, cy) evaluated by the definition at
/// the top of Affine.swift. Holds pointers valid only inside `AffineOperation.render`'s closures.
///
/// Two evaluations of the same sum. Where the taps with a nonzero weight all lie inside the input
/// (nearly every pixel), the *window* path reads the fixed ⌈2·rx⌉ × ⌈2·ry⌉ block from
/// (⌊u − rx⌋ + 1, ⌊v − ry⌋ + 1): the taps with |i − u| < rx, all others having weight 0 for kernels
/// that vanish at their support (all but nearest and box), with no per-tap tests, in the C kernel
/// `fg_affine_window` (bilinear unstretched, as in rotations, is two linear interpolations there).
/// Elsewhere the *general* path visits ⌈u − rx⌉ … ⌊u + rx⌋ and substitutes the background for
/// taps outside the input. Both weigh with the same kernel values and divide by the sum of the
/// weights. Which path a pixel takes depends only on where it maps, never on the tiling.
struct AffineSampler {
  let src: UnsafePixels<SIMD4<Float>>
  /// The input tile's top-left corner.
  let originX: Int, originY: Int
  /// Taps are read only where the input is and the tile holds it (tile ∩ extent).
  let valid: Rect
  let width: Double, height: Double
  let inverse: AffineMatrix
  let rx: Double, ry: Double
  let invSX: Float, invSY: Float
  /// The window's size, and whether the kernel has one.
  let tapsX: Int, tapsY: Int
  let window: Bool
  let nearest: Bool, linear: Bool
  /// Whole numbers that make u − rx, v − ry positive wherever a tap reaches the input, so that
  /// truncation gives ⌊ ⌋ there.
  let liftX: Double, liftY: Double
  let bg: SIMD4<Float>
  let table: UnsafeBufferPointer<Float>
  /// Scratch for one pixel's weights along x and along y.
  let wx: UnsafeMutablePointer<Float>, wy: UnsafeMutablePointer<Float>
  /// The same constants for the window path's C kernel.
  let params: fg_affine_params

  init(
    src: UnsafePixels<SIMD4<Float>>, input: Rect, extent: Rect, inverse: AffineMatrix, kernel: ResampleKernel,
    reach: (x: Double, y: Double), stretch: (x: Double, y: Double), background: SIMD4<Float>,
    table: UnsafeBufferPointer<Float>, wx: UnsafeMutablePointer<Float>, wy: UnsafeMutablePointer<Float>
  ) {
    self.src = src
    (originX, originY) = (input.x, input.y)
    valid = input.intersection(extent)
    (width, height) = (Double(extent.width), Double(extent.height))
    self.inverse = inverse
    (rx, ry) = reach
    (invSX, invSY) = (Float(1 / stretch.x), Float(1 / stretch.y))
    (tapsX, tapsY) = (Int((2 * rx).rounded(.up)), Int((2 * ry).rounded(.up)))
    window = kernel != .nearest && kernel != .box
    nearest = kernel == .nearest
    linear = kernel == .linear
    // A tap reaches the input only when u + rx > −1: then u − rx + lift > ⌈2·rx⌉ + 1 − 2·rx > 0.
    liftX = (2 * rx).rounded(.up) + 2
    liftY = (2 * ry).rounded(.up) + 2
    bg = background
    self.table = table
    (self.wx, self.wy) = (wx, wy)
    params = fg_affine_params(
      tile: UnsafeRawPointer(src.base).assumingMemoryBound(to: Float.self), rowFloats: src.rowBytes / 4,
      originX: input.x, originY: input.y, a: inverse.a, b: inverse.b, tx: inverse.tx, c: inverse.c, d: inverse.d,
      ty: inverse.ty, rx: rx, ry: ry, liftX: liftX, liftY: liftY, tapsX: tapsX, tapsY: tapsY, invSX: invSX,
      invSY: invSY, linear: linear ? 1 : 0, table: table.baseAddress, tableCount: table.count,
      background: (background.x, background.y, background.z, background.w), wx: wx, wy: wy)
  }

  /// The kernel at distance `t` ≥ 0 in kernel units: the triangle exactly, the others
  /// interpolated linearly between the samples of AffineKernelTable (as `fg_affine_window`).
  @inline(__always) func weight(_ t: Float) -> Float {
    if linear { return max(0, 1 - t) }
    let s = t * 1024
    let i = Int(s)
    guard i + 1 < table.count else { return i < table.count ? table[i] : 0 }
    return table[i] + (table[i + 1] - table[i]) * (s - Float(i))
  }

  /// Output pixel `column` of the row centred at `cy`, into `out`.
  func sample(_ column: Int, _ cy: Double, into out: UnsafeMutablePointer<SIMD4<Float>>) {
    // The input position (pixel indices) the pixel samples; `fg_affine_window` computes the same.
    let p = inverse.apply(Double(column) + 0.5, cy)
    let u = p.x - 0.5, v = p.y - 0.5
    // No tap reaches the input: background (this also keeps huge positions from `Int`).
    guard u + rx > -1, v + ry > -1, u - rx < width, v - ry < height else {
      out.pointee = bg
      return
    }
    if nearest {
      let i = Int((u + 0.5).rounded(.down)), j = Int((v + 0.5).rounded(.down))
      out.pointee = valid.contains(i, j) ? src[row: j - originY][i - originX] : bg
      return
    }
    if window {
      // The window's first tap (⌊u − rx⌋ + 1, ⌊v − ry⌋ + 1), as `fg_affine_window` finds it.
      let i0 = Int(u - rx + liftX) - Int(liftX) + 1, j0 = Int(v - ry + liftY) - Int(liftY) + 1
      if i0 >= valid.x, i0 + tapsX <= valid.maxX, j0 >= valid.y, j0 + tapsY <= valid.maxY {
        windowSums(column, 1, cy, into: out)
        return
      }
    }
    out.pointee = generalSum(u, v)
  }

  /// Output pixels `column` … `column + count − 1` of the row centred at `cy`, all with their
  /// windows inside the tile, by the C kernel.
  func windowSums(_ column: Int, _ count: Int, _ cy: Double, into out: UnsafeMutablePointer<SIMD4<Float>>) {
    withUnsafePointer(to: params) { p in
      UnsafeMutableRawPointer(out).withMemoryRebound(to: Float.self, capacity: 4 * count) {
        fg_affine_window(p, column, count, cy, $0)
      }
    }
  }

  /// The output columns `x0` + k, k in the result, of the row centred at `cy` (k < `count`) whose
  /// windows certainly lie inside the input, so that `sample` would take the window path. u and v
  /// are linear along the row; the bounds keep 10⁻³ pixel from the input's edges and one column
  /// more, far above the rounding of either computation. Depends only on the row and columns, not
  /// on the tile, so tilings agree.
  func windowSpan(_ cy: Double, from x0: Int, count: Int) -> Range<Int> {
    guard window, count > 0 else { return 0..<0 }
    var first = Double(x0), last = Double(x0 + count - 1)
    // Keep the columns whose centres X = column + ½ give slope·X + offset within lo…hi.
    func keep(_ slope: Double, _ offset: Double, _ lo: Double, _ hi: Double) {
      if abs(slope) < 1e-9 {
        // Constant along the tile to well within the margin.
        let value = slope * (first + 0.5) + offset
        if !(value >= lo && value <= hi) { (first, last) = (1, 0) }
        return
      }
      var a = (lo - offset) / slope - 0.5, b = (hi - offset) / slope - 0.5
      if slope < 0 { swap(&a, &b) }
      first = max(first, a.rounded(.up) + 1)
      last = min(last, b.rounded(.down) - 1)
    }
    // The window from ⌊u − rx⌋ + 1 holds tapsX columns: inside 0…width − 1 when
    // −1 ≤ u − rx < width − tapsX.
    let margin = 1e-3
    keep(inverse.a, inverse.b * cy + inverse.tx - 0.5, rx - 1 + margin, width - Double(tapsX) + rx - margin)
    keep(inverse.c, inverse.d * cy + inverse.ty - 0.5, ry - 1 + margin, height - Double(tapsY) + ry - margin)
    guard first <= last else { return 0..<0 }
    return (Int(first) - x0)..<(Int(last) - x0 + 1)
  }

  /// The sum over ⌈u − rx⌉ … ⌊u + rx⌋ × ⌈v − ry⌉ … ⌊v + ry⌋, the background outside the input.
  func generalSum(_ u: Double, _ v: Double) -> SIMD4<Float> {
    let i0 = Int((u - rx).rounded(.up)), i1 = Int((u + rx).rounded(.down))
    let j0 = Int((v - ry).rounded(.up)), j1 = Int((v + ry).rounded(.down))
    let nx = i1 - i0 + 1, ny = j1 - j0 + 1
    var sumX: Float = 0, sumY: Float = 0
    let fu = Float(u - Double(i0)), fv = Float(v - Double(j0))
    for k in 0..<nx {
      let w = weight(abs(Float(k) - fu) * invSX)
      wx[k] = w
      sumX += w
    }
    for k in 0..<ny {
      let w = weight(abs(Float(k) - fv) * invSY)
      wy[k] = w
      sumY += w
    }
    var acc = SIMD4<Float>.zero
    for k in 0..<ny {
      let j = j0 + k
      var racc = SIMD4<Float>.zero
      if j >= valid.y && j < valid.maxY {
        let line = src[row: j - originY]
        for m in 0..<nx {
          let i = i0 + m
          racc += (i >= valid.x && i < valid.maxX ? line[i - originX] : bg) * wx[m]
        }
      } else {
        racc = bg * sumX
      }
      acc += racc * wy[k]
    }
    return finish(acc, sumX * sumY)
  }

  /// The weighted sum divided by the weights' sum, `clipped`.
  @inline(__always) func finish(_ acc: SIMD4<Float>, _ norm: Float) -> SIMD4<Float> {
    clipped(norm > 0 ? acc * (1 / norm) : bg)
  }

  /// `value` with alpha clipped to 0…1 (a transparent result is 0).
  @inline(__always) func clipped(_ value: SIMD4<Float>) -> SIMD4<Float> {
    if value.w > 0 && value.w <= 1 { return value }
    // Alpha alone: colours may be negative in extended-range linear light.
    return value.w > 1 ? SIMD4(value.x, value.y, value.z, 1) : .zero
  }
}

extension Rect {
  /// True when pixel (x, y) lies inside.
  @inline(__always) func contains(_ px: Int, _ py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }
}

/// A kernel sampled every 1/1024 of a pixel, which `AffineSampler.weight` interpolates linearly, so
/// taps cost two table reads rather than a `sin` (error below 10⁻⁶). Integer distances fall on samples exactly, so
/// k(0) = 1 and k(n) = 0 stay exact for the interpolating kernels.
struct AffineKernelTable: Sendable {
  /// k(i / 1024) for i = 0 … ⌈support·1024⌉.
  let samples: [Float]

  private static let tables: [ResampleKernel: AffineKernelTable] = Dictionary(
    uniqueKeysWithValues: ResampleKernel.allCases.map { k in
      let n = Int((k.support * 1024).rounded(.up))
      // sin(πn) is not exactly 0 in Double: snap rounding noise (≈10⁻¹⁷) to the exact zero, so an
      // interpolating kernel at an integer position reads exactly one pixel.
      return (k, AffineKernelTable(samples: (0...n).map { i in
        let w = k.weight(at: Double(i) / 1024)
        return abs(w) < 1e-12 ? 0 : Float(w)
      }))
    })

  /// The shared table of `kernel`.
  static func table(for kernel: ResampleKernel) -> AffineKernelTable { tables[kernel]! }
}
