// PNGEncoder.swift — one-call PNG encoding of a whole buffer.
import Foundation
import PixelBufferModule

/// Encodes whole buffers as PNG (see `PNGStreamEncoder` to write strip by strip).
///
/// Accepts gray, gray + alpha, RGB and RGBA at `.uint8` or `.uint16` with straight alpha. The
/// buffer's colour space picks the colour chunk: `.icc(profile)` → iCCP, `.sRGB` → sRGB chunk
/// (unless `options.writeSRGBChunk` is false), anything else → none.
public enum PNGEncoder {
  /// Encodes `buffer` to PNG bytes.
  ///
  /// - Throws: `.invalidArgument` for premultiplied or float pixels (convert first), an empty
  ///   buffer or a bad option.
  public static func encode(_ buffer: PixelBuffer, options: PNGEncodeOptions = .default) throws -> Data {
    let encoder = try makeEncoder(for: buffer, options: options, to: .memory)
    try encoder.write(rows: buffer)
    return try encoder.finish() ?? Data()
  }

  /// Encodes `buffer` into an open `OutputFile` handle.
  ///
  /// - Throws: as `encode`, and `.io` when writing fails.
  public static func write(_ buffer: PixelBuffer, to handle: OutputHandle, options: PNGEncodeOptions = .default) throws {
    let encoder = try makeEncoder(for: buffer, options: options, to: .handle(handle))
    try encoder.write(rows: buffer)
    try encoder.finish()
  }

  /// Encodes `buffer` to a file at `url`, atomically (see `OutputFile`).
  public static func write(
    _ buffer: PixelBuffer, to url: URL, options: PNGEncodeOptions = .default, protecting inputs: [URL] = []
  ) throws {
    try OutputFile.write(to: url, protecting: inputs) { handle in
      try write(buffer, to: handle, options: options)
    }
  }

  private static func makeEncoder(
    for buffer: PixelBuffer, options: PNGEncodeOptions, to destination: PNGStreamEncoder.Destination
  ) throws -> PNGStreamEncoder {
    if buffer.format.alphaMode == .premultiplied {
      throw CodecError(
        .invalidArgument,
        "PNG stores straight (unpremultiplied) alpha; unpremultiply the pixels before encoding.")
    }
    return try PNGStreamEncoder(
      size: buffer.size, layout: buffer.format.layout, component: buffer.format.component,
      options: options, colorSpace: buffer.colorSpace, to: destination)
  }
}
