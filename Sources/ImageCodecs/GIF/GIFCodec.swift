// GIFCodec.swift — GIF in the codec registry: the first frame through giflib (CGIF shim).
import CGIF
import Foundation
import PixelBufferModule

extension ImageFileFormat {
  /// GIF (87a and 89a), read through giflib.
  public static let gif = ImageFileFormat(rawValue: "gif")
}

/// GIF: reads the first frame onto the logical screen, with transparency as alpha. Animated files
/// give their first frame; later frames are not read. Writing GIF is not supported.
public enum GIFCodec: ImageCodec {
  public static let format = ImageFileFormat.gif
  public static let displayName = "GIF"
  public static let fileExtensions = ["gif"]
  public static let summary =
    "giflib; the first frame only (an animation's other frames are ignored), transparency as alpha, RGBA when the frame has a transparent colour or does not cover the screen, RGB otherwise."
  public static let encoderUnavailableReason: String? =
    "GIF output is not supported; write PNG (lossless, with alpha) or WebP instead."

  /// `GIF87a` or `GIF89a`.
  public static func sniff(_ head: [UInt8]) -> Bool {
    head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8))
  }

  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    let info = try readInfo(data, limits: request.limits)
    return ImageHeader(
      fileFormat: .gif, size: Size(width: Int(info.width), height: Int(info.height)),
      layout: info.has_alpha != 0 ? .rgba : .rgb, component: .uint8, metadata: ImageMetadata())
  }

  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    guard request.scaleDenominator == 1 else {
      throw CodecError(.invalidArgument, "GIF files decode at full size only, not at 1/\(request.scaleDenominator).")
    }
    let header = try readHeader(data, request: request)
    let format = PixelFormat(layout: header.layout, component: .uint8)
    return WholeImageDecoder(size: header.size, format: format, colorSpace: .sRGB, metadata: header.metadata) { buffer in
      var message = [CChar](repeating: 0, count: 256)
      let channels = Int32(format.channelCount)
      let status = buffer.withUnsafeMutableBaseAddress { base, stride in
        data.withUnsafeBytes { raw in
          cgif_decode(
            raw.bindMemory(to: UInt8.self).baseAddress, raw.count, channels, base.assumingMemoryBound(to: UInt8.self),
            stride, &message, message.count)
        }
      }
      try check(status, message)
    }
  }

  public static let encodeOptions: [FormatOption] = []

  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    PixelFormat(layout: layout, component: .uint8)
  }

  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    throw CodecError(.unsupported, encoderUnavailableReason!)
  }

  private static func readInfo(_ data: Data, limits: DecodeLimits) throws -> cgif_info {
    var info = cgif_info()
    var message = [CChar](repeating: 0, count: 256)
    let status = data.withUnsafeBytes { raw in
      cgif_read_info(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &info, &message, message.count)
    }
    try check(status, message)
    try limits.check(width: Int(info.width), height: Int(info.height), what: "GIF image")
    return info
  }

  private static func check(_ status: Int32, _ message: [CChar]) throws {
    guard Int(status) != Int(CGIF_OK) else { return }
    let text = String(cString: message)
    switch Int(status) {
    case Int(CGIF_TRUNCATED): throw CodecError(.truncated, text)
    case Int(CGIF_NO_MEMORY): throw CodecError(.tooLarge, text)
    case Int(CGIF_INVALID): throw CodecError(.invalidArgument, text)
    default: throw CodecError(.corrupt, text)
    }
  }
}
