// PNGStreamEncoder.swift — PNG encoding row strip by row strip, to memory or to a file, with the
// compression optionally spread over a caller-supplied executor.
//
// The image data is filtered and deflated (libdeflate) in independent segments of whole rows
// (about 256 KiB of pixels each), joined into one zlib stream (see Sources/CPNG/include/cpng_fast.h).
// Segment boundaries depend only on the image size, so the bytes are the same with or without an
// executor and whatever the timing.
import CPNG
import Foundation
import PixelBufferModule

/// Writes a PNG incrementally: header first, then strips of rows in order, then `finish()`.
///
/// The renderer can hand over tile rows as they are ready, so the whole image never has to exist
/// at once. Rows must be gray, gray + alpha, RGB or RGBA at `.uint8` or `.uint16` with straight
/// alpha, matching the layout and component given at creation.
///
/// ```swift
/// try OutputFile.write(to: url) { handle in
///   let encoder = try PNGStreamEncoder(size: size, layout: .rgba, component: .uint8, to: .handle(handle))
///   for strip in strips { try encoder.write(rows: strip) }
///   try encoder.finish()
/// }
/// ```
public final class PNGStreamEncoder {
  /// Where the encoded bytes go.
  public enum Destination {
    /// Collected in memory and returned by `finish()`.
    case memory
    /// Written straight to an `OutputFile` handle (not closed by the encoder).
    case handle(OutputHandle)
  }

  /// The image size.
  public let size: Size
  /// The pixel format rows must have (straight alpha for layouts with alpha).
  public let format: PixelFormat
  /// The number of rows written so far.
  public private(set) var rowsWritten = 0
  /// Problems met without failing (for example an ICC profile that does not suit the image, such
  /// as an RGB profile on a gray image, left out).
  public private(set) var warnings: [String] = []

  private let handle: OutputHandle?
  private var memory = Data()
  private var failure: CodecError?
  private var finished = false

  /// Submitted segments not yet written, oldest first, compressed on the executor.
  private var jobs: EncodeJobs<Segment>
  private let level: Int32
  private let filterMask: Int32
  private let rowBytes: Int
  private let bytesPerPixel: Int32
  private let swap16: Int32
  /// Rows per segment, and the rows before a segment copied along as its context (the row above,
  /// which the filters read; libdeflate takes no preset dictionary, so nothing more).
  private let rowsPerSegment: Int
  private let contextRows: Int

  /// The segment being filled: `contextCount` context rows then up to `rowsPerSegment` rows.
  private var current: Segment?
  private var nextSegmentStart = 0
  private var zlibHeaderWritten = false
  private var adler: UInt32 = 1

  /// Writes the PNG signature and header chunks.
  ///
  /// - Parameters:
  ///   - colorSpace: `.icc(profile)` writes an iCCP chunk; `.sRGB` writes an sRGB chunk when
  ///     `options.writeSRGBChunk` is true; other colour spaces write no colour chunk.
  ///   - metadata: its EXIF block is written as an `eXIf` chunk, its XMP packet as an `iTXt`
  ///     chunk with keyword `XML:com.adobe.xmp`, its comment as a `tEXt` `Comment` chunk (`iTXt`
  ///     when it is not Latin-1), all before the image data and as they are (the caller makes
  ///     the EXIF block true of the pixels, `EXIF.upright`). IPTC has no PNG chunk and is not written.
  ///   - executor: runs the compression jobs (nil: compressed inline, on the calling thread).
  ///     The output is byte-identical either way.
  ///   - maxSegmentsInFlight: at most this many segments (about 256 KiB of pixels each) are queued
  ///     or being compressed; `write(rows:)` waits for the oldest when the bound is reached.
  /// - Throws: `.invalidArgument` for an empty or oversized image, a float component, or a bad
  ///   option; `.io` when writing fails.
  public convenience init(
    size: Size, layout: ChannelLayout, component: ComponentType,
    options: PNGEncodeOptions = .default, colorSpace: ColorSpace = .sRGB, metadata: ImageMetadata = ImageMetadata(),
    to destination: Destination = .memory, executor: EncodeJobExecutor? = nil,
    maxSegmentsInFlight: Int = 6
  ) throws {
    try self.init(
      size: size, layout: layout, component: component, options: options, colorSpace: colorSpace,
      metadata: metadata, to: destination, executor: executor, maxSegmentsInFlight: maxSegmentsInFlight,
      segmentBytes: Self.defaultSegmentBytes)
  }

