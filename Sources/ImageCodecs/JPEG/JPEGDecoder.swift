// JPEGDecoder.swift — incremental JPEG decoding through libjpeg-turbo (via the CJPEG shim).
import CJPEG
import Foundation
import PixelBufferModule

/// Decodes a JPEG held in memory, all at once or in strips of rows.
///
/// Creating a decoder reads only the header; pixels are decoded after `start(options:)`, top to
/// bottom, by `readRows(_:into:at:)`:
///
/// ```swift
/// let decoder = try JPEGDecoder(data: bytes)
/// let size = try decoder.start(options: JPEGDecodeOptions(scaleDenominator: 2))
/// var strip = try decoder.makeBuffer(rows: 16)
/// while !decoder.isComplete {
///   let n = try decoder.readRows(16, into: &strip)
///   // use strip rows 0 ..< n, which are image rows decoder.nextRow - n ..< decoder.nextRow
/// }
/// ```
///
/// Output is `.gray8` for grayscale files and `.rgb8` for everything else. YCbCr and RGB files are
/// converted by libjpeg. CMYK and YCCK files are decoded as CMYK; with an embedded CMYK profile
/// they are converted through it by lcms2 into sRGB (`CMYKConversion`, with the intent and
/// black-point compensation of `JPEGDecodeOptions.colorRendering`; the profile is then used up:
/// the header names it in `cmykProfile`, the buffer is sRGB and its metadata carries no profile). Without one (or with one lcms2 cannot use) they are converted naively, the
/// way most tools without colour management do: `R = C′·K′/255` (likewise G from M′, B from Y′),
/// where `C′ = 255 − C` is the light the ink lets through. Files with an Adobe (APP14) marker store
/// C′ directly (inverted CMYK, Photoshop's convention), in both conversions. The ICC profile of
/// any other file is kept (the buffer's colour space is then `.icc(profile)`), but no colour
/// conversion is applied here.
///
/// A decoder is not thread-safe; use one per thread.
public final class JPEGDecoder {
  /// What the header says: stored size, output layout, EXIF orientation, ICC profile, and the
  /// EXIF, XMP, IPTC and comment blocks (see `JPEGMetadata`).
  public let header: ImageHeader
  /// True for progressive files (which libjpeg reads completely when decoding starts).
  public let isProgressive: Bool
  /// True for arithmetic-coded files.
  public let isArithmeticCoded: Bool
  /// The number of components coded in the file (1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK).
  public let componentCount: Int
  /// The size rows are produced at, once `start(options:)` has run.
  public private(set) var scaledSize: Size?
  /// The index of the next output row `readRows` will produce.
  public private(set) var nextRow = 0
  /// Corrupt-data warnings so far (libjpeg recovered from them), for example
  /// “Premature end of JPEG file”. At most a few messages are kept; a final entry counts the rest.
  public var warnings: [String] { Self.warnings(of: handle) }

  private let handle: OpaquePointer
  /// What libjpeg reads: the encoded bytes in place (see `EncodedBytes`), or the file, through
  /// its descriptor; kept alive (open) with the decoder.
  private let input: Input
  private var isStrict = false
  private var isFinished = false
  /// The conversion of a CMYK file through its embedded profile (`header.cmykProfile`), made by
  /// `start(options:)` with the options' rendering; nil before, and for every other file.
  private var cmyk: CMYKConversion?
  /// Why a CMYK file's embedded profile was not used (its pixels are then converted naively).
  public let cmykProfileProblem: String?

  enum Input {
    case bytes(Data)
    case file(FileHandle)
  }

