// ColorConversion.swift — conversions between gray, sRGB, linear sRGB and Display P3.
//
// Definition (all arithmetic in LINEAR light, on premultiplied values, which is exact because every
// step is linear; alpha is kept):
//
//   .gray        Y = w_R·R + w_G·G + w_B·B of the linear values, written as gray (or gray + alpha)
//                with the sRGB curve: out = enc(Y). For sRGB input w = BT.709's (0.2126, 0.7152,
//                0.0722); for Display P3 input w is the Y row of P3's RGB→XYZ (0.2290, 0.6917, 0.0793).
//   .sRGB        linear RGB of the input's primaries → linear sRGB (3×3), tagged sRGB.
//   .linearSRGB  the same values, tagged linear sRGB: the renderer then writes them WITHOUT the
//                curve (an 8-bit file gets linear codes, which band visibly in the shadows — ask for
//                16 bits when the result is meant to be kept).
//   .displayP3   linear RGB of the input's primaries → linear Display P3 (3×3), tagged Display P3.
//
// The 3×3 matrices are derived from the primaries' chromaticities and the D65 white in
// ColorMath.swift (sRGB → P3 ≈ [[0.8225, 0.1775, 0], [0.0332, 0.9668, 0], [0.0171, 0.0724, 0.9105]]).
// A conversion between the same primaries only changes the tag. sRGB → P3 always lands inside
// P3; P3 → sRGB can leave 0…1 for saturated P3 colours: the float working values keep them (so
// P3 → sRGB → P3 is exact), and the writer clips them when it stores 8- or 16-bit values.
// Pixels tagged with an ICC profile this library does not interpret are treated as sRGB; every
// conversion drops that profile (the result is in the target space).
//
// The working-space convention: working tiles are always "encoded" = sRGB curve applied or
// "linear" = curve removed, whatever an image's tag; the tag decides what the renderer finally
// stores (linear tags are stored from linear tiles, see Renderer.run).

import ImageCodecs
import PixelBufferModule

/// What `Image.converted(to:)` converts to.
public enum ColorTarget: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Luminance from linear light, one gray channel (plus alpha when the image has it).
  case gray
  /// sRGB primaries, sRGB curve.
  case sRGB
  /// sRGB primaries, linear light (written without the curve).
  case linearSRGB
  /// Display P3 primaries, sRGB curve.
  case displayP3

  /// The recipe spelling: `gray`, `srgb`, `linear`, `p3`.
  public var recipeName: String {
    switch self {
    case .gray: return "gray"
    case .sRGB: return "srgb"
    case .linearSRGB: return "linear"
    case .displayP3: return "p3"
    }
  }

  /// The recipe spelling (`recipeName`).
  public var recipeWord: String { recipeName }

  /// The target named `recipeName`, or nil.
  public init?(recipeName: String) {
    guard let t = ColorTarget.allCases.first(where: { $0.recipeName == recipeName.lowercased() }) else { return nil }
    self = t
  }
}

/// Converts pixels of one colour space into a `ColorTarget`; see the file's definition.
public struct ColorConversionOperation: PointOperation {
  /// What it converts to.
  public let target: ColorTarget
  /// The colour space of its input (decides the primaries the matrix starts from).
  public let source: ColorSpace
  /// The linear-RGB matrix on premultiplied values (out = m0·r + m1·g + m2·b, alpha kept).
  private let map: PremultipliedMatrix
  private let isIdentity: Bool

  /// Creates the conversion of pixels in `source` to `target`.
  public init(to target: ColorTarget, from source: ColorSpace) {
    self.target = target
    self.source = source
    let from = Primaries(source)
    let m0: SIMD4<Float>, m1: SIMD4<Float>, m2: SIMD4<Float>
    switch target {
    case .gray:
      let w = from.luminanceWeights
      (m0, m1, m2) = (SIMD4(w.x, w.x, w.x, 0), SIMD4(w.y, w.y, w.y, 0), SIMD4(w.z, w.z, w.z, 0))
      isIdentity = false
    case .sRGB, .linearSRGB, .displayP3:
      let m = from.conversion(to: target == .displayP3 ? .displayP3 : .sRGB)
      func column(_ j: Int) -> SIMD4<Float> { SIMD4(Float(m.m[0][j]), Float(m.m[1][j]), Float(m.m[2][j]), 0) }
      (m0, m1, m2) = (column(0), column(1), column(2))
      isIdentity = m == .identity
    }
    map = PremultipliedMatrix(c0: m0, c1: m1, c2: m2, c3: SIMD4(0, 0, 0, 1))
  }

  /// `convert to=gray|srgb|linear|p3`, or `convert profile=PATH intent=relative bpc=false`
  /// (`ProfileConversionOperation`): the verb's parameters, of two operations.
  public struct Parameters: FilterParameters {
    /// The target (give `to` or, for an ICC profile, `profile`).
    @OptionalParam("to", help: "gray | srgb | linear | p3 (or give profile=).")
    public var to: ColorTarget?
    /// The ICC profile file.
    @OptionalParam(path: "profile", help: "An RGB or gray ICC profile file, relative to the recipe: the image is written in it, the profile embedded.")
    public var profile: String?
    /// The rendering intent of a profile conversion.
    @Param("intent", help: "With profile=: relative (colorimetric, default) | perceptual | saturation | absolute.")
    public var intent = RenderingIntent.relative
    /// Black-point compensation of a profile conversion.
    @Param("bpc", help: "With profile=: black-point compensation.")
    public var bpc = false

    /// The defaults.
    public init() {}
  }

  public static let table = OperationDescriptor(
    name: "convert", category: .color,
    summary: "Converts to gray (luminance of linear light), sRGB, linear sRGB or Display P3, or (profile=) to be written in an ICC profile.",
    parameters: Parameters.table, example: "convert to=gray")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { Arguments([Parameters().$to.argument(target)]) }
  /// Linear light; nil when only the tag changes (no pixel is touched).
  public var workingSpace: WorkingSpace? { isIdentity ? nil : .linear }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.metadata.iccProfile = nil
    switch target {
    case .gray:
      info.layout = info.layout.hasAlpha ? .grayAlpha : .gray
      info.colorSpace = source.isLinear ? .linearSRGB : .sRGB
    case .sRGB: info.colorSpace = .sRGB
    case .linearSRGB: info.colorSpace = .linearSRGB
    case .displayP3: info.colorSpace = .displayP3
    }
    return info
  }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    if isIdentity { return }
    map.apply(to: pixels, count: count)
  }
}

extension Image {
  /// The image converted to `target`: `.gray` (luminance of linear light), `.sRGB`, `.linearSRGB`
  /// (stored without the curve) or `.displayP3`. See `ColorConversionOperation` for the definitions.
  ///
  /// ```swift
  /// let gray = photo.converted(to: .gray)
  /// let wide = photo.converted(to: .displayP3)
  /// ```
  public func converted(to target: ColorTarget) -> Image {
    applying(ColorConversionOperation(to: target, from: info.colorSpace))
  }
}
