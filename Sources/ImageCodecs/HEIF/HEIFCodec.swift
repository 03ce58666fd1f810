// HEIFCodec.swift — AVIF and HEIC in the codec registry: two formats of one container (HEIF),
// read and written by libheif (CHEIF shim) with Debian's codecs: AV1 through libaom (encode) and
// dav1d/libaom (decode), HEVC through x265 (encode) and libde265 (decode).
//
// Reading (either format; libheif picks the decoder by the image's codec):
//   - page 0 is the primary image; pages 1… are the other top-level images in file order;
//   - upright: libheif applies irot/imir/clap, and an Exif orientation is not applied again (the
//     Exif block is kept as metadata; writers make it say upright);
//   - 8-bit images decode to 8-bit RGB(A); 10- and 12-bit ones to 16-bit RGB(A), each sample
//     v · 65535 / (2^bits − 1) rounded, so every stored code survives (code = round(s · (2^bits − 1) / 65535));
//   - alpha straight (premultiplied files are divided back);
//   - colour from the ICC profile, or from the nclx box through the profile it defines (HEIFFile.swift);
//     an HDR image (nclx transfer PQ or HLG, no ICC profile) is tone-mapped to SDR sRGB as it is
//     decoded (`HDRToneMapping`: BT.2446 method A, gamut-mapped to BT.709) and the header names
//     its transfer (`hdrTransfer`);
//   - the size is checked against the pixel limit before anything is decoded (and libheif's own
//     security limits apply);
//   - full size only: libheif has no reduced-size decode (its thumbnails are other, optional
//     images), so a shrinking graph decodes in full and the engine resamples.
// Writing: one primary image, 8 or 10/12 bits, 4:2:0/4:2:2/4:4:4 or lossless (4:4:4, identity
// matrix), the ICC profile, Exif and XMP embedded, through the encoder libheif has for the format.
import CHEIF
import Foundation
import PixelBufferModule

extension ImageFileFormat {
  /// AVIF: HEIF with AV1 images.
  public static let avif = ImageFileFormat(rawValue: "avif")
  /// HEIC: HEIF with HEVC images (phone cameras).
  public static let heic = ImageFileFormat(rawValue: "heic")
}

/// AVIF (AV1 in HEIF) through libheif.
public enum AVIFCodec: ImageCodec {
  public static let format = ImageFileFormat.avif
  public static let displayName = "AVIF"
  public static let fileExtensions = ["avif"]
  public static let summary =
    "libheif with libaom/dav1d; 8-, 10- and 12-bit (deep images decode to 16-bit), alpha, irot/imir applied, ICC and nclx colour (HDR PQ/HLG tone-mapped to SDR sRGB: BT.2446 method A, gamut-mapped to BT.709), EXIF/XMP, page N = Nth image (0: primary); an image sequence (animated AVIF) reads as its primary image, with a warning (libheif before 1.20 has no sequence API); full-size decoding only; writes 8/10/12-bit, 4:2:0/4:2:2/4:4:4 or lossless, with ICC, EXIF and XMP, one image (an animation is written as its frame 1, with a warning)."

  /// `ftyp` with an `avif` or `avis` brand.
  public static func sniff(_ head: [UInt8]) -> Bool { HEIF.brands(head).contains { ["avif", "avis"].contains($0) } }

  public static var decodeOptions: [FormatOption] { [FormatOption.page, FormatOption.gainMap] }
  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    try HEIF.header(try HEIFFile(data, page: request.page, limits: request.limits), data: data, format: format, request: request)
  }
  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    try HEIF.decoder(data, request: request, format: format)
  }

  public typealias EncodeOptions = HEIFEncodeOptions
  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    HEIF.encodedPixelFormat(layout: layout, component: component, options: options)
  }
  public static func encoderHeldBytes(for size: Size, format: PixelFormat, options: ResolvedFormatOptions) -> Int {
    HEIF.encoderHeldBytes(for: size, format: format)
  }
  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    try HEIFStreamEncoder(request, compression: .av1)
  }
}

/// HEIC (HEVC in HEIF) through libheif.
public enum HEICCodec: ImageCodec {
  public static let format = ImageFileFormat.heic
  public static let displayName = "HEIC"
  public static let fileExtensions = ["heic", "heif"]
  public static let summary =
    "libheif with libde265/x265; as AVIF (8-, 10-, 12-bit, alpha, irot/imir, ICC and nclx colour, HDR tone-mapped to SDR, pages, sequences read as their primary image, full-size decoding); writes one image (an animation: its frame 1, with a warning) with x265 when libheif has it, else a clear error."

