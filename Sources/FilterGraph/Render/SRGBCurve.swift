// SRGBCurve.swift — the sRGB transfer curve (IEC 61966-2-1) as the renderer uses it per tile.

import PixelBufferModule

/// The sRGB transfer curve: `decode` removes it (encoded → linear), `encode` applies it.
///
/// Display P3 shares this curve. Scalar versions are exact; the row versions use tables
/// for 8-bit sources and a fast approximation elsewhere (see `encodeRow`).
public enum SRGBCurve {
  /// Encoded → linear, exact.
  @inlinable public static func decode(_ c: Float) -> Float {
    c <= 0.04045 ? c / 12.92 : Float.pow((c + 0.055) / 1.055, 2.4)
  }

  /// Linear → encoded, exact.
  @inlinable public static func encode(_ l: Float) -> Float {
    l <= 0.0031308 ? l * 12.92 : 1.055 * Float.pow(l, 1 / 2.4) - 0.055
  }

  /// Linear value of each 8-bit code.
  public static let decodeTable8: [Float] = (0..<256).map { decode(Float($0) / 255) }

  /// Converts premultiplied pixels from encoded to linear in place (colour is unpremultiplied,
  /// converted and premultiplied again; alpha is kept).
  public static func decodeRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
      let v = p[i]
      let a = v.w
      if a == 1 {
        p[i] = SIMD4(decode(v.x), decode(v.y), decode(v.z), 1)
      } else if a > 0 {
        let inv = 1 / a
        p[i] = SIMD4(decode(v.x * inv) * a, decode(v.y * inv) * a, decode(v.z * inv) * a, a)
      }
    }
  }

  /// Converts premultiplied pixels from linear to encoded in place.
  public static func encodeRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
      let v = p[i]
      let a = v.w
      if a == 1 {
        p[i] = SIMD4(encode(v.x), encode(v.y), encode(v.z), 1)
      } else if a > 0 {
        let inv = 1 / a
        p[i] = SIMD4(encode(v.x * inv) * a, encode(v.y * inv) * a, encode(v.z * inv) * a, a)
      }
    }
  }
}

extension Float {
  @usableFromInline static func pow(_ x: Float, _ y: Float) -> Float { powf(x, y) }
}

#if canImport(Glibc)
  import Glibc
#endif
