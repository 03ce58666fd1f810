// WholeImageCollector.swift — rows written to an encoder whose library takes whole images.

import PixelBufferModule

/// Collects the rows an encoder is given into one image, in order, for libraries that encode
/// whole images (libwebp, libheif): the encoding side of `WholeImageDecoder`. Every misuse — rows
/// of the wrong width or format, too many rows, too few at the end — is a `CodecError`.
struct WholeImageCollector {
  /// The format's name in messages: "WebP", "HEIF".
  let formatName: String
  private var pixels: PixelBuffer
  private var rowsWritten = 0

  /// Allocates the `size` image in `format`; memory the system refuses is `.tooLarge`.
  init(size: Size, format: PixelFormat, formatName: String) throws {
    self.formatName = formatName
    do {
      pixels = try PixelBuffer.allocate(width: size.width, height: size.height, format: format)
    } catch {
      throw CodecError(
        .tooLarge,
        "There is not enough memory to encode the \(size.width)×\(size.height) \(formatName) image (\(error.amount) could not be allocated).")
    }
  }

  /// Copies `rows` below the rows written so far.
  mutating func append(_ rows: PixelBuffer) throws {
    guard rows.width == pixels.width, rows.format == pixels.format else {
      throw CodecError(.invalidArgument, "\(formatName) rows must be \(pixels.width) pixels wide in \(pixels.format).")
    }
    guard rowsWritten + rows.height <= pixels.height else {
      throw CodecError(.invalidArgument, "More rows were written than the \(formatName) image has (\(pixels.height)).")
    }
    let length = pixels.width * pixels.format.bytesPerPixel
    let first = rowsWritten
    rows.withUnsafeBaseAddress { src, srcStride in
      pixels.withUnsafeMutableBaseAddress { dst, dstStride in
        for y in 0..<rows.height {
          (dst + (first + y) * dstStride).copyMemory(from: src + y * srcStride, byteCount: length)
        }
      }
    }
    rowsWritten += rows.height
  }

  /// The whole image, once every row has been written.
  func complete() throws -> PixelBuffer {
    guard rowsWritten == pixels.height else {
      throw CodecError(.invalidArgument, "The \(formatName) image has \(pixels.height) rows; \(rowsWritten) were written.")
    }
    return pixels
  }
}