  /// `ftyp` with a HEVC or generic HEIF brand (`heic`, `heix`, `hevc`, `mif1`…); files that also
  /// name `avif` are AVIF's.
  public static func sniff(_ head: [UInt8]) -> Bool {
    let brands = HEIF.brands(head)
    return !brands.contains { ["avif", "avis"].contains($0) }
      && brands.contains { ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1"].contains($0) }
  }

  public static var decodeOptions: [FormatOption] { [FormatOption.page, FormatOption.gainMap] }
  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    try HEIF.header(try HEIFFile(data, page: request.page, limits: request.limits), data: data, format: format, request: request)
  }
  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    try HEIF.decoder(data, request: request, format: format)
  }

  public typealias EncodeOptions = HEIFEncodeOptions
  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    HEIF.encodedPixelFormat(layout: layout, component: component, options: options)
  }
  public static func encoderHeldBytes(for size: Size, format: PixelFormat, options: ResolvedFormatOptions) -> Int {
    HEIF.encoderHeldBytes(for: size, format: format)
  }
  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    try HEIFStreamEncoder(request, compression: .hevc)
  }
}

/// What AVIF and HEIC share.
enum HEIF {
  /// libheif encodes a whole picture: the rows gathered, its YCbCr planes and the AV1 or HEVC
  /// encoder's frames. Measured as peak RSS above a PNG write of the same image (release, 2048²
  /// and 4096²): 8-bit AVIF 22 bytes a pixel, HEIC 20 (18 at 16383²); 10-bit HEIC 33.
  static func encoderHeldBytes(for size: Size, format: PixelFormat) -> Int {
    AVIFCodec.heldBytes(size, format.component == .uint8 ? 24 : 36)
  }

  /// The major and compatible brands of an `ftyp` box at the start of `head` (as many as it holds).
  static func brands(_ head: [UInt8]) -> [String] {
    guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else { return [] }
    let boxSize = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
    guard boxSize >= 16 else { return [] }
    var offsets = [8]
    offsets += stride(from: 16, to: min(boxSize, head.count) - 3, by: 4)
    return offsets.map { String(decoding: head[$0..<$0 + 4], as: UTF8.self) }
  }

  /// True for an image sequence: a sequence brand (`avis`, `msf1`, `hevs`) and a top-level `moov`
  /// box (the sequence's track).
  static func isSequence(_ data: Data) -> Bool {
    guard brands([UInt8](data.prefix(64))).contains(where: { ["avis", "msf1", "hevs"].contains($0) }) else { return false }
    var offset = 0
    while offset + 8 <= data.count {
      let box = [UInt8](data[data.startIndex + offset..<data.startIndex + offset + 8])
      if box[4..<8].elementsEqual("moov".utf8) { return true }
      let size = Int(box[0]) << 24 | Int(box[1]) << 16 | Int(box[2]) << 8 | Int(box[3])
      guard size >= 8 else { return false }  // 64-bit or to-the-end sizes: no box follows that we need
      offset += size
    }
    return false
  }

  /// What reading a sequence gives: libheif before 1.20 has no sequence API, so its still primary image.
  static func sequenceWarning(_ format: ImageFileFormat) -> String {
    "the \(format.rawValue.uppercased()) is an image sequence; libheif \(libheifVersion) reads only its still primary image (sequences need libheif 1.20), so only that image is read, not the sequence's frames."
  }

  /// The linked libheif's version ("1.15.1").
  static var libheifVersion: String { String(cString: cheif_version()) }

  /// The header of `file` (whose bytes are `data`): upright size, RGB(A), 16-bit for deeper files,
  /// the colour profile (8-bit RGB for the gain map `request` asks for), an HDR image's content peak.
  static func header(_ file: HEIFFile, data: Data, format: ImageFileFormat, request: DecodeRequest) throws -> ImageHeader {
    let map = request.wantsGainMap
    let peak = contentPeak(file, data: data, format: format, request: request)
    return ImageHeader(
      fileFormat: format, size: file.size, layout: file.hasAlpha && !map ? .rgba : .rgb,
      component: file.bitDepth > 8 && !map ? .uint16 : .uint8,
      metadata: ImageMetadata(orientation: .up, iccProfile: file.colorProfile, exif: file.exifTIFF, xmp: file.xmp),
      pageCount: file.imageCount, warnings: peak?.warnings ?? [], leftOutMetadata: file.leftOutMetadata, hdrTransfer: map ? nil : file.hdrTransfer,
      hdrPeak: peak?.value,
      hdrPeakSource: peak?.source)
  }

  /// The content peak of an HDR `file` (`HDRContentPeak`: clli, else mdcv, else measured over the
  /// decoded signal), or nil for an SDR one.
  static func contentPeak(_ file: HEIFFile, data: Data, format: ImageFileFormat, request: DecodeRequest) -> HDRContentPeak? {
    guard let transfer = file.hdrTransfer else { return nil }
    return HDRContentPeak.resolve(
      maxCLL: file.maxCLL, masteringMax: file.masteringMax, container: format.rawValue.uppercased(), data: data
    ) {
      let signal = try decodedSignal(data, file: file, request: request)
      return HDRContentPeak.measured(signal, transfer: transfer, toBT2020: file.primariesToBT2020)
    }
  }

  /// The RGB(A) samples of `file`'s image as stored (8 or 16 bits), without tone mapping.
  static func decodedSignal(_ data: Data, file: HEIFFile, request: DecodeRequest) throws -> PixelBuffer {
    let format = PixelFormat(layout: file.hasAlpha ? .rgba : .rgb, component: file.bitDepth > 8 ? .uint16 : .uint8)
    var signal = try PixelBuffer.forDecoding(
      width: file.size.width, height: file.size.height, format: format, colorSpace: .sRGB, metadata: ImageMetadata())
    try decode(data, page: request.page, limits: request.limits, strict: request.isStrict, into: &signal)
    return signal
  }

