// WebPStreamEncoder.swift — rows in, a WebP file out (libwebp encodes whole pictures).
import CWebP
import Foundation
import PixelBufferModule

/// libwebp's encoder settings (see `WebPCodec.encodeOptions` for their meaning and ranges).
public struct WebPEncodeSettings: Hashable, Sendable {
  /// 0…100.
  public var quality: Int
  /// Lossless (VP8L).
  public var isLossless: Bool
  /// 0…100; 100 is off (lossless only).
  public var nearLossless: Int
  /// 0…6 (libwebp's `method`).
  public var effort: Int
  /// 0…100.
  public var alphaQuality: Int

  /// Creates settings; the defaults are cwebp's (quality 80, method 4).
  public init(quality: Int = 80, isLossless: Bool = false, nearLossless: Int = 100, effort: Int = 4, alphaQuality: Int = 100) {
    self.quality = quality
    self.isLossless = isLossless
    self.nearLossless = nearLossless
    self.effort = effort
    self.alphaQuality = alphaQuality
  }

  /// The shim's form.
  var shimOptions: cwebp_encode_options {
    cwebp_encode_options(
      lossless: isLossless ? 1 : 0, quality: Float(quality), method: Int32(effort), near_lossless: Int32(nearLossless),
      alpha_quality: Int32(alphaQuality))
  }
}

extension WebPEncodeSettings: FormatOptionSet {
  /// cwebp's defaults.
  public init() { self.init(quality: 80) }

  /// The WebP option table.
  public static let fields: [FormatField<WebPEncodeSettings>] = [
    .integer("quality", \.quality, in: 0...100, help: "Quality: higher is better and larger."),
    .boolean("lossless", \.isLossless, help: "Lossless compression (WebP's VP8L); quality then sets the effort spent."),
    .integer(
      "near-lossless", \.nearLossless, in: 0...100,
      help: "With lossless: preprocess pixels to compress better, 0 (most change) … 100 (off)."),
    .integer("effort", \.effort, in: 0...6, help: "Encoder effort: 0 (fastest) … 6 (slowest, smallest)."),
    .integer("alpha-quality", \.alphaQuality, in: 0...100, help: "Quality of lossy alpha, 0 … 100 (lossless alpha)."),
  ]
}

/// Collects rows and encodes them when the last one arrives. libwebp has no row-streaming
/// encoder, so the image is held once, 8-bit (a thumbnail's few megabytes; 96 MB for 24 MP RGBA).
public final class WebPStreamEncoder: ImageRowEncoder {
  private let size: Size
  private let settings: WebPEncodeSettings
  private let iccProfile: Data?, exif: Data?, xmp: Data?
  private let handle: OutputHandle?
  private var image: WholeImageCollector

  /// Starts a WebP of `size` pixels in `format` (`.rgb8` or `.rgba8`, straight alpha), embedding
  /// the ICC profile, EXIF and XMP blocks given, written to `handle` (nil: returned by `finish`).
  ///
  /// - Throws: `.invalidArgument` for a size over WebP's 16383 pixels a side or another format.
  public init(
    size: Size, format: PixelFormat, settings: WebPEncodeSettings = WebPEncodeSettings(), iccProfile: Data? = nil,
    exif: Data? = nil, xmp: Data? = nil, handle: OutputHandle? = nil
  ) throws {
    try MetadataLimits.checkWritable(exif: exif, xmp: xmp, format: "WebP")
    guard (1...16383).contains(size.width), (1...16383).contains(size.height) else {
      throw CodecError(.invalidArgument, "A WebP image must be 1 to 16383 pixels on each side; \(size) was requested.")
    }
    guard format == PixelFormat(layout: .rgb, component: .uint8) || format == PixelFormat(layout: .rgba, component: .uint8) else {
      throw CodecError(.invalidArgument, "WebP rows must be 8-bit RGB or RGBA, not \(format).")
    }
    self.size = size
    self.settings = settings
    self.iccProfile = iccProfile
    self.exif = exif
    self.xmp = xmp
    self.handle = handle
    image = try WholeImageCollector(size: size, format: format, formatName: "WebP")
  }

  public func write(rows: PixelBuffer) throws {
    try image.append(rows)
  }

  public func finish() throws -> Data? {
    let pixels = try image.complete()
    var options = settings.shimOptions
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    var message = [CChar](repeating: 0, count: 256)
    let channels = Int32(pixels.format.channelCount), width = Int32(size.width), height = Int32(size.height)
    let status = pixels.withUnsafeBaseAddress { base, stride in
      Self.withBytes(iccProfile) { icc, iccLength in
        Self.withBytes(exif) { exif, exifLength in
          Self.withBytes(xmp) { xmp, xmpLength in
            cwebp_encode(
              base.assumingMemoryBound(to: UInt8.self), width, height, stride, channels, &options, icc, iccLength,
              exif, exifLength, xmp, xmpLength, &out, &length, &message, message.count)
          }
        }
      }
    }
    try WebPFile.check(status, message)
    defer { cwebp_free(out) }
    let bytes = UnsafeRawBufferPointer(start: out, count: length)
    if let handle {
      try handle.writeAll(bytes)
      return nil
    }
    return Data(bytes)
  }

  /// `data`'s bytes and count, or (nil, 0).
  static func withBytes<R>(_ data: Data?, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
    guard let data, !data.isEmpty else { return body(nil, 0) }
    return data.withUnsafeBytes { body($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
  }
}
