// PixelBuffer+Alpha.swift — straight ↔ premultiplied alpha.
//
// float32: premultiply c × a; unpremultiply c / a. Exact IEEE arithmetic, so a round trip is
//          within an ulp or two (≤ 1e-6 on [0, 1]) — not bit-exact in general.
// uint8:   premultiply (c × a + 127) / 255; unpremultiply min(255, (c × 255 + a / 2) / a).
// uint16:  premultiply (c × a + 32767) / 65535; unpremultiply min(65535, (c × 65535 + a / 2) / a).
// Both integer directions round to nearest. Premultiplying throws information away when alpha is
// small (with a = 1 every colour becomes 0 or 1), so straight → premultiplied → straight gives back
// every value only for a = 255 (65535); in general the error is at most about 255 / (2a) steps.
// Where alpha is 0 the colour channels become 0 in both directions.

/// Row kernels for alpha multiplication. Alpha is the last of `n` channels.
enum AlphaKernels {
  static func premultiplyU8(_ p: UnsafeMutablePointer<UInt8>, pixels: Int, channels n: Int) {
    premultiplyInteger(p, pixels: pixels, channels: n)
  }

  static func unpremultiplyU8(_ p: UnsafeMutablePointer<UInt8>, pixels: Int, channels n: Int) {
    unpremultiplyInteger(p, pixels: pixels, channels: n)
  }

  static func premultiplyU16(_ p: UnsafeMutablePointer<UInt16>, pixels: Int, channels n: Int) {
    premultiplyInteger(p, pixels: pixels, channels: n)
  }

  static func unpremultiplyU16(_ p: UnsafeMutablePointer<UInt16>, pixels: Int, channels n: Int) {
    unpremultiplyInteger(p, pixels: pixels, channels: n)
  }

  /// (c × a + max / 2) / max for 8- or 16-bit samples (max = 255 or 65535). Always inlined into
  /// the typed wrappers above, so `max` is a constant there and the division stays a multiply.
  @inline(__always)
  private static func premultiplyInteger<T: FixedWidthInteger & UnsignedInteger>(
    _ p: UnsafeMutablePointer<T>, pixels: Int, channels n: Int
  ) {
    let maxValue = UInt32(T.max), half = maxValue / 2
    for i in 0..<pixels {
      let px = p + i * n
      let a = UInt32(px[n - 1])
      for c in 0..<n - 1 {
        px[c] = T(truncatingIfNeeded: (UInt32(px[c]) &* a &+ half) / maxValue)
      }
    }
  }

  /// min(max, (c × max + a / 2) / a) for 8- or 16-bit samples; opaque pixels are left alone and
  /// fully transparent ones become 0.
  @inline(__always)
  private static func unpremultiplyInteger<T: FixedWidthInteger & UnsignedInteger>(
    _ p: UnsafeMutablePointer<T>, pixels: Int, channels n: Int
  ) {
    let maxValue = UInt32(T.max)
    for i in 0..<pixels {
      let px = p + i * n
      let a = UInt32(px[n - 1])
      if a == maxValue { continue }
      if a == 0 {
        for c in 0..<n - 1 { px[c] = 0 }
        continue
      }
      for c in 0..<n - 1 {
        px[c] = T(truncatingIfNeeded: min(maxValue, (UInt32(px[c]) &* maxValue &+ a / 2) / a))
      }
    }
  }

  static func premultiplyFloat(_ p: UnsafeMutablePointer<Float>, pixels: Int, channels n: Int) {
    if n == 4 {
      // One SIMD4 per pixel: multiply by (a, a, a, 1).
      let raw = UnsafeMutableRawPointer(p)
      for i in 0..<pixels {
        let q = raw + i * 16
        let v = q.loadUnaligned(as: SIMD4<Float>.self)
        q.storeBytes(of: v * SIMD4(v.w, v.w, v.w, 1), as: SIMD4<Float>.self)
      }
    } else {
      for i in 0..<pixels {
        let px = p + i * n
        let a = px[n - 1]
        for c in 0..<n - 1 { px[c] *= a }
      }
    }
  }

  static func unpremultiplyFloat(_ p: UnsafeMutablePointer<Float>, pixels: Int, channels n: Int) {
    for i in 0..<pixels {
      let px = p + i * n
      let a = px[n - 1]
      if a == 1 { continue }
      if a == 0 {
        for c in 0..<n - 1 { px[c] = 0 }
        continue
      }
      for c in 0..<n - 1 { px[c] /= a }
    }
  }

  /// Multiplies (or, when `premultiply` is false, divides) colour by alpha in place, for a row of
  /// `pixels` pixels of `n` channels of `component`.
  static func apply(
    _ row: UnsafeMutableRawPointer, component: ComponentType, pixels: Int, channels n: Int,
    premultiply: Bool
  ) {
    switch (component, premultiply) {
    case (.uint8, true): premultiplyU8(row.assumingMemoryBound(to: UInt8.self), pixels: pixels, channels: n)
    case (.uint8, false): unpremultiplyU8(row.assumingMemoryBound(to: UInt8.self), pixels: pixels, channels: n)
    case (.uint16, true): premultiplyU16(row.assumingMemoryBound(to: UInt16.self), pixels: pixels, channels: n)
    case (.uint16, false): unpremultiplyU16(row.assumingMemoryBound(to: UInt16.self), pixels: pixels, channels: n)
    case (.float32, true): premultiplyFloat(row.assumingMemoryBound(to: Float.self), pixels: pixels, channels: n)
    case (.float32, false): unpremultiplyFloat(row.assumingMemoryBound(to: Float.self), pixels: pixels, channels: n)
    }
  }
}

extension PixelBuffer {
  /// The same image with colour multiplied by alpha (`alphaMode == .premultiplied`).
  ///
  /// Returns `self` unchanged when the layout has no alpha or is already premultiplied. Integer
  /// formats round to nearest: `(c × a + 127) / 255` for uint8, `(c × a + 32767) / 65535` for
  /// uint16; float32 computes `c × a`.
  public func premultiplied() -> PixelBuffer { changingAlphaMode(to: .premultiplied) }

  /// The same image with colour divided by alpha (`alphaMode == .straight`).
  ///
  /// Returns `self` unchanged when the layout has no alpha or is already straight. Where alpha is
  /// 0 the colour becomes 0. Integer formats round to nearest and clamp:
  /// `min(255, (c × 255 + a / 2) / a)` for uint8 (likewise with 65535 for uint16); float32
  /// computes `c / a`. The round trip straight → premultiplied → straight is exact for opaque
  /// pixels only: small alphas keep only a few distinct colour levels.
  public func unpremultiplied() -> PixelBuffer { changingAlphaMode(to: .straight) }

  func changingAlphaMode(to mode: AlphaMode) -> PixelBuffer {
    guard format.layout.hasAlpha, format.alphaMode != mode else { return self }
    var out = copy()
    out.applyAlphaInPlace(premultiply: mode == .premultiplied)
    return out.reinterpreted(alphaMode: mode)
  }

  /// Multiplies or divides in place (this buffer must be uniquely referenced already).
  mutating func applyAlphaInPlace(premultiply: Bool) {
    let (w, n, component) = (width, format.channelCount, format.component)
    let h = height
    withUnsafeMutableBaseAddress { base, stride in
      for y in 0..<h {
        AlphaKernels.apply(base + y * stride, component: component, pixels: w, channels: n, premultiply: premultiply)
      }
    }
  }
}
