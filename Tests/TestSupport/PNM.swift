// PNM.swift — a tiny reader for binary PGM/PPM (P5/P6, maxval 255) reference images.
import Foundation
import PixelBufferModule

/// Reads the binary Netpbm files reference decoders write (`djpeg -pnm`).
public enum PNM {
  /// A malformed or unsupported PNM file.
  public struct FormatError: Error, CustomStringConvertible {
    /// What is wrong.
    public var description: String
  }

  /// Decodes a P5 (gray) or P6 (RGB) file with maxval 255 into a `.gray8` or `.rgb8` buffer.
  public static func read(_ data: Data) throws -> PixelBuffer {
    let bytes = [UInt8](data)
    var index = 0
    func token() throws -> String {
      while index < bytes.count {
        if bytes[index] == UInt8(ascii: "#") {
          while index < bytes.count && bytes[index] != 0x0A { index += 1 }
        } else if [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
          index += 1
        } else {
          break
        }
      }
      let start = index
      while index < bytes.count && ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
      guard index > start else { throw FormatError(description: "unexpected end of PNM header") }
      return String(decoding: bytes[start..<index], as: UTF8.self)
    }
    let magic = try token()
    guard magic == "P5" || magic == "P6" else {
      throw FormatError(description: "not a binary PGM/PPM (magic \(magic))")
    }
    guard let width = Int(try token()), let height = Int(try token()), let maxval = Int(try token()),
      width > 0, height > 0, maxval == 255
    else { throw FormatError(description: "bad PNM size or maxval") }
    index += 1  // the single whitespace byte after maxval
    let format: PixelFormat = magic == "P5" ? .gray8 : .rgb8
    let rowLength = width * format.bytesPerPixel
    guard bytes.count - index >= rowLength * height else {
      throw FormatError(description: "PNM pixel data is short")
    }
    var buffer = PixelBuffer(width: width, height: height, format: format)
    buffer.withUnsafeMutableBaseAddress { base, rowBytes in
      bytes.withUnsafeBytes { raw in
        for y in 0..<height {
          (base + y * rowBytes).copyMemory(from: raw.baseAddress! + index + y * rowLength, byteCount: rowLength)
        }
      }
    }
    return buffer
  }

  /// Reads a PNM fixture, for example `PNM.fixture("jpeg/testimg.ppm")`.
  public static func fixture(_ relativePath: String) throws -> PixelBuffer {
    try read(try Fixtures.data(relativePath))
  }
}
