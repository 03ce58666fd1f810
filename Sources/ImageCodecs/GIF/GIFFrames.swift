// GIFFrames.swift — a GIF's frames one at a time, composed on its logical screen (CGIF shim:
// giflib's record loop; disposal, transparency, local colour tables and interlace in C).
import CGIF
import Foundation
import PixelBufferModule

/// Reads a GIF's frames in order; holds the screen (and the saved rectangle of a frame that
/// restores the previous screen), never more than one frame.
public final class GIFFrameReader: AnimationFrameReader {
  public let info: AnimationInfo
  public let frameFormat: PixelFormat
  private let reader: OpaquePointer
  /// The bytes, handed to giflib afresh at each call (not copied: a mapped file stays mapped), or
  /// the file giflib reads through its descriptor.
  private let input: GIFInput
  private var framesRead = 0

  /// Opens `data`, whose records `GIFCodec.readAnimation` checks against `limits` first.
  public convenience init(_ data: Data, limits: DecodeLimits) throws {
    try self.init(.bytes(data), limits: limits)
  }

  /// Opens `input`, whose records are checked against `limits` first.
  init(_ input: GIFInput, limits: DecodeLimits) throws {
    let facts = try GIFCodec.readFacts(input, limits: limits)
    info = facts.animation
    frameFormat = PixelFormat(layout: facts.hasAlpha ? .rgba : .rgb, component: .uint8)
    self.input = input
    reader = try GIFCodec.openReader(input, limits: limits)
  }

  deinit { cgif_close(reader) }

  /// The whole file for bytes in memory; the shim's buffer for a file read in place.
  public var heldInputBytes: Int { input.heldBytes(reader) }

  public func nextFrame() throws -> PixelBuffer? {
    guard framesRead < info.frameCount else { return nil }
    let channels = Int32(frameFormat.channelCount), reader = reader, input = input
    var delay: Int32 = 0
    let frame = try composedFrame(number: framesRead + 1, colorSpace: .sRGB, end: Int32(CGIF_END), check: GIFCodec.check) {
      out, stride, message in
      input.withBytes { base, count in cgif_next_frame(reader, base, count, channels, out, stride, &delay, &message, 256) }
    }
    if frame != nil { framesRead += 1 }
    return frame
  }
}

/// One page of a GIF as rows: the frames up to it are composed on the shim's screen at the first
/// read, and rows are then copied from the screen as they are asked for. The screen is allocated
/// untouched, so what is held is the pages under the frames (`ImageHeader.decoderHeldBytes`) and
/// the rows the caller asks for, not a decoded copy of the whole canvas: a 35-byte GIF with a
/// 16383² screen and a 1 × 1 frame, streamed, holds kilobytes, not 1 GB.
final class GIFPageDecoder: ImageRowDecoder {
  let outputSize: Size
  let outputFormat: PixelFormat
  let warnings: [String]
  private let input: GIFInput
  private let page: Int
  private let reader: OpaquePointer
  private var drawn = false
  private var rowsRead = 0
  private var failure: Error?

  init(_ input: GIFInput, header: ImageHeader, page: Int, limits: DecodeLimits, warnings: [String]) throws {
    outputSize = header.size
    outputFormat = PixelFormat(layout: header.layout, component: .uint8)
    self.warnings = warnings
    self.input = input
    self.page = page
    reader = try GIFCodec.openReader(input, limits: limits)
  }

  deinit { cgif_close(reader) }

  func makeBuffer(rows: Int?) throws -> PixelBuffer {
    try PixelBuffer.forDecoding(
      width: outputSize.width, height: outputSize.height, rows: rows, format: outputFormat, colorSpace: .sRGB,
      metadata: ImageMetadata())
  }

  func readRows(_ count: Int, into buffer: inout PixelBuffer, at destinationRow: Int) throws -> Int {
    guard buffer.width == outputSize.width, buffer.format == outputFormat else {
      throw CodecError(
        .invalidArgument,
        "The buffer for GIF rows is \(buffer.width) pixels wide in \(buffer.format); \(outputSize.width) pixels in \(outputFormat) are needed.")
    }
    let wanted = min(max(count, 0), outputSize.height - rowsRead)
    guard destinationRow >= 0, destinationRow + wanted <= buffer.height else {
      throw CodecError(.invalidArgument, "The buffer has \(buffer.height) rows; \(wanted) rows at row \(destinationRow) do not fit.")
    }
    guard wanted > 0 else { return 0 }
    try drawPage()
    let reader = reader, first = Int32(rowsRead), channels = Int32(outputFormat.channelCount)
    let status = buffer.withUnsafeMutableBaseAddress { base, stride in
      cgif_copy_rows(reader, first, Int32(wanted), channels, (base + destinationRow * stride).assumingMemoryBound(to: UInt8.self), stride)
    }
    guard Int(status) == Int(CGIF_OK) else {
      throw CodecError(.invalidArgument, "GIF rows \(rowsRead)..<\(rowsRead + wanted) are not on the screen.")
    }
    rowsRead += wanted
    return wanted
  }

  /// Composes frames 1 … page + 1 on the screen, once.
  private func drawPage() throws {
    if let failure { throw failure }
    guard !drawn else { return }
    do {
      for number in 1...(page + 1) {
        var message = [CChar](repeating: 0, count: 256)
        var delay: Int32 = 0
        let reader = reader
        let status = input.withBytes { base, count in cgif_draw_frame(reader, base, count, &delay, &message, message.count) }
        if Int(status) == Int(CGIF_END) { throw CodecError(.corrupt, "The GIF's frame \(page + 1) cannot be read.") }
        do {
          try GIFCodec.check(status, message)
        } catch let error as CodecError {
          throw CodecError(error.kind, "Frame \(number): \(error.message)")
        }
      }
      drawn = true
    } catch {
      failure = error
      throw error
    }
  }
}

extension GIFInput {
  /// Calls `body` with the bytes in memory (their first byte and count), or with no bytes for a
  /// file, which the shim's reader reads itself.
  func withBytes<R>(_ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
    switch self {
    case .bytes(let data): return data.withUnsafeBytes { body($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
    case .file: return body(nil, 0)
    }
  }

  /// The bytes of the GIF `reader` (opened on this input) holds: all of them in memory, its
  /// buffer for a file.
  func heldBytes(_ reader: OpaquePointer) -> Int {
    if case .bytes(let data) = self { return data.count }
    return Int(cgif_held_file_bytes(reader))
  }
}

extension GIFCodec {
  /// giflib's reader over `input` (which must outlive it), its frames held to `limits.maxPixels`.
  static func openReader(_ input: GIFInput, limits: DecodeLimits) throws -> OpaquePointer {
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let opened: OpaquePointer?
    switch input {
    case .bytes(let data):
      opened = data.withUnsafeBytes { raw in
        cgif_open(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, Int64(limits.maxPixels), &status, &message, message.count)
      }
    case .file(let file, let size):
      opened = cgif_open_file(file.fileDescriptor, size, Int64(limits.maxPixels), &status, &message, message.count)
    }
    guard let opened else {
      try check(status, message)
      throw CodecError(.corrupt, "The GIF file cannot be opened.")
    }
    return opened
  }
}
