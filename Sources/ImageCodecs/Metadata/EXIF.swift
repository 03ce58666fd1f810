// EXIF.swift — what FilterGraph reads from EXIF (orientation, pixel dimensions, capture time,
// camera make and model) and the one rewrite it makes before writing EXIF back (`upright`).
//
// Tags read (EXIF 2.32, CIPA DC-008): IFD0 Orientation 0x0112, Make 0x010F, Model 0x0110,
// DateTime 0x0132, the Exif IFD pointer 0x8769; in the Exif IFD DateTimeOriginal 0x9003,
// PixelXDimension 0xA002 and PixelYDimension 0xA003. IFD1 (after IFD0) describes the thumbnail:
// JPEGInterchangeFormat 0x0201 and its length 0x0202, or strips 0x0111/0x0117.
import Foundation
import PixelBufferModule

/// Reads and rewrites EXIF blocks. Every function accepts any bytes without trapping.
public enum EXIF {
  /// The prefix of an EXIF APP1 payload in JPEG (and of some WebP EXIF chunks).
  public static let app1Signature: [UInt8] = Array("Exif".utf8) + [0, 0]

  static let orientationTag = 0x0112, makeTag = 0x010F, modelTag = 0x0110, dateTimeTag = 0x0132
  static let exifIFDTag = 0x8769, gpsIFDTag = 0x8825, interoperabilityIFDTag = 0xA005
  static let dateTimeOriginalTag = 0x9003, pixelXTag = 0xA002, pixelYTag = 0xA003
  static let thumbnailOffsetTag = 0x0201, thumbnailLengthTag = 0x0202
  static let stripOffsetsTag = 0x0111, stripByteCountsTag = 0x0117

  /// The orientation in a TIFF-structured EXIF block (what PNG's eXIf chunk holds and what follows
  /// `"Exif\0\0"` in a JPEG APP1 segment), or nil when absent or malformed.
  public static func orientation(tiff: [UInt8]) -> Orientation? {
    fields(tiff: tiff)?.orientation
  }

  /// The orientation in a JPEG APP1 payload (starting with `"Exif\0\0"`), or nil.
  public static func orientation(app1: [UInt8]) -> Orientation? {
    guard let tiff = tiffBlock(app1: app1) else { return nil }
    return orientation(tiff: tiff)
  }

  /// The TIFF block of an APP1 payload starting with `"Exif\0\0"`, or nil.
  public static func tiffBlock(app1: [UInt8]) -> [UInt8]? {
    guard app1.count > 6, Array(app1.prefix(6)) == app1Signature else { return nil }
    return Array(app1.dropFirst(6))
  }

  /// The fields of a TIFF-structured EXIF block, or nil when it is not one.
  public static func fields(tiff: [UInt8]) -> EXIFFields? {
    guard let structure = TIFFStructure(tiff), let ifd0 = structure.firstIFD,
      let entries = structure.entries(ofIFDAt: ifd0)
    else { return nil }
    var fields = EXIFFields()
    var dateTime: String?
    var exifIFD: Int?
    for entry in entries {
      switch entry.tag {
      case orientationTag:
        if entry.type == 3, let value = structure.integer(entry) { fields.orientation = Orientation(rawValue: value) }
      case makeTag: fields.cameraMake = structure.text(entry)
      case modelTag: fields.cameraModel = structure.text(entry)
      case dateTimeTag: dateTime = structure.text(entry)
      case exifIFDTag: exifIFD = structure.integer(entry)
      default: break
      }
    }
    var width: Int?, height: Int?
    if let exifIFD, exifIFD != ifd0, let exifEntries = structure.entries(ofIFDAt: exifIFD) {
      for entry in exifEntries {
        switch entry.tag {
        case dateTimeOriginalTag: fields.captureTime = structure.text(entry)
        case pixelXTag: width = structure.integer(entry)
        case pixelYTag: height = structure.integer(entry)
        default: break
        }
      }
    }
    if let width, let height { fields.pixelSize = Size(width: width, height: height) }
    if fields.captureTime == nil { fields.captureTime = dateTime }
    return fields
  }

