// JPEGDecodeResult.swift — decoded pixels together with libjpeg's warnings.
import PixelBufferModule

/// The pixels of a full decode and any corrupt-data warnings libjpeg recovered from.
public struct JPEGDecodeResult: Sendable {
  /// The decoded image (`.gray8` or `.rgb8`).
  public var buffer: PixelBuffer
  /// libjpeg's corrupt-data warnings in the order they occurred (empty for a clean file), for
  /// example “Premature end of JPEG file”.
  public var warnings: [String]

  /// Creates a result.
  public init(buffer: PixelBuffer, warnings: [String]) {
    self.buffer = buffer
    self.warnings = warnings
  }
}
