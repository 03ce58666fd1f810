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
    for i in 0..<count {
      let v = p[i]
      let a = v.w
      if a == 1 {
        p[i] = SIMD4(SRGBTransfer.fastDecode(v.x), SRGBTransfer.fastDecode(v.y), SRGBTransfer.fastDecode(v.z), 1)
      } else if a > 0 {
        let inv = 1 / a
        p[i] = SIMD4(
          SRGBTransfer.fastDecode(v.x * inv) * a, SRGBTransfer.fastDecode(v.y * inv) * a,
          SRGBTransfer.fastDecode(v.z * inv) * a, a)
      }
    }
  }

  /// Converts premultiplied pixels from linear to encoded in place (table-driven, error < 3e-6).
  public static func encodeRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
      let v = p[i]
      let a = v.w
      if a == 1 {
        p[i] = SIMD4(SRGBTransfer.fastEncode(v.x), SRGBTransfer.fastEncode(v.y), SRGBTransfer.fastEncode(v.z), 1)
      } else if a > 0 {
        let inv = 1 / a
        p[i] = SIMD4(
          SRGBTransfer.fastEncode(v.x * inv) * a, SRGBTransfer.fastEncode(v.y * inv) * a,
          SRGBTransfer.fastEncode(v.z * inv) * a, a)
      }
    }
  }
}