  /// Bytes of pixels per segment. Each segment in flight holds its rows, their filtered copy and
  /// its deflate output; on the 24 MP photo at level 6, 256 KiB segments rather than 1 MiB take
  /// about 10 MB less peak memory (W3, W4a) for 0.1–0.4 % more bytes (a segment starts with an
  /// empty deflate window).
  static let defaultSegmentBytes = 256 << 10

  /// As the public initialiser, with the segment size (bytes of pixels) chosen (for tests).
  init(
    size: Size, layout: ChannelLayout, component: ComponentType,
    options: PNGEncodeOptions, colorSpace: ColorSpace, metadata: ImageMetadata = ImageMetadata(), to destination: Destination,
    executor: EncodeJobExecutor?, maxSegmentsInFlight: Int, segmentBytes: Int
  ) throws {
    try options.validate()
    try MetadataLimits.checkWritable(exif: metadata.exif, xmp: metadata.xmp, comment: metadata.comment, format: "PNG")
    guard component != .float32 else {
      throw CodecError(
        .invalidArgument,
        "PNG stores 8- or 16-bit integers; convert float pixels to uint8 or uint16 before encoding.")
    }
    guard size.width > 0, size.height > 0, size.width <= Int(Int32.max), size.height <= Int(Int32.max)
    else {
      throw CodecError(.invalidArgument, "A PNG cannot be \(size.width)×\(size.height) pixels.")
    }
    let channels = layout.channelCount
    guard (1...4).contains(channels) else {
      throw CodecError(.invalidArgument, "A PNG cannot store \(channels) channels.")
    }
    let bytesPerSample = component.bitDepth / 8
    let (rowBytes, overflow) = size.width.multipliedReportingOverflow(by: channels * bytesPerSample)
    guard !overflow, rowBytes < Int(UInt32.max) / 2 else {
      throw CodecError(.invalidArgument, "A PNG row of \(size.width) pixels is too long.")
    }
    self.size = size
    self.format = PixelFormat(layout: layout, component: component)
    self.handle = { if case .handle(let h) = destination { return h } else { return nil } }()
    self.jobs = EncodeJobs(executor: executor, limit: maxSegmentsInFlight)
    self.level = Int32(options.compressionLevel)
    self.filterMask = options.filter.shimMask
    self.rowBytes = rowBytes
    self.bytesPerPixel = Int32(channels * bytesPerSample)
    self.swap16 = bytesPerSample == 2 ? 1 : 0
    // Segments of whole rows, at most 2 GiB (cpng_segment_encode's limit).
    self.rowsPerSegment = max(1, min(max(1, segmentBytes) / rowBytes, (Int(UInt32.max) / 2) / (rowBytes + 1)))
    self.contextRows = 1

    let (header, headerWarnings) = try Self.header(
      size: size, channels: channels, bitDepth: component.bitDepth, options: options, colorSpace: colorSpace, metadata: metadata)
    warnings += headerWarnings
    try emit(header)
  }

  deinit {
    // Jobs still queued own their segments; nothing to wait for.
  }

