// JPEGStreamEncoder.swift — JPEG encoding fed a strip of rows at a time.
import CJPEG
import Foundation
import PixelBufferModule

/// Encodes a JPEG from rows delivered top to bottom in strips (for example tile rows from a
/// renderer), so the whole image never has to exist at once. The compressed bytes either
/// accumulate in memory and are returned by `finish()`, or stream to an `OutputHandle` in
/// 256 KiB chunks as libjpeg produces them (no copy of the file is ever held). Given an executor,
/// a baseline file is instead compressed in parallel strips joined by restart markers (see
/// `JPEGStripEncoder`), written in order as they complete; the decoded pixels are the same.
///
/// ```swift
/// let encoder = try JPEGStreamEncoder(size: size, layout: .rgb, options: JPEGEncodeOptions(quality: 85))
/// for strip in strips { try encoder.write(rows: strip) }
/// let jpeg = try encoder.finish()!
/// ```
///
/// Accepted row formats: 8-bit gray or RGB matching `layout`; the same with alpha (alpha is
/// discarded, which for premultiplied pixels equals compositing over black); 16-bit versions of
/// those (the high byte is kept). Float rows throw `.invalidArgument` — convert them first.
/// EXIF orientation is not written: orient the pixels before encoding.
///
/// An encoder is not thread-safe; use one per thread (its executor's jobs touch only their own strip).
public final class JPEGStreamEncoder {
  /// Where the compressed bytes go.
  public enum Destination {
    /// Collected in memory and returned by `finish()`.
    case memory
    /// Written to an `OutputFile` handle as they are produced (the handle is not closed).
    case handle(OutputHandle)
  }

  /// The image size.
  public let size: Size
  /// The JPEG's channels: `.gray` or `.rgb`.
  public let layout: ChannelLayout
  /// The options in use.
  public let options: JPEGEncodeOptions
  /// Rows written so far.
  public private(set) var rowsWritten = 0
  /// The size of the chunks a `.handle` destination receives (the last one may be shorter).
  public static let chunkSize = Int(CJ_FD_CHUNK_SIZE)

  /// True when strips are compressed in parallel on an executor (see `init`).
  public var isParallel: Bool { strips != nil }

  private let handle: OpaquePointer?
  private let strips: JPEGStripEncoder?
  private let small: JPEGSmallEncoder?
  private let output: OutputHandle?
  private var isFinished = false
  private var failure: CodecError?

  /// Starts a JPEG of `size` pixels with `layout` channels (an alpha layout means the same
  /// layout without alpha), embedding `iccProfile` when given and `options.embedsICCProfile`,
  /// and `metadata`'s EXIF, XMP, IPTC and comment blocks as they are (see `JPEGMetadata`; the
  /// caller makes the EXIF block true of the pixels, `EXIF.upright`).
  ///
  /// With an `executor`, a baseline file with standard Huffman tables (not progressive, not
  /// `optimizesHuffmanCoding`) is compressed in parallel: strips of whole MCU rows (at least 64
  /// rows) are encoded by independent libjpeg compressors on the executor and joined with
  /// restart markers (a DRI interval of one strip). The decoded pixels are exactly those of the
  /// serial encode (only the DC prediction restarts at each strip) and the file is a few bytes
  /// per strip larger. At most `maxStripsInFlight` strips are queued or held compressed; the
  /// rows of a queued strip are the caller's buffers, kept (not copied) until compressed.
  /// Without an executor, or for progressive or optimised files, everything runs on the calling
  /// thread, streaming as it goes. The `.small` encoder instead holds the rows until `finish()`,
  /// which codes the whole image on the calling thread (see `JPEGEncodeOptions.Encoder`).
  ///
  /// - Throws: `.invalidArgument` for an empty or over-large size (JPEG allows 65500 pixels a
  ///   side) or a quality outside 1…100; `.tooLarge` for a metadata block larger than a JPEG
  ///   segment holds, or memory for the `.small` encoder's image the system refuses; `.io` when
  ///   writing the headers to `destination` fails.
  public convenience init(
    size: Size, layout: ChannelLayout, options: JPEGEncodeOptions = JPEGEncodeOptions(),
    iccProfile: Data? = nil, metadata: ImageMetadata = ImageMetadata(), to destination: Destination = .memory,
    executor: EncodeJobExecutor? = nil, maxStripsInFlight: Int = 6
  ) throws {
    try self.init(
      size: size, layout: layout, options: options, iccProfile: iccProfile, segments: try JPEGMetadata.segments(for: metadata),
      to: destination, executor: executor, maxStripsInFlight: maxStripsInFlight, stripRows: nil)
  }