  /// Decodes image `page` of `data` into `buffer` (its size, RGB or RGBA, 8 or 16 bits).
  static func decode(_ data: Data, page: Int, limits: DecodeLimits, strict: Bool, into buffer: inout PixelBuffer) throws {
    var message = [CChar](repeating: 0, count: 512)
    let channels = Int32(buffer.format.channelCount), sixteen: Int32 = buffer.format.component == .uint16 ? 1 : 0
    let width = Int32(buffer.width), height = Int32(buffer.height), maxPixels = Int64(limits.maxPixels), strict: Int32 = strict ? 1 : 0
    let status = buffer.withUnsafeMutableBaseAddress { base, stride in
      data.withUnsafeBytes { raw in
        cheif_decode(
          raw.bindMemory(to: UInt8.self).baseAddress, raw.count, Int32(page), maxPixels, strict, channels, sixteen, width,
          height, base.assumingMemoryBound(to: UInt8.self), stride, &message, message.count)
      }
    }
    try HEIFFile.check(status, message)
  }

  /// A whole-image decoder of the page `request` selects.
  static func decoder(_ data: Data, request: DecodeRequest, format: ImageFileFormat) throws -> any ImageRowDecoder {
    guard request.scaleDenominator == 1 else {
      throw CodecError(
        .invalidArgument, "\(format.rawValue.uppercased()) files decode at full size only, not at 1/\(request.scaleDenominator).")
    }
    let file = try HEIFFile(data, page: request.page, limits: request.limits)
    let h = try header(file, data: data, format: format, request: request)
    let map = request.wantsGainMap
    if map && file.hdrTransfer == nil {
      throw CodecError(.invalidArgument, "gain-map: the \(format.rawValue.uppercased()) image is not HDR (no PQ or HLG transfer), so it has no gain map.")
    }
    let colorSpace: ColorSpace = h.metadata.iccProfile.map { .icc($0) } ?? .sRGB
    let signal = file.hdrTransfer.map { HDRSignal(transfer: $0, toBT2020: file.primariesToBT2020, peak: h.hdrPeak ?? HDRToneMapping.nominalPeak) }
    let outputFormat = PixelFormat(layout: h.layout, component: h.component)
    let warnings = request.options["page"] == nil && isSequence(data) ? [sequenceWarning(format)] : []
    return WholeImageDecoder(size: file.size, format: outputFormat, colorSpace: colorSpace, metadata: h.metadata, warnings: warnings) { output in
      if let signal, map {
        HDRToneMapping.gainMap(ofSignal: try decodedSignal(data, file: file, request: request), into: &output, hdrSignal: signal)
      } else {
        try decode(data, page: request.page, limits: request.limits, strict: request.isStrict, into: &output)
        if let signal { HDRToneMapping.apply(to: &output, signal: signal) }
      }
    }
  }

  /// RGB or RGBA (gray is written as RGB), 8-bit or 16-bit rows as `bit-depth` (or the image) says.
  static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    let deep = HEIFEncodeOptions(options).bitDepth.map { $0 > 8 } ?? (component != .uint8)
    return PixelFormat(layout: layout.hasAlpha ? .rgba : .rgb, component: deep ? .uint16 : .uint8)
  }
}

/// The option table of AVIF and HEIC.
public struct HEIFEncodeOptions: FormatOptionSet {
  /// 0…100.
  public var quality = 50
  /// Lossless (4:4:4, identity matrix).
  public var isLossless = false
  /// 0 (fastest) … 9 (slowest), or nil for libheif's default.
  public var effort: Int?
  /// 420, 422 or 444.
  public var chroma = 420
  /// 8, 10 or 12 bits per sample; nil: 8 for 8-bit images, 12 for deeper ones.
  public var bitDepth: Int?

  public init() {}

  public static let fields: [FormatField<HEIFEncodeOptions>] = [
    .integer("quality", \.quality, in: 0...100, help: "Quality: higher is better and larger."),
    .boolean(
      "lossless", \.isLossless, help: "Lossless: RGB stored with the identity matrix at 4:4:4 (quality and chroma are ignored)."),
    .integer(
      "effort", \.effort, in: 0...9,
      help: "Encoder effort, 0 (fastest) … 9 (slowest, smallest): AVIF, libaom's speed 9 − effort (default libheif's: speed 6, effort 3); HEIC, x265's presets ultrafast … placebo (default libheif's: slow)."),
    .choice(
      "chroma", \.chroma, [("420", 420), ("422", 422), ("444", 444)],
      help: "Chroma subsampling: 420 halves colour resolution both ways, 422 horizontally, 444 keeps it."),
    .choice(
      "bit-depth", \.bitDepth, [("8", 8), ("10", 10), ("12", 12)],
      help: "Bits per channel (default: 8 for 8-bit images, 12 for deeper ones — libheif 1.15 with libaom writes 10-bit AVIF at 4:2:2 only)."),
  ]
}
