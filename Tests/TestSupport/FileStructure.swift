// FileStructure.swift — an independent look at what a file holds: JPEG segments, PNG chunks,
// WebP chunks, and the IFDs of a TIFF-structured EXIF block. Written for the tests, separately
// from the library's own parsers, so tests can check what the library wrote.
import Foundation

/// Segments and chunks of encoded files, read without the library.
public enum FileStructure {
  /// The JPEG's segments before the first SOS: (marker, payload after the length field).
  public static func jpegSegments(_ data: Data) -> [(marker: UInt8, payload: [UInt8])] {
    let b = [UInt8](data)
    var out: [(UInt8, [UInt8])] = []
    var i = 2
    while i + 4 <= b.count, b[i] == 0xFF, b[i + 1] != 0xDA {
      let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
      guard length >= 2, i + 2 + length <= b.count else { break }
      out.append((b[i + 1], Array(b[(i + 4)..<(i + 2 + length)])))
      i += 2 + length
    }
    return out
  }

  /// The PNG's chunks in order: (type, data).
  public static func pngChunks(_ data: Data) -> [(type: String, data: [UInt8])] {
    let b = [UInt8](data)
    var out: [(String, [UInt8])] = []
    var i = 8
    while i + 12 <= b.count {
      let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
      guard i + 12 + length <= b.count else { break }
      out.append((String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self), Array(b[(i + 8)..<(i + 8 + length)])))
      i += 12 + length
    }
    return out
  }

  /// The WebP's RIFF chunks in order: (FourCC, data).
  public static func webpChunks(_ data: Data) -> [(type: String, data: [UInt8])] {
    let b = [UInt8](data)
    var out: [(String, [UInt8])] = []
    var i = 12
    while i + 8 <= b.count {
      let length = Int(b[i + 4]) | Int(b[i + 5]) << 8 | Int(b[i + 6]) << 16 | Int(b[i + 7]) << 24
      guard i + 8 + length <= b.count else { break }
      out.append((String(decoding: b[i..<(i + 4)], as: UTF8.self), Array(b[(i + 8)..<(i + 8 + length)])))
      i += 8 + length + (length & 1)
    }
    return out
  }

  /// One IFD of a TIFF structure: each tag's type, count and 4-byte value field (read as SHORT
  /// for SHORTs, else LONG), and the next IFD's offset.
  public struct IFD {
    public var entries: [Int: (type: Int, count: Int, value: Int)]
    public var next: Int
    /// The ASCII value of `tag`, without its NUL.
    public func text(_ tag: Int, in tiff: [UInt8]) -> String? {
      guard let e = entries[tag], e.type == 2 else { return nil }
      let start = e.count <= 4 ? nil : e.value
      guard let start, start + e.count <= tiff.count else { return nil }
      return String(decoding: tiff[start..<(start + e.count)].prefix { $0 != 0 }, as: UTF8.self)
    }
  }

  /// The IFD at `offset` of `tiff` (`II` or `MM` first), or nil when it does not fit.
  public static func ifd(_ tiff: [UInt8], at offset: Int) -> IFD? {
    guard tiff.count >= 8 else { return nil }
    let little = tiff[0] == 0x49
    func u16(_ o: Int) -> Int { little ? Int(tiff[o]) | Int(tiff[o + 1]) << 8 : Int(tiff[o]) << 8 | Int(tiff[o + 1]) }
    func u32(_ o: Int) -> Int { little ? u16(o) | u16(o + 2) << 16 : u16(o) << 16 | u16(o + 2) }
    guard offset + 2 <= tiff.count else { return nil }
    let n = u16(offset)
    guard offset + 2 + n * 12 + 4 <= tiff.count else { return nil }
    var entries: [Int: (Int, Int, Int)] = [:]
    for k in 0..<n {
      let e = offset + 2 + k * 12
      let type = u16(e + 2)
      entries[u16(e)] = (type, u32(e + 4), type == 3 ? u16(e + 8) : u32(e + 8))
    }
    return IFD(entries: entries, next: u32(offset + 2 + n * 12))
  }

  /// IFD0 of `tiff`.
  public static func ifd0(_ tiff: [UInt8]) -> IFD? {
    guard tiff.count >= 8 else { return nil }
    let little = tiff[0] == 0x49
    let o = little ? Int(tiff[4]) | Int(tiff[5]) << 8 | Int(tiff[6]) << 16 | Int(tiff[7]) << 24
      : Int(tiff[4]) << 24 | Int(tiff[5]) << 16 | Int(tiff[6]) << 8 | Int(tiff[7])
    return ifd(tiff, at: o)
  }

  /// The TIFF block of a JPEG's first EXIF APP1 segment.
  public static func jpegEXIF(_ data: Data) -> [UInt8]? {
    jpegSegments(data).first { $0.marker == 0xE1 && $0.payload.starts(with: Array("Exif\0\0".utf8)) }.map { Array($0.payload.dropFirst(6)) }
  }
}