  /// Reads the header of the JPEG in `data`, without decoding pixels.
  ///
  /// - Throws: `CodecError` — `.tooLarge` when the stored size exceeds `limits` (checked before
  ///   any pixel memory is allocated), `.unsupported` for 12-bit and lossless JPEGs, `.truncated`
  ///   or `.corrupt` for damaged data.
  public convenience init(data: Data, limits: DecodeLimits = .default) throws {
    guard !data.isEmpty else {
      throw CodecError(.truncated, "The JPEG data is empty.")
    }
    // libjpeg's memory source reads the bytes in place (no copy) when their address is stable
    // for the decoder's lifetime; tiny inline `Data` values are copied.
    let created = data.withUnsafeBytes { raw in
      let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
      return EncodedBytes.isStable(data)
        ? cj_decoder_create_borrowing(base, raw.count) : cj_decoder_create(base, raw.count)
    }
    try self.init(handle: created, input: .bytes(data), markers: data, limits: limits)
  }

  /// Reads the header of a JPEG through `handle` (made by the shim over `input`), with the
  /// metadata segments of `markers` (the file's bytes, or its head up to the first scan).
  init(handle created: OpaquePointer?, input: Input, markers data: Data, limits: DecodeLimits) throws {
    guard let created else {
      throw CodecError(.tooLarge, "Out of memory creating a JPEG decoder.")
    }
    handle = created
    self.input = input
    var info = cj_header()
    let status = cj_read_header(handle, &info)
    if let error = Self.error(handle, status) {
      cj_decoder_destroy(handle)
      throw error
    }
    do {
      try limits.check(width: Int(info.width), height: Int(info.height), what: "JPEG image")
    } catch {
      cj_decoder_destroy(handle)
      throw error
    }
    // The metadata segments are read in place from the file's bytes, each once; only the blocks
    // kept are copied (libjpeg is not asked to save them, which held a copy of every segment).
    var metadata = ImageMetadata()
    var orientation: Orientation?
    var icc = ICCProfileChunks()
    var xmpPieces = XMPExtensionPieces()
    data.withUnsafeBytes { bytes in
      JPEGMetadata.forEachSegment(in: bytes) { marker, payload in
        switch marker {
        case 0xE1:
          if orientation == nil, payload.starts(with: EXIF.app1Signature) { orientation = EXIF.orientation(app1: Array(payload)) }
          JPEGMetadata.read(marker: marker, payload: payload, into: &metadata, extension: &xmpPieces)
        case 0xE2: icc.add(payload)
        case 0xED, 0xFE: JPEGMetadata.read(marker: marker, payload: payload, into: &metadata, extension: &xmpPieces)
        default: break
        }
      }
    }
    let xmpLeftOut = xmpPieces.finish(&metadata)
    metadata.orientation = orientation ?? .up
    metadata.iccProfile = icc.profile
    // A CMYK profile lcms2 can convert with the default rendering is used (and used up); the
    // conversion with the requested rendering is made when decoding starts.
    var cmykProfile: Data?, cmykProblem: String?
    if [CJ_MODEL_CMYK, CJ_MODEL_YCCK].contains(where: { Int32($0.rawValue) == info.color_model }), let profile = metadata.iccProfile {
      let (usable, problem) = CMYKConversion.make(iccProfile: profile, sampleBytes: 1, hasAlpha: false, rendering: ColorRendering())
      cmykProblem = problem
      if usable != nil {
        cmykProfile = profile
        metadata.iccProfile = nil
      }
    }
    cmykProfileProblem = cmykProblem
    var header = ImageHeader(
      fileFormat: .jpeg, size: Size(width: Int(info.width), height: Int(info.height)),
      layout: info.output_components == 1 ? .gray : .rgb, component: .uint8, metadata: metadata, cmykProfile: cmykProfile,
      warnings: [icc.problem].compactMap { $0 }, leftOutMetadata: [xmpLeftOut].compactMap { $0 })
    header.isStoredAsCMYK = info.components == 4
    self.header = header
    isProgressive = info.progressive != 0
    isArithmeticCoded = info.arithmetic != 0
    componentCount = Int(info.components)
  }

  deinit {
    cj_decoder_destroy(handle)
  }

  // MARK: Sizes and formats

