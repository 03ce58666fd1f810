// PNGDecoder.swift — PNG decoding through libpng, whole or strip by strip.
import CPNG
import Foundation
import PixelBufferModule

/// Decodes a PNG file held in memory or read through its descriptor (`PNGFileHead`), through libpng 1.6: the header and every chunk before the
/// image data, and the rows of palette, 1/2/4-bit, tRNS and interlaced images. The rows of the
/// other (plain) images — non-interlaced 8- or 16-bit gray, gray + alpha, RGB, RGBA — need no
/// transformation and come from the shim's own IDAT reader (`Sources/CPNG/idat.c`: each IDAT
/// chunk whole and CRC-checked, zlib, SSE2 unfiltering), the same pixels about twice as fast.
///
/// Output layouts: gray, gray + alpha, RGB or RGBA (palettes expand to RGB, or RGBA when the file has
/// tRNS; a tRNS colour key becomes an alpha channel; 1/2/4-bit gray scales to 8 bits by bit
/// replication, so 1-bit white is 255). 16-bit files decode to `.uint16` buffers in native byte
/// order — never squashed to 8 bits; everything else to `.uint8`. Alpha is `.straight`.
///
/// Metadata: iCCP → `metadata.iccProfile` and `colorSpace == .icc(profile)`; an sRGB chunk makes
/// `colorSpace == .sRGB` (it wins over iCCP for the colour space; the profile bytes are still
/// kept). Without either, a gAMA of 1.0 means `.linearSRGB`, anything else `.sRGB`. gAMA →
/// `metadata.gamma` (libpng also reports the sRGB chunk's implied 0.45455 there). eXIf →
/// `metadata.orientation`.
///
/// Non-interlaced files can be read strip by strip (`readRows`), so a consumer never needs the
/// whole image in memory; interlaced (Adam7) files are decoded whole on the first read and then
/// handed out in strips.
///
/// ```swift
/// let decoder = try PNGDecoder(data: bytes)
/// while let strip = try decoder.readRows(count: 64) { consume(strip) }
/// ```
public final class PNGDecoder {
  /// Size, decoded layout and component type, and metadata, known before any pixel is decoded.
  public let header: ImageHeader
  /// The colour space the pixels are in (see the type's documentation).
  public let colorSpace: ColorSpace
  /// True for Adam7-interlaced files.
  public let isInterlaced: Bool
  /// The bit depth stored in the file (1, 2, 4, 8 or 16), before expansion.
  public let fileBitDepth: Int
  /// The sRGB chunk's rendering intent (0…3), or nil without an sRGB chunk.
  public let sRGBIntent: Int?
  /// The cHRM chromaticities as white x, y, red x, y, green x, y, blue x, y, or nil without cHRM
  /// (libpng also reports the sRGB primaries for a file with an sRGB chunk).
  public let chromaticities: [Double]?
  /// The number of rows handed out so far.
  public private(set) var rowsRead = 0
  /// The HDR signal a cICP chunk declares (PQ or HLG, RGB), or nil.
  public let hdrSignal: HDRSignal?
  /// Whether rows are tone-mapped to SDR sRGB (an HDR signal read with `toneMaps`).
  private let toneMaps: Bool

  private let reader: OpaquePointer
  /// The encoded bytes libpng reads in place through the shim's read callback (see
  /// `EncodedBytes`), or the file it reads them from.
  private let input: Input
  /// A private copy of bytes that cannot be read in place.
  private let copy: UnsafeMutableRawBufferPointer?
  private var wholeImage: PixelBuffer?
  private var failure: CodecError?
  private var extraWarnings: [String] = []

  /// The pixel format of decoded buffers.
  public var format: PixelFormat { PixelFormat(layout: header.layout, component: header.component) }

