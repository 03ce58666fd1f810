// BlendMode.swift — how an overlay's colour combines with the colour beneath it.
//
// Definition (W3C Compositing and Blending Level 1, §5.8 "general formula", written for
// premultiplied values). With the overlay ("source") pixel s = (cs, αs), cs = αs·Cs, and the base
// ("backdrop") pixel b = (cb, αb), cb = αb·Cb, both premultiplied, the result is
//
//     co = cs·(1 − αb) + cb·(1 − αs) + αs·αb·B(Cb, Cs)        (each of r, g, b)
//     αo = αs + αb·(1 − αs)
//
// which, with αs·αb·B expanded into premultiplied terms, is for each mode:
//
//     over      B = Cs                 co = cs + cb·(1 − αs)                 (Porter–Duff source-over)
//     multiply  B = Cs·Cb              co = cs·(1 − αb) + cb·(1 − αs) + cs·cb
//     screen    B = Cs + Cb − Cs·Cb    co = cs + cb − cs·cb
//     darken    B = min(Cs, Cb)        co = cs + cb − max(cs·αb, cb·αs)
//     lighten   B = max(Cs, Cb)        co = cs + cb − min(cs·αb, cb·αs)
//     add                              co = min(cs + cb, 1),  αo = min(αs + αb, 1)
//                                      (Porter–Duff "plus", W3C Level 2 `plus-lighter`; not the
//                                      general formula)
//
// Every right-hand side above also gives αo when cs, cb are replaced by αs, αb, so each mode is
// one expression applied to all four lanes of a premultiplied RGBA vector. A transparent overlay
// pixel (αs = 0, cs = 0) leaves the base pixel unchanged in every mode.

import PixelBufferModule

/// How an overlay pixel combines with the base pixel under it (W3C Compositing and Blending
/// Level 1 on premultiplied colour; see the formulas at the top of BlendMode.swift).
public enum BlendMode: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Porter–Duff source-over: the overlay covers the base by its opacity.
  case over
  /// Multiplies the colours: always darker, white is neutral.
  case multiply
  /// Inverts, multiplies, inverts: always lighter, black is neutral.
  case screen
  /// Adds premultiplied colour and alpha, clamped to 1 (Porter–Duff plus).
  case add
  /// The darker of the two colours, per channel.
  case darken
  /// The lighter of the two colours, per channel.
  case lighten

  /// The result of putting premultiplied `source` over premultiplied `backdrop` (all four lanes).
  @inlinable
  public func blend(_ source: SIMD4<Float>, over backdrop: SIMD4<Float>) -> SIMD4<Float> {
    switch self {
    case .over: return BlendKernels.Over.apply(source, backdrop)
    case .multiply: return BlendKernels.Multiply.apply(source, backdrop)
    case .screen: return BlendKernels.Screen.apply(source, backdrop)
    case .add: return BlendKernels.Add.apply(source, backdrop)
    case .darken: return BlendKernels.Darken.apply(source, backdrop)
    case .lighten: return BlendKernels.Lighten.apply(source, backdrop)
    }
  }

  /// Blends `count` premultiplied `source` pixels, each first scaled by `opacity`, into the
  /// premultiplied `backdrop` pixels in place.
  public func blendRow(
    _ source: UnsafePointer<SIMD4<Float>>, into backdrop: UnsafeMutablePointer<SIMD4<Float>>, count: Int,
    opacity: Float
  ) {
    switch self {
    case .over: BlendKernels.run(BlendKernels.Over.self, source, backdrop, count, opacity)
    case .multiply: BlendKernels.run(BlendKernels.Multiply.self, source, backdrop, count, opacity)
    case .screen: BlendKernels.run(BlendKernels.Screen.self, source, backdrop, count, opacity)
    case .add: BlendKernels.run(BlendKernels.Add.self, source, backdrop, count, opacity)
    case .darken: BlendKernels.run(BlendKernels.Darken.self, source, backdrop, count, opacity)
    case .lighten: BlendKernels.run(BlendKernels.Lighten.self, source, backdrop, count, opacity)
    }
  }
}

/// The per-mode formulas as static functions, so each row loop is specialised for one mode.
@usableFromInline
enum BlendKernels {
  @usableFromInline protocol Kernel {
    static func apply(_ s: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float>
  }

  @usableFromInline enum Over: Kernel {
    @inlinable @inline(__always) static func apply(_ s: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
      s + b * (1 - s.w)
    }
  }

  @usableFromInline enum Multiply: Kernel {
    @inlinable @inline(__always) static func apply(_ s: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
      s * (1 - b.w) + b * (1 - s.w) + s * b
    }
  }

  @usableFromInline enum Screen: Kernel {
    @inlinable @inline(__always) static func apply(_ s: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
      s + b - s * b
    }
  }

  @usableFromInline enum Add: Kernel {
    @inlinable @inline(__always) static func apply(_ s: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
      pointwiseMin(s + b, SIMD4(repeating: 1))
    }
  }

  @usableFromInline enum Darken: Kernel {
    @inlinable @inline(__always) static func apply(_ s: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
      s + b - pointwiseMax(s * b.w, b * s.w)
    }
  }

  @usableFromInline enum Lighten: Kernel {
    @inlinable @inline(__always) static func apply(_ s: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
      s + b - pointwiseMin(s * b.w, b * s.w)
    }
  }

  @inline(__always)
  static func run<K: Kernel>(
    _ kernel: K.Type, _ src: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int,
    _ opacity: Float
  ) {
    if opacity == 1 {
      for i in 0..<count { dst[i] = K.apply(src[i], dst[i]) }
    } else {
      for i in 0..<count { dst[i] = K.apply(src[i] * opacity, dst[i]) }
    }
  }
}