  /// The size a decode scaled by 1/`scaleDenominator` produces: ⌈width/d⌉ × ⌈height/d⌉, as libjpeg
  /// computes it.
  public func outputSize(scaleDenominator: Int) -> Size {
    let d = max(scaleDenominator, 1)
    return Size(
      width: (header.size.width + d - 1) / d, height: (header.size.height + d - 1) / d)
  }

  /// The pixel format of decoded rows: `.gray8` or `.rgb8`.
  public var outputFormat: PixelFormat { header.layout == .gray ? .gray8 : .rgb8 }

  /// The colour space decoded buffers are tagged with: `.icc(profile)` when the file embeds an ICC
  /// profile, `.sRGB` otherwise.
  public var outputColorSpace: ColorSpace {
    header.metadata.iccProfile.map { ColorSpace.icc($0) } ?? .sRGB
  }

  /// True once every row has been read.
  public var isComplete: Bool { scaledSize.map { nextRow >= $0.height } ?? false }

  /// A buffer of `rows` rows (by default the whole scaled image) in the output format, with this
  /// file's colour space and metadata, ready for `readRows`.
  ///
  /// - Precondition: `start(options:)` has run.
  public func makeBuffer(rows: Int? = nil) throws -> PixelBuffer {
    guard let scaledSize else { preconditionFailure("call start(options:) before makeBuffer(rows:)") }
    return try PixelBuffer.forDecoding(
      width: scaledSize.width, height: scaledSize.height, rows: rows, format: outputFormat,
      colorSpace: outputColorSpace, metadata: header.metadata)
  }

  // MARK: Decoding

  /// Starts decoding with `options` and returns the (scaled) output size. Call once.
  ///
  /// Progressive files are read completely here.
  ///
  /// - Throws: `.invalidArgument` for a scale denominator other than 1, 2, 4 or 8; `.corrupt`,
  ///   `.truncated` or `.unsupported` when libjpeg fails; in strict mode, `.truncated`/`.corrupt`
  ///   when header reading already produced a warning.
  @discardableResult
  public func start(options: JPEGDecodeOptions = JPEGDecodeOptions()) throws -> Size {
    guard [1, 2, 4, 8].contains(options.scaleDenominator) else {
      throw CodecError(
        .invalidArgument,
        "The JPEG scale denominator must be 1, 2, 4 or 8, not \(options.scaleDenominator).")
    }
    guard scaledSize == nil else {
      throw CodecError(.invalidArgument, "The JPEG decoder was started twice.")
    }
    isStrict = options.isStrict
    if isStrict, let first = warnings.first {
      throw Self.strictError(first)
    }
    cj_decoder_set_strict(handle, isStrict ? 1 : 0)
    if let profile = header.cmykProfile {
      let (conversion, problem) = CMYKConversion.make(
        iccProfile: profile, sampleBytes: 1, hasAlpha: false, rendering: options.colorRendering)
      guard let conversion else {
        throw CodecError(
          .unsupported, "The JPEG's CMYK profile cannot be converted with the \(options.colorRendering.label) intent: \(problem ?? "lcms2 refused").")
      }
      cmyk = conversion
    }
    cj_decoder_keep_cmyk(handle, cmyk != nil ? 1 : 0)
    let dct: cj_dct_method
    switch options.dctMethod {
    case .accurate: dct = CJ_DCT_ISLOW
    case .fast: dct = CJ_DCT_IFAST
    case .float: dct = CJ_DCT_FLOAT
    }
    var width: UInt32 = 0, height: UInt32 = 0, components: Int32 = 0
    let status = cj_start(
      handle, Int32(options.scaleDenominator), Int32(bitPattern: dct.rawValue),
      options.usesFancyUpsampling ? 1 : 0, &width, &height, &components)
    if let error = Self.error(handle, status) { throw error }
    guard Int(components) == (cmyk != nil ? 4 : outputFormat.channelCount) else {
      throw CodecError(.unsupported, "libjpeg-turbo produced \(components) channels where \(outputFormat.channelCount) were expected.")
    }
    let size = Size(width: Int(width), height: Int(height))
    scaledSize = size
    return size
  }