  /// Problems libpng reported without failing (a CRC error in an ancillary chunk, a rejected ICC
  /// profile, damage after the image data…), as libpng worded them.
  /// libpng's notes about an ICC profile it accepted and that is used as it is (`known incorrect
  /// sRGB profile`: an old HP sRGB profile many cameras and editors still embed; `PCS illuminant is
  /// not D50`) are left out: they say nothing about the pixels, and shown on every run of a batch
  /// they would bury real warnings.
  public var warnings: [String] {
    PNGShimSupport.warnings(of: reader).filter { !headerWarningSources.contains($0) && !(usesProfile && Self.isBenignProfileNote($0)) }
      + extraWarnings
  }

  /// Whether `text` is one of libpng's notes about an ICC profile that it keeps (png.c's
  /// `png_icc_check_header` and `png_compare_ICC_profile_with_sRGB`).
  static func isBenignProfileNote(_ text: String) -> Bool {
    text.hasPrefix("iCCP") && ["known incorrect sRGB profile", "PCS illuminant is not D50", "out-of-date sRGB profile"].contains { text.contains($0) }
  }

  /// Whether the file's ICC profile was accepted and is used.
  private var usesProfile: Bool { header.metadata.iccProfile != nil }
  /// libpng's words already reported in `header.warnings` (a rejected iCCP chunk).
  private let headerWarningSources: Set<String>

  /// Reads the header and every chunk before the image data, and checks the size against `limits`
  /// before any pixel memory is allocated. Rows of an HDR (cICP PQ or HLG) image are tone-mapped to
  /// SDR sRGB unless `toneMaps` is false (they are then the HDR signal, `hdrSignal` says which).
  ///
  /// - Throws: `CodecError` — `.corrupt` for data that is not a valid PNG, `.truncated` when it ends
  ///   early, `.tooLarge` when the size exceeds `limits`.
  public convenience init(data: Data, limits: DecodeLimits = .default, toneMaps: Bool = true) throws {
    try self.init(.bytes(data), limits: limits, toneMaps: toneMaps, resolvesPeak: true)
  }

  /// Where the encoded bytes are.
  enum Input {
    /// In memory.
    case bytes(Data)
    /// In the file open on the handle, whose start `head` holds (a still PNG without a cICP chunk).
    case file(FileHandle, head: FileHead)
  }

  /// As `init(data:limits:toneMaps:)`, for the file open on `file` whose start is `head`: libpng
  /// and the row reader read it through the descriptor, the image data a piece at a time.
  convenience init(file: FileHandle, head: FileHead, limits: DecodeLimits) throws {
    try self.init(.file(file, head: head), limits: limits, toneMaps: true, resolvesPeak: true)
  }