  /// As the public initialiser, with the rows per strip chosen (rounded up to whole MCU rows; for
  /// tests).
  init(
    size: Size, layout: ChannelLayout, options: JPEGEncodeOptions, iccProfile: Data?, segments: [JPEGSegment] = [],
    to destination: Destination, executor: EncodeJobExecutor?, maxStripsInFlight: Int, stripRows: Int?
  ) throws {
    guard (1...65500).contains(size.width), (1...65500).contains(size.height) else {
      throw CodecError(
        .invalidArgument, "A JPEG must be 1 to 65500 pixels on each side; \(size) was requested.")
    }
    guard JPEGEncodeOptions.qualityRange.contains(options.quality) else {
      throw CodecError(
        .invalidArgument, "JPEG quality must be between 1 and 100, not \(options.quality).")
    }
    let output: OutputHandle?
    switch destination {
    case .memory: output = nil
    case .handle(let handle): output = handle
    }
    self.output = output
    self.size = size
    self.layout = layout.withoutAlpha
    self.options = options
    let subsampling: cj_subsampling
    switch options.chromaSubsampling {
    case .s444: subsampling = CJ_SUBSAMPLE_444
    case .s422: subsampling = CJ_SUBSAMPLE_422
    case .s420, .automatic: subsampling = CJ_SUBSAMPLE_420
    }
    let icc = options.embedsICCProfile ? iccProfile.flatMap { $0.isEmpty ? nil : [UInt8]($0) } : nil
    if let icc, icc.count > ICCProfileChunks.maxProfileBytes {
      // libjpeg would number the segments past 255 modulo 256: a profile no reader could put together.
      throw CodecError(
        .tooLarge,
        "The ICC profile is \(icc.count) bytes; a JPEG holds at most \(ICCProfileChunks.maxProfileBytes) bytes of one (255 APP2 segments of 65,519 bytes). Write PNG, WebP or TIFF to keep it, or convert to another profile (--profile srgb).")
    }
    if options.encoder == .small {
      handle = nil
      strips = nil
      small = try JPEGSmallEncoder(size: size, layout: self.layout, options: options, icc: icc, segments: segments, output: output)
      return
    }
    small = nil
    if let executor, !options.isProgressive, !options.optimizesHuffmanCoding,
      let strips = JPEGStripEncoder.layout(
        width: size.width, components: self.layout == .gray ? 1 : 3,
        subsampling: options.chromaSubsampling, requestedRows: stripRows)
    {
      handle = nil
      self.strips = JPEGStripEncoder(
        size: size, layout: self.layout, quality: options.quality, subsampling: subsampling,
        strips: strips, icc: icc, segments: segments, output: output, executor: executor,
        maxStripsInFlight: maxStripsInFlight)
      return
    }
    strips = nil
    guard let created = output.map({ cj_encoder_create_fd($0.fileDescriptor) }) ?? cj_encoder_create()
    else {
      throw CodecError(.tooLarge, "Out of memory creating a JPEG encoder.")
    }
    handle = created
    let status = icc.withOptionalBytes { iccBytes in segments.withMarkers { markers, markerCount in
      var params = cj_encode_params(
        width: UInt32(size.width), height: UInt32(size.height),
        components: self.layout == .gray ? 1 : 3, quality: Int32(options.quality),
        subsampling: Int32(bitPattern: subsampling.rawValue),
        progressive: options.isProgressive ? 1 : 0,
        optimize_coding: options.optimizesHuffmanCoding ? 1 : 0,
        icc: iccBytes?.baseAddress, icc_length: iccBytes?.count ?? 0, restart_interval: 0,
        markers: markers, marker_count: markerCount)
      return cj_encoder_start(created, &params)
    } }
    if let error = Self.error(created, status, output: output) {
      throw error
    }
  }

  deinit {
    cj_encoder_destroy(handle)
  }

  /// Compresses the rows of `rows` (all of them, top to bottom) as the next rows of the image.
  ///
  /// - Throws: `.invalidArgument` when the width, channels or component type do not fit, when
  ///   more rows arrive than the image has, or after `finish()`; `.io` when writing to the
  ///   destination handle failed (then, and after any other failure, every later call throws).
  public func write(rows: PixelBuffer) throws {
    if let failure { throw failure }
    guard !isFinished else {
      throw CodecError(.invalidArgument, "Rows were written to a JPEG encoder after finish().")
    }
    guard rows.width == size.width else {
      throw CodecError(
        .invalidArgument,
        "Rows for this JPEG must be \(size.width) pixels wide, not \(rows.width).")
    }
    guard rows.format.layout.withoutAlpha == layout, rows.format.component != .float32 else {
      throw CodecError(
        .invalidArgument,
        "The JPEG encoder takes 8- or 16-bit \(layout == .gray ? "gray" : "RGB") rows "
          + "(alpha is dropped), not \(rows.format); convert the image first.")
    }
    guard rows.height <= size.height - rowsWritten else {
      throw CodecError(
        .invalidArgument,
        "Too many rows for this JPEG: \(rowsWritten) of \(size.height) are written and \(rows.height) more arrived.")
    }
    guard rows.height > 0 else { return }
    if small != nil || strips != nil {
      try keepingFailure {
        if let small { try small.write(rows: rows) } else { try strips?.write(rows: rows) }
      }
      rowsWritten += rows.height
      return
    }
    guard let handle else { return }
    var written = 0
    let status = Self.compress(rows, rows: 0..<rows.height, layout: layout, encoder: handle) { written += $0 }
    rowsWritten += written
    if let error = Self.error(handle, status, output: output) {
      failure = error
      throw error
    }
  }

