// WebPCodec.swift — WebP in the codec registry: libwebp decoding (scaled for shrink-on-load),
// lossy and lossless encoding, ICC/EXIF/XMP through libwebpmux.
import CWebP
import Foundation
import PixelBufferModule

extension ImageFileFormat {
  /// WebP, through libwebp.
  public static let webp = ImageFileFormat(rawValue: "webp")
}

/// WebP: reads lossy, lossless and alpha files and the frames of animations, at full size or
/// scaled by libwebp while decoding (shrink-on-load); writes lossy or lossless RGB/RGBA with the
/// ICC profile.
public enum WebPCodec: ImageCodec {
  public static let format = ImageFileFormat.webp
  public static let displayName = "WebP"
  public static let fileExtensions = ["webp"]
  public static let summary =
    "libwebp; lossy, lossless, alpha; animations read frame by frame (libwebp's animation decoder blends and disposes; a page is a frame) and written as each frame's changed rectangle, encoded in parallel and written to the file in order as they are done (delays and loop count kept); scaled decoding for shrink-on-load; ICC, EXIF and XMP in and out."

  /// `RIFF` …size… `WEBP`.
  public static func sniff(_ head: [UInt8]) -> Bool {
    head.count >= 12 && head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8)
  }

  public static let decodeOptions: [FormatOption] = [.page]

  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    let file = try WebPFile(data, limits: request.limits)
    return try header(file, animation: try animation(of: file, data: data, limits: request.limits), page: request.page)
  }

  /// The header of `page` (a frame of an animation).
  private static func header(_ file: WebPFile, animation: AnimationInfo, page: Int) throws -> ImageHeader {
    guard page < file.frameCount else {
      throw CodecError(.invalidArgument, "The WebP has \(file.frameCount) frame\(file.frameCount == 1 ? "" : "s"); page \(page) does not exist (pages count from 0).")
    }
    return ImageHeader(
      fileFormat: .webp, size: file.size, layout: file.hasAlpha ? .rgba : .rgb, component: .uint8,
      metadata: ImageMetadata(orientation: file.orientation, iccProfile: file.iccProfile, exif: file.exifTIFF, xmp: file.xmp),
      pageCount: file.frameCount, leftOutMetadata: file.leftOutMetadata, animation: file.isAnimated ? animation : nil)
  }

  /// libwebp scales still images while decoding (its own resampler); animation frames are
  /// box-averaged after a full decode.
  public static func reducedScaleDenominators(for header: ImageHeader) -> [Int] { [2, 4, 8] }
  /// Three times the target: at twice, a 1/8 decode's blur puts thumbnails of detailed photos
  /// 36 dB (JPEG) and 45 dB (WebP) from a resample of the full image; at three times, over 45.
  public static func reductionMargin(denominator: Int) -> Double { 1.5 }

  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    let limits = request.limits
    return try makeDecoder(data, request: request) { try WebPFrameReader(data, limits: limits) }
  }

  /// A decoder of `data`, whose frames, for an animation, `makeReader` reads when the page is decoded.
  private static func makeDecoder(
    _ data: Data, request: DecodeRequest, makeReader: @escaping () throws -> WebPFrameReader
  ) throws -> any ImageRowDecoder {
    let file = try WebPFile(data, limits: request.limits)
    let d = request.scaleDenominator
    guard d == 1 || [2, 4, 8].contains(d) else {
      throw CodecError(.invalidArgument, "WebP files decode at 1/2, 1/4 or 1/8 size, not at 1/\(d).")
    }
    let h = try header(file, animation: try animation(of: file, data: data, limits: request.limits), page: request.page)
    let format = PixelFormat(layout: h.layout, component: .uint8)
    let colorSpace: ColorSpace = file.iccProfile.map { .icc($0) } ?? .sRGB
    let size = Size(width: (file.size.width + d - 1) / d, height: (file.size.height + d - 1) / d)
    let warnings = animationReadAsStillWarning("WebP", frames: file.frameCount, request: request)
    let data = data, page = request.page
    return WholeImageDecoder(size: size, format: format, colorSpace: colorSpace, metadata: h.metadata, warnings: warnings) { buffer in
      guard file.isAnimated else { return try decode(data, into: &buffer) }
      let reader = try makeReader()
      try reader.skip(page)
      guard var frame = try reader.nextFrame() else {
        throw CodecError(.corrupt, "The WebP's frame \(page + 1) cannot be read.")
      }
      frame.metadata = h.metadata
      buffer = d > 1 ? frame.boxShrunk(by: d) : frame
    }
  }

  /// Decodes a still image into `buffer` (RGB or RGBA, 8-bit), scaled to its size.
  private static func decode(_ data: Data, into buffer: inout PixelBuffer) throws {
    var message = [CChar](repeating: 0, count: 256)
    let channels = Int32(buffer.format.channelCount), width = Int32(buffer.width), height = Int32(buffer.height)
    let status = buffer.withUnsafeMutableBaseAddress { base, stride in
      data.withUnsafeBytes { raw in
        cwebp_decode(
          raw.bindMemory(to: UInt8.self).baseAddress, raw.count, channels, width, height,
          base.assumingMemoryBound(to: UInt8.self), stride, &message, message.count)
      }
    }
    try WebPFile.check(status, message)
  }

  public typealias EncodeOptions = WebPEncodeSettings


  /// RGB or RGBA, 8 bits (gray images are written as RGB).
  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    PixelFormat(layout: layout.hasAlpha ? .rgba : .rgb, component: .uint8)
  }

  /// libwebp encodes a whole picture: its ARGB copy and working planes. Measured as peak RSS
  /// above a PNG write of the same 4096² image (release): 13.3 bytes a pixel lossy, 31 lossless.
  public static func encoderHeldBytes(for size: Size, format: PixelFormat, options: ResolvedFormatOptions) -> Int {
    heldBytes(size, WebPEncodeSettings(options).isLossless ? 32 : 14)
  }

  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    let settings = WebPEncodeSettings(request.options)
    return try WebPStreamEncoder(
      size: request.size, format: request.pixelFormat, settings: settings, iccProfile: request.metadata.iccProfile,
      exif: request.metadata.exif, xmp: request.metadata.xmp, handle: request.handle)
  }
}