  /// Writes the next `rows.height` rows.
  ///
  /// - Throws: `.invalidArgument` when the rows' width or format differ from the encoder's
  ///   (premultiplied alpha included: unpremultiply first), or there are more rows than remain;
  ///   `.io` when writing fails.
  public func write(rows: PixelBuffer) throws {
    if let failure { throw failure }
    guard !finished else { throw CodecError(.invalidArgument, "The PNG has already been finished.") }
    if rows.format.alphaMode == .premultiplied {
      throw CodecError(
        .invalidArgument,
        "PNG stores straight (unpremultiplied) alpha; unpremultiply the pixels before encoding.")
    }
    guard rows.width == size.width, rows.format == format else {
      throw CodecError(
        .invalidArgument,
        "These rows are \(rows.width) pixels of \(rows.format); the PNG expects \(size.width) of \(format).")
    }
    guard rows.height <= size.height - rowsWritten else {
      throw CodecError(.invalidArgument, "More rows than the PNG's height of \(size.height).")
    }
    guard rows.height > 0 else { return }
    do {
      var y = 0
      while y < rows.height {
        let segment = try currentSegment()
        let n = min(rows.height - y, segment.capacityRows - segment.rowCount)
        let rowBytes = self.rowBytes
        rows.withUnsafeBaseAddress { base, stride in
          for r in 0..<n {
            (segment.rows + (segment.contextCount + segment.rowCount + r) * rowBytes)
              .copyMemory(from: base + (y + r) * stride, byteCount: rowBytes)
          }
        }
        segment.rowCount += n
        y += n
        rowsWritten += n
        if segment.rowCount == segment.capacityRows { try submit(segment) }
      }
    } catch let error as CodecError {
      failure = error
      throw error
    }
  }

  /// Writes the end of the file once every row has been written.
  ///
  /// - Returns: the encoded PNG for a `.memory` destination, nil for a file handle.
  /// - Throws: `.invalidArgument` when rows are missing; `.io` when writing fails.
  @discardableResult
  public func finish() throws -> Data? {
    if let failure { throw failure }
    guard !finished else { throw CodecError(.invalidArgument, "The PNG has already been finished.") }
    guard rowsWritten == size.height else {
      throw CodecError(
        .invalidArgument, "Only \(rowsWritten) of the PNG's \(size.height) rows have been written.")
    }
    do {
      try jobs.finish { try writeSegment($0) }
      var iend = Data()
      Self.appendChunk("IEND", Data(), to: &iend)
      try emit(iend)
    } catch let error as CodecError {
      failure = error
      throw error
    }
    finished = true
    return handle == nil ? memory : nil
  }

  // MARK: - Segments

  /// A segment's raw rows (with context) and, once compressed, its deflate bytes.
  ///
  /// Memory is released explicitly (compressed bytes once written, raw rows once written and
  /// copied into the next segment's context), not when the object dies: an executor may keep
  /// the finished job closure, and with it this object, alive for a while.
  private final class Segment: EncodeJob, @unchecked Sendable {  // handed over, never shared: filled by the writer, compressed by one pool job, read after `completion`
    /// The raw rows, from `storage` (nil once released).
    let rows: UnsafeMutableRawPointer
    private var storage: PixelStorage?
    let start: Int  // image row of the first emitted row
    let contextCount: Int
    let capacityRows: Int
    var rowCount = 0
    let isLast: Bool
    // Results, published through `completion`.
    let completion = JobCompletion()
    var status: Int32 = 0
    var output: UnsafeMutablePointer<UInt8>?
    var outputLength = 0
    var adler: UInt32 = 1
    var filteredLength = 0

    /// - Throws: `.tooLarge` when the system refuses the rows' memory (`file` names the output).
    init(start: Int, contextCount: Int, capacityRows: Int, isLast: Bool, rowBytes: Int, file: String) throws(CodecError) {
      self.start = start
      self.contextCount = contextCount
      self.capacityRows = capacityRows
      self.isLast = isLast
      let storage = try PixelStorage.forEncoding(contextCount + capacityRows, of: rowBytes, what: "a segment of its rows", file: file)
      (self.storage, rows) = (storage, storage.baseAddress)
    }

    /// True once the encoder has written the compressed bytes.
    var written = false

    deinit { releaseOutput() }

    /// Frees the raw rows (only after the job is done and no later segment needs them).
    func releaseRows() { storage = nil }

    /// Frees the compressed bytes (only after the job is done).
    func releaseOutput() {
      cpng_free(output)
      output = nil
    }