  /// As `init(data:limits:toneMaps:)`; an HDR image's content peak (`HDRContentPeak`) is resolved
  /// when `resolvesPeak`, else taken as the nominal 1000 cd/m² (for reading the signal to measure it).
  init(_ input: Input, limits: DecodeLimits, toneMaps: Bool, resolvesPeak: Bool) throws {
    let start: Data
    switch input {
    case .bytes(let data): start = data
    case .file(_, let head): start = head.bytes
    }
    // The size is checked against the pixel limit first: libpng's own check (its user limits, a
    // side of at most the pixel limit) ends in "Invalid IHDR data", which reads as a corrupt file.
    if let (width, height) = Self.headerSize(start) { try limits.check(width: width, height: height, what: "PNG image") }
    var copy: UnsafeMutableRawBufferPointer?
    let maxDimension = UInt32(clamping: max(1, min(limits.maxPixels, Int(Int32.max))))
    let reader: OpaquePointer?
    switch input {
    case .bytes(let data):
      if !EncodedBytes.isStable(data) {
        copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.copyBytes(to: copy!)
      }
      reader = data.withUnsafeBytes { raw in
        let base = (copy ?? UnsafeMutableRawBufferPointer(mutating: raw)).baseAddress
        return cpng_reader_create(base?.assumingMemoryBound(to: UInt8.self), data.count, maxDimension)
      }
    case .file(let file, let head):
      reader = cpng_reader_create_file(file.fileDescriptor, UInt64(head.fileSize), maxDimension)
    }
    guard let reader else {
      copy?.deallocate()
      throw CodecError(.tooLarge, "Out of memory while creating the PNG decoder.")
    }
    var info = cpng_info()
    do {
      let status = cpng_reader_read_info(reader, &info)
      guard status == CPNG_OK else {
        throw PNGShimSupport.readError(status, String(cString: cpng_reader_message(reader)))
      }
      try limits.check(width: Int(info.width), height: Int(info.height), what: "PNG image")
    } catch {
      cpng_reader_destroy(reader)
      copy?.deallocate()
      throw error
    }
    self.reader = reader
    self.input = input
    self.copy = copy

    let layout: ChannelLayout
    switch info.out_channels {
    case 1: layout = .gray
    case 2: layout = .grayAlpha
    case 3: layout = .rgb
    default: layout = .rgba
    }
    var metadata = ImageMetadata()
    if info.has_gamma != 0 { metadata.gamma = info.gamma }
    var profile: Data?
    if let icc = info.icc, info.icc_length > 0 {
      profile = Data(bytes: icc, count: Int(info.icc_length))
      metadata.iccProfile = profile
    }
    var metadataWarnings: [String] = []
    var leftOut: [LeftOutMetadata] = []
    if info.exif != nil, info.exif_length > MetadataLimits.maxBlockBytes {
      leftOut.append(MetadataLimits.leftOut(.exif, "The PNG's eXIf chunk", bytes: Int(info.exif_length)))
    } else if let exif = info.exif, info.exif_length > 0 {
      let bytes = Array(UnsafeBufferPointer(start: exif, count: Int(info.exif_length)))
      metadata.orientation = EXIF.orientation(tiff: bytes) ?? .up
      metadata.exif = Data(bytes)
    }
    // cHRM counts only where no iCCP or sRGB chunk overrides it (PNG 3rd edition, 11.3.2).
    if info.has_chrm != 0 && info.has_srgb == 0 && profile == nil {
      metadata.chromaticities = withUnsafeBytes(of: info.chrm) { Array($0.bindMemory(to: Double.self)) }
    }
    var cicp: PNGCICP?, light = PNGLightLevels()
    leftOut += PNGTextChunks.read(start, into: &metadata, cicp: &cicp, light: &light)
    var hdr: HDRSignal?
    var peakSource: HDRPeakSource?
    if let cicp, let transfer = cicp.hdrTransfer {
      if layout == .gray || layout == .grayAlpha {
        metadataWarnings.append(
          "The PNG's cICP chunk says its gray signal is \(transfer.name) HDR; gray HDR PNGs are not tone-mapped, so it is read as sRGB and its tones are wrong.")
      } else if cicp.matrix != 0 {
        metadataWarnings.append(
          "The PNG's cICP chunk names matrix coefficients \(cicp.matrix), where PNG allows only 0 (RGB); the chunk is ignored and the \(transfer.name) signal read as sRGB.")
      } else {
        let (toBT2020, warning) = cicp.toBT2020
        metadataWarnings += warning.map { [$0] } ?? []
        if !cicp.isFullRange {
          metadataWarnings.append("The PNG's cICP chunk says its samples are narrow-range; they are read as full-range.")
        }
        var peak = HDRToneMapping.nominalPeak
        // (A file read through its descriptor has no cICP chunk: `PNGFileHead`.)
        if resolvesPeak, case .bytes(let data) = input {
          let resolved = HDRContentPeak.resolve(maxCLL: light.maxCLL, masteringMax: light.masteringMax, container: "PNG", data: data) {
            try Self.measuredPeak(data, limits: limits, transfer: transfer, toBT2020: toBT2020)
          }
          metadataWarnings += resolved.warnings
          peak = resolved.value
          peakSource = resolved.source
        }
        hdr = HDRSignal(transfer: transfer, toBT2020: toBT2020, peak: peak)
        // cICP outranks iCCP (PNG 3rd edition): the tone-mapped pixels are sRGB.
        metadata.iccProfile = nil
        profile = nil
      }
    }
    hdrSignal = hdr
    self.toneMaps = toneMaps && hdr != nil
    if hdr != nil {
      colorSpace = .sRGB
    } else if info.has_srgb != 0 {
      colorSpace = .sRGB
    } else if let profile {
      colorSpace = .icc(profile)
    } else if let gamma = metadata.gamma, abs(gamma - 1) < 0.01 {
      colorSpace = .linearSRGB
    } else {
      colorSpace = .sRGB
    }
    // libpng drops an iCCP chunk it finds damaged, or whose profile is for another colour model,
    // with a warning about that chunk: the header reports it (strict loads fail on it).
    let rejections = profile == nil ? PNGShimSupport.warnings(of: reader).filter { $0.hasPrefix("iCCP") } : []
    headerWarningSources = Set(rejections)
    header = ImageHeader(
      fileFormat: .png, size: Size(width: Int(info.width), height: Int(info.height)),
      layout: layout, component: info.out_bit_depth == 16 ? .uint16 : .uint8, metadata: metadata,
      warnings: metadataWarnings
        + (rejections.isEmpty
          ? [] : ["The ICC profile of its iCCP chunk was rejected (libpng: “\(rejections.joined(separator: "”, “"))”); its colours are read as sRGB."]),
      leftOutMetadata: leftOut, hdrTransfer: hdr?.transfer, hdrPeak: hdr?.peak, hdrPeakSource: peakSource)
    isInterlaced = info.interlaced != 0
    fileBitDepth = Int(info.bit_depth)
    sRGBIntent = info.has_srgb != 0 ? Int(info.srgb_intent) : nil
    chromaticities =
      info.has_chrm != 0
      ? withUnsafeBytes(of: info.chrm) { Array($0.bindMemory(to: Double.self)) } : nil
  }