  /// Finishes the JPEG and returns its bytes, or nil when they were written to a handle (all of
  /// them, once this returns).
  ///
  /// - Throws: `.invalidArgument` when not every row has been written, or when called twice;
  ///   `.io` when writing the last bytes to the handle failed.
  @discardableResult
  public func finish() throws -> Data? {
    if let failure { throw failure }
    guard !isFinished else {
      throw CodecError(.invalidArgument, "finish() was called twice on a JPEG encoder.")
    }
    guard rowsWritten == size.height else {
      throw CodecError(
        .invalidArgument,
        "The JPEG encoder was finished after \(rowsWritten) of \(size.height) rows.")
    }
    isFinished = true
    if let small { return try keepingFailure { try small.finish() } }
    if let strips { return try keepingFailure { try strips.finish() } }
    guard let handle else { return nil }
    var bytes: UnsafePointer<UInt8>?
    var length = 0
    let status = cj_encoder_finish(handle, &bytes, &length)
    if let error = Self.error(handle, status, output: output) {
      failure = error
      throw error
    }
    if output != nil { return nil }
    guard let bytes else { return Data() }
    return Data(bytes: bytes, count: length)
  }

  /// Feeds rows `range` of `rows` to the started libjpeg `encoder`, converting them to packed
  /// 8-bit `layout` pixels when needed; `counted` receives the number of rows libjpeg took.
  /// Returns the shim's status.
  static func compress(
    _ rows: PixelBuffer, rows range: Range<Int>, layout: ChannelLayout, encoder: OpaquePointer,
    counted: (Int) -> Void
  ) -> Int32 {
    let width = rows.width
    let direct = rows.format.layout == layout && rows.format.component == .uint8
    func feed(_ pointers: [UnsafePointer<UInt8>?]) -> Int32 {
      var written: UInt32 = 0
      let status = pointers.withUnsafeBufferPointer { buffer in
        cj_encoder_write_rows(encoder, buffer.baseAddress, UInt32(buffer.count), &written)
      }
      counted(Int(written))
      return status
    }
    return rows.withUnsafeBaseAddress { base, rowBytes in
      if direct {
        return feed(range.map { Optional(UnsafePointer((base + $0 * rowBytes).assumingMemoryBound(to: UInt8.self))) })
      }
      // Drop alpha and/or keep the high byte of 16-bit values, one row at a time.
      let outChannels = layout.channelCount, inChannels = rows.format.channelCount
      var row = [UInt8](repeating: 0, count: width * outChannels)
      for y in range {
        let line = base + y * rowBytes
        if rows.format.component == .uint8 {
          let src = line.assumingMemoryBound(to: UInt8.self)
          for x in 0..<width {
            for c in 0..<outChannels { row[x * outChannels + c] = src[x * inChannels + c] }
          }
        } else {
          let src = line.assumingMemoryBound(to: UInt16.self)
          for x in 0..<width {
            for c in 0..<outChannels { row[x * outChannels + c] = UInt8(src[x * inChannels + c] >> 8) }
          }
        }
        let status = row.withUnsafeBufferPointer { feed([$0.baseAddress]) }
        if status != 0 { return status }
      }
      return 0
    }
  }

  /// Runs a back end's call; a `CodecError` it throws is kept, so every later call throws it too.
  private func keepingFailure<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as CodecError {
      failure = error
      throw error
    }
  }

  static func error(_ handle: OpaquePointer, _ status: Int32, output: OutputHandle?) -> CodecError? {
    guard status != 0 else { return nil }
    if status == Int32(bitPattern: CJ_ERR_IO.rawValue) {
      let code = cj_encoder_errno(handle)
      let reason = code != 0 ? String(cString: strerror(code)) : "write failed"
      return CodecError(.io, "Cannot write \(output?.path ?? "the JPEG output"): \(reason).")
    }
    return LibJPEG.error(
      status: status, message: String(cString: cj_encoder_message(handle)), parameter: 0,
      decoding: false)
  }
}
