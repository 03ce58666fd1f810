// JPEGStripEncoder.swift — baseline JPEG encoded in parallel strips joined by restart markers.
//
// The image is cut into strips of whole MCU rows (the last one may be shorter). Each strip is
// compressed on an executor by its own libjpeg compressor, configured exactly as the serial
// encoder would be (quality, standard Huffman tables, subsampling, colour space) as a standalone
// image of the strip's height, with a restart interval of one whole strip (so the strip itself
// holds no RST marker). The file is then assembled in order:
//
//   SOI, APP0, EXIF/XMP APP1, ICC APP2…, APP13, COM, DQT, SOF (full height), DHT, DRI, SOS   — strip 0's header, height patched
//   segment 0, RST0, segment 1, RST1, … RSTn cycling 0–7 …, last segment, EOI
//
// where a segment is a strip's entropy-coded data (after its SOS header, before its EOI). A
// standalone image starts with zero DC predictions and ends with its last byte padded with 1-bits,
// exactly what a restart does, and libjpeg's colour conversion, downsampling (box average within
// each MCU) and DCT are local to an MCU, so the coefficients — and so the decoded pixels — are
// those of the serial encode; only the DC prediction resets at each strip.
import CJPEG
import Foundation
import PixelBufferModule

/// The parallel back end of `JPEGStreamEncoder` (baseline, standard Huffman tables only).
final class JPEGStripEncoder {
  /// The geometry of the strips of one image.
  struct Layout: Equatable {
    /// Rows per strip (a multiple of the MCU height); the last strip may be shorter.
    var rowsPerStrip: Int
    /// MCUs per strip: the restart interval written in the DRI marker.
    var restartInterval: Int
  }

  /// The strip layout for an image, or nil when one MCU row alone exceeds the 65535-MCU restart
  /// interval limit (then the serial encoder must be used).
  ///
  /// - Parameter requestedRows: rows per strip wanted (rounded up to whole MCU rows); nil picks
  ///   at least 64 rows and about 128 K pixels.
  static func layout(width: Int, components: Int, subsampling: JPEGEncodeOptions.ChromaSubsampling, requestedRows: Int?) -> Layout? {
    let (mcuWidth, mcuHeight): (Int, Int)
    if components == 1 {
      (mcuWidth, mcuHeight) = (8, 8)
    } else {
      switch subsampling {
      case .s444: (mcuWidth, mcuHeight) = (8, 8)
      case .s422: (mcuWidth, mcuHeight) = (16, 8)
      case .s420, .automatic: (mcuWidth, mcuHeight) = (16, 16)
      }
    }
    let mcusPerRow = (width + mcuWidth - 1) / mcuWidth
    guard mcusPerRow <= 65535 else { return nil }
    let wantedRows = requestedRows ?? max(64, (128 << 10) / max(1, width))
    var mcuRows = max(1, (wantedRows + mcuHeight - 1) / mcuHeight)
    mcuRows = min(mcuRows, 65535 / mcusPerRow)
    return Layout(rowsPerStrip: mcuRows * mcuHeight, restartInterval: mcuRows * mcusPerRow)
  }

  private let size: Size
  private let layout: ChannelLayout
  private let quality: Int32
  private let subsampling: Int32
  private let strips: Layout
  private let icc: [UInt8]?
  private let segments: [JPEGSegment]
  private let output: OutputHandle?
  /// Submitted strips not yet written, oldest first, compressed on the executor.
  private var jobs: EncodeJobs<Strip>

  private var memory = Data()
  private var current: Strip?
  private var nextStripStart = 0
  private var nextIndex = 0
  private var written = 0

  init(
    size: Size, layout: ChannelLayout, quality: Int, subsampling: cj_subsampling, strips: Layout,
    icc: [UInt8]?, segments: [JPEGSegment], output: OutputHandle?, executor: EncodeJobExecutor, maxStripsInFlight: Int
  ) {
    self.segments = segments
    self.size = size
    self.layout = layout
    self.quality = Int32(quality)
    self.subsampling = Int32(bitPattern: subsampling.rawValue)
    self.strips = strips
    self.icc = icc
    self.output = output
    self.jobs = EncodeJobs(executor: executor, limit: maxStripsInFlight)
  }