  deinit {
    cpng_reader_destroy(reader)
    copy?.deallocate()
  }

  /// The number of rows not yet handed out.
  public var remainingRows: Int { header.size.height - rowsRead }

  /// A new, uninitialised buffer of `rows` rows (default: the whole image) in this decoder's
  /// format, colour space and metadata.
  public func makeBuffer(rows: Int? = nil) throws -> PixelBuffer {
    try PixelBuffer.forDecoding(
      width: header.size.width, height: header.size.height, rows: rows, format: format, colorSpace: colorSpace,
      metadata: header.metadata)
  }

  /// Decodes the next rows into `buffer`'s rows `0 ..< n`, where `n` is the smaller of
  /// `buffer.height` and `remainingRows`, and returns `n` (0 once every row has been read).
  ///
  /// - Precondition: `buffer` has this decoder's width and pixel format.
  /// - Throws: `CodecError` for damaged or truncated image data; the decoder then stays failed.
  @discardableResult
  public func readRows(into buffer: inout PixelBuffer) throws -> Int {
    try readRows(buffer.height, into: &buffer, at: 0)
  }

  /// Decodes the next `count` rows (fewer at the bottom of the image) into `buffer`, starting at
  /// its row `destinationRow`, and returns how many rows were decoded.
  ///
  /// - Throws: `.invalidArgument` when `buffer` has the wrong width or format or too few rows;
  ///   `CodecError` for damaged or truncated image data (the decoder then stays failed).
  @discardableResult
  public func readRows(_ count: Int, into buffer: inout PixelBuffer, at destinationRow: Int = 0) throws -> Int {
    guard buffer.width == header.size.width, buffer.format == format else {
      throw CodecError(
        .invalidArgument,
        "The buffer for PNG rows is \(buffer.width) pixels wide in \(buffer.format); "
          + "\(header.size.width) pixels in \(format) are needed.")
    }
    if let failure { throw failure }
    let count = min(max(count, 0), remainingRows)
    guard destinationRow >= 0, destinationRow + count <= buffer.height else {
      throw CodecError(
        .invalidArgument, "The buffer has \(buffer.height) rows; \(count) rows at row \(destinationRow) do not fit.")
    }
    guard count > 0 else { return 0 }
    if isInterlaced {
      let whole = try decodeWholeImage()
      let strip = whole.cropped(to: Rect(x: 0, y: rowsRead, width: whole.width, height: count))
      let rowLength = whole.width * format.bytesPerPixel
      strip.withUnsafeBaseAddress { src, srcStride in
        buffer.withUnsafeMutableBaseAddress { dst, dstStride in
          for y in 0..<count {
            (dst + (destinationRow + y) * dstStride).copyMemory(from: src + y * srcStride, byteCount: rowLength)
          }
        }
      }
      rowsRead += count
      if remainingRows == 0 { wholeImage = nil }
      toneMap(&buffer, rows: destinationRow..<destinationRow + count)
      return count
    }
    let status = buffer.withUnsafeMutableBaseAddress { base, stride -> Int32 in
      var rows = (0..<count).map { Optional((base + (destinationRow + $0) * stride).assumingMemoryBound(to: UInt8.self)) }
      return rows.withUnsafeMutableBufferPointer {
        cpng_reader_read_rows(reader, $0.baseAddress, UInt32(count))
      }
    }
    try check(status)
    rowsRead += count
    if remainingRows == 0 { finishReading() }
    toneMap(&buffer, rows: destinationRow..<destinationRow + count)
    return count
  }

