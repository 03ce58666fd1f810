// HEIFStreamEncoder.swift — rows in, an AVIF or HEIC file out (libheif encodes whole images).
import CHEIF
import Foundation
import PixelBufferModule

/// libheif's encoder settings (see `AVIFCodec.encodeOptions` for their meaning and ranges).
public struct HEIFEncodeSettings: Hashable, Sendable {
  /// The image codec inside the HEIF container.
  public enum Compression: Hashable, Sendable {
    /// AV1: an AVIF file.
    case av1
    /// HEVC: a HEIC file.
    case hevc
  }

  /// AV1 (AVIF) or HEVC (HEIC).
  public var compression: Compression
  /// 0…100.
  public var quality: Int
  /// Lossless (4:4:4, identity matrix).
  public var isLossless: Bool
  /// 0 (fastest) … 9 (slowest), or nil for libheif's default.
  public var effort: Int?
  /// 420, 422 or 444.
  public var chroma: Int
  /// 8, 10 or 12 bits per sample.
  public var bitDepth: Int
  /// libheif's id of the encoder to use ("aom", "x265"…), or nil for libheif's default for the format.
  public var encoderName: String?
  /// An HDR signal's description, or nil for sRGB's: its primaries and transfer go in the nclx box
  /// (BT.2020 and PQ: 9 and 16), its mastering display and content light levels in mdcv and clli
  /// boxes. The samples must be encoded as it says.
  public var hdrSignal: HDRSignalMetadata?

  /// Creates settings; the defaults are `HEIFEncodeOptions`'.
  public init(
    compression: Compression, quality: Int = HEIFEncodeOptions().quality, isLossless: Bool = false, effort: Int? = nil,
    chroma: Int = HEIFEncodeOptions().chroma,
    bitDepth: Int = 8, encoderName: String? = nil
  ) {
    self.compression = compression
    self.quality = quality
    self.isLossless = isLossless
    self.effort = effort
    self.chroma = chroma
    self.bitDepth = bitDepth
    self.encoderName = encoderName
  }

  /// The names of the encoders libheif has for `compression` (empty when it cannot write it).
  public static func encoderNames(for compression: Compression) -> [String] {
    var names = [CChar](repeating: 0, count: 256)
    cheif_encoder_names(compression == .hevc ? Int32(CHEIF_HEVC) : Int32(CHEIF_AV1), &names, names.count)
    return HEIFFile.string(names).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
  }
}

/// Collects rows and encodes them when the last one arrives. libheif has no row-streaming
/// encoder, so the image is held once (8- or 16-bit, as the rows come).
public final class HEIFStreamEncoder: ImageRowEncoder {
  private let size: Size
  private let settings: HEIFEncodeSettings
  private let iccProfile: Data?, exif: Data?, xmp: Data?
  private let handle: OutputHandle?
  private var image: WholeImageCollector

  /// Starts a file of `size` pixels in `format` (8- or 16-bit RGB or RGBA, straight alpha),
  /// embedding the ICC profile, EXIF (a TIFF structure from `II`/`MM`; libheif adds HEIF's offset
  /// before it) and XMP packet given, written to `handle` (nil:
  /// returned by `finish`).
  ///
  /// - Throws: `.invalidArgument` for an empty size or another format, `.tooLarge` when the
  ///   image cannot be held in memory.
  public init(
    size: Size, format: PixelFormat, settings: HEIFEncodeSettings, iccProfile: Data? = nil, exif: Data? = nil,
    xmp: Data? = nil, handle: OutputHandle? = nil
  ) throws {
    try MetadataLimits.checkWritable(exif: exif, xmp: xmp, format: "HEIF")
    guard size.width >= 1, size.height >= 1, size.width <= 65535, size.height <= 65535 else {
      throw CodecError(.invalidArgument, "A HEIF image must be 1 to 65535 pixels on each side; \(size) was requested.")
    }
    guard [.rgb8, .rgba8, .rgb16, .rgba16].contains(format) else {
      throw CodecError(.invalidArgument, "HEIF rows must be 8- or 16-bit RGB or RGBA, not \(format).")
    }
    self.size = size
    self.settings = settings
    self.iccProfile = iccProfile
    self.exif = exif
    self.xmp = xmp
    self.handle = handle
    image = try WholeImageCollector(size: size, format: format, formatName: "HEIF")
  }

