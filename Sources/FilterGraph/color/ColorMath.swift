// ColorMath.swift — small colour-science helpers shared by the colour filters (no operation).
//
// The RGB → XYZ matrices are derived here from the published chromaticities rather than typed in:
//   sRGB / Rec. 709 (IEC 61966-2-1):  R (0.64, 0.33)   G (0.30, 0.60)   B (0.15, 0.06)
//   Display P3 (DCI-P3 primaries):     R (0.680, 0.320) G (0.265, 0.690) B (0.150, 0.060)
//   white point of both: D65 (0.3127, 0.3290)
// For primaries with xy chromaticities, the columns of RGB→XYZ are the primaries' XYZ (x/y, 1,
// (1−x−y)/y) each scaled so that R = G = B = 1 maps to the white point's XYZ. The resulting
// sRGB → Display P3 matrix agrees with the values published in the CSS Color 4 sample code to
// better than 1e-6 (≈ [[0.822462, 0.177538, 0], [0.033194, 0.966806, 0], [0.017083, 0.072397, 0.910520]]).

import PixelBufferModule

/// A 3×3 matrix of doubles, rows first (colour maths only; not public).
struct Matrix3: Equatable, Sendable {
  /// `m[row][column]`.
  var m: [[Double]]

  static let identity = Matrix3(m: [[1, 0, 0], [0, 1, 0], [0, 0, 1]])

  /// `a · b`.
  static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
    var r = [[Double]](repeating: [0, 0, 0], count: 3)
    for i in 0..<3 { for j in 0..<3 { r[i][j] = (0..<3).reduce(0) { $0 + a.m[i][$1] * b.m[$1][j] } } }
    return Matrix3(m: r)
  }

  /// `a · v`.
  static func * (a: Matrix3, v: [Double]) -> [Double] {
    (0..<3).map { i in (0..<3).reduce(0) { $0 + a.m[i][$1] * v[$1] } }
  }

  /// The inverse (by cofactors; the matrices here are well conditioned).
  var inverse: Matrix3 {
    let a = m
    let c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1]
    let c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2]
    let c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0]
    let det = a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02
    let inv = 1 / det
    return Matrix3(m: [
      [c00 * inv, (a[0][2] * a[2][1] - a[0][1] * a[2][2]) * inv, (a[0][1] * a[1][2] - a[0][2] * a[1][1]) * inv],
      [c01 * inv, (a[0][0] * a[2][2] - a[0][2] * a[2][0]) * inv, (a[0][2] * a[1][0] - a[0][0] * a[1][2]) * inv],
      [c02 * inv, (a[0][1] * a[2][0] - a[0][0] * a[2][1]) * inv, (a[0][0] * a[1][1] - a[0][1] * a[1][0]) * inv],
    ])
  }
}

/// Which RGB primaries a colour space has (both with the D65 white).
enum Primaries: Sendable {
  case sRGB
  case displayP3

  /// The primaries of `space` (an unrecognised ICC profile is treated as sRGB).
  init(_ space: ColorSpace) {
    self = space.isP3 ? .displayP3 : .sRGB
  }

  /// The xy chromaticities of red, green and blue.
  var chromaticities: [(Double, Double)] {
    switch self {
    case .sRGB: return [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
    case .displayP3: return [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
    }
  }

  /// Linear RGB → CIE XYZ (Y of white = 1).
  var toXYZ: Matrix3 {
    let white = (0.3127, 0.3290)
    func xyz(_ c: (Double, Double)) -> [Double] { [c.0 / c.1, 1, (1 - c.0 - c.1) / c.1] }
    let p = chromaticities.map(xyz)
    let columns = Matrix3(m: (0..<3).map { row in p.map { $0[row] } })
    let s = columns.inverse * xyz(white)
    return Matrix3(m: (0..<3).map { row in (0..<3).map { col in columns.m[row][col] * s[col] } })
  }

  /// Linear RGB in `self` → linear RGB in `target`.
  func conversion(to target: Primaries) -> Matrix3 {
    self == target ? .identity : target.toXYZ.inverse * toXYZ
  }

  /// The luminance (Y) weights of linear RGB in these primaries. For sRGB these are the published
  /// BT.709 coefficients 0.2126, 0.7152, 0.0722 (the derived row agrees to 4 decimals).
  var luminanceWeights: SIMD3<Float> {
    switch self {
    case .sRGB: return Rec709.weights
    case .displayP3:
      let y = toXYZ.m[1]
      return SIMD3(Float(y[0]), Float(y[1]), Float(y[2]))
    }
  }
}

/// The BT.709 luma/luminance coefficients.
enum Rec709 {
  /// (0.2126, 0.7152, 0.0722): luminance of linear sRGB; used as luma weights on encoded values too.
  static let weights = SIMD3<Float>(0.2126, 0.7152, 0.0722)
}

extension ColorSpace {
  /// True for Display P3, encoded or linear.
  var isP3: Bool { self == .displayP3 || self == .linearDisplayP3 }
}