/// Animated WebP files are read in place: mapped (`GuardedMapping`), since libwebp's demuxer and
/// animation decoder take the whole RIFF as one buffer, their pages given back behind each frame
/// (`WebPFrameReader`). Still WebPs, decoded whole at once, are read into memory as before.
extension WebPCodec: FileReadingCodec {
  /// An animated file: a VP8X chunk first whose animation flag is set.
  public static func readsInPlace(file: FileHandle, request: DecodeRequest) -> Bool {
    guard InputBytes.regularFileSize(file.fileDescriptor) != nil, let head = InputBytes.bytes(file.fileDescriptor, count: 21, at: 0) else {
      return false
    }
    return sniff(head) && head[12..<16].elementsEqual("VP8X".utf8) && head[20] & 0x02 != 0
  }

  public static func readHeader(file: FileHandle, request: DecodeRequest) throws -> ImageHeader {
    try withMapping(file, limit: request.limits.maxInputBytes) { data, _ in try readHeader(data, request: request) }
  }

  public static func makeDecoder(file: FileHandle, request: DecodeRequest) throws -> any ImageRowDecoder {
    guard let mapping = GuardedMapping(file) else {
      return try makeDecoder(InputBytes.contents(of: file, name: "the WebP file", limit: request.limits.maxInputBytes), request: request)
    }
    let limits = request.limits
    let decoder = try withMapping(mapping) { data in
      try makeDecoder(data, request: request) { try WebPFrameReader(mapping: mapping, limits: limits) }
    }
    return decoder
  }

  /// `body` over the file open on `file`, mapped (its pages given back after), or read into memory
  /// within `limit` bytes when it cannot be mapped; the mapping, when there is one, goes to `body` too.
  static func withMapping<R>(_ file: FileHandle, limit: Int, _ body: (Data, GuardedMapping?) throws -> R) throws -> R {
    guard let mapping = GuardedMapping(file) else { return try body(InputBytes.contents(of: file, name: "the WebP file", limit: limit), nil) }
    return try withMapping(mapping) { try body($0, mapping) }
  }

  /// `body` over the bytes `mapping` maps, whose pages are given back after it; a file truncated
  /// meanwhile is `.truncated`, whatever `body` made of the zeros it read instead.
  static func withMapping<R>(_ mapping: GuardedMapping, _ body: (Data) throws -> R) throws -> R {
    let truncated = CodecError(.truncated, "The WebP file was truncated while it was read.")
    defer { mapping.release() }
    let result: R
    do {
      result = try body(mapping.data)
    } catch {
      throw mapping.wasTruncated ? truncated : error
    }
    if mapping.wasTruncated { throw truncated }
    return result
  }
}
