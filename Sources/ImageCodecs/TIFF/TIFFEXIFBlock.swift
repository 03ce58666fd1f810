// TIFFEXIFBlock.swift — EXIF between a TIFF page's directory and the standalone EXIF block the
// metadata model carries.
//
// In a TIFF file, EXIF is not a separate block: the page's own directory holds the descriptive
// tags (Make, Model, DateTime…) and points (tags 34665 and 34853) to an EXIF and a GPS directory
// inside the file. Reading cuts those out into a standalone TIFF-structured block — header, the
// EXIF and GPS directories with their values, then an IFD0 with the descriptive tags and the two
// pointers — in the file's byte order, so every value is copied as stored. Nested pointers (the
// interoperability directory) are left out. Writing puts the block's descriptive text tags back
// into the page's directory; the EXIF and GPS directories themselves are not written.
import Foundation

enum TIFFEXIFBlock {
  /// The descriptive IFD0 tags carried both ways: Make, Model, Software, DateTime, Artist, Copyright.
  static let textTags: [Int] = [271, 272, 305, 306, 315, 33432]
  private static let exifPointer = 34665, gpsPointer = 34853, interoperabilityPointer = 40965

  /// The EXIF block of the page whose directory starts at `ifdOffset` in the classic TIFF file
  /// `file`, or nil when the page has no EXIF or GPS directory (or they cannot be read).
  static func extract(from file: [UInt8], ifdOffset: Int) -> Data? {
    guard let tiff = TIFFStructure(file), let page = tiff.entries(ofIFDAt: ifdOffset) else { return nil }
    var block = Writer(littleEndian: tiff.isLittleEndian)
    var pointers: [(tag: Int, offset: Int)] = []
    for tag in [exifPointer, gpsPointer] {
      guard let entry = page.first(where: { $0.tag == tag }), let offset = tiff.integer(entry),
        let entries = tiff.entries(ofIFDAt: offset)
      else { continue }
      let kept = entries.filter { $0.value != nil && $0.tag != interoperabilityPointer && $0.tag != exifPointer && $0.tag != gpsPointer }
      pointers.append((tag, block.append(kept.map { ($0.tag, $0.type, $0.count, Array(file[$0.value!])) })))
    }
    guard !pointers.isEmpty else { return nil }
    var first = page.filter { (textTags + [274]).contains($0.tag) && $0.value != nil }.map {
      ($0.tag, $0.type, $0.count, Array(file[$0.value!]))
    }
    first += pointers.map { ($0.tag, 4, 1, block.integer32($0.offset)) }
    block.setFirstIFD(block.append(first.sorted { $0.0 < $1.0 }))
    return Data(block.bytes)
  }

  /// The descriptive text tags of IFD0 of an EXIF block, to write into a TIFF page.
  static func textFields(of exif: Data) -> [(tag: Int, text: String)] {
    guard let tiff = TIFFStructure([UInt8](exif)), let first = tiff.firstIFD, let entries = tiff.entries(ofIFDAt: first) else {
      return []
    }
    return entries.compactMap { entry in
      guard textTags.contains(entry.tag), let text = tiff.text(entry) else { return nil }
      return (entry.tag, text)
    }
  }

  /// A TIFF structure built directory by directory, each followed by its out-of-line values.
  private struct Writer {
    let littleEndian: Bool
    var bytes: [UInt8]

    init(littleEndian: Bool) {
      self.littleEndian = littleEndian
      bytes = littleEndian ? [0x49, 0x49, 42, 0, 0, 0, 0, 0] : [0x4D, 0x4D, 0, 42, 0, 0, 0, 0]
    }

    func integer16(_ v: Int) -> [UInt8] {
      let b = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]
      return littleEndian ? b : b.reversed()
    }

    func integer32(_ v: Int) -> [UInt8] {
      let b = (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) }
      return littleEndian ? b : b.reversed()
    }

    mutating func setFirstIFD(_ offset: Int) { bytes.replaceSubrange(4..<8, with: integer32(offset)) }

    /// Appends a directory of (tag, type, count, value bytes as stored) entries sorted by tag
    /// and its values; returns its offset.
    mutating func append(_ entries: [(Int, Int, Int, [UInt8])]) -> Int {
      if bytes.count % 2 == 1 { bytes.append(0) }
      let start = bytes.count
      var data: [UInt8] = []
      var directory = integer16(entries.count)
      let dataStart = start + 2 + entries.count * 12 + 4
      for (tag, type, count, value) in entries {
        directory += integer16(tag) + integer16(type) + integer32(count)
        if value.count <= 4 {
          directory += value + [UInt8](repeating: 0, count: 4 - value.count)
        } else {
          directory += integer32(dataStart + data.count)
          data += value
          if data.count % 2 == 1 { data.append(0) }
        }
      }
      bytes += directory + integer32(0) + data
      return start
    }
  }
}
