// PNGCodec.swift — PNG in the codec registry: libpng decoding, our segmented libdeflate writer.
import Foundation
import PixelBufferModule

extension ImageFileFormat {
  /// PNG: read through libpng, written by our own segmented libdeflate writer (PNGStreamEncoder).
  public static let png = ImageFileFormat(rawValue: "png")
}

/// PNG: reads every colour type and depth (1–16 bits, palettes, tRNS, Adam7), 16-bit kept as 16;
/// writes gray, gray + alpha, RGB, RGBA at 8 or 16 bits, compressing segments in parallel.
public enum PNGCodec: ImageCodec {
  public static let format = ImageFileFormat.png
  public static let displayName = "PNG"
  public static let fileExtensions = ["png"]
  public static let summary =
    "libpng reads the header and chunks, and the rows of palette, sub-8-bit, tRNS and interlaced images; other images' rows come from our own IDAT reader (zlib, SSE2 unfiltering), row by row; the writer filters and deflates segments in parallel with libdeflate."

  /// The 8-byte PNG signature.
  public static func sniff(_ head: [UInt8]) -> Bool {
    head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
  }

  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    try PNGDecoder.readHeader(data, limits: request.limits)
  }

  /// Box averages while decoding (`BoxShrinkingDecoder`).
  public static func reducedScaleDenominators(for header: ImageHeader) -> [Int] { [2, 4, 8] }
  /// A box average of light (BoxShrinkingDecoder.swift) needs three times the target.
  public static var reductionMargin: Double { 1.5 }
  /// A box average (`BoxShrinkingDecoder`).
  public static var reducesInBlocks: Bool { true }
  public static let streamsRows = true

  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    let d = request.scaleDenominator
    guard d == 1 || [2, 4, 8].contains(d) else {
      throw CodecError(.invalidArgument, "PNG files decode at 1/2, 1/4 or 1/8 size, not at 1/\(d).")
    }
    let decoder = try PNGDecoder(data: data, limits: request.limits)
    return d == 1 ? decoder : try BoxShrinkingDecoder(decoder, factor: d)
  }

  public static let encodeOptions: [FormatOption] = [
    FormatOption(
      "compression", .integer(0...9), default: 6,
      help: "Deflate level, 0 (fastest, largest) … 9 (slowest, smallest)."),
    FormatOption(
      "filter", .choice(PNGEncodeOptions.Filter.allCases.map(\.rawValue)), default: "adaptive",
      help: "PNG row filter; adaptive picks the best per row."),
    FormatOption(
      "bit-depth", .choice(["8", "16"]),
      help: "Bits per channel (default: the image's own, so 16-bit inputs stay 16-bit)."),
  ]

  /// The image's channels (alpha kept); 16 bits for 16-bit images unless `bit-depth` says 8.
  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    let chosen: ComponentType
    switch options.choice("bit-depth") {
    case "8": chosen = .uint8
    case "16": chosen = .uint16
    default: chosen = component == .uint16 ? .uint16 : .uint8
    }
    return PixelFormat(layout: layout, component: chosen)
  }

  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    var png = PNGEncodeOptions()
    png.compressionLevel = request.options.integer("compression") ?? 6
    png.filter = request.options.choice("filter").flatMap(PNGEncodeOptions.Filter.init(rawValue:)) ?? .adaptive
    return try PNGStreamEncoder(
      size: request.size, layout: request.pixelFormat.layout, component: request.pixelFormat.component,
      options: png, colorSpace: request.colorSpace, metadata: request.metadata, to: request.handle.map { .handle($0) } ?? .memory,
      executor: request.executor, maxSegmentsInFlight: 2 * (request.executor?.threadCount ?? 0) + 2)
  }
}

extension PNGDecoder: ImageRowDecoder {
  public var outputSize: Size { header.size }
  public var outputFormat: PixelFormat { format }
  /// `decodeRemaining()`: an interlaced file's whole-image decode is returned without a copy.
  public func decodeAll() throws -> PixelBuffer { try decodeRemaining() }
}

extension PNGStreamEncoder: ImageRowEncoder {}
