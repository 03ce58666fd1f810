// TIFFTags.swift — one tag's values from a TIFF file's first directory, for tests that damage
// a particular strip or tile.

/// Reads the values of one tag of a little-endian classic TIFF's first directory (SHORT or LONG,
/// inline or not), for tests that damage a particular strip or tile.
public enum TIFFTags {
  /// The values of `tag`, or nil when the file is not little-endian or has no such tag.
  public static func values(of tag: Int, in bytes: [UInt8]) -> [Int]? {
    func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
    func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
    guard bytes.count > 8, bytes[0] == 0x49 else { return nil }
    let ifd = u32(4)
    for entry in 0..<u16(ifd) {
      let at = ifd + 2 + entry * 12
      guard u16(at) == tag else { continue }
      let type = u16(at + 2), count = u32(at + 4), size = type == 3 ? 2 : 4
      let start = count * size <= 4 ? at + 8 : u32(at + 8)
      return (0..<count).map { size == 2 ? u16(start + $0 * 2) : u32(start + $0 * 4) }
    }
    return nil
  }
}
