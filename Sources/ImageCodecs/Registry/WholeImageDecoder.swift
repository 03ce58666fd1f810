// WholeImageDecoder.swift — the row-decoder face of a library that decodes whole images.
//
// libwebp and giflib (for one frame) decode a whole image in one call. This decoder makes that
// call on the first read (or `decodeAll`, which returns the buffer without a copy) and then hands
// the rows out in order, so such codecs fit the same `ImageRowDecoder` protocol as streaming ones.
import CPNG
import PixelBufferModule

/// An `ImageRowDecoder` over a closure that decodes the whole image into a buffer.
public final class WholeImageDecoder: ImageRowDecoder {
  public let outputSize: Size
  public let outputFormat: PixelFormat
  private let colorSpace: ColorSpace
  private let metadata: ImageMetadata
  private let decodeWhole: (inout PixelBuffer) throws -> Void
  private var whole: PixelBuffer?
  private var rowsRead = 0
  private var failure: Error?
  /// What the codec found worth saying about the file before decoding (an HDR image read
  /// without tone mapping…).
  public let warnings: [String]

  /// A decoder of `size` pixels in `format`, tagged with `colorSpace` and `metadata`, whose
  /// `decodeWhole` fills a buffer of exactly that size and format, reporting `warnings`.
  public init(
    size: Size, format: PixelFormat, colorSpace: ColorSpace, metadata: ImageMetadata, warnings: [String] = [],
    decodeWhole: @escaping (inout PixelBuffer) throws -> Void
  ) {
    self.warnings = warnings
    self.outputSize = size
    self.outputFormat = format
    self.colorSpace = colorSpace
    self.metadata = metadata
    self.decodeWhole = decodeWhole
  }

  public func makeBuffer(rows: Int?) throws -> PixelBuffer {
    try PixelBuffer.forDecoding(
      width: outputSize.width, height: outputSize.height, rows: rows, format: outputFormat, colorSpace: colorSpace,
      metadata: metadata)
  }

  public func decodeAll() throws -> PixelBuffer {
    if rowsRead == 0 {
      let buffer = try decoded()
      rowsRead = outputSize.height
      whole = nil
      return buffer
    }
    var rest = try makeBuffer(rows: outputSize.height - rowsRead)
    _ = try readRows(rest.height, into: &rest, at: 0)
    return rest
  }

  public func readRows(_ count: Int, into buffer: inout PixelBuffer, at destinationRow: Int) throws -> Int {
    guard buffer.width == outputSize.width, buffer.format == outputFormat else {
      throw CodecError(
        .invalidArgument,
        "The buffer for decoded rows is \(buffer.width) pixels wide in \(buffer.format); "
          + "\(outputSize.width) pixels in \(outputFormat) are needed.")
    }
    let wanted = min(max(count, 0), outputSize.height - rowsRead)
    guard destinationRow >= 0, destinationRow + wanted <= buffer.height else {
      throw CodecError(.invalidArgument, "The buffer has \(buffer.height) rows; \(wanted) rows at row \(destinationRow) do not fit.")
    }
    guard wanted > 0 else { return 0 }
    let source = try decoded()
    let length = outputSize.width * outputFormat.bytesPerPixel
    source.withUnsafeBaseAddress { src, srcStride in
      buffer.withUnsafeMutableBaseAddress { dst, dstStride in
        for i in 0..<wanted {
          (dst + (destinationRow + i) * dstStride).copyMemory(from: src + (rowsRead + i) * srcStride, byteCount: length)
        }
      }
    }
    rowsRead += wanted
    if rowsRead == outputSize.height { whole = nil }
    return wanted
  }

  private func decoded() throws -> PixelBuffer {
    if let failure { throw failure }
    if let whole { return whole }
    var buffer = try makeBuffer(rows: nil)
    do {
      try decodeWhole(&buffer)
    } catch {
      failure = error
      throw error
    }
    whole = buffer
    return buffer
  }
}

extension PixelBuffer {
  /// This 8- or 16-bit buffer reduced to 1/`factor` by box averaging (alpha-weighted, of light
  /// unless the buffer is linear already; each side ⌈side / factor⌉), for codecs whose library
  /// cannot decode at a reduced size itself.
  public func boxShrunk(by factor: Int) -> PixelBuffer {
    let size = Size(width: (width + factor - 1) / factor, height: (height + factor - 1) / factor)
    var out = PixelBuffer(width: size.width, height: size.height, format: format, colorSpace: colorSpace, metadata: metadata)
    let channels = Int32(format.channelCount), sixteen: Int32 = format.component == .uint16 ? 1 : 0
    let alpha: Int32 = format.layout.hasAlpha ? 1 : 0, light: Int32 = colorSpace.isLinear ? 0 : 1
    withUnsafeBaseAddress { src, srcStride in
      out.withUnsafeMutableBaseAddress { dst, dstStride in
        for y in 0..<size.height {
          let rows = min(factor, height - y * factor)
          cpng_box_shrink_row(
            (src + y * factor * srcStride).assumingMemoryBound(to: UInt8.self), srcStride, Int32(rows),
            Int32(width), channels, sixteen, alpha, Int32(factor), light, (dst + y * dstStride).assumingMemoryBound(to: UInt8.self))
        }
      }
    }
    return out
  }
}