  /// Decodes the next `count` rows (fewer at the bottom of the image) into `buffer`, starting at
  /// the buffer's row `destinationRow`, and returns how many rows were decoded. After the last
  /// row, the rest of the file is read and checked.
  ///
  /// - Precondition: `start(options:)` has run.
  /// - Throws: `.invalidArgument` when `buffer` has the wrong width or format or too few rows;
  ///   `.corrupt`/`.truncated` when libjpeg fails (in strict mode, also on a warning).
  @discardableResult
  public func readRows(_ count: Int, into buffer: inout PixelBuffer, at destinationRow: Int = 0) throws -> Int {
    guard let scaledSize else {
      throw CodecError(.invalidArgument, "JPEG rows were requested before decoding started.")
    }
    guard buffer.width == scaledSize.width, buffer.format == outputFormat else {
      throw CodecError(
        .invalidArgument,
        "The buffer for JPEG rows is \(buffer.width) pixels wide in \(buffer.format); "
          + "\(scaledSize.width) pixels in \(outputFormat) are needed.")
    }
    let wanted = min(max(count, 0), scaledSize.height - nextRow)
    guard destinationRow >= 0, destinationRow + wanted <= buffer.height else {
      throw CodecError(
        .invalidArgument,
        "The buffer has \(buffer.height) rows; \(wanted) rows at row \(destinationRow) do not fit.")
    }
    guard wanted > 0 else { return 0 }
    if let cmyk { return try readConvertedRows(wanted, through: cmyk, into: &buffer, at: destinationRow) }
    var read: UInt32 = 0
    let status = buffer.withUnsafeMutableBaseAddress { base, rowBytes in
      var rows = (0..<wanted).map { Optional((base + (destinationRow + $0) * rowBytes).assumingMemoryBound(to: UInt8.self)) }
      return rows.withUnsafeMutableBufferPointer { pointers in
        cj_read_rows(handle, pointers.baseAddress, UInt32(wanted), &read)
      }
    }
    nextRow += Int(read)
    if let error = Self.error(handle, status) { throw error }
    guard Int(read) == wanted else {
      throw CodecError(.corrupt, "libjpeg-turbo produced \(read) of \(wanted) requested JPEG rows.")
    }
    if nextRow == scaledSize.height { try finish() }
    return wanted
  }

  /// Decodes `count` rows of CMYK, a few at a time, and converts them through `conversion` into
  /// `buffer`'s rows from `destinationRow`.
  private func readConvertedRows(_ count: Int, through conversion: CMYKConversion, into buffer: inout PixelBuffer, at destinationRow: Int) throws -> Int {
    let width = buffer.width, batch = min(count, 16)
    var cmykRows = [UInt8](repeating: 0, count: width * 4 * batch)
    var scratch = [Float](repeating: 0, count: width * 4)
    var done = 0
    while done < count {
      let rows = min(batch, count - done)
      var read: UInt32 = 0
      let status = cmykRows.withUnsafeMutableBufferPointer { c in
        var pointers = (0..<rows).map { Optional(c.baseAddress! + $0 * width * 4) }
        return pointers.withUnsafeMutableBufferPointer { cj_read_rows(handle, $0.baseAddress, UInt32(rows), &read) }
      }
      nextRow += Int(read)
      buffer.withUnsafeMutableBaseAddress { base, rowBytes in
        cmykRows.withUnsafeBytes { c in
          scratch.withUnsafeMutableBufferPointer { f in
            for r in 0..<Int(read) {
              let destination = (base + (destinationRow + done + r) * rowBytes).assumingMemoryBound(to: UInt8.self)
              conversion.convert(c.baseAddress! + r * width * 4, width: width, into: destination, scratch: f.baseAddress!)
            }
          }
        }
      }
      done += Int(read)
      if let error = Self.error(handle, status) { throw error }
      guard Int(read) == rows else {
        throw CodecError(.corrupt, "libjpeg-turbo produced \(done) of \(count) requested JPEG rows.")
      }
    }
    if nextRow == scaledSize?.height { try finish() }
    return count
  }