  /// Queues `rows` (already checked by the caller) as the next rows of the image.
  func write(rows: PixelBuffer) throws {
    var y = 0
    while y < rows.height {
      let strip = currentStrip()
      let n = min(rows.height - y, strip.height - strip.rowCount)
      strip.pieces.append(Piece(buffer: rows, firstRow: y, count: n))
      strip.rowCount += n
      y += n
      if strip.rowCount == strip.height { try submit(strip) }
    }
  }

  /// Writes every remaining strip and the EOI marker; returns the file for a memory destination.
  func finish() throws -> Data? {
    try jobs.finish { try writeStrip($0) }
    try emit([0xFF, 0xD9])
    return output == nil ? memory : nil
  }

  // MARK: - Strips

  /// Rows of a caller's buffer that belong to a strip (the buffer is kept alive, not copied).
  struct Piece {
    let buffer: PixelBuffer
    let firstRow: Int
    let count: Int
  }

  /// One strip: its rows until compressed, then its standalone JPEG until written.
  private final class Strip: EncodeJob, @unchecked Sendable {  // handed over, never shared: filled by the writer, compressed by one pool job, read after `completion`
    let index: Int
    let height: Int
    var pieces: [Piece] = []
    var rowCount = 0
    // Results, published through `completion`.
    let completion = JobCompletion()
    var encoder: OpaquePointer?
    var bytes: UnsafePointer<UInt8>?
    var length = 0
    var failure: CodecError?

    init(index: Int, height: Int) {
      self.index = index
      self.height = height
    }

    deinit { cj_encoder_destroy(encoder) }

    /// Compresses the strip as a standalone JPEG of its own height (on any thread).
    func compress(
      width: Int, layout: ChannelLayout, quality: Int32, subsampling: Int32, restartInterval: Int,
      icc: [UInt8]?, segments: [JPEGSegment]
    ) {
      var failure: CodecError?
      var result: UnsafePointer<UInt8>?
      var resultLength = 0
      // Room for half a byte per sample (quality 90 photos need about 0.1): libjpeg's memory
      // destination would otherwise start at 4 KiB and copy as it doubles. Untouched pages of the
      // allocation cost nothing.
      let capacity = width * height * (layout == .gray ? 1 : 3) / 2 + 4096 + (icc?.count ?? 0) * 2 + segments.reduce(0) { $0 + $1.payload.count + 4 }
      let encoder = cj_encoder_create_with_capacity(capacity)
      if let encoder {
        let status = icc.withOptionalBytes { iccBytes -> Int32 in segments.withMarkers { markers, markerCount in
          var params = cj_encode_params(
            width: UInt32(width), height: UInt32(height), components: layout == .gray ? 1 : 3,
            quality: quality, subsampling: subsampling, progressive: 0, optimize_coding: 0,
            icc: iccBytes?.baseAddress, icc_length: iccBytes?.count ?? 0,
            restart_interval: UInt32(restartInterval), markers: markers, marker_count: markerCount)
          return cj_encoder_start(encoder, &params)
        } }
        var failed = status
        if failed == 0 {
          for piece in pieces where failed == 0 {
            failed = JPEGStreamEncoder.compress(
              piece.buffer, rows: piece.firstRow..<(piece.firstRow + piece.count), layout: layout,
              encoder: encoder, counted: { _ in })
          }
        }
        if failed == 0 { failed = cj_encoder_finish(encoder, &result, &resultLength) }
        if failed != 0 {
          failure =
            LibJPEG.error(
              status: failed, message: String(cString: cj_encoder_message(encoder)), parameter: 0,
              decoding: false)
            ?? CodecError(.invalidArgument, "A JPEG strip failed to encode.")
        } else if result == nil {
          failure = CodecError(.invalidArgument, "A JPEG strip produced no data (internal error).")
        }
      } else {
        failure = CodecError(.tooLarge, "Out of memory creating a JPEG encoder.")
      }
      pieces = []  // release the rows as soon as they are compressed
      completion.complete {
        self.encoder = encoder
        self.bytes = result
        self.length = resultLength
        self.failure = failure
      }
    }
  }

