// PremultipliedMatrix.swift — the one 4×4 loop on premultiplied pixels.
//
// Definition: for each premultiplied pixel p = (r, g, b, a),
//
//     p' = c3·a + c0·r + c1·g + c2·b        (summed in that order, in Float)
//
// with c0…c3 the matrix's columns. A colour map that is linear in premultiplied values (a tint,
// an alpha-keeping colour matrix, a change of primaries) is one such matrix: no division by alpha,
// transparent pixels stay transparent. `TintOperation`, `ColorConversionOperation` and
// `ColorMatrixOperation` (for matrices that keep alpha and do not read it) run this loop. (Written
// as `c0 * p.x + …`: SIMD4's `addProduct` compiled to per-lane calls here and ran 30× slower.)

/// A 4×4 map on premultiplied RGBA, given by its columns.
struct PremultipliedMatrix: Hashable, Sendable {
  /// Coefficients of red, green, blue and alpha (columns: out = c0·r + c1·g + c2·b + c3·a).
  var c0: SIMD4<Float>, c1: SIMD4<Float>, c2: SIMD4<Float>, c3: SIMD4<Float>

  /// Maps `count` pixels in place.
  @inline(__always)
  func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    let (c0, c1, c2, c3) = (self.c0, self.c1, self.c2, self.c3)
    for i in 0..<count {
      let p = pixels[i]
      pixels[i] = c3 * p.w + c0 * p.x + c1 * p.y + c2 * p.z
    }
  }
}