  /// Skips the next `count` rows without producing them (libjpeg's `jpeg_skip_scanlines`, which
  /// avoids most of the work for skipped rows) and returns how many were skipped.
  @discardableResult
  public func skipRows(_ count: Int) throws -> Int {
    guard let scaledSize else {
      throw CodecError(.invalidArgument, "JPEG rows were skipped before decoding started.")
    }
    let wanted = min(max(count, 0), scaledSize.height - nextRow)
    guard wanted > 0 else { return 0 }
    var skipped: UInt32 = 0
    let status = cj_skip_rows(handle, UInt32(wanted), &skipped)
    nextRow += Int(skipped)
    if let error = Self.error(handle, status) { throw error }
    if nextRow == scaledSize.height { try finish() }
    return Int(skipped)
  }

  private func finish() throws {
    guard !isFinished else { return }
    isFinished = true
    let status = cj_finish(handle)
    if let error = Self.error(handle, status) { throw error }
  }

  // MARK: One-call API

  /// Decodes a whole JPEG, discarding recoverable warnings (see `decodeReportingWarnings`).
  ///
  /// - Throws: `CodecError` (see `init(data:limits:)` and `start(options:)`).
  public static func decode(
    _ data: Data, options: JPEGDecodeOptions = JPEGDecodeOptions(), limits: DecodeLimits = .default
  ) throws -> PixelBuffer {
    try decodeReportingWarnings(data, options: options, limits: limits).buffer
  }

  /// Decodes a whole JPEG and returns the pixels with libjpeg's corrupt-data warnings.
  ///
  /// - Throws: `CodecError` (see `init(data:limits:)` and `start(options:)`).
  public static func decodeReportingWarnings(
    _ data: Data, options: JPEGDecodeOptions = JPEGDecodeOptions(), limits: DecodeLimits = .default
  ) throws -> JPEGDecodeResult {
    let decoder = try JPEGDecoder(data: data, limits: limits)
    let size = try decoder.start(options: options)
    var buffer = try decoder.makeBuffer()
    try decoder.readRows(size.height, into: &buffer)
    return JPEGDecodeResult(buffer: buffer, warnings: decoder.warnings)
  }

  /// Reads only the header: size, output layout, orientation and ICC profile.
  ///
  /// - Throws: `CodecError`, including `.tooLarge` when the size exceeds `limits`.
  public static func readHeader(_ data: Data, limits: DecodeLimits = .default) throws -> ImageHeader {
    try JPEGDecoder(data: data, limits: limits).header
  }

  // MARK: Helpers

  private static func error(_ handle: OpaquePointer, _ status: Int32) -> CodecError? {
    guard status != 0 else { return nil }
    return LibJPEG.error(
      status: status, message: String(cString: cj_decoder_message(handle)),
      parameter: cj_decoder_error_parameter(handle), decoding: true)
  }

  private static func strictError(_ warning: String) -> CodecError {
    warning.hasPrefix("Premature end of JPEG file")
      ? CodecError(.truncated, "The JPEG file is truncated: it ends before the image data is complete (libjpeg-turbo: “\(warning)”).")
      : CodecError(.corrupt, "The JPEG data is corrupt (libjpeg-turbo: “\(warning)”).")
  }

  private static func warnings(of handle: OpaquePointer) -> [String] {
    let kept = Int(cj_kept_warning_count(handle))
    var list = (0..<kept).compactMap { i in cj_warning_message(handle, Int32(i)).map { String(cString: $0) } }
    let total = Int(cj_warning_count(handle))
    if total > kept { list.append("… and \(total - kept) more corrupt-data warnings.") }
    return list
  }
}
