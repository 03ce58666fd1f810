// JPEGEncoder.swift — one-call JPEG encoding of a whole buffer.
import Foundation
import PixelBufferModule

/// Encodes whole buffers as JPEG (see `JPEGStreamEncoder` for strip-by-strip encoding).
public enum JPEGEncoder {
  /// Encodes `buffer` as a JPEG and returns the file's bytes.
  ///
  /// Gray buffers give a one-component JPEG and RGB buffers a YCbCr JPEG. Alpha is dropped and
  /// 16-bit values keep their high byte; float buffers throw `.invalidArgument`. The ICC profile
  /// in `buffer.metadata.iccProfile` (or else an `.icc` colour space) is embedded when
  /// `options.embedsICCProfile` is true. EXIF orientation is not written.
  ///
  /// - Throws: `CodecError` (`.invalidArgument` for bad options, formats or sizes).
  public static func encode(_ buffer: PixelBuffer, options: JPEGEncodeOptions = JPEGEncodeOptions()) throws -> Data {
    var icc = buffer.metadata.iccProfile
    if icc == nil, case .icc(let profile) = buffer.colorSpace { icc = profile }
    let encoder = try JPEGStreamEncoder(
      size: buffer.size, layout: buffer.format.layout, options: options, iccProfile: icc)
    try encoder.write(rows: buffer)
    return try encoder.finish() ?? Data()
  }
}
