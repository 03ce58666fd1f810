// HEIFItemProperties.swift — the content light level (`clli`) and mastering display (`mdcv`)
// properties associated with one item of a HEIF file (AVIF or HEIC), read from its boxes: libheif
// 1.15 reports them only on decoded images.
//
// Boxes (ISO/IEC 14496-12 §4.2): a 32-bit size (1: a 64-bit size follows the type; 0: to the end
// of the enclosing box) and a four-character type; a FullBox starts its payload with a version byte
// and 24 bits of flags. The top-level `meta` (FullBox) holds `pitm`, the primary item (a 16-bit id
// in version 0, 32-bit in version 1), and `iprp` (ISO/IEC 23008-12 §9.3), which holds `ipco` — the
// property boxes, numbered from 1 in order — and `ipma` (FullBox): a 32-bit entry count, then per
// entry an item id (16 bits in version 0, 32 in version 1), an 8-bit association count and the
// associations, each an essential bit and a property index (7 bits, or 15 when flags bit 0 is set;
// 0 names no property). Several `ipma` boxes are read in order.
//
// An item's values are those of the first `clli` and the first `mdcv` among its associations:
// clli's MaxCLL (its first 16 bits, cd/m²) and mdcv's maximum luminance (the 32 bits after the
// three primaries' and the white point's 16-bit coordinates, 0.0001 cd/m²). A file's other items
// (a thumbnail, an alpha plane, a gain map) may declare other light; theirs are not the image's.
//
// Hostile input: every size, count and index is checked against the bytes holding it before it is
// used, and every loop advances through those bytes, so reading is bounded by the file's length. A
// box or entry that does not fit ends the reading of its list there; what could not be read is not
// declared (the content peak is then measured, as for a file that declares nothing).
import Foundation

enum HEIFItemProperties {
  /// The MaxCLL and mastering display maximum (cd/m²) associated with `item`, or with the primary
  /// item (`pitm`) when `item` is nil; nil for values the item has no property for.
  static func lightLevels(_ data: Data, item: UInt32? = nil) -> (maxCLL: Double?, masteringMax: Double?) {
    data.withUnsafeBytes { raw in
      let file = Boxes(bytes: raw)
      guard let meta = file.children(of: 0..<raw.count).first(where: { $0.type == "meta" })?.payload, meta.count >= 4 else {
        return (nil, nil)
      }
      let inMeta = file.children(of: (meta.lowerBound + 4)..<meta.upperBound)
      guard let id = item ?? inMeta.first(where: { $0.type == "pitm" }).flatMap({ file.primaryItem(in: $0.payload) }),
        let iprp = inMeta.first(where: { $0.type == "iprp" })?.payload
      else { return (nil, nil) }
      let inIprp = file.children(of: iprp)
      guard let ipco = inIprp.first(where: { $0.type == "ipco" })?.payload else { return (nil, nil) }
      let properties = file.children(of: ipco)
      var maxCLL: Double?, masteringMax: Double?
      for ipma in inIprp where ipma.type == "ipma" {
        for index in file.associations(of: id, in: ipma.payload) where index >= 1 && index <= properties.count {
          let property = properties[index - 1], at = property.payload.lowerBound
          if property.type == "clli", maxCLL == nil, property.payload.count >= 4 {
            maxCLL = Double(file.u16(at))
          } else if property.type == "mdcv", masteringMax == nil, property.payload.count >= 24 {
            masteringMax = Double(file.u32(at + 16)) / 10000
          }
        }
      }
      return (maxCLL, masteringMax)
    }
  }

  /// Big-endian reads and box lists over a file's bytes; callers check every offset first.
  private struct Boxes {
    let bytes: UnsafeRawBufferPointer

    func u8(_ at: Int) -> Int { Int(bytes[at]) }
    func u16(_ at: Int) -> Int { u8(at) << 8 | u8(at + 1) }
    func u32(_ at: Int) -> Int { u16(at) << 16 | u16(at + 2) }

    /// The boxes directly inside `range`, in order, up to the first whose size does not fit.
    func children(of range: Range<Int>) -> [(type: String, payload: Range<Int>)] {
      var boxes: [(type: String, payload: Range<Int>)] = []
      var at = range.lowerBound
      while range.upperBound - at >= 8 {
        var size = u32(at), header = 8
        if size == 1 {
          // A 64-bit size: more than 4 GiB never fits in the bytes held.
          guard range.upperBound - at >= 16, u32(at + 8) == 0 else { break }
          (size, header) = (u32(at + 12), 16)
        } else if size == 0 {
          size = range.upperBound - at
        }
        guard size >= header, size <= range.upperBound - at else { break }
        let type = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(at + 4)..<(at + 8)]), as: UTF8.self)
        boxes.append((type, (at + header)..<(at + size)))
        at += size
      }
      return boxes
    }

    /// The item id a `pitm` payload names, or nil when it does not fit.
    func primaryItem(in payload: Range<Int>) -> UInt32? {
      guard payload.count >= 6 else { return nil }
      if u8(payload.lowerBound) == 0 { return UInt32(u16(payload.lowerBound + 4)) }
      return payload.count >= 8 ? UInt32(u32(payload.lowerBound + 4)) : nil
    }

    /// The property indices an `ipma` payload associates with `item` (empty when it lists none, or
    /// when its entries stop fitting before the item's).
    func associations(of item: UInt32, in payload: Range<Int>) -> [Int] {
      guard payload.count >= 8 else { return [] }
      let version = u8(payload.lowerBound), wideIndices = u8(payload.lowerBound + 3) & 1 == 1
      let idBytes = version == 0 ? 2 : 4, indexBytes = wideIndices ? 2 : 1
      let entries = u32(payload.lowerBound + 4)
      var at = payload.lowerBound + 8
      for _ in 0..<entries {
        guard payload.upperBound - at >= idBytes + 1 else { return [] }
        let id = idBytes == 2 ? u16(at) : u32(at), count = u8(at + idBytes)
        at += idBytes + 1
        guard payload.upperBound - at >= count * indexBytes else { return [] }
        if id == Int(item) {
          return (0..<count).map { wideIndices ? u16(at + 2 * $0) & 0x7FFF : u8(at + $0) & 0x7F }
        }
        at += count * indexBytes
      }
      return []
    }
  }
}