  /// Decodes up to `count` next rows into a new buffer, or returns nil once every row has been read.
  public func readRows(count: Int) throws -> PixelBuffer? {
    precondition(count > 0, "count must be positive")
    if let failure { throw failure }
    let n = min(count, remainingRows)
    guard n > 0 else { return nil }
    var strip = try makeBuffer(rows: n)
    try readRows(into: &strip)
    return strip
  }

  /// Decodes every remaining row into one buffer (the whole image when nothing was read yet).
  public func decodeRemaining() throws -> PixelBuffer {
    if let failure { throw failure }
    if isInterlaced && rowsRead == 0 {
      var whole = try decodeWholeImage()
      rowsRead = header.size.height
      wholeImage = nil
      toneMap(&whole, rows: 0..<whole.height)
      return whole
    }
    var buffer = try makeBuffer(rows: remainingRows)
    try readRows(into: &buffer)
    return buffer
  }

  // MARK: Private

  private func check(_ status: Int32) throws {
    guard status != CPNG_OK else { return }
    let error = PNGShimSupport.readError(status, String(cString: cpng_reader_message(reader)))
    failure = error
    throw error
  }

  /// Tone-maps `rows` of `buffer` to SDR sRGB when this decoder does so.
  private func toneMap(_ buffer: inout PixelBuffer, rows: Range<Int>) {
    guard toneMaps, let hdrSignal else { return }
    HDRToneMapping.apply(to: &buffer, rows: rows, signal: hdrSignal)
  }

  /// Reads the chunks after the image data; damage there only costs a warning.
  private func finishReading() {
    let status = cpng_reader_finish(reader)
    if status != CPNG_OK {
      let message = String(cString: cpng_reader_message(reader))
      extraWarnings.append("After the image data: \(message)")
    }
  }

  /// Decodes every pass of the image at once (used for interlaced files).
  private func decodeWholeImage() throws -> PixelBuffer {
    if let wholeImage { return wholeImage }
    var whole = try makeBuffer(rows: header.size.height)
    let reader = self.reader
    let status = whole.withUnsafeMutableBaseAddress { base, stride -> Int32 in
      var rows = (0..<header.size.height).map {
        Optional((base + $0 * stride).assumingMemoryBound(to: UInt8.self))
      }
      return rows.withUnsafeMutableBufferPointer { cpng_reader_read_image(reader, $0.baseAddress) }
    }
    try check(status)
    finishReading()
    wholeImage = whole
    return whole
  }
}
