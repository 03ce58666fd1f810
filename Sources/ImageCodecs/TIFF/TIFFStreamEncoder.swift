// TIFFStreamEncoder.swift — rows in, a TIFF file out (libtiff through the CTIFF shim).
import CTIFF
import Foundation
import PixelBufferModule

/// How a TIFF file is written (see `TIFFCodec.encodeOptions` for the meaning of each).
public struct TIFFEncodeSettings: Hashable, Sendable {
  /// The compression scheme.
  public enum Compression: String, CaseIterable, Sendable {
    /// Uncompressed.
    case none
    /// Lempel-Ziv-Welch (lossless).
    case lzw
    /// Deflate, zlib's (lossless).
    case deflate
    /// JPEG (lossy, 8-bit only): YCbCr for RGB, as gray or RGB components otherwise.
    case jpeg
    /// PackBits run lengths (lossless).
    case packbits
  }

  /// The compression scheme.
  public var compression: Compression
  /// Horizontal differencing (integers) or the floating-point predictor (floats) before LZW or deflate.
  public var usesPredictor: Bool
  /// JPEG quality, 1…100.
  public var quality: Int
  /// Square tiles of this size (a multiple of 16), or 0 for strips.
  public var tileSize: Int

  /// Creates settings; the defaults write LZW with prediction, in strips.
  public init(compression: Compression = .lzw, usesPredictor: Bool = true, quality: Int = JPEGEncodeOptions.defaultQuality, tileSize: Int = 0) {
    self.compression = compression
    self.usesPredictor = usesPredictor
    self.quality = quality
    self.tileSize = tileSize
  }
}

/// Writes rows into a TIFF file as they come: each strip (or row of tiles) is compressed and
/// written once its rows are in, so one band is held. Written straight into a file handle, or
/// assembled in memory (for standard output and in-memory encodes).
public final class TIFFStreamEncoder: ImageRowEncoder {
  private let size: Size
  private let format: PixelFormat
  private let handle: OutputHandle?
  private let writer: OpaquePointer
  private var rowsWritten = 0

