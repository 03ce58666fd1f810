// PNGStreamEncoder.swift — PNG encoding row strip by row strip, to memory or to a file.
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

  private let writer: OpaquePointer
  private let toMemory: Bool
  private var failure: CodecError?
  private var finished = false

  /// Problems libpng reported without failing (for example an ICC profile it rejected and left
  /// out, such as an RGB profile on a gray image).
  public var warnings: [String] { PNGShimSupport.warnings(ofWriter: writer) }

  /// Writes the PNG signature and header chunks.
  ///
  /// - Parameters:
  ///   - colorSpace: `.icc(profile)` writes an iCCP chunk; `.sRGB` writes an sRGB chunk when
  ///     `options.writeSRGBChunk` is true; other colour spaces write no colour chunk.
  /// - Throws: `.invalidArgument` for an empty or oversized image, a float component, or a bad
  ///   option; `.io` when writing fails.
  public init(
    size: Size, layout: ChannelLayout, component: ComponentType,
    options: PNGEncodeOptions = .default, colorSpace: ColorSpace = .sRGB,
    to destination: Destination = .memory
  ) throws {
    try options.validate()
    guard component != .float32 else {
      throw CodecError(
        .invalidArgument,
        "PNG stores 8- or 16-bit integers; convert float pixels to uint8 or uint16 before encoding.")
    }
    guard size.width > 0, size.height > 0, size.width <= Int(Int32.max), size.height <= Int(Int32.max)
    else {
      throw CodecError(.invalidArgument, "A PNG cannot be \(size.width)×\(size.height) pixels.")
    }
    let created: OpaquePointer?
    switch destination {
    case .memory: created = cpng_writer_create_memory()
    case .handle(let handle): created = cpng_writer_create_fd(handle.fileDescriptor)
    }
    guard let writer = created else {
      throw CodecError(.io, "Out of memory while creating the PNG encoder.")
    }
    var icc: Data?
    var srgbIntent: Int32 = -1
    switch colorSpace {
    case .icc(let profile): icc = profile
    case .sRGB where options.writeSRGBChunk: srgbIntent = 0
    default: break
    }
    let status = (icc ?? Data()).withUnsafeBytes { raw -> Int32 in
      cpng_writer_start(
        writer, UInt32(size.width), UInt32(size.height), Int32(layout.channelCount),
        Int32(component.bitDepth), Int32(options.compressionLevel), options.filter.shimMask,
        raw.count > 0 ? raw.baseAddress!.assumingMemoryBound(to: UInt8.self) : nil,
        UInt32(clamping: raw.count), srgbIntent)
    }
    guard status == CPNG_OK else {
      let error = PNGShimSupport.writeError(status, String(cString: cpng_writer_message(writer)))
      cpng_writer_destroy(writer)
      throw error
    }
    self.writer = writer
    self.size = size
    self.format = PixelFormat(layout: layout, component: component)
    self.toMemory = { if case .memory = destination { return true } else { return false } }()
  }

  deinit { cpng_writer_destroy(writer) }

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
    let writer = self.writer
    let status = rows.withUnsafeBaseAddress { base, stride -> Int32 in
      let pointers = (0..<rows.height).map { Optional((base + $0 * stride).assumingMemoryBound(to: UInt8.self)) }
      return pointers.withUnsafeBufferPointer {
        cpng_writer_write_rows(writer, $0.baseAddress, UInt32(rows.height))
      }
    }
    try check(status)
    rowsWritten += rows.height
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
    try check(cpng_writer_finish(writer))
    finished = true
    guard toMemory else { return nil }
    var length = 0
    guard let bytes = cpng_writer_data(writer, &length) else { return Data() }
    return Data(bytes: bytes, count: length)
  }

  private func check(_ status: Int32) throws {
    guard status != CPNG_OK else { return }
    let error = PNGShimSupport.writeError(status, String(cString: cpng_writer_message(writer)))
    failure = error
    throw error
  }
}