  private func currentStrip() -> Strip {
    if let current { return current }
    let strip = Strip(index: nextIndex, height: min(strips.rowsPerStrip, size.height - nextStripStart))
    nextIndex += 1
    nextStripStart += strip.height
    current = strip
    return strip
  }

  private func submit(_ strip: Strip) throws {
    current = nil
    let (width, layout, quality, subsampling, interval) = (
      size.width, self.layout, self.quality, self.subsampling, strips.restartInterval
    )
    let icc = strip.index == 0 ? self.icc : nil
    let segments = strip.index == 0 ? self.segments : []
    try jobs.submit(
      strip,
      run: {
        strip.compress(
          width: width, layout: layout, quality: quality, subsampling: subsampling,
          restartInterval: interval, icc: icc, segments: segments)
      },
      write: { try writeStrip($0) })
  }

  /// Appends a compressed strip: the file's header for the first, else a restart marker, then the
  /// strip's entropy-coded data.
  private func writeStrip(_ strip: Strip) throws {
    defer {
      cj_encoder_destroy(strip.encoder)
      strip.encoder = nil
      strip.bytes = nil
    }
    if let failure = strip.failure { throw failure }
    guard let bytes = strip.bytes else {
      throw CodecError(.invalidArgument, "A JPEG strip produced no data (internal error).")
    }
    let jpeg = UnsafeBufferPointer(start: bytes, count: strip.length)
    guard let (sosEnd, heightOffset) = Self.parse(jpeg) else {
      throw CodecError(.invalidArgument, "libjpeg wrote a JPEG strip the encoder cannot parse (internal error).")
    }
    if strip.index == 0 {
      // The file's header: strip 0's, with the full image height in the SOF marker.
      var header = Array(jpeg[0..<sosEnd])
      header[heightOffset] = UInt8(size.height >> 8)
      header[heightOffset + 1] = UInt8(size.height & 0xFF)
      try emit(header)
    } else {
      try emit([0xFF, 0xD0 + UInt8((strip.index - 1) & 7)])
    }
    // The entropy-coded segment, without the strip's EOI.
    try emit(UnsafeBufferPointer(rebasing: jpeg[sosEnd..<(jpeg.count - 2)]))
    written += 1
  }

  /// Finds where the entropy-coded data of a libjpeg baseline file begins (just after the SOS
  /// segment) and where the SOF marker's height field is; nil when the markers do not parse or the
  /// data does not end with EOI.
  static func parse(_ jpeg: UnsafeBufferPointer<UInt8>) -> (sosEnd: Int, heightOffset: Int)? {
    let n = jpeg.count
    guard n >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8, jpeg[n - 2] == 0xFF, jpeg[n - 1] == 0xD9 else { return nil }
    var i = 2
    var heightOffset: Int?
    while i + 4 <= n {
      guard jpeg[i] == 0xFF else { return nil }
      let marker = jpeg[i + 1]
      let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
      guard length >= 2, i + 2 + length <= n - 2 else { return nil }
      if marker == 0xC0 || marker == 0xC1 {
        guard length >= 8 else { return nil }
        heightOffset = i + 5
      }
      if marker == 0xDA {
        guard let heightOffset else { return nil }
        return (i + 2 + length, heightOffset)
      }
      i += 2 + length
    }
    return nil
  }

  // MARK: - Output

  private func emit(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBufferPointer { try emit($0) }
  }

  private func emit(_ bytes: UnsafeBufferPointer<UInt8>) throws {
    guard bytes.count > 0 else { return }
    if let output {
      try output.writeAll(UnsafeRawBufferPointer(bytes))
    } else {
      memory.append(bytes)
    }
  }
}

extension Optional where Wrapped == [UInt8] {
  /// Calls `body` with the array's bytes, or nil.
  func withOptionalBytes<R>(_ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
    switch self {
    case .some(let array): return array.withUnsafeBufferPointer { body($0) }
    case .none: return body(nil)
    }
  }
}
