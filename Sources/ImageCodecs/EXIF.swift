// EXIF.swift — the little of EXIF FilterGraph needs: the orientation tag (0x0112).
import Foundation
import PixelBufferModule

/// Reads the orientation from EXIF data.
public enum EXIF {
  /// The orientation in a TIFF-structured EXIF block (what PNG's eXIf chunk holds and what follows
  /// `"Exif\0\0"` in a JPEG APP1 segment), or nil when absent or malformed. Never traps.
  public static func orientation(tiff: [UInt8]) -> Orientation? {
    guard tiff.count >= 8 else { return nil }
    let little: Bool
    switch (tiff[0], tiff[1]) {
    case (0x49, 0x49): little = true
    case (0x4D, 0x4D): little = false
    default: return nil
    }
    func u16(_ o: Int) -> Int? {
      guard o >= 0, o + 2 <= tiff.count else { return nil }
      return little ? Int(tiff[o]) | Int(tiff[o + 1]) << 8 : Int(tiff[o]) << 8 | Int(tiff[o + 1])
    }
    func u32(_ o: Int) -> Int? {
      guard let a = u16(o), let b = u16(o + 2) else { return nil }
      return little ? a | b << 16 : a << 16 | b
    }
    guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
    for i in 0..<min(count, 1000) {
      let entry = ifd + 2 + i * 12
      guard let tag = u16(entry) else { return nil }
      if tag == 0x0112 {
        guard let type = u16(entry + 2), type == 3, let value = u16(entry + 8) else { return nil }
        return Orientation(rawValue: value)
      }
    }
    return nil
  }

  /// The orientation in a JPEG APP1 payload (starting with `"Exif\0\0"`), or nil.
  public static func orientation(app1: [UInt8]) -> Orientation? {
    let signature: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
    guard app1.count > 6, Array(app1.prefix(6)) == signature else { return nil }
    return orientation(tiff: Array(app1.dropFirst(6)))
  }
}
