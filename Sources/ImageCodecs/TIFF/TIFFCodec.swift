// TIFFCodec.swift — TIFF in the codec registry: libtiff decoding by strips or tiles (any page),
// LZW/deflate/JPEG/PackBits encoding in strips or tiles.
import Foundation
import PixelBufferModule

extension ImageFileFormat {
  /// TIFF (and BigTIFF), through libtiff.
  public static let tiff = ImageFileFormat(rawValue: "tiff")
}

/// TIFF: reads gray, RGB, palette and CMYK pages with or without alpha, 1–16-bit integer and
/// 16/32/64-bit float samples, strips or tiles, any compression libtiff has, any page; writes 8,
/// 16-bit or float gray/RGB(A) in strips or tiles with the ICC profile.
public enum TIFFCodec: ImageCodec {
  public static let format = ImageFileFormat.tiff
  public static let displayName = "TIFF"
  public static let fileExtensions = ["tif", "tiff"]
  public static let summary =
    "libtiff; gray, RGB, palette, CMYK (through its ICC profile into 16-bit sRGB, else naively), alpha, 1–16-bit and float samples, strips or tiles, every page (--page); read strip by strip, box-averaged while read for shrink-on-load; pyramids (reduced-resolution levels as SubIFDs or as directories marked reduced, which are not pages) decode from the smallest level a shrink-on-load needs; a crop decodes only the strips or tiles it touches; orientation tag applied; ICC in and out."

  /// `II*\0` or `MM\0*` (classic), `II+\0` or `MM\0+` (BigTIFF).
  public static func sniff(_ head: [UInt8]) -> Bool {
    guard head.count >= 4 else { return false }
    let magic = Array(head[0..<4])
    return magic == [0x49, 0x49, 0x2A, 0x00] || magic == [0x4D, 0x4D, 0x00, 0x2A] || magic == [0x49, 0x49, 0x2B, 0x00]
      || magic == [0x4D, 0x4D, 0x00, 0x2B]
  }

  public static let decodeOptions: [FormatOption] = [
    FormatOption(
      "page", .integer(0...65535), default: 0,
      help: "The page to read, counting from 0; a pyramid's reduced-resolution levels (directories marked reduced, SubIFDs) are not pages.")
  ]

  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    try TIFFDecoder(data: data, page: request.page, limits: request.limits).header
  }

  /// The scales a pyramid's levels serve: level `i` (1-based, in `header.reducedLevelSizes`)
  /// serves 1/d when d ≥ 2 is its width ratio to the page rounded and each of its sides is
  /// ⌊side / d⌋ or ⌈side / d⌉ of the page's (libvips halves with ⌊⌋, other writers with ⌈⌉); the
  /// largest level of each scale is kept, smallest denominator first.
  static func levelScales(for header: ImageHeader) -> [(level: Int, denominator: Int)] {
    let (w, h) = (header.size.width, header.size.height)
    var scales: [(level: Int, denominator: Int)] = []
    for (i, level) in header.reducedLevelSizes.enumerated() where level.width > 0 && level.height > 0 {
      let d = (2 * w + level.width) / (2 * level.width)
      guard d >= 2, !scales.contains(where: { $0.denominator == d }), (w / d...(w + d - 1) / d).contains(level.width),
        (h / d...(h + d - 1) / d).contains(level.height)
      else { continue }
      scales.append((i + 1, d))
    }
    return scales.sorted { $0.denominator < $1.denominator }
  }

  /// The scales of the page's pyramid levels (see `levelScales`), and for 8- and 16-bit pages
  /// also 1/2, 1/4 and 1/8, box-averaged while rows are decoded (`BoxShrinkingDecoder`) from the
  /// page or from the largest level whose denominator divides the scale's.
  /// Without a stored level, a reduction is a box average (`BoxShrinkingDecoder`).
  public static var reducesInBlocks: Bool { true }

  public static func reducedScaleDenominators(for header: ImageHeader) -> [Int] {
    let levels = levelScales(for: header).map(\.denominator)
    return header.component == .float32 ? levels : Array(Set(levels + [2, 4, 8])).sorted()
  }

  /// The level a decode at 1/d reads: the smallest whose scale divides d.
  public static func storedLevelSize(for header: ImageHeader, scaleDenominator d: Int) -> Size? {
    guard d > 1, let level = levelScales(for: header).last(where: { d % $0.denominator == 0 }) else { return nil }
    return header.reducedLevelSizes[level.level - 1]
  }

  /// Strips and rows of tiles are decoded as rows are asked for.
  public static let streamsRows = true
  /// A region decodes only the strips or tiles it touches.
  public static let decodesRegions = true

  /// At 1/d, the rows come from the smallest level (or the page) whose denominator e divides d,
  /// read as an image of ⌈side / e⌉ (a level a pixel short repeats its last column and row),
  /// box-averaged by d / e when that is more than 1. A region (x, y, w, h) of the image at 1/d is
  /// the box average of the rectangle (f·x, f·y, f·w, f·h) of what is read, f = d / e, clipped
  /// to it: the same boxes, aligned the same way, as a reduced decode of the whole page.
  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    try decoder(request) { level, extent, region in
      try TIFFDecoder(
        data: data, page: request.page, level: level, extent: extent, limits: request.limits, region: region,
        colorRendering: request.colorRendering)
    }
  }

  /// A decoder for `request` of the page `open` opens (of its `level`, read at `extent`, of the
  /// stored region it is given).
  private static func decoder(
    _ request: DecodeRequest, open: (_ level: Int, _ extent: Size?, _ region: Rect?) throws -> TIFFDecoder
  ) throws -> any ImageRowDecoder {
    let d = request.scaleDenominator
    if d == 1 { return try open(0, nil, request.region) }
    let page = try open(0, nil, nil)
    let header = page.header
    guard reducedScaleDenominators(for: header).contains(d) else {
      throw CodecError(
        .invalidArgument,
        header.component == .float32
          ? "Float TIFF pages decode at full size or at the scales of their pyramid levels only, not at 1/\(d)."
          : "This TIFF page decodes at 1/\(reducedScaleDenominators(for: header).map(String.init).joined(separator: ", 1/")) size, not at 1/\(d).")
    }
    let (w, h) = (header.size.width, header.size.height)
    let (level, e) = levelScales(for: header).last(where: { d % $0.denominator == 0 }) ?? (0, 1)
    let f = d / e
    let extent = Size(width: (w + e - 1) / e, height: (h + e - 1) / e)
    var stored: Rect?
    if let r = request.region {
      guard r.x >= 0, r.y >= 0, r.width > 0, r.height > 0, r.maxX <= (w + d - 1) / d, r.maxY <= (h + d - 1) / d else {
        throw CodecError(.invalidArgument, "The region \(r) is not inside the TIFF page decoded at 1/\(d).")
      }
      stored = Rect(
        x: r.x * f, y: r.y * f, width: min(r.width * f, extent.width - r.x * f), height: min(r.height * f, extent.height - r.y * f))
    }
    let decoder = level == 0 && stored == nil ? page : try open(level, level == 0 ? nil : extent, stored)
    return f == 1 ? decoder : try BoxShrinkingDecoder(decoder, factor: f)
  }

  /// The image's channels (alpha kept) at its own depth, unless `bit-depth` says otherwise; JPEG
  /// compression writes 8 bits.
  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    let chosen = EncodeOptions(options)
    if chosen.settings.compression == .jpeg { return PixelFormat(layout: layout, component: .uint8) }
    return PixelFormat(layout: layout, component: chosen.bitDepth ?? component)
  }

  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    let settings = EncodeOptions(request.options).settings
    return try TIFFStreamEncoder(
      size: request.size, format: request.pixelFormat, settings: settings, iccProfile: request.metadata.iccProfile,
      metadata: request.metadata, handle: request.handle)
  }
}

