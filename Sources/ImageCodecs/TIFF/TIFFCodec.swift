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
    "libtiff; gray, RGB, palette, CMYK (through its ICC profile into 16-bit sRGB, else naively), alpha, 1–16-bit and float samples, strips or tiles, every page (--page); read strip by strip, box-averaged while read for shrink-on-load; a crop decodes only the strips or tiles it touches; orientation tag applied; ICC in and out."

  /// `II*\0` or `MM\0*` (classic), `II+\0` or `MM\0+` (BigTIFF).
  public static func sniff(_ head: [UInt8]) -> Bool {
    guard head.count >= 4 else { return false }
    let magic = Array(head[0..<4])
    return magic == [0x49, 0x49, 0x2A, 0x00] || magic == [0x4D, 0x4D, 0x00, 0x2A] || magic == [0x49, 0x49, 0x2B, 0x00]
      || magic == [0x4D, 0x4D, 0x00, 0x2B]
  }

  public static let decodeOptions: [FormatOption] = [FormatOption.page]

  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    try TIFFDecoder(data: data, page: request.page, limits: request.limits).header
  }

  /// 8- and 16-bit pages are box-averaged while their rows are decoded (`BoxShrinkingDecoder`);
  /// float pages decode at full size only.
  public static func reducedScaleDenominators(for header: ImageHeader) -> [Int] {
    header.component == .float32 ? [] : [2, 4, 8]
  }

  /// Strips and rows of tiles are decoded as rows are asked for.
  public static let streamsRows = true
  /// A region decodes only the strips or tiles it touches.
  public static let decodesRegions = true

  /// At 1/d, a region (x, y, w, h) of the reduced page is the box average of the stored
  /// rectangle (d·x, d·y, d·w, d·h), clipped to the page: the same boxes, aligned the same way,
  /// as a reduced decode of the whole page.
  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    try decoder(request) {
      try TIFFDecoder(data: data, page: request.page, limits: request.limits, region: $0, colourRendering: request.colourRendering)
    }
  }

  /// A decoder for `request` of the page `open` opens (of the stored region it is given).
  private static func decoder(_ request: DecodeRequest, open: (Rect?) throws -> TIFFDecoder) throws -> any ImageRowDecoder {
    let d = request.scaleDenominator
    var stored = request.region
    if d > 1, let r = request.region {
      let header = try open(nil).header
      let (w, h) = (header.size.width, header.size.height)
      guard r.x >= 0, r.y >= 0, r.width > 0, r.height > 0, r.maxX <= (w + d - 1) / d, r.maxY <= (h + d - 1) / d else {
        throw CodecError(.invalidArgument, "The region \(r) is not inside the TIFF page decoded at 1/\(d).")
      }
      stored = Rect(x: r.x * d, y: r.y * d, width: min(r.width * d, w - r.x * d), height: min(r.height * d, h - r.y * d))
    }
    let decoder = try open(stored)
    if d == 1 { return decoder }
    guard reducedScaleDenominators(for: decoder.header).contains(d) else {
      throw CodecError(
        .invalidArgument,
        decoder.header.component == .float32
          ? "Float TIFF pages decode at full size only, not at 1/\(d)."
          : "TIFF pages decode at 1/2, 1/4 or 1/8 size, not at 1/\(d).")
    }
    return try BoxShrinkingDecoder(decoder, factor: d)
  }

  public static let encodeOptions: [FormatOption] = [
    FormatOption(
      "compression", .choice(TIFFEncodeSettings.Compression.allCases.map(\.rawValue)), default: "lzw",
      help: "TIFF compression: lzw, deflate and packbits are lossless, jpeg is lossy and 8-bit only."),
    FormatOption(
      "predictor", .choice(["auto", "none"]), default: "auto",
      help: "With lzw or deflate: auto predicts each sample from its left neighbour (floating-point prediction for floats); none does not."),
    FormatOption("quality", .integer(1...100), default: 90, help: "Quality of JPEG compression: higher is better and larger."),
    FormatOption(
      "tile", .integer(0...8192), default: 0,
      help: "Write square tiles of this many pixels (a multiple of 16, e.g. 256) instead of strips; 0 writes strips."),
    FormatOption(
      "bit-depth", .choice(["8", "16", "float"]),
      help: "Bits per sample: 8, 16 or 32-bit float (default: the image's own; 8 with jpeg compression)."),
  ]

  /// The image's channels (alpha kept) at its own depth, unless `bit-depth` says otherwise; JPEG
  /// compression writes 8 bits.
  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    if options.choice("compression") == "jpeg" { return PixelFormat(layout: layout, component: .uint8) }
    switch options.choice("bit-depth") {
    case "8": return PixelFormat(layout: layout, component: .uint8)
    case "16": return PixelFormat(layout: layout, component: .uint16)
    case "float": return PixelFormat(layout: layout, component: .float32)
    default: return PixelFormat(layout: layout, component: component)
    }
  }

  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    let o = request.options
    let settings = TIFFEncodeSettings(
      compression: o.choice("compression").flatMap(TIFFEncodeSettings.Compression.init(rawValue:)) ?? .lzw,
      usesPredictor: o.choice("predictor") != "none", quality: o.integer("quality") ?? 90, tileSize: o.integer("tile") ?? 0)
    return try TIFFStreamEncoder(
      size: request.size, format: request.pixelFormat, settings: settings, iccProfile: request.metadata.iccProfile,
      metadata: request.metadata, handle: request.handle)
  }
}

extension TIFFCodec: FileReadingCodec {
  public static func readHeader(file: FileHandle, request: DecodeRequest) throws -> ImageHeader {
    try TIFFDecoder(file: file, page: request.page, limits: request.limits).header
  }

  public static func makeDecoder(file: FileHandle, request: DecodeRequest) throws -> any ImageRowDecoder {
    try decoder(request) {
      try TIFFDecoder(file: file, page: request.page, limits: request.limits, region: $0, colourRendering: request.colourRendering)
    }
  }
}
