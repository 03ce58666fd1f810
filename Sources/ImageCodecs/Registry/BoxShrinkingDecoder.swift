// BoxShrinkingDecoder.swift — an 8- or 16-bit row decoder read at 1/d size (shrink-on-load), strip by strip.
//
// Output pixel (x, y) is the box average of stored pixels [x·d, x·d + d) × [y·d, y·d + d)
// (clipped at the right and bottom edges, so each side becomes ⌈side / d⌉), rounded to nearest,
// averaged as light unless the values are linear already (the sRGB curve removed, averaged, put
// back: an average of encoded values darkens fine detail, 35 dB from a linear-light resample of
// a detailed photo where the light average keeps 45);
// with alpha, colours are weighted by alpha (premultiplied average ÷ average alpha), so
// transparent pixels do not bleed their colour. A box average is what libvips's `shrink` does
// before its final resample; here it happens while rows are decoded, so a thumbnail of a large PNG or
// TIFF never converts the full-size image to the renderer's float tiles, and holds only `d` stored rows.
import CPNG
import PixelBufferModule

/// Reads a row decoder's rows `d` at a time and averages them into rows 1/`d` the size (for
/// codecs whose library cannot decode at a reduced size: PNG, TIFF).
final class BoxShrinkingDecoder: ImageRowDecoder {
  private let source: any ImageRowDecoder
  private let factor: Int
  private var scratch: PixelBuffer
  private var rowsRead = 0
  let outputSize: Size

  /// Decodes `source` (8- or 16-bit, nothing read yet) at 1/`factor` (≥ 2).
  init(_ source: any ImageRowDecoder, factor: Int) throws {
    precondition(source.outputFormat.component != .float32, "box shrinking reads 8- and 16-bit rows")
    self.source = source
    self.factor = factor
    let size = source.outputSize
    outputSize = Size(width: (size.width + factor - 1) / factor, height: (size.height + factor - 1) / factor)
    scratch = try source.makeBuffer(rows: factor)
  }

  var outputFormat: PixelFormat { source.outputFormat }
  var warnings: [String] { source.warnings }

  func makeBuffer(rows: Int?) throws -> PixelBuffer {
    try PixelBuffer.forDecoding(
      width: outputSize.width, height: outputSize.height, rows: rows, format: scratch.format,
      colorSpace: scratch.colorSpace, metadata: scratch.metadata)
  }

  func readRows(_ count: Int, into buffer: inout PixelBuffer, at destinationRow: Int) throws -> Int {
    guard buffer.width == outputSize.width, buffer.format == outputFormat else {
      throw CodecError(
        .invalidArgument,
        "The buffer for reduced rows is \(buffer.width) pixels wide in \(buffer.format); "
          + "\(outputSize.width) pixels in \(outputFormat) are needed.")
    }
    let wanted = min(max(count, 0), outputSize.height - rowsRead)
    guard destinationRow >= 0, destinationRow + wanted <= buffer.height else {
      throw CodecError(.invalidArgument, "The buffer has \(buffer.height) rows; \(wanted) rows at row \(destinationRow) do not fit.")
    }
    let format = source.outputFormat
    let width = source.outputSize.width, factor = Int32(factor)
    for i in 0..<wanted {
      let stored = try source.readRows(self.factor, into: &scratch, at: 0)
      scratch.withUnsafeBaseAddress { src, srcStride in
        buffer.withUnsafeMutableBaseAddress { dst, dstStride in
          cpng_box_shrink_row(
            src.assumingMemoryBound(to: UInt8.self), srcStride, Int32(stored), Int32(width),
            Int32(format.channelCount), format.component == .uint16 ? 1 : 0, format.layout.hasAlpha ? 1 : 0,
            factor, scratch.colorSpace.isLinear ? 0 : 1, (dst + (destinationRow + i) * dstStride).assumingMemoryBound(to: UInt8.self))
        }
      }
    }
    rowsRead += wanted
    return wanted
  }
}