  /// An encoder for a registry request: the options resolved against the AVIF or HEIC table.
  convenience init(_ request: EncodeRequest, compression: HEIFEncodeSettings.Compression) throws {
    let chosen = HEIFEncodeOptions(request.options)
    let deep = request.pixelFormat.component == .uint16
    let settings = HEIFEncodeSettings(
      compression: compression, quality: chosen.quality, isLossless: chosen.isLossless, effort: chosen.effort,
      chroma: chosen.chroma, bitDepth: chosen.bitDepth ?? (deep ? 12 : 8))
    try self.init(
      size: request.size, format: request.pixelFormat, settings: settings, iccProfile: request.metadata.iccProfile,
      exif: request.metadata.exif, xmp: request.metadata.xmp, handle: request.handle)
  }

  public func write(rows: PixelBuffer) throws {
    try image.append(rows)
  }

  /// The mdcv and clli values of `hdr` in libheif's units: chromaticities in 0.00002, green, blue,
  /// red (ISO/IEC 23008-2 D.3.28's order), luminance in 0.0001 cd/m²; light levels in cd/m².
  static func lightLevels(_ hdr: HDRSignalMetadata) -> cheif_light_levels {
    let xy = [2, 4, 0, 6].flatMap { [hdr.chromaticityCode($0), hdr.chromaticityCode($0 + 1)] }
    return cheif_light_levels(
      present: 1, primaries_xy: (xy[0], xy[1], xy[2], xy[3], xy[4], xy[5]), white_xy: (xy[6], xy[7]),
      max_luminance: HDRSignalMetadata.luminanceCode(hdr.masteringMaxLuminance),
      min_luminance: HDRSignalMetadata.luminanceCode(hdr.masteringMinLuminance),
      max_cll: UInt16(min(hdr.maxContentLightLevel.rounded(), 65535)), max_fall: UInt16(min(hdr.maxFrameAverageLightLevel.rounded(), 65535)))
  }

  public func finish() throws -> Data? {
    let pixels = try image.complete()
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    var message = [CChar](repeating: 0, count: 512)
    let channels = Int32(pixels.format.channelCount), sixteen: Int32 = pixels.format.component == .uint16 ? 1 : 0
    let width = Int32(size.width), height = Int32(size.height)
    let s = settings
    let status = withOptionalCString(s.encoderName) { encoderName in
      var options = cheif_encode_options(
        format: s.compression == .hevc ? Int32(CHEIF_HEVC) : Int32(CHEIF_AV1), encoder_name: encoderName,
        quality: Int32(s.quality), lossless: s.isLossless ? 1 : 0, effort: Int32(s.effort ?? -1), chroma: Int32(s.chroma),
        bit_depth: Int32(s.bitDepth), primaries: Int32(s.hdrSignal?.primaries ?? 0), transfer: Int32(s.hdrSignal?.transfer ?? 0),
        light_levels: s.hdrSignal.map(Self.lightLevels) ?? cheif_light_levels())
      return pixels.withUnsafeBaseAddress { base, stride in
        Self.withBytes(iccProfile) { icc, iccLength in
          Self.withBytes(exif) { exif, exifLength in
            Self.withBytes(xmp) { xmp, xmpLength in
              cheif_encode(
                base.assumingMemoryBound(to: UInt8.self), width, height, stride, channels, sixteen, &options, icc, iccLength,
                exif, exifLength, xmp, xmpLength, &out, &length, &message, message.count)
            }
          }
        }
      }
    }
    try HEIFFile.check(status, message)
    defer { cheif_free(out) }
    let bytes = UnsafeRawBufferPointer(start: out, count: length)
    if let handle {
      try handle.writeAll(bytes)
      return nil
    }
    return Data(bytes)
  }

  private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
  }

  private static func withBytes<R>(_ data: Data?, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
    guard let data, !data.isEmpty else { return body(nil, 0) }
    return data.withUnsafeBytes { body($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
  }
}