  /// `tiff` made true of upright pixels of `pixelSize`: every Orientation entry becomes 1, the
  /// PixelXDimension and PixelYDimension entries become `pixelSize` (as LONGs), and IFD1 — the
  /// thumbnail, which no longer matches — is unlinked and its bytes removed: cut off where they
  /// end the block (as cameras write it), zeroed elsewhere.
  /// Everything else (maker notes included) stays where it was, byte for byte.
  ///
  /// Returns nil when `tiff` is not a readable TIFF structure (it is then not written at all:
  /// an orientation that cannot be corrected would turn the picture a second time).
  public static func upright(tiff: [UInt8], pixelSize: Size) -> [UInt8]? {
    guard let structure = TIFFStructure(tiff), let ifd0 = structure.firstIFD,
      let entries = structure.entries(ofIFDAt: ifd0)
    else { return nil }
    var out = tiff
    let little = structure.isLittleEndian
    func put16(_ value: Int, at offset: Int) {
      let v = UInt16(truncatingIfNeeded: value)
      out[offset] = UInt8(little ? v & 0xFF : v >> 8)
      out[offset + 1] = UInt8(little ? v >> 8 : v & 0xFF)
    }
    func put32(_ value: Int, at offset: Int) {
      let v = UInt32(truncatingIfNeeded: value)
      put16(Int(little ? v & 0xFFFF : v >> 16), at: offset)
      put16(Int(little ? v >> 16 : v & 0xFFFF), at: offset + 2)
    }
    /// Makes `entry` hold one inline value of `type` (SHORT 3 or LONG 4).
    func setInline(_ entry: TIFFStructure.Entry, type: Int, value: Int) {
      put16(type, at: entry.offset + 2)
      put32(1, at: entry.offset + 4)
      put32(0, at: entry.offset + 8)
      if type == 3 { put16(value, at: entry.offset + 8) } else { put32(value, at: entry.offset + 8) }
    }

    // The byte ranges IFD0 and the Exif, GPS and Interoperability IFDs use: what must survive.
    var used: [Range<Int>] = []
    func use(_ entries: [TIFFStructure.Entry], ifd: Int) {
      used.append(ifd..<TIFFStructure.end(ofIFDAt: ifd, entryCount: entries.count))
      used += entries.compactMap(\.value)
    }
    use(entries, ifd: ifd0)
    var visited: Set<Int> = [ifd0]
    for entry in entries {
      if entry.tag == orientationTag { setInline(entry, type: 3, value: 1) }
      guard entry.tag == exifIFDTag || entry.tag == gpsIFDTag, let sub = structure.integer(entry),
        visited.insert(sub).inserted, let subEntries = structure.entries(ofIFDAt: sub)
      else { continue }
      use(subEntries, ifd: sub)
      guard entry.tag == exifIFDTag else { continue }
      for e in subEntries {
        if e.tag == pixelXTag { setInline(e, type: 4, value: pixelSize.width) }
        if e.tag == pixelYTag { setInline(e, type: 4, value: pixelSize.height) }
        if e.tag == interoperabilityIFDTag, let interop = structure.integer(e), visited.insert(interop).inserted,
          let interopEntries = structure.entries(ofIFDAt: interop)
        {
          use(interopEntries, ifd: interop)
        }
      }
    }

    // IFD1 and its thumbnail.
    let nextOffset = ifd0 + 2 + entries.count * 12
    guard let ifd1 = structure.u32(nextOffset), ifd1 != 0 else { return out }
    put32(0, at: nextOffset)
    guard !visited.contains(ifd1), let thumbnailEntries = structure.entries(ofIFDAt: ifd1) else { return out }
    var dropped: [Range<Int>] = [ifd1..<TIFFStructure.end(ofIFDAt: ifd1, entryCount: thumbnailEntries.count)]
    func ranges(offsets: Int, lengths: Int) -> [Range<Int>] {
      guard let o = thumbnailEntries.first(where: { $0.tag == offsets }), let l = thumbnailEntries.first(where: { $0.tag == lengths }),
        let start = structure.integer(o), let length = structure.integer(l), length > 0,
        start <= tiff.count, length <= tiff.count - start
      else { return [] }
      return [start..<(start + length)]
    }
    dropped += ranges(offsets: thumbnailOffsetTag, lengths: thumbnailLengthTag)
    dropped += ranges(offsets: stripOffsetsTag, lengths: stripByteCountsTag)
    for entry in thumbnailEntries { if let value = entry.value, value.lowerBound >= dropped[0].upperBound { dropped.append(value) } }
    let kept = merged(used)
    let usedEnd = kept.last?.upperBound ?? 8
    let firstDropped = dropped.map(\.lowerBound).min()!
    if firstDropped >= usedEnd {
      out.removeSubrange(max(firstDropped, 8)...)
    } else {
      for range in merged(dropped) {
        // Zero the parts of `range` no kept range covers.
        var from = max(range.lowerBound, 8)
        for k in kept where k.upperBound > from && k.lowerBound < range.upperBound {
          if k.lowerBound > from { for i in from..<k.lowerBound { out[i] = 0 } }
          from = max(from, k.upperBound)
        }
        if from < range.upperBound { for i in from..<range.upperBound { out[i] = 0 } }
      }
      // A dropped range that ends the block is cut off where nothing kept overlaps it.
      if let tail = merged(dropped).last, tail.upperBound == out.count {
        out.removeSubrange(max(tail.lowerBound, usedEnd, 8)...)
      }
    }
    return out
  }

  /// `ranges` sorted and joined where they overlap or touch.
  private static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
    var out: [Range<Int>] = []
    for r in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
      if let last = out.last, r.lowerBound <= last.upperBound {
        out[out.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
      } else {
        out.append(r)
      }
    }
    return out
  }
}
