// WebPFile.swift — what a WebP file holds, read through libwebp's demuxer (CWebP shim).
import CWebP
import Foundation
import PixelBufferModule

/// A WebP file's features and metadata chunks, read without decoding pixels.
public struct WebPFile: Sendable {
  /// The canvas size.
  public var size: Size
  /// True when the image (or animation) has an alpha channel.
  public var hasAlpha: Bool
  /// True for animated files (their first frame is what FilterGraph decodes).
  public var isAnimated: Bool
  /// The number of frames (1 for still images).
  public var frameCount: Int
  /// True when the (first) image is lossless (VP8L).
  public var isLossless: Bool
  /// How many times an animation plays (0: forever); 0 for still files.
  public var loopCount: Int
  /// The ICCP chunk's profile, EXIF chunk and XMP chunk, as stored.
  public var iccProfile: Data?, exif: Data?, xmp: Data?
  /// The EXIF or XMP chunks left out for being over `MetadataLimits.maxBlockBytes`.
  public var leftOutMetadata: [LeftOutMetadata] = []

  /// Reads the features and chunks of `data`, checking the canvas against `limits`.
  ///
  /// - Throws: `CodecError` — `.corrupt`, `.truncated`, `.unsupported`, `.tooLarge`.
  public init(_ data: Data, limits: DecodeLimits = .default) throws {
    var info = cwebp_info()
    var message = [CChar](repeating: 0, count: 256)
    let status = data.withUnsafeBytes { raw in
      cwebp_read_info(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &info, &message, message.count)
    }
    try WebPFile.check(status, message)
    try limits.check(width: Int(info.width), height: Int(info.height), what: "WebP image")
    size = Size(width: Int(info.width), height: Int(info.height))
    hasAlpha = info.has_alpha != 0
    isAnimated = info.has_animation != 0
    frameCount = max(1, Int(info.frame_count))
    isLossless = info.is_lossless != 0
    loopCount = Int(info.loop_count)
    // The chunk pointers point into `data`: copy them while it is borrowed.
    func chunk(_ pointer: UnsafePointer<UInt8>?, _ length: Int) -> Data? {
      guard let pointer, length > 0 else { return nil }
      return Data(bytes: pointer, count: length)
    }
    iccProfile = data.withUnsafeBytes { _ in chunk(info.icc, info.icc_length) }
    // A chunk over the metadata limit is left out, with a warning.
    let limit = MetadataLimits.maxBlockBytes
    exif = info.exif_length > limit ? nil : data.withUnsafeBytes { _ in chunk(info.exif, info.exif_length) }
    xmp = info.xmp_length > limit ? nil : data.withUnsafeBytes { _ in chunk(info.xmp, info.xmp_length) }
    leftOutMetadata = [(LeftOutMetadata.Kind.exif, "EXIF", info.exif_length), (.xmp, "XMP", info.xmp_length)].filter { $0.2 > limit }.map {
      MetadataLimits.leftOut($0.0, "The WebP's \($0.1) chunk", bytes: $0.2)
    }
  }

  /// The EXIF chunk as a TIFF structure (without the `Exif\0\0` prefix some writers add).
  public var exifTIFF: Data? {
    guard let exif else { return nil }
    guard exif.starts(with: EXIF.app1Signature) else { return exif }
    return exif.count > 6 ? Data(exif.dropFirst(6)) : nil
  }

  /// The orientation the EXIF chunk gives (`.up` without one). Some writers start the chunk
  /// with JPEG's `Exif\0\0` prefix; both forms are read.
  public var orientation: Orientation {
    guard let exif else { return .up }
    let bytes = [UInt8](exif)
    return EXIF.orientation(app1: bytes) ?? EXIF.orientation(tiff: bytes) ?? .up
  }

  /// Throws the CodecError for a shim status.
  static func check(_ status: Int32, _ message: [CChar]) throws {
    guard Int(status) != Int(CWEBP_OK) else { return }
    let text = String(cString: message)
    switch Int(status) {
    case Int(CWEBP_TRUNCATED): throw CodecError(.truncated, text)
    case Int(CWEBP_UNSUPPORTED): throw CodecError(.unsupported, text)
    case Int(CWEBP_NO_MEMORY): throw CodecError(.tooLarge, text)
    case Int(CWEBP_INVALID): throw CodecError(.invalidArgument, text)
    default: throw CodecError(.corrupt, text)
    }
  }
}
