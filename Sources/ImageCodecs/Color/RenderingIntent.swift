// RenderingIntent.swift — the ICC rendering intents, and how a decoder that converts colours
// itself (a CMYK JPEG or TIFF page through its CMYK profile) is asked to map them.

/// How colours are mapped between profiles whose gamuts differ (the ICC rendering intents).
public enum RenderingIntent: String, Hashable, Sendable, CaseIterable {
  /// Compresses the whole gamut to fit (only LUT-based profiles differ from relative).
  case perceptual
  /// Relative colorimetric: in-gamut colours exact, white mapped to white, the rest clipped (default).
  case relative
  /// Saturation: keeps colours vivid (only LUT-based profiles differ from relative).
  case saturation
  /// Absolute colorimetric: exact colours including the white point (paper simulation).
  case absolute

  /// The ICC intent number.
  package var iccValue: Int32 {
    switch self {
    case .perceptual: return 0
    case .relative: return 1
    case .saturation: return 2
    case .absolute: return 3
    }
  }
}

/// How a decoder that converts a file's colours itself — a CMYK JPEG or TIFF page through its
/// embedded CMYK profile, into sRGB — maps them (`DecodeRequest.colorRendering`). The renderer
/// passes the intent and black-point compensation it uses for every other profile conversion.
public struct ColorRendering: Hashable, Sendable {
  /// The rendering intent.
  public var intent: RenderingIntent
  /// Black-point compensation: the profile's black is mapped to sRGB's black.
  public var blackPointCompensation: Bool

  /// Creates a rendering; the defaults are relative colorimetric without black-point
  /// compensation, as for every other profile conversion (and as libvips does).
  public init(intent: RenderingIntent = .relative, blackPointCompensation: Bool = false) {
    self.intent = intent
    self.blackPointCompensation = blackPointCompensation
  }

  /// A short form for cache keys and messages, such as `relative` or `perceptual+bpc`.
  public var label: String { intent.rawValue + (blackPointCompensation ? "+bpc" : "") }
}
