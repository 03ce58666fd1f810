// PNGCodec.swift — PNG in the codec registry: libpng decoding, our segmented libdeflate writer.
import Foundation
import PixelBufferModule

extension ImageFileFormat {
  /// PNG: read through libpng, written by our own segmented libdeflate writer (PNGStreamEncoder).
  public static let png = ImageFileFormat(rawValue: "png")
}

/// PNG: reads every colour type and depth (1–16 bits, palettes, tRNS, Adam7), 16-bit kept as 16;
/// writes gray, gray + alpha, RGB, RGBA at 8 or 16 bits, compressing segments in parallel, and
/// animations as APNG (APNGWriter.swift).
public enum PNGCodec: ImageCodec {
  public static let format = ImageFileFormat.png
  public static let displayName = "PNG"
  public static let fileExtensions = ["png"]
  public static let summary =
    "libpng reads the header and chunks, and the rows of palette, sub-8-bit, tRNS and interlaced images; other images' rows come from our own IDAT reader (zlib, SSE2 unfiltering), row by row; the writer filters and deflates segments in parallel with libdeflate. Animations are written as APNG (8-bit; frames after the first store only the rectangle that changed; delays and loop count kept); an APNG's frames are read one at a time, each composed on the canvas by its blend op (source, over) after the previous frame's dispose op (none, background, previous) as browsers show them; a page is a frame; delays and loop count read; RGBA unless every frame is opaque."

  /// The 8-byte PNG signature.
  public static func sniff(_ head: [UInt8]) -> Bool {
    head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
  }

  /// `gain-map`: an HDR (cICP PQ or HLG) image's gain map instead of the image; `page`: an
  /// APNG's frame.
  public static var decodeOptions: [FormatOption] { [FormatOption.gainMap, .page] }

