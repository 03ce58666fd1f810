// TIFFStructure.swift — bounds-checked reading of the TIFF structure EXIF is stored in.
//
// An EXIF block is a TIFF header (`II` or `MM`, 42, the offset of IFD0) and image file
// directories: a 16-bit entry count, 12-byte entries (tag, type, count, then the value itself
// when it fits in 4 bytes, else the offset of the value), and the offset of the next IFD.
// Every offset is relative to the header's first byte. Nothing here traps on any input: each read
// is checked against the block's end and every loop is bounded.

/// A read-only view of a TIFF-structured block.
struct TIFFStructure {
  /// The block.
  let bytes: [UInt8]
  /// True for `II` (little-endian), false for `MM`.
  let isLittleEndian: Bool

  /// The most entries read from one IFD, and IFDs followed in one chain.
  static let maxEntries = 1000
  static let maxChainedIFDs = 8

  /// One directory entry.
  struct Entry {
    /// The entry's own offset in the block.
    var offset: Int
    var tag: Int
    var type: Int
    var count: Int
    /// Where the value's bytes are, and how many (nil when they lie outside the block or the
    /// type is unknown).
    var value: Range<Int>?
  }

  /// Reads the header; nil when `bytes` does not start a TIFF structure.
  init?(_ bytes: [UInt8]) {
    guard bytes.count >= 8 else { return nil }
    switch (bytes[0], bytes[1]) {
    case (0x49, 0x49): isLittleEndian = true
    case (0x4D, 0x4D): isLittleEndian = false
    default: return nil
    }
    self.bytes = bytes
    guard u16(2) == 42 else { return nil }
  }

  /// The offset of IFD0.
  var firstIFD: Int? { u32(4) }

  func u16(_ offset: Int) -> Int? {
    guard offset >= 0, offset <= bytes.count - 2 else { return nil }
    let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
    return isLittleEndian ? a | b << 8 : a << 8 | b
  }

  func u32(_ offset: Int) -> Int? {
    guard let a = u16(offset), let b = u16(offset + 2) else { return nil }
    return isLittleEndian ? a | b << 16 : a << 16 | b
  }

  /// The size of one value of a TIFF field type, or nil for an unknown type.
  static func size(ofType type: Int) -> Int? {
    switch type {
    case 1, 2, 6, 7: return 1
    case 3, 8: return 2
    case 4, 9, 11, 13: return 4
    case 5, 10, 12: return 8
    default: return nil
    }
  }

  /// The entries of the IFD at `offset`, or nil when its count or entries lie outside the block.
  func entries(ofIFDAt offset: Int) -> [Entry]? {
    guard let count = u16(offset), count <= Self.maxEntries, offset + 2 + count * 12 + 4 <= bytes.count else {
      return nil
    }
    return (0..<count).map { i in
      let at = offset + 2 + i * 12
      let tag = u16(at)!, type = u16(at + 2)!, n = u32(at + 4)!
      var value: Range<Int>?
      if let size = Self.size(ofType: type), n <= bytes.count {
        let length = size * n
        if length <= 4 {
          value = (at + 8)..<(at + 8 + length)
        } else if let start = u32(at + 8), start <= bytes.count - length {
          value = start..<(start + length)
        }
      }
      return Entry(offset: at, tag: tag, type: type, count: n, value: value)
    }
  }

  /// The offset of the IFD after the one at `offset` (0 when it is the last), or nil when out of
  /// the block.
  func nextIFD(after offset: Int, entryCount: Int) -> Int? { u32(offset + 2 + entryCount * 12) }

  /// The end of the IFD at `offset` with `entryCount` entries (after its next-IFD offset).
  static func end(ofIFDAt offset: Int, entryCount: Int) -> Int { offset + 2 + entryCount * 12 + 4 }

  /// An entry's first value as an unsigned integer (BYTE, SHORT or LONG), or nil.
  func integer(_ entry: Entry) -> Int? {
    guard let value = entry.value, entry.count >= 1 else { return nil }
    switch entry.type {
    case 1: return Int(bytes[value.lowerBound])
    case 3: return u16(value.lowerBound)
    case 4, 13: return u32(value.lowerBound)
    default: return nil
    }
  }

  /// An ASCII entry's text up to its first NUL, trailing spaces removed; nil when not ASCII or
  /// empty. Bytes that are not UTF-8 are read as Latin-1.
  func text(_ entry: Entry) -> String? {
    guard entry.type == 2 || entry.type == 7, let value = entry.value else { return nil }
    var raw = Array(bytes[value])
    if let nul = raw.firstIndex(of: 0) { raw.removeSubrange(nul...) }
    let string = String(validating: raw, as: UTF8.self) ?? String(raw.map { Character(Unicode.Scalar($0)) })
    let trimmed = string.trimmingTrailingSpaces()
    return trimmed.isEmpty ? nil : trimmed
  }
}

extension String {
  fileprivate func trimmingTrailingSpaces() -> String {
    var s = Substring(self)
    while let last = s.last, last == " " { s.removeLast() }
    return String(s)
  }
}
