// MatrixShaper.swift — the engine's own path for matrix/shaper source profiles.
//
// Definition: for a matrix/shaper profile (Adobe RGB, Display P3, Rec. 2020, ProPhoto, most camera
// and phone profiles) relative colorimetric conversion to linear sRGB is
//     out = M · (curve_R(r), curve_G(g), curve_B(b))
// with each tone curve sampled once per stored code (256 or 65536 entries: exact for the codes,
// no interpolation) and M the 3×3 matrix lcms2's own float pipeline applies (read from lcms2 by
// `fg_icc_matrix_shaper`). Gray profiles use their one curve for R = G = B. Per pixel this is three
// table loads and a 3×3 product instead of lcms2's general pipeline (measured in the closing note
// of W1a: lcms2 was the bottleneck). Each instance is checked against lcms2 when built (a grid of
// samples must agree within half an 8-bit code) and is not used otherwise.

import CLCMS
import ImageCodecs
import PixelBufferModule

struct MatrixShaper: Sendable {
  private let tables: [Float]
  private let entries: Int
  private let m0: SIMD4<Float>, m1: SIMD4<Float>, m2: SIMD4<Float>
  private let channels: Int, stride: Int, wide: Bool

  /// The fast path for `profile`'s pixels stored as `channels` colour channels (+ `extra`) of
  /// `bytes` bytes, or nil when the profile is not matrix/shaper or the intent is absolute.
  init?(_ profile: ICCProfile, channels: Int, bytes: Int, extra: Int, intent: RenderingIntent, bpc: Bool) {
    guard intent != .absolute, channels == 1 || channels == 3 else { return nil }
    let entries = bytes == 2 ? 65536 : 256
    var tables = [Float](repeating: 0, count: channels * entries)
    var m = [Float](repeating: 0, count: 9)
    guard fg_icc_matrix_shaper(profile.handle, intent.iccValue, bpc ? 1 : 0, Int32(entries), &tables, &m) == 1 else { return nil }
    self.tables = tables
    self.entries = entries
    m0 = SIMD4(m[0], m[3], m[6], 0)
    m1 = SIMD4(m[1], m[4], m[7], 0)
    m2 = SIMD4(m[2], m[5], m[8], 0)
    self.channels = channels
    stride = channels + extra
    wide = bytes == 2
  }

  /// Converts `count` stored pixels into four floats each (linear sRGB; the fourth lane left alone).
  func run(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int) {
    let d = output.assumingMemoryBound(to: SIMD4<Float>.self)
    tables.withUnsafeBufferPointer { t in
      let r = t.baseAddress!
      if channels == 1 {
        if wide {
          let s = input.assumingMemoryBound(to: UInt16.self)
          for x in 0..<count { let v = r[Int(s[x &* stride])]; d[x] = SIMD4(v, v, v, d[x].w) }
        } else {
          let s = input.assumingMemoryBound(to: UInt8.self)
          for x in 0..<count { let v = r[Int(s[x &* stride])]; d[x] = SIMD4(v, v, v, d[x].w) }
        }
        return
      }
      let g = r + entries, b = g + entries
      if wide {
        let s = input.assumingMemoryBound(to: UInt16.self)
        for x in 0..<count {
          let o = x &* stride
          var v = m0 * r[Int(s[o])] + m1 * g[Int(s[o &+ 1])] + m2 * b[Int(s[o &+ 2])]
          v.w = d[x].w
          d[x] = v
        }
      } else {
        let s = input.assumingMemoryBound(to: UInt8.self)
        for x in 0..<count {
          let o = x &* stride
          var v = m0 * r[Int(s[o])] + m1 * g[Int(s[o &+ 1])] + m2 * b[Int(s[o &+ 2])]
          v.w = d[x].w
          d[x] = v
        }
      }
    }
  }
}
