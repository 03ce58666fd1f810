// PixelFormat.swift — how the bytes of one pixel are laid out.

/// Which channels a pixel carries, in memory order.
public enum ChannelLayout: String, Hashable, Sendable, CaseIterable {
  /// One luminance channel.
  case gray
  /// Luminance, then alpha.
  case grayAlpha
  /// Red, green, blue.
  case rgb
  /// Red, green, blue, then alpha.
  case rgba

  /// The number of channels.
  @inlinable public var channelCount: Int {
    switch self {
    case .gray: return 1
    case .grayAlpha: return 2
    case .rgb: return 3
    case .rgba: return 4
    }
  }

  /// True for `grayAlpha` and `rgba`.
  @inlinable public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }

  /// True for `gray` and `grayAlpha`.
  @inlinable public var isGray: Bool { self == .gray || self == .grayAlpha }

  /// The same colour channels with an alpha channel added (unchanged when it has one).
  public var withAlpha: ChannelLayout { isGray ? .grayAlpha : .rgba }

  /// The same colour channels without alpha (unchanged when it has none).
  public var withoutAlpha: ChannelLayout { isGray ? .gray : .rgb }
}

/// The numeric type of one channel value.
public enum ComponentType: String, Hashable, Sendable, CaseIterable {
  /// 0…255.
  case uint8
  /// 0…65535.
  case uint16
  /// 0.0…1.0 nominal (values outside are allowed and kept).
  case float32

  /// Bytes per channel value.
  @inlinable public var byteCount: Int {
    switch self {
    case .uint8: return 1
    case .uint16: return 2
    case .float32: return 4
    }
  }

  /// The value that stands for 1.0 (255, 65535 or 1).
  @inlinable public var maxValue: Float {
    switch self {
    case .uint8: return 255
    case .uint16: return 65535
    case .float32: return 1
    }
  }

  /// Bits per channel as files count them (8, 16 or 32).
  public var bitDepth: Int { byteCount * 8 }
}

/// How colour channels relate to alpha.
public enum AlphaMode: String, Hashable, Sendable {
  /// No alpha channel: every pixel is opaque.
  case none
  /// Colour values are independent of alpha (what PNG files store).
  case straight
  /// Colour values are already multiplied by alpha (what resampling and blurring need).
  case premultiplied
}

/// The full description of one pixel's bytes.
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
  /// Channels and their order.
  public var layout: ChannelLayout
  /// The numeric type of each channel.
  public var component: ComponentType
  /// How colour relates to alpha (`.none` exactly when `layout` has no alpha).
  public var alphaMode: AlphaMode

  /// Creates a format; `alphaMode` defaults to `.straight` for layouts with alpha and `.none` otherwise.
  public init(layout: ChannelLayout, component: ComponentType, alphaMode: AlphaMode? = nil) {
    self.layout = layout
    self.component = component
    if layout.hasAlpha {
      self.alphaMode = (alphaMode == nil || alphaMode == AlphaMode.none) ? .straight : alphaMode!
    } else {
      self.alphaMode = .none
    }
  }

  /// Bytes per pixel.
  @inlinable public var bytesPerPixel: Int { layout.channelCount * component.byteCount }

  /// The number of channels.
  @inlinable public var channelCount: Int { layout.channelCount }

  /// 8-bit RGB.
  public static let rgb8 = PixelFormat(layout: .rgb, component: .uint8)
  /// 8-bit RGBA, straight alpha.
  public static let rgba8 = PixelFormat(layout: .rgba, component: .uint8)
  /// 8-bit gray.
  public static let gray8 = PixelFormat(layout: .gray, component: .uint8)
  /// 16-bit RGB.
  public static let rgb16 = PixelFormat(layout: .rgb, component: .uint16)
  /// 16-bit RGBA, straight alpha.
  public static let rgba16 = PixelFormat(layout: .rgba, component: .uint16)
  /// Float RGBA with premultiplied alpha: the renderer's working format.
  public static let rgbaFloatPremultiplied = PixelFormat(
    layout: .rgba, component: .float32, alphaMode: .premultiplied)

  /// For example `"rgba uint8 straight"`.
  public var description: String {
    alphaMode == .none
      ? "\(layout.rawValue) \(component.rawValue)"
      : "\(layout.rawValue) \(component.rawValue) \(alphaMode.rawValue)"
  }
}
