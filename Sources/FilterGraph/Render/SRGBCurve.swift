// SRGBCurve.swift — the sRGB transfer curve over the renderer's premultiplied working pixels.
//
// The curve itself (exact and table-driven) lives in PixelBufferModule's `SRGBTransfer`; this
// file only adds the premultiplied-RGBA row loops the tile engine needs.

import PixelBufferModule

/// Linear ↔ encoded conversions of premultiplied float RGBA pixels, alpha untouched.
public enum SRGBCurve {
  /// Encoded → linear, exact.
  @inlinable public static func decode(_ c: Float) -> Float { SRGBTransfer.decode(c) }

  /// Linear → encoded, exact.
  @inlinable public static func encode(_ l: Float) -> Float { SRGBTransfer.encode(l) }

  /// Converts premultiplied pixels from encoded to linear in place (table-driven, error ≲ 3e-8).
  public static func decodeRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    // The table is fetched once per row: through `SRGBTransfer.fastDecode(_:)` each value would pay a
    // global-initialiser check and an array access (a third of W5's time).
    SRGBTransfer.withDecodeTable { t in
      for i in 0..<count {
        let v = p[i]
        let a = v.w
        if a == 1 {
          // Opaque pixels in [0, 1]: the three lanes share one vector index/fraction computation
          // (the same arithmetic as `fastDecode`, so the same values).
          if all((v .>= 0) .& (v .<= 1)) {
            let s = v * 4096
            let i0 = Int(s.x), i1 = Int(s.y), i2 = Int(s.z)  // (`rounded(.towardZero)` calls libm)
            let f = SIMD4(Float(i0), Float(i1), Float(i2), 0)
            let e0 = t[i0], e1 = t[i1], e2 = t[i2]
            let r = SIMD4(e0.x, e1.x, e2.x, 1) + SIMD4(e0.y, e1.y, e2.y, 0) * (s - f)
            p[i] = SIMD4(r.x, r.y, r.z, 1)
          } else {
            p[i] = SIMD4(SRGBTransfer.fastDecode(v.x, table: t), SRGBTransfer.fastDecode(v.y, table: t), SRGBTransfer.fastDecode(v.z, table: t), 1)
          }
        } else if a > 0 {
          let inv = 1 / a
          p[i] = SIMD4(
            SRGBTransfer.fastDecode(v.x * inv, table: t) * a, SRGBTransfer.fastDecode(v.y * inv, table: t) * a,
            SRGBTransfer.fastDecode(v.z * inv, table: t) * a, a)
        }
      }
    }
  }

  /// Converts premultiplied pixels from linear to encoded in place (table-driven, error < 3e-6).
  public static func encodeRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    // The table is fetched once per row: through `SRGBTransfer.fastEncode(_:)` each value would pay a
    // global-initialiser check and an array access (a third of W5's time).
    SRGBTransfer.withEncodeTable { t in
      for i in 0..<count {
        let v = p[i]
        let a = v.w
        if a == 1 {
          // Opaque pixels whose lanes all lie in the table's range [2⁻⁹, 4): one vector
          // index/fraction computation for the three lanes (the same arithmetic as `fastEncode`).
          // Positive floats order like their bit patterns; the unsigned difference wraps for
          // smaller values, negatives and NaN, so one compare checks the range.
          let bits = unsafeBitCast(v, to: SIMD4<UInt32>.self) &- 0x3B00_0000  // bits(2⁻⁹)
          if all(bits .< 0x4080_0000 &- 0x3B00_0000) {  // bits(4)
            // The low 16 bits as an exact float (2²³ + m − 2²³), then scaled to [0, 1).
            let m = unsafeBitCast((bits & 0xFFFF) | 0x4B00_0000, to: SIMD4<Float>.self) - 8_388_608
            let e0 = t[Int(bits.x >> 16)], e1 = t[Int(bits.y >> 16)], e2 = t[Int(bits.z >> 16)]
            let r = SIMD4(e0.x, e1.x, e2.x, 1) + SIMD4(e0.y, e1.y, e2.y, 0) * (m * 0x1p-16)
            p[i] = SIMD4(r.x, r.y, r.z, 1)
          } else {
            p[i] = SIMD4(SRGBTransfer.fastEncode(v.x, table: t), SRGBTransfer.fastEncode(v.y, table: t), SRGBTransfer.fastEncode(v.z, table: t), 1)
          }
        } else if a > 0 {
          let inv = 1 / a
          p[i] = SIMD4(
            SRGBTransfer.fastEncode(v.x * inv, table: t) * a, SRGBTransfer.fastEncode(v.y * inv, table: t) * a,
            SRGBTransfer.fastEncode(v.z * inv, table: t) * a, a)
        }
      }
    }
  }

  /// Converts premultiplied pixels in place into `space` from the other one.
  @inline(__always)
  static func convertRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, to space: WorkingSpace) {
    if space == .linear { decodeRow(p, count: count) } else { encodeRow(p, count: count) }
  }
}