    func compress(rowBytes: Int, bpp: Int32, swap16: Int32, filters: Int32, level: Int32) {
      var out: UnsafeMutablePointer<UInt8>?
      var length = 0, filtered = 0
      var a: UInt32 = 1
      // The first context row only serves as the row above unless it is the image's first row.
      let priorOnly: Int32 = start > contextCount ? 1 : 0
      let s = cpng_segment_encode(
        rows.assumingMemoryBound(to: UInt8.self), rowBytes, UInt32(contextCount + rowCount), priorOnly,
        UInt32(rowCount), bpp, swap16, filters, level, isLast ? 1 : 0, &out, &length, &a, &filtered)
      completion.complete {
        status = s
        output = out
        outputLength = length
        adler = a
        filteredLength = filtered
      }
    }
  }

  /// The segment being filled, created (with its context rows copied) when needed.
  private func currentSegment() throws -> Segment {
    if let current { return current }
    let start = nextSegmentStart
    let count = min(rowsPerSegment, size.height - start)
    // Context: the row above the segment (none at the top).
    let contextCount = min(contextRows, start)
    let segment = try Segment(
      start: start, contextCount: contextCount, capacityRows: count,
      isLast: start + count == size.height, rowBytes: rowBytes, file: handle?.path ?? "the PNG")
    if contextCount > 0, let previous = lastSubmitted {
      // The context rows are the last rows of the previous segment's buffer (its own context
      // included, since contextCount ≤ previous context + rows).
      let previousTotal = previous.contextCount + previous.rowCount
      precondition(previousTotal >= contextCount)
      segment.rows.copyMemory(
        from: previous.rows + (previousTotal - contextCount) * rowBytes, byteCount: contextCount * rowBytes)
    }
    if let previous = lastSubmitted, previous.written { previous.releaseRows() }
    nextSegmentStart += count
    current = segment
    return segment
  }

  /// The most recently submitted segment (kept until the next one has copied its context).
  private var lastSubmitted: Segment?

  private func submit(_ segment: Segment) throws {
    current = nil
    lastSubmitted = segment
    let (rowBytes, bpp, swap16, filters, level) = (self.rowBytes, bytesPerPixel, self.swap16, filterMask, self.level)
    try jobs.submit(
      segment, run: { segment.compress(rowBytes: rowBytes, bpp: bpp, swap16: swap16, filters: filters, level: level) },
      write: { try writeSegment($0) })
  }

  /// Appends a compressed segment's IDAT chunks (the zlib header before the first, the Adler-32
  /// checksum after the last).
  private func writeSegment(_ segment: Segment) throws {
    guard segment.status == CPNG_OK, let output = segment.output else {
      throw CodecError(
        segment.status == CPNG_ERR_NO_MEMORY ? .io : .invalidArgument,
        segment.status == CPNG_ERR_NO_MEMORY
          ? "Encoding the PNG ran out of memory."
          : segment.status == CPNG_ERR_CORRUPT
            ? "A compressed PNG segment failed its consistency check (internal error)."
            : "The PNG encoder refused a row segment (internal error).")
    }
    var idat = Data()
    if !zlibHeaderWritten {
      idat.append(contentsOf: Self.zlibHeader(level: level))
      zlibHeaderWritten = true
    }
    idat.append(output, count: segment.outputLength)
    adler = cpng_adler32_combine(adler, segment.adler, UInt64(segment.filteredLength))
    if segment.isLast { idat.appendBigEndian(adler) }
    var chunks = Data()
    var offset = 0
    repeat {
      let n = min(idat.count - offset, 1 << 30)
      Self.appendChunk("IDAT", idat.subdata(in: offset..<(offset + n)), to: &chunks)
      offset += n
    } while offset < idat.count
    segment.written = true
    segment.releaseOutput()
    if segment !== lastSubmitted || segment.isLast { segment.releaseRows() }
    try emit(chunks)
  }

  // MARK: - Output

  private func emit(_ bytes: Data) throws {
    if let handle {
      try bytes.withUnsafeBytes { try handle.writeAll($0) }
    } else {
      memory.append(bytes)
    }
  }
}
