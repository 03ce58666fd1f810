// ImageCodec.swift — the one protocol every file format implements.
//
// A format is one folder, `Sources/ImageCodecs/<Format>/`, holding a type that conforms to
// `ImageCodec` (plus its decoder and encoder), and one line in `CodecRegistry.codecs`. Everything
// else — recognising inputs, `Image(contentsOf:)`, shrink-on-load, streamed decoding, writing,
// fgrun's flags, `fgrun formats`, docs/Formats.md — goes through this protocol and the registry.
//
// The life of a file:
//   1. `sniff` recognises the format from the first bytes (never from the file name).
//   2. `readHeader` reads size, layout, depth, metadata and page count, and checks the pixel limit
//      before any pixel memory is allocated. It is cheap: images are opened lazily.
//   3. `makeDecoder` starts a decode of one page at a scale (`DecodeRequest`) and returns an
//      `ImageRowDecoder` the renderer reads rows from, top to bottom, either all at once (the
//      decode cache) or a window at a time (streamed decoding, when `streamsRows`).
//   4. `makeEncoder` starts an encode (`EncodeRequest`) and returns an `ImageRowEncoder` the
//      renderer hands bands of rows to, in order, as they finish.

import Foundation
import PixelBufferModule

/// A file format: recognise, read the header, decode, encode, and the option tables.
///
/// Every requirement is static: a codec is a type, never instantiated. Implementations must not
/// crash, `exit` or `longjmp` through Swift on bad input: every failure is a `CodecError` with a
/// sentence a user understands (`.corrupt`, `.truncated`, `.unsupported`, `.tooLarge`…).
public protocol ImageCodec: Sendable {
  /// The format's identity (`ImageFileFormat.jpeg`…). Declared next to the codec in its folder.
  static var format: ImageFileFormat { get }
  /// A short name for people: "JPEG", "WebP".
  static var displayName: String { get }
  /// The file name extensions that mean this format when writing, lowercase, without the dot;
  /// the first is the one fgrun gives batch outputs.
  static var fileExtensions: [String] { get }
  /// One line on what the codec reads and writes, for `fgrun formats` and docs/Formats.md.
  static var summary: String { get }

  /// True when `head` — the first bytes of a file, at most `CodecRegistry.sniffLength` (it may be
  /// shorter for a short file) — starts a file of this format.
  static func sniff(_ head: [UInt8]) -> Bool

  /// Options a decode accepts (`page`…), read by the recipe's `load` and fgrun (`--page`).
  static var decodeOptions: [FormatOption] { get }
  /// Reads what the file says about its image without decoding pixels: size (the stored size, of
  /// the page `request.options` selects), decoded layout and component type, metadata (ICC
  /// profile, orientation, gamma), page count.
  ///
  /// Must check `request.limits` against the size before allocating anything proportional to it.
  /// `request.scaleDenominator` is ignored here: the header is the full-size one.
  ///
  /// - Throws: `CodecError` — `.corrupt`, `.truncated`, `.unsupported`, `.tooLarge`, or
  ///   `.invalidArgument` for a page that does not exist.
  static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader

  /// The scale denominators `d` (besides 1) this codec decodes the file whose header is `header`
  /// at directly, each side becoming ⌈side / d⌉ — shrink-on-load, much cheaper than a full decode
  /// and a resample (JPEG's DCT scaling: [2, 4, 8]; WebP's scaled decoding, for still images).
  /// Empty when the file decodes at full size only.
  static func reducedScaleDenominators(for header: ImageHeader) -> [Int]
  /// How much larger than the optimizer's minimum (twice the target) a decode reduced by
  /// `denominator` must stay: 1 for a reduction that is a good low-pass (JPEG's DCT scaling at
  /// 1/2 and 1/4); a box average (PNG, and JPEG's 1/8, which keeps only each block's DC term)
  /// attenuates detail the final resample would keep, and needs 1.5 (three times the target) to
  /// stay within 45 dB of a resample of the full image on detailed photos.
  static func reductionMargin(denominator: Int) -> Double
  /// True when a reduced decode is made of blocks of d × d stored pixels (JPEG's DCT scaling, a
  /// box average), so that a side d does not divide ends in a partial block: reduced pixel i
  /// covers stored pixels [i·d, (i+1)·d), and a resample can map positions as on the full image.
  /// False when the reduction resamples the whole image onto its ⌈side / d⌉ pixels (WebP).
  static var reducesInBlocks: Bool { get }
  /// The size of the reduced-resolution copy the file stores (one of
  /// `header.reducedLevelSizes`: a TIFF pyramid level) that a decode at 1/`scaleDenominator`
  /// reads, or nil when it reads the full-size image. Said by `Renderer.explain`.
  static func storedLevelSize(for header: ImageHeader, scaleDenominator: Int) -> Size?
  /// True when the codec's decoders produce rows incrementally, so that a render reading the
  /// image top to bottom can hold a window of rows instead of the whole image. False when a
  /// decoder decodes the whole image on its first read anyway.
  static var streamsRows: Bool { get }
  /// True when a decoder started with `DecodeRequest.region` decodes only the part of the file
  /// that rectangle needs (TIFF: the strips or tiles it touches), so a crop of a large file, or
  /// tiles of it, cost a fraction of a whole decode. False: the codec ignores `region`, and
  /// callers must not pass one.
  static var decodesRegions: Bool { get }
  /// Starts decoding `data` as `request` says (page, scale, region, strictness, limits).
  ///
  /// - Throws: `CodecError` as `readHeader`, and `.invalidArgument` for a scale denominator
  ///   that is neither 1 nor in `reducedScaleDenominators(for:)`, or a region outside the image.
  static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder

  /// The typed options an encode reads (`JPEGEncodeOptions`…), whose fields are `encodeOptions`.
  associatedtype EncodeOptions: FormatOptionSet = NoFormatOptions
  /// Options an encode accepts (`quality`, `lossless`, `effort`, `compression`, `bit-depth`…):
  /// `EncodeOptions.table`.
  static var encodeOptions: [FormatOption] { get }
  /// Nil when the codec writes files; otherwise the sentence explaining that it does not
  /// (`"<format> output is not supported; write PNG or WebP instead."`).
  static var encoderUnavailableReason: String? { get }
  /// The pixel format rows must have when an image with `layout` channels and `component`
  /// samples is written with `options` (for example JPEG drops alpha and writes 8 bits; PNG keeps
  /// 16 bits unless `bit-depth` says 8). Straight alpha, encoded (not linear) values.
  static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat
  /// The bytes its encoder holds of its own while writing an image of `size` in `format` (as
  /// `encodedPixelFormat` gives it) with `options`, beyond the bands of rows the renderer hands it: 0 for an encoder that compresses rows as
  /// they arrive; an encoder of whole pictures (libwebp, libheif, the GIF quantiser) holds the
  /// picture and its working copies, and says how much, so that batches and the server admit
  /// the render by it before any of it is allocated.
  static func encoderHeldBytes(for size: Size, format: PixelFormat, options: ResolvedFormatOptions) -> Int
  /// Starts an encode.
  ///
  /// - Throws: `CodecError` — `.invalidArgument` for an option out of range or a size the format
  ///   cannot hold, `.unsupported` when no encoder exists, `.io` when writing to the destination fails.
  static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder
}

extension ImageCodec {
  /// Full-size decoding only.
  public static func reducedScaleDenominators(for header: ImageHeader) -> [Int] { [] }
  /// No margin beyond the optimizer's.
  public static func reductionMargin(denominator: Int) -> Double { 1 }
  /// Not known to reduce in blocks: only reductions that divide both sides are taken.
  public static var reducesInBlocks: Bool { false }
  /// No stored reduced copies.
  public static func storedLevelSize(for header: ImageHeader, scaleDenominator: Int) -> Size? { nil }
  /// Whole-image decoding.
  public static var streamsRows: Bool { false }
  /// No region decoding.
  public static var decodesRegions: Bool { false }
  /// No decode options.
  public static var decodeOptions: [FormatOption] { [] }
  /// The rows of `EncodeOptions`' fields.
  public static var encodeOptions: [FormatOption] { EncodeOptions.table }
  /// Writes files.
  public static var encoderUnavailableReason: String? { nil }
  /// An encoder that compresses rows as they arrive.
  public static func encoderHeldBytes(for size: Size, format: PixelFormat, options: ResolvedFormatOptions) -> Int { 0 }
  /// `bytesPerPixel` for each pixel of `size`, or `Int.max` when that overflows.
  static func heldBytes(_ size: Size, _ bytesPerPixel: Int) -> Int {
    let (pixels, o1) = max(size.width, 0).multipliedReportingOverflow(by: max(size.height, 0))
    let (bytes, o2) = pixels.multipliedReportingOverflow(by: bytesPerPixel)
    return o1 || o2 ? .max : bytes
  }
  /// True when the codec writes files.
  public static var canEncode: Bool { encoderUnavailableReason == nil }
}

