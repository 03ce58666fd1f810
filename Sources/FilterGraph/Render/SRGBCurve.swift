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
    // The table is fetched once per row: through `SRGBTransfer.fastDecode(_:)` each value paid a
    // global-initialiser check and an array access (a third of W5's time).
    SRGBTransfer.withDecodeTable { t in
      for i in 0..<count {
        let v = p[i]
        let a = v.w
        if a == 1 {
          p[i] = SIMD4(SRGBTransfer.fastDecode(v.x, table: t), SRGBTransfer.fastDecode(v.y, table: t), SRGBTransfer.fastDecode(v.z, table: t), 1)
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
    // The table is fetched once per row: through `SRGBTransfer.fastEncode(_:)` each value paid a
    // global-initialiser check and an array access (a third of W5's time).
    SRGBTransfer.withEncodeTable { t in
      for i in 0..<count {
        let v = p[i]
        let a = v.w
        if a == 1 {
          p[i] = SIMD4(SRGBTransfer.fastEncode(v.x, table: t), SRGBTransfer.fastEncode(v.y, table: t), SRGBTransfer.fastEncode(v.z, table: t), 1)
        } else if a > 0 {
          let inv = 1 / a
          p[i] = SIMD4(
            SRGBTransfer.fastEncode(v.x * inv, table: t) * a, SRGBTransfer.fastEncode(v.y * inv, table: t) * a,
            SRGBTransfer.fastEncode(v.z * inv, table: t) * a, a)
        }
      }
    }
  }
}