  /// Starts a TIFF of `size` pixels in `format` (gray, gray + alpha, RGB or RGBA; 8, 16-bit or
  /// float; straight alpha), embedding `iccProfile`, written to `handle` (nil: `finish` returns the bytes).
  ///
  /// - Throws: `.invalidArgument` for an empty size, a tile size that is not a multiple of 16, or
  ///   JPEG compression of samples deeper than 8 bits; `.io` when writing fails.
  ///
  /// From `metadata`: the XMP packet, IPTC records, comment (as ImageDescription) and the EXIF
  /// block's Make, Model, Software, DateTime, Artist and Copyright are written into the page's
  /// directory; the EXIF block's own EXIF and GPS directories are not written.
  public init(
    size: Size, format: PixelFormat, settings: TIFFEncodeSettings = TIFFEncodeSettings(), iccProfile: Data? = nil,
    metadata: ImageMetadata = ImageMetadata(), handle: OutputHandle? = nil
  ) throws {
    try MetadataLimits.checkWritable(exif: metadata.exif, xmp: metadata.xmp, iptc: metadata.iptc, comment: metadata.comment, format: "TIFF")
    guard size.width > 0, size.height > 0, size.width <= Int(UInt32.max), size.height <= Int(UInt32.max) else {
      throw CodecError(.invalidArgument, "A TIFF image must be at least 1×1 pixels; \(size) was requested.")
    }
    guard settings.tileSize >= 0, settings.tileSize % 16 == 0 else {
      throw CodecError(.invalidArgument, "TIFF tiles must be a multiple of 16 pixels wide, not \(settings.tileSize).")
    }
    guard settings.compression != .jpeg || format.component == .uint8 else {
      throw CodecError(.invalidArgument, "JPEG compression in TIFF holds 8-bit samples only, not \(format.component).")
    }
    self.size = size
    self.format = PixelFormat(layout: format.layout, component: format.component)
    self.handle = handle
    let compression: Int32
    switch settings.compression {
    case .none: compression = Int32(CTIFF_WRITE_NONE)
    case .lzw: compression = Int32(CTIFF_WRITE_LZW)
    case .deflate: compression = Int32(CTIFF_WRITE_DEFLATE)
    case .jpeg: compression = Int32(CTIFF_WRITE_JPEG)
    case .packbits: compression = Int32(CTIFF_WRITE_PACKBITS)
    }
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 512)
    let profile = iccProfile.flatMap { $0.isEmpty ? nil : [UInt8]($0) } ?? []
    let xmp = metadata.xmp.map { [UInt8]($0) } ?? [], iptc = metadata.iptc.map { [UInt8]($0) } ?? []
    var texts = metadata.exif.map { TIFFEXIFBlock.textFields(of: $0) } ?? []
    if let comment = metadata.comment, !comment.isEmpty { texts.insert((270, comment), at: 0) }
    let tags = texts.map { UInt32($0.tag) }
    let strings = texts.map { strdup($0.text).map { UnsafePointer($0) } }
    defer { strings.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
    let opened = profile.withUnsafeBufferPointer { icc in
      xmp.withUnsafeBufferPointer { xmp in
        iptc.withUnsafeBufferPointer { iptc in
          tags.withUnsafeBufferPointer { tags in
            strings.withUnsafeBufferPointer { strings in
              var options = ctiff_write_options(
                width: UInt32(size.width), height: UInt32(size.height), channels: Int32(format.channelCount),
                sample_bytes: Int32(format.component.byteCount), compression: compression,
                predictor: settings.usesPredictor ? 1 : 0, quality: Int32(min(max(settings.quality, 1), 100)),
                tile: UInt32(settings.tileSize), icc: icc.isEmpty ? nil : icc.baseAddress, icc_length: UInt32(icc.count),
                xmp: xmp.isEmpty ? nil : xmp.baseAddress, xmp_length: UInt32(xmp.count),
                iptc: iptc.isEmpty ? nil : iptc.baseAddress, iptc_length: UInt32(iptc.count),
                text_tags: tags.baseAddress, texts: strings.baseAddress, text_count: Int32(tags.count))
              return ctiff_writer_open(handle?.fileDescriptor ?? -1, &options, &status, &message, message.count)
            }
          }
        }
      }
    }
    guard let opened else { throw TIFFDecoder.error(status, String(cString: message)) }
    writer = opened
  }

  deinit { ctiff_writer_destroy(writer) }

  public func write(rows: PixelBuffer) throws {
    guard rows.width == size.width, rows.format.layout == format.layout, rows.format.component == format.component else {
      throw CodecError(.invalidArgument, "TIFF rows must be \(size.width) pixels wide in \(format).")
    }
    guard rowsWritten + rows.height <= size.height else {
      throw CodecError(.invalidArgument, "More rows were written than the TIFF image has (\(size.height)).")
    }
    let writer = self.writer
    let status = rows.withUnsafeBaseAddress { base, stride in
      ctiff_writer_write_rows(writer, base.assumingMemoryBound(to: UInt8.self), stride, UInt32(rows.height))
    }
    guard Int(status) == CTIFF_OK else { throw TIFFDecoder.error(status, String(cString: ctiff_writer_message(writer))) }
    rowsWritten += rows.height
  }

  public func finish() throws -> Data? {
    guard rowsWritten == size.height else {
      throw CodecError(.invalidArgument, "The TIFF image has \(size.height) rows; \(rowsWritten) were written.")
    }
    var bytes: UnsafePointer<UInt8>?
    var length = 0
    let status = ctiff_writer_finish(writer, &bytes, &length)
    guard Int(status) == CTIFF_OK else { throw TIFFDecoder.error(status, String(cString: ctiff_writer_message(writer))) }
    guard let bytes else { return handle == nil ? Data() : nil }
    let file = UnsafeRawBufferPointer(start: bytes, count: length)
    if let handle {
      try handle.writeAll(file)
      return nil
    }
    return Data(file)
  }
}
