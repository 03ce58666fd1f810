// Tint.swift — tint toward, multiply by, paint with, or map luminance onto one colour.
//
// Definition, on straight (not premultiplied) colour c = (r, g, b) with alpha a, in the ENCODED
// working space (values as stored, sRGB curve applied — what libvips, ImageMagick and CSS filters
// do for "tint toward #FF8000 by 30 %", and what the W2 benchmark compares against), with the
// tint colour t = (tr, tg, tb) of alpha ta (sRGB-encoded) and k = amount · ta:
//
//   .mix         c' = c + k · (t − c)                   a' = a
//   .multiply    c' = c + k · (c ⊙ t − c)               a' = a      (amount 1, opaque: c ⊙ t)
//   .monochrome  c' = c + k · (L · t − c)               a' = a      L = 0.2126 r + 0.7152 g + 0.0722 b
//   .template    c' = c + amount · (t − c)              a' = a · ta
//
// `.template` paints a monochrome icon (or any shape) in the tint: with amount 1 every colour
// becomes t and only the alpha channel survives. The tint's own alpha fades the whole shape
// instead of the amount of colour; with an opaque tint the output alpha equals the input alpha
// bit for bit (a · 1 is exact, so 8- and 16-bit alpha codes come back unchanged).
// L in `.monochrome` is Rec. 709 luma on the encoded values (what "monochrome tint" means in most
// tools); for luminance from linear light use `converted(to: .gray)` first.
//
// Every mode is linear in premultiplied values (a·c' only involves a·c and a), so the filter runs as
// one 4×4 matrix on premultiplied pixels with no division. Values are not clamped here.

import PixelBufferModule

/// How `TintOperation` combines the image with its colour.
public enum TintMode: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Moves each colour toward the tint by the amount.
  case mix
  /// Multiplies each colour by the tint (a colour filter over the lens).
  case multiply
  /// Replaces every colour by the tint, keeping the shape's alpha (icon tinting).
  case template
  /// Maps each pixel's luma onto the tint (a duotone from black to the tint).
  case monochrome
}

/// Tints an image with one colour; see the file's definition.
public struct TintOperation: PointOperation {
  /// `tint color=#FF8000 amount=1 mode=mix`.
  public struct Parameters: FilterParameters {
    /// The tint: straight RGBA, sRGB-encoded.
    @Param("color", help: "The tint colour; its alpha scales the effect (template: fades the shape).")
    public var color: Color
    /// How much of the effect.
    @Param("amount", range: 0...1, percent: .fraction, help: "How much of the effect, 0 = none, 1 = full.")
    public var amount = 1.0
    /// How the colour is applied.
    @Param("mode", help: "mix | multiply | template | monochrome.")
    public var mode = TintMode.mix

    /// The defaults; `color` must be given.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters
  /// The premultiplied 4×4 map: out = c0·r + c1·g + c2·b + c3·a.
  let map: PremultipliedMatrix

  /// Creates the operation.
  public init(_ parameters: Parameters) {
    self.parameters = parameters
    let (color, amount, mode) = (parameters.color, parameters.amount, parameters.mode)
    let t = SIMD3<Float>(color.red, color.green, color.blue)
    let ta = min(max(color.alpha, 0), 1)
    let amt = Float(amount)
    let k = amt * ta
    let c0: SIMD4<Float>, c1: SIMD4<Float>, c2: SIMD4<Float>, c3: SIMD4<Float>
    let e0 = SIMD4<Float>(1, 0, 0, 0), e1 = SIMD4<Float>(0, 1, 0, 0), e2 = SIMD4<Float>(0, 0, 1, 0), e3 = SIMD4<Float>(0, 0, 0, 1)
    switch mode {
    case .mix:
      // a·c' = (1−k)·(a·c) + k·t·a
      (c0, c1, c2) = ((1 - k) * e0, (1 - k) * e1, (1 - k) * e2)
      c3 = SIMD4(k * t.x, k * t.y, k * t.z, 1)
    case .multiply:
      // a·c' = (1 − k + k·t) ⊙ (a·c)
      let f = SIMD3<Float>(repeating: 1 - k) + k * t
      (c0, c1, c2, c3) = (f.x * e0, f.y * e1, f.z * e2, e3)
    case .monochrome:
      // a·c' = (1−k)·(a·c) + k·t·(w · a·c)
      let w = Rec709.weights
      let kt = SIMD4<Float>(k * t.x, k * t.y, k * t.z, 0)
      c0 = (1 - k) * e0 + w.x * kt
      c1 = (1 - k) * e1 + w.y * kt
      c2 = (1 - k) * e2 + w.z * kt
      c3 = e3
    case .template:
      // a'·c' = ta·((1−amount)·(a·c) + amount·t·a),  a' = ta·a
      let s = ta * (1 - amt)
      (c0, c1, c2) = (s * e0, s * e1, s * e2)
      c3 = SIMD4(ta * amt * t.x, ta * amt * t.y, ta * amt * t.z, ta)
    }
    map = PremultipliedMatrix(c0: c0, c1: c1, c2: c2, c3: c3)
  }

  public static let table = OperationDescriptor(
    name: "tint", category: .color,
    summary: "Tints toward a colour (mix), multiplies by it, paints the shape in it (template) or maps luma onto it (monochrome).",
    parameters: Parameters.table, example: "tint color=#FF8000 amount=0.3")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  /// Encoded: tints are defined on stored values, as other tools define them.
  public var workingSpace: WorkingSpace? { .encoded }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    map.apply(to: pixels, count: count)
  }
}

extension Image {
  /// The image tinted with `color`: `.mix` moves colours toward it by `amount` (0…1, clamped; NaN
  /// counts as the default, 1),
  /// `.multiply` multiplies by it, `.template` paints the shape in it keeping alpha, `.monochrome`
  /// maps luma onto it. Works on sRGB-encoded values; see `TintOperation`.
  ///
  /// ```swift
  /// let warm = photo.tinted(Color(hex: "#FF8000")!, amount: 0.3)
  /// let icon = glyph.tinted(.white, mode: .template)
  /// ```
  public func tinted(_ color: Color, amount: Double = 1, mode: TintMode = .mix) -> Image {
    var parameters = TintOperation.Parameters()
    (parameters.color, parameters.amount, parameters.mode) = (color, amount, mode)
    return applying(TintOperation(parameters))
  }
}