extension TIFFCodec {
  /// The TIFF option table: the encoder's settings and the depth written.
  public struct EncodeOptions: FormatOptionSet {
    /// Compression, predictor, JPEG quality, tiles.
    public var settings = TIFFEncodeSettings()
    /// 8 or 16 bits or 32-bit float per sample; nil: the image's own.
    public var bitDepth: ComponentType?

    public init() {}

    public static let fields: [FormatField<EncodeOptions>] = [
      .choice(
        "compression", \.settings.compression, TIFFEncodeSettings.Compression.allCases,
        help: "TIFF compression: lzw, deflate and packbits are lossless, jpeg is lossy and 8-bit only."),
      .choice(
        "predictor", \.settings.usesPredictor, [("auto", true), ("none", false)],
        help: "With lzw or deflate: auto predicts each sample from its left neighbour (floating-point prediction for floats); none does not."),
      .integer(
        "quality", \.settings.quality, in: JPEGEncodeOptions.qualityRange,
        help: "Quality of JPEG compression: higher is better and larger."),
      .integer(
        "tile", \.settings.tileSize, in: 0...8192,
        help: "Write square tiles of this many pixels (a multiple of 16, e.g. 256) instead of strips; 0 writes strips."),
      .choice(
        "bit-depth", \.bitDepth, [("8", .uint8), ("16", .uint16), ("float", .float32)],
        help: "Bits per sample: 8, 16 or 32-bit float (default: the image's own; 8 with jpeg compression)."),
    ]
  }
}

extension TIFFCodec: FileReadingCodec {
  public static func readHeader(file: FileHandle, request: DecodeRequest) throws -> ImageHeader {
    try TIFFDecoder(file: file, page: request.page, limits: request.limits).header
  }

  public static func makeDecoder(file: FileHandle, request: DecodeRequest) throws -> any ImageRowDecoder {
    try decoder(request) { level, extent, region in
      try TIFFDecoder(
        file: file, page: request.page, level: level, extent: extent, limits: request.limits, region: region,
        colorRendering: request.colorRendering)
    }
  }
}