/// A codec that reads files in place: through their descriptor, only the parts a decode needs
/// (TIFF: the directories, then each strip or tile as it is decoded; a still PNG: its chunks
/// before the image data, then the image data a piece at a time; a JPEG: its markers before the
/// first scan, then libjpeg's reads, 256 KiB at a time), so a large file is never held
/// in memory whole. `EncodedSource` opens files of such codecs and keeps them open instead of
/// reading them into memory; the `Data` methods still serve bytes already in memory.
public protocol FileReadingCodec: ImageCodec {
  /// Whether the file open on `file` is read in place for `request` (its options; the page, the
  /// gain map); false when the codec needs it in memory after all (an APNG: its frames). Reading
  /// it in place is then still correct, only no cheaper: the file methods read it whole.
  static func readsInPlace(file: FileHandle, request: DecodeRequest) -> Bool
  /// `readHeader` of the file open for reading on `file` (read from its start, whatever the
  /// handle's offset; the handle is not moved).
  static func readHeader(file: FileHandle, request: DecodeRequest) throws -> ImageHeader
  /// `makeDecoder` of the file open on `file`, which the decoder keeps open while it lives.
  /// A file that shrinks while it is read is a `.truncated` error.
  static func makeDecoder(file: FileHandle, request: DecodeRequest) throws -> any ImageRowDecoder
}

extension FileReadingCodec {
  /// Every file.
  public static func readsInPlace(file: FileHandle, request: DecodeRequest) -> Bool { true }
}

/// What to decode: which page, at which scale, how strictly, within which limits.
public struct DecodeRequest: Hashable, Sendable {
  /// Decode at 1/`scaleDenominator` of the stored size (1, or one of the codec's
  /// `reducedScaleDenominators(for:)`); each side becomes ⌈side / d⌉.
  public var scaleDenominator: Int
  /// Treat recoverable damage (a truncated JPEG libjpeg pads with gray) as an error.
  public var isStrict: Bool
  /// Checked against the header before any pixel memory is allocated.
  public var limits: DecodeLimits
  /// Values for the codec's `decodeOptions` (`page`…).
  public var options: FormatOptionValues
  /// The rectangle to decode, in the coordinates of the image at `scaleDenominator` (before
  /// orientation), or nil for all of it. Only for codecs that `decodesRegions`: the decoder's
  /// `outputSize` is then the rectangle's size and its rows are the rectangle's rows.
  public var region: Rect?
  /// How a decoder that converts colours itself maps them: the intent and black-point
  /// compensation of a CMYK file's conversion through its profile (`ImageHeader.cmykProfile`).
  /// Other decoders ignore it.
  public var colorRendering: ColorRendering

  /// Creates a request; the defaults decode the first page, all of it, at full size, leniently,
  /// CMYK relative colorimetric without black-point compensation.
  public init(
    scaleDenominator: Int = 1, isStrict: Bool = false, limits: DecodeLimits = .default,
    options: FormatOptionValues = [:], region: Rect? = nil, colorRendering: ColorRendering = ColorRendering()
  ) {
    self.scaleDenominator = scaleDenominator
    self.isStrict = isStrict
    self.limits = limits
    self.options = options
    self.region = region
    self.colorRendering = colorRendering
  }

  /// The zero-based page `options` selects (`page`, default 0).
  public var page: Int {
    if case .integer(let p)? = options["page"] { return p }
    return 0
  }

  /// Whether `options` ask for an HDR image's gain map (`FormatOption.gainMap`).
  var wantsGainMap: Bool { if case .boolean(true)? = options["gain-map"] { return true } else { return false } }
}