  /// The header; for the gain map `request` asks for, 8-bit RGB without a profile; for an APNG,
  /// its frames (`APNGFrames.swift`) in 8-bit RGB or RGBA.
  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    let decoder = try PNGDecoder(data: data, limits: request.limits)
    guard request.wantsGainMap else { return try animatedHeader(decoder, try APNGStructure(data, limits: request.limits), request: request) }
    _ = try gainMapSignal(decoder)
    var header = decoder.header
    (header.layout, header.component, header.hdrTransfer) = (.rgb, .uint8, nil)
    header.metadata = ImageMetadata()
    return header
  }

  /// The header of an APNG of `structure` (nil: a still PNG) whose still header `decoder` read:
  /// 8-bit RGB or RGBA, a page a frame.
  static func animatedHeader(_ decoder: PNGDecoder, _ structure: APNGStructure?, request: DecodeRequest) throws -> ImageHeader {
    guard let structure else {
      guard request.page == 0 else {
        throw CodecError(.invalidArgument, "The PNG has 1 image; page \(request.page) does not exist (pages count from 0).")
      }
      return decoder.header
    }
    let frames = structure.frames.count
    guard request.page < frames else {
      throw CodecError(.invalidArgument, "The APNG has \(frames) frame\(frames == 1 ? "" : "s"); page \(request.page) does not exist (pages count from 0).")
    }
    var header = decoder.header
    (header.layout, header.component, header.pageCount) = (structure.hasAlpha ? .rgba : .rgb, .uint8, frames)
    header.animation = frames > 1 ? animation(of: structure) : nil
    return header
  }

  /// A decoder of the frame `request.page` of the APNG of `structure` whose still header `png`
  /// read, composed by a reader `makeReader` opens when the frame is decoded.
  static func frameDecoder(
    _ png: PNGDecoder, _ structure: APNGStructure, scaleDenominator d: Int, request: DecodeRequest,
    makeReader: @escaping () throws -> APNGFrameReader
  ) throws -> any ImageRowDecoder {
    guard d == 1 else { throw CodecError(.invalidArgument, "APNG frames decode at full size only, not at 1/\(d).") }
    let header = try animatedHeader(png, structure, request: request)
    let warnings = animationReadAsStillWarning("APNG", frames: structure.frames.count, request: request)
    let page = request.page
    return WholeImageDecoder(
      size: header.size, format: PixelFormat(layout: header.layout, component: .uint8), colorSpace: png.colorSpace,
      metadata: header.metadata, warnings: warnings
    ) { buffer in
      let reader = try makeReader()
      try reader.skip(page)
      guard let frame = try reader.nextFrame() else { throw CodecError(.corrupt, "The APNG's frame \(page + 1) cannot be read.") }
      buffer = frame
    }
  }

  /// The HDR signal a gain-map request needs; an image without one is refused.
  private static func gainMapSignal(_ decoder: PNGDecoder) throws -> HDRSignal {
    if let signal = decoder.hdrSignal { return signal }
    throw CodecError(.invalidArgument, "gain-map: the PNG image is not HDR (no cICP chunk with a PQ or HLG transfer), so it has no gain map.")
  }

  /// Box averages while decoding (`BoxShrinkingDecoder`).
  public static func reducedScaleDenominators(for header: ImageHeader) -> [Int] { header.pageCount > 1 ? [] : [2, 4, 8] }
  /// A box average of light (BoxShrinkingDecoder.swift) needs three times the target.
  public static func reductionMargin(denominator: Int) -> Double { 1.5 }
  /// A box average (`BoxShrinkingDecoder`).
  public static var reducesInBlocks: Bool { true }
  public static let streamsRows = true

  /// The scale `request` asks for: 1, 2, 4 or 8.
  static func scaleDenominator(_ request: DecodeRequest) throws -> Int {
    let d = request.scaleDenominator
    guard d == 1 || [2, 4, 8].contains(d) else {
      throw CodecError(.invalidArgument, "PNG files decode at 1/2, 1/4 or 1/8 size, not at 1/\(d).")
    }
    return d
  }

  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    let d = try scaleDenominator(request)
    let map = request.wantsGainMap
    if !map, let structure = try APNGStructure(data, limits: request.limits) {
      let limits = request.limits
      return try frameDecoder(try PNGDecoder(data: data, limits: limits), structure, scaleDenominator: d, request: request) {
        try APNGFrameReader(data, limits: limits)
      }
    }
    let png = try PNGDecoder(data: data, limits: request.limits, toneMaps: !map)
    let decoder: any ImageRowDecoder = map ? HDRGainMapDecoder(png, signal: try gainMapSignal(png)) : png
    return d == 1 ? decoder : try BoxShrinkingDecoder(decoder, factor: d)
  }

  /// The image's channels (alpha kept); 16 bits for 16-bit images unless `bit-depth` says 8.
  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    let chosen = EncodeOptions(options).bitDepth ?? (component == .uint16 ? .uint16 : .uint8)
    return PixelFormat(layout: layout, component: chosen)
  }

  /// At most one segment per thread is in flight, and one more filling (each about 256 KiB of
  /// rows, their filtered copy and their deflate output); more of them kept no thread busier.
  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    let png = EncodeOptions(request.options).png
    return try PNGStreamEncoder(
      size: request.size, layout: request.pixelFormat.layout, component: request.pixelFormat.component,
      options: png, colorSpace: request.colorSpace, metadata: request.metadata, to: request.handle.map { .handle($0) } ?? .memory,
      executor: request.executor, maxSegmentsInFlight: (request.executor?.threadCount ?? 0) + 1)
  }
}

extension PNGCodec {
  /// The PNG option table: the encoder's options and the depth written.
  public struct EncodeOptions: FormatOptionSet {
    /// Compression and filter.
    public var png = PNGEncodeOptions()
    /// 8 or 16 bits per channel; nil: the image's own (16 for 16-bit images, else 8).
    public var bitDepth: ComponentType?

    public init() {}

    public static let fields: [FormatField<EncodeOptions>] = [
      .integer(
        "compression", \.png.compressionLevel, in: PNGEncodeOptions.compressionRange,
        help: "Deflate level, 0 (fastest, largest) … 9 (slowest, smallest)."),
      .choice("filter", \.png.filter, PNGEncodeOptions.Filter.allCases, help: "PNG row filter; adaptive picks the best per row."),
      .choice(
        "bit-depth", \.bitDepth, [("8", .uint8), ("16", .uint16)],
        help: "Bits per channel (default: the image's own, so 16-bit inputs stay 16-bit)."),
    ]
  }
}

extension PNGDecoder: ImageRowDecoder {
  public var outputSize: Size { header.size }
  public var outputFormat: PixelFormat { format }
  /// `decodeRemaining()`: an interlaced file's whole-image decode is returned without a copy.
  public func decodeAll() throws -> PixelBuffer { try decodeRemaining() }
}

extension PNGStreamEncoder: ImageRowEncoder {}
