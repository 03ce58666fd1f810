// PNGDecoder+Whole.swift — what reads a PNG file through a decoder in one call: its pixels, its
// header, the size its IHDR gives, and the peak of an HDR file's light measured over its rows.
import Foundation
import PixelBufferModule

extension PNGDecoder {
  /// Decodes a whole PNG file.
  ///
  /// - Throws: `CodecError` (`.corrupt`, `.truncated`, `.tooLarge`).
  public static func decode(_ data: Data, limits: DecodeLimits = .default) throws -> PixelBuffer {
    try PNGDecoder(data: data, limits: limits).decodeRemaining()
  }

  /// The width and height IHDR gives (both 1 ≤ side < 2³¹, as PNG allows), or nil when the data
  /// does not start with a PNG signature and IHDR.
  static func headerSize(_ data: Data) -> (Int, Int)? {
    guard data.count >= 24 else { return nil }
    let bytes = [UInt8](data.prefix(24))
    guard bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], bytes[12..<16] == [0x49, 0x48, 0x44, 0x52] else { return nil }
    func u32(_ o: Int) -> Int { Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3]) }
    let (width, height) = (u32(16), u32(20))
    guard (1..<(1 << 31)).contains(width), (1..<(1 << 31)).contains(height) else { return nil }
    return (width, height)
  }

  /// Reads a PNG file's header (size, decoded layout and depth, metadata) without decoding pixels.
  ///
  /// - Throws: `CodecError` when the header is damaged or exceeds `limits`.
  public static func readHeader(_ data: Data, limits: DecodeLimits = .default) throws -> ImageHeader {
    try PNGDecoder(data: data, limits: limits).header
  }

  /// The largest component of the display light (cd/m², BT.2020) of the PNG `data`, whose samples
  /// are the HDR signal `transfer` in primaries going to BT.2020 by `toBT2020`: its rows read in strips.
  static func measuredPeak(_ data: Data, limits: DecodeLimits, transfer: HDRTransfer, toBT2020: [SIMD3<Double>]) throws -> Double {
    let decoder = try PNGDecoder(.bytes(data), limits: limits, toneMaps: false, resolvesPeak: false)
    var strip = try decoder.makeBuffer(rows: 64), peak = 0.0
    while case let n = try decoder.readRows(64, into: &strip), n > 0 {
      let rows = n == strip.height ? strip : strip.cropped(to: Rect(x: 0, y: 0, width: strip.width, height: n))
      peak = max(peak, HDRContentPeak.measured(rows, transfer: transfer, toBT2020: toBT2020))
    }
    return peak
  }
}