/// A decode in progress: rows come out top to bottom.
///
/// Not thread-safe: the renderer serialises calls on one decoder.
public protocol ImageRowDecoder: AnyObject {
  /// The size of the decoded image (the stored size at the request's scale, before orientation).
  var outputSize: Size { get }
  /// The pixel format rows come out in (straight alpha).
  var outputFormat: PixelFormat { get }
  /// A buffer of `rows` rows (default: the whole image) in the output format, tagged with the
  /// file's colour space and metadata, ready for `readRows`.
  func makeBuffer(rows: Int?) throws -> PixelBuffer
  /// Decodes the next `count` rows (fewer at the bottom of the image) into `buffer`, starting at
  /// its row `destinationRow`, and returns how many rows were decoded.
  ///
  /// - Throws: `CodecError` for damaged or truncated data; the decoder then stays failed.
  func readRows(_ count: Int, into buffer: inout PixelBuffer, at destinationRow: Int) throws -> Int
  /// Recoverable problems met so far (a CRC error in an ancillary chunk, a premature end of
  /// JPEG data patched up with gray…), in the library's words.
  var warnings: [String] { get }
  /// Decodes every remaining row into one new buffer (the whole image when nothing was read yet).
  /// The default reads rows into `makeBuffer(rows: nil)`; codecs that decode whole images anyway
  /// return theirs without a copy.
  func decodeAll() throws -> PixelBuffer
}

extension ImageRowDecoder {
  /// Reads every row into `makeBuffer(rows: nil)`.
  public func decodeAll() throws -> PixelBuffer {
    var buffer = try makeBuffer(rows: nil)
    _ = try readRows(outputSize.height, into: &buffer, at: 0)
    return buffer
  }
}

/// Runs encoder jobs (parallel PNG segments, JPEG strips…) on the caller's threads: the renderer
/// passes its worker pool. An `EncodeJobExecutor` that also says how many threads it has.
public protocol CodecExecutor: EncodeJobExecutor {
  /// The number of threads jobs run on (encoders bound their work in flight by it).
  var threadCount: Int { get }
}

/// What to encode, how, and where to.
public struct EncodeRequest {
  /// The image size.
  public var size: Size
  /// The format rows will come in: the codec's `encodedPixelFormat` for the image.
  public var pixelFormat: PixelFormat
  /// The colour space of the pixels (an ICC profile to embed, or sRGB).
  public var colorSpace: ColorSpace
  /// Metadata to write where the format can hold it: the ICC profile, and the EXIF, XMP, IPTC
  /// and comment blocks, written as given (the renderer has already made the EXIF block true of
  /// the upright pixels, `EXIF.upright`). `orientation` is never written.
  public var metadata: ImageMetadata
  /// The codec's encode options, checked against its table, defaults filled in.
  public var options: ResolvedFormatOptions
  /// Where the bytes go: an output handle, or nil to collect them in memory (`finish()` returns them).
  public var handle: OutputHandle?
  /// Threads for parallel compression, when the codec can use them; nil to work on the calling thread.
  public var executor: (any CodecExecutor)?

  /// Creates a request.
  public init(
    size: Size, pixelFormat: PixelFormat, colorSpace: ColorSpace, metadata: ImageMetadata,
    options: ResolvedFormatOptions, handle: OutputHandle?, executor: (any CodecExecutor)?
  ) {
    self.size = size
    self.pixelFormat = pixelFormat
    self.colorSpace = colorSpace
    self.metadata = metadata
    self.options = options
    self.handle = handle
    self.executor = executor
  }
}

/// An encode in progress: bands of rows go in, top to bottom, then `finish()`.
public protocol ImageRowEncoder: AnyObject {
  /// Encodes the next rows (`rows.height` of them, in the request's pixel format and width).
  /// Encoders that keep a band beyond this call retain `rows`' storage rather than copy it.
  ///
  /// - Throws: `CodecError` — `.invalidArgument` for rows of the wrong format or too many rows,
  ///   `.io` when writing fails.
  func write(rows: PixelBuffer) throws
  /// Completes the file once every row was written and returns its bytes when the destination was
  /// memory (nil for a handle).
  ///
  /// - Throws: `CodecError` — `.invalidArgument` when rows are missing, `.io` when writing fails.
  func finish() throws -> Data?
}
