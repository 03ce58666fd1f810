// JPEGCodec.swift — JPEG in the codec registry: libjpeg-turbo decoding with DCT scaling, streamed
// (and, for baseline files, parallel) encoding.
import Foundation
import PixelBufferModule

extension ImageFileFormat {
  /// JPEG (JFIF/EXIF), through libjpeg-turbo.
  public static let jpeg = ImageFileFormat(rawValue: "jpeg")
}

/// JPEG: reads 8-bit gray, YCbCr, RGB and CMYK (as sRGB, through its profile) files, baseline and progressive, at full
/// size or 1/2, 1/4, 1/8 (shrink-on-load), streaming rows; writes gray or RGB.
public enum JPEGCodec: ImageCodec {
  public static let format = ImageFileFormat.jpeg
  public static let displayName = "JPEG"
  public static let fileExtensions = ["jpg", "jpeg", "jpe", "jfif"]
  public static let summary =
    "libjpeg-turbo; decodes at 1/2, 1/4, 1/8 size when a graph scales down (shrink-on-load) and row by row; writes baseline strips in parallel."

  /// `FF D8 FF`: start of image, then the first marker.
  public static func sniff(_ head: [UInt8]) -> Bool {
    head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF
  }

  /// The primary image's header, with its gain map when the file is an Ultra HDR JPEG. A gain map
  /// that cannot be read leaves the image an SDR JPEG, with a warning saying why. The XMP packet
  /// kept as metadata loses its gain-map description (version and Container:Directory): it
  /// describes this file's layout, which a written image does not share (the Ultra HDR writer
  /// adds its own).
  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    try header(of: JPEGDecoder(data: data, limits: request.limits), bytes: data, request: request)
  }

  /// `decoder`'s header with the gain map `bytes` (the file, or its head when it has no MPF
  /// index: the primary image's segments alone then decide) declare.
  static func header(of decoder: JPEGDecoder, bytes data: Data, request: DecodeRequest) throws -> ImageHeader {
    var header = decoder.header
    if let xmp = header.metadata.xmp, GainMapXMP.version(xmp) != nil {
      header.metadata.xmp = Data(GainMapXMP.removingGainMapDescriptions(String(decoding: xmp, as: UTF8.self)).utf8)
    }
    do {
      header.gainMap = try UltraHDR.gainMap(in: data, baseSize: header.size, limits: request.limits)
    } catch let error as CodecError {
      header.warnings.append("\(error.message) The image is read without its gain map (SDR only).")
    }
    return header
  }

  /// libjpeg's DCT scaling.
  public static func reducedScaleDenominators(for header: ImageHeader) -> [Int] { [2, 4, 8] }
  /// 1/2 and 1/4 are libjpeg's scaled inverse DCTs (good low-passes); 1/8 keeps only each
  /// block's DC term, an 8 × 8 box average, which needs three times the target (43.9 dB at twice
  /// it on samples/flower.jpg fitted to 126 pixels; ShrinkOnLoadQualityTests).
  public static func reductionMargin(denominator: Int) -> Double { denominator >= 8 ? 1.5 : 1 }
  /// libjpeg's scaled IDCT turns each 8×8 block into (8/d)×(8/d) pixels.
  public static var reducesInBlocks: Bool { true }
  public static let streamsRows = true

  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    try started(JPEGDecoder(data: data, limits: request.limits), request: request)
  }

  /// `decoder` started as `request` asks.
  static func started(_ decoder: JPEGDecoder, request: DecodeRequest) throws -> JPEGDecoder {
    var options = JPEGDecodeOptions()
    options.scaleDenominator = request.scaleDenominator
    options.isStrict = request.isStrict
    options.colorRendering = request.colorRendering
    try decoder.start(options: options)
    return decoder
  }

  public typealias EncodeOptions = JPEGEncodeOptions

  /// Gray or RGB, 8 bits; alpha is dropped.
  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    PixelFormat(layout: layout.withoutAlpha, component: .uint8)
  }

  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    let options = JPEGEncodeOptions(request.options)
    // One strip in flight per worker (at least 2): more only kept band buffers alive longer
    // (W4b with 6: +3 MB RSS, +10 ms CPU, no faster).
    return try JPEGStreamEncoder(
      size: request.size, layout: request.pixelFormat.layout, options: options,
      iccProfile: request.metadata.iccProfile, metadata: request.metadata,
      to: request.handle.map { .handle($0) } ?? .memory, executor: request.executor,
      maxStripsInFlight: max(2, request.executor?.threadCount ?? 0))
  }
}

extension JPEGDecoder: ImageRowDecoder {
  /// The scaled size once started (`start(options:)`), the stored size before.
  public var outputSize: Size { scaledSize ?? header.size }
}

extension JPEGStreamEncoder: ImageRowEncoder {}
