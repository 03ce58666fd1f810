// ResampleKernel.swift — the interpolation kernels `scale` weighs input pixels with.
//
// Each kernel is a function k(t) of the distance t between an output sample's position and an
// input pixel's centre, measured in input pixels (in output pixels when downscaling, where the
// kernel is stretched: see Scale.swift), and zero for |t| ≥ `support`:
//
//   nearest    k(t) = 1 for −½ ≤ t < ½                          support ½  (Scale picks the one pixel)
//   box        k(t) = 1 for |t| ≤ ½                              support ½  (Scale uses exact area overlap)
//   linear     k(t) = 1 − |t|                                    support 1
//   cubic      Mitchell–Netravali with B = 0, C = ½ (Catmull–Rom) support 2
//   mitchell   Mitchell–Netravali with B = C = ⅓                  support 2
//   lanczos2   k(t) = sinc(t)·sinc(t/2)                          support 2
//   lanczos3   k(t) = sinc(t)·sinc(t/3)                          support 3
//
// with sinc(t) = sin(πt)/(πt), sinc(0) = 1, and the Mitchell–Netravali family
//
//   6·k(t) = (12 − 9B − 6C)|t|³ + (−18 + 12B + 6C)|t|² + (6 − 2B)                  for |t| < 1
//   6·k(t) = (−B − 6C)|t|³ + (6B + 30C)|t|² + (−12B − 48C)|t| + (8B + 24C)          for 1 ≤ |t| < 2
//
// Catmull–Rom and the Lanczos kernels interpolate (k(0) = 1, k(n) = 0 at other integers) and have
// negative lobes (sharper, with slight ringing); Mitchell is the usual compromise (a little soft,
// almost no ringing); linear and box never ring. The weights Scale applies are always divided by
// their sum, so a constant image stays constant whatever the kernel.

import Foundation

/// An interpolation kernel for `scale`.
public enum ResampleKernel: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Nearest neighbour: each output pixel copies exactly one input pixel (no blending).
  case nearest
  /// Triangle (bilinear when applied on both axes).
  case linear
  /// Catmull–Rom cubic (Mitchell–Netravali B = 0, C = ½): sharp, interpolating.
  case cubic
  /// Mitchell–Netravali cubic with B = C = ⅓: slightly soft, almost free of ringing.
  case mitchell
  /// Lanczos windowed sinc with 2 lobes.
  case lanczos2
  /// Lanczos windowed sinc with 3 lobes: the default, sharpest for photographs.
  case lanczos3
  /// Box / area average: each output pixel is the area-weighted mean of the input it covers.
  case box

  /// The recipe spellings, in declaration order (`nearest|linear|…|box`).
  public static var names: [String] { allCases.map(\.rawValue) }

  /// The distance (in unstretched kernel units) beyond which the kernel is zero.
  public var support: Double {
    switch self {
    case .nearest, .box: return 0.5
    case .linear: return 1
    case .cubic, .mitchell, .lanczos2: return 2
    case .lanczos3: return 3
    }
  }

  /// k(t): the kernel's value at distance `t` (see the formulas at the top of the file).
  public func weight(at t: Double) -> Double {
    let x = abs(t)
    switch self {
    case .nearest: return (t >= -0.5 && t < 0.5) ? 1 : 0
    case .box: return x <= 0.5 ? 1 : 0
    case .linear: return x < 1 ? 1 - x : 0
    case .cubic: return Self.mitchellNetravali(x, b: 0, c: 0.5)
    case .mitchell: return Self.mitchellNetravali(x, b: 1.0 / 3, c: 1.0 / 3)
    case .lanczos2: return x < 2 ? Self.sinc(x) * Self.sinc(x / 2) : 0
    case .lanczos3: return x < 3 ? Self.lanczos3(x) : 0
    }
  }

  /// sinc(x)·sinc(x/3) with one sine: for a = πx/3 and s = sin a, sin(πx) = sin 3a = s(3 − 4s²),
  /// so the product is 3s²(3 − 4s²)/(πx)² (a thumbnail computes some 60,000 of these per photo).
  static func lanczos3(_ x: Double) -> Double {
    if x == 0 { return 1 }
    let s = sin(Double.pi * x / 3), p = Double.pi * x
    return 3 * s * s * (3 - 4 * s * s) / (p * p)
  }

  /// sin(πx)/(πx), 1 at 0.
  static func sinc(_ x: Double) -> Double {
    if x == 0 { return 1 }
    let p = Double.pi * x
    return sin(p) / p
  }

  /// The Mitchell–Netravali cubic for |t| = `x`.
  static func mitchellNetravali(_ x: Double, b: Double, c: Double) -> Double {
    let x2 = x * x, x3 = x2 * x
    if x < 1 {
      return ((12 - 9 * b - 6 * c) * x3 + (-18 + 12 * b + 6 * c) * x2 + (6 - 2 * b)) / 6
    }
    if x < 2 {
      return ((-b - 6 * c) * x3 + (6 * b + 30 * c) * x2 + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6
    }
    return 0
  }
}
