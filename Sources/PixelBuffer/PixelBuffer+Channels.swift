// PixelBuffer+Channels.swift — gray ↔ RGB, adding and dropping alpha.
//
// RGB → gray: Y = 0.2126 R + 0.7152 G + 0.0722 B (Rec. 709 / sRGB luma weights), a plain weighted
//             sum of the values as they are stored — for sRGB data that is the encoded values, not
//             linear light. (A linear-light variant belongs to FilterGraph's colour filters.)
//             Premultiplied input stays premultiplied: the sum commutes with scaling by alpha.
// gray → RGB: R = G = B = Y.
// add alpha:  alpha = 1 (opaque); colour unchanged (straight and premultiplied agree).
// drop alpha: the colour values are kept as stored and alpha is discarded. For premultiplied input
//             that is compositing over black; for straight input the colour of transparent pixels
//             shows through unchanged.

/// Rec. 709 luma weights, as used for RGB → gray.
public enum Rec709Luma {
  /// Weight of red, 0.2126.
  public static let red: Float = 0.2126
  /// Weight of green, 0.7152.
  public static let green: Float = 0.7152
  /// Weight of blue, 0.0722.
  public static let blue: Float = 0.0722
}

/// Float row kernels for channel layout changes.
enum ChannelKernels {
  /// Copies `pixels` float pixels from layout `from` to layout `to` (buffers must not overlap).
  static func remap(
    _ s: UnsafePointer<Float>, from: ChannelLayout, _ d: UnsafeMutablePointer<Float>,
    to: ChannelLayout, pixels: Int
  ) {
    let (wr, wg, wb) = (Rec709Luma.red, Rec709Luma.green, Rec709Luma.blue)
    switch (from, to) {
    case _ where from == to:
      d.update(from: s, count: pixels * from.channelCount)
    case (.gray, .grayAlpha):
      for i in 0..<pixels { d[2 * i] = s[i]; d[2 * i + 1] = 1 }
    case (.gray, .rgb):
      for i in 0..<pixels { let v = s[i]; d[3 * i] = v; d[3 * i + 1] = v; d[3 * i + 2] = v }
    case (.gray, .rgba):
      let raw = UnsafeMutableRawPointer(d)
      for i in 0..<pixels { raw.storeBytes(of: SIMD4(s[i], s[i], s[i], 1), toByteOffset: 16 * i, as: SIMD4<Float>.self) }
    case (.grayAlpha, .gray):
      for i in 0..<pixels { d[i] = s[2 * i] }
    case (.grayAlpha, .rgb):
      for i in 0..<pixels { let v = s[2 * i]; d[3 * i] = v; d[3 * i + 1] = v; d[3 * i + 2] = v }
    case (.grayAlpha, .rgba):
      let raw = UnsafeMutableRawPointer(d)
      for i in 0..<pixels {
        let v = s[2 * i]
        raw.storeBytes(of: SIMD4(v, v, v, s[2 * i + 1]), toByteOffset: 16 * i, as: SIMD4<Float>.self)
      }
    case (.rgb, .gray):
      for i in 0..<pixels { d[i] = wr * s[3 * i] + wg * s[3 * i + 1] + wb * s[3 * i + 2] }
    case (.rgb, .grayAlpha):
      for i in 0..<pixels { d[2 * i] = wr * s[3 * i] + wg * s[3 * i + 1] + wb * s[3 * i + 2]; d[2 * i + 1] = 1 }
    case (.rgb, .rgba):
      let raw = UnsafeMutableRawPointer(d)
      for i in 0..<pixels {
        raw.storeBytes(of: SIMD4(s[3 * i], s[3 * i + 1], s[3 * i + 2], 1), toByteOffset: 16 * i, as: SIMD4<Float>.self)
      }
    case (.rgba, .gray):
      for i in 0..<pixels { d[i] = wr * s[4 * i] + wg * s[4 * i + 1] + wb * s[4 * i + 2] }
    case (.rgba, .grayAlpha):
      for i in 0..<pixels { d[2 * i] = wr * s[4 * i] + wg * s[4 * i + 1] + wb * s[4 * i + 2]; d[2 * i + 1] = s[4 * i + 3] }
    case (.rgba, .rgb):
      for i in 0..<pixels { d[3 * i] = s[4 * i]; d[3 * i + 1] = s[4 * i + 1]; d[3 * i + 2] = s[4 * i + 2] }
    default:
      preconditionFailure("unhandled layout change \(from) → \(to)")
    }
  }
}

extension PixelBuffer {
  /// The same image with another channel layout; component type, colour space and metadata kept.
  ///
  /// RGB → gray is the Rec. 709 weighted sum `0.2126 R + 0.7152 G + 0.0722 B` of the stored
  /// values (encoded values for sRGB data — not a linear-light luminance); gray → RGB copies the
  /// gray value into all three. Adding alpha makes every pixel opaque (`.straight` unless the
  /// layout already had alpha). Dropping alpha keeps the colour values as stored: for
  /// premultiplied pixels that is compositing over black, for straight pixels transparent areas
  /// show their (otherwise hidden) colour. Integer results are rounded to nearest.
  public func converted(to layout: ChannelLayout) -> PixelBuffer {
    if layout == format.layout { return self }
    let mode: AlphaMode? = format.layout.hasAlpha ? format.alphaMode : nil
    return converted(to: PixelFormat(layout: layout, component: format.component, alphaMode: mode))
  }
}
