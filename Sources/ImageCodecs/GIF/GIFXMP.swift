// GIFXMP.swift — a GIF's XMP packet, from its "XMP DataXMP" application extension (XMP
// specification part 3, 1.1.2). The packet's bytes stand in the extension unframed: no length
// byte every 255 bytes, so a reader that walks them as data sub-blocks takes packet bytes for
// lengths. A 258-byte "magic trailer" follows — 0x01, then 0xFF, 0xFE … 0x00, then the empty block
// — whose descending bytes bring any such walk to that final empty block. The shim walks the
// extension with giflib and reports the bytes from after the application identifier up to the
// empty block (`cgif_info.xmp_offset`, `xmp_length`): the packet and the trailer's first 257 bytes.
import Foundation

enum GIFXMP {
  /// The magic trailer before the empty block: 0x01, 0xFF, 0xFE, …, 0x00.
  static let trailer: [UInt8] = [1] + (0...255).reversed().map { UInt8($0) }

  /// The packet at `range` of the GIF's bytes (nil: the file has no XMP extension), or the record
  /// of a packet left out: one over `MetadataLimits.maxBlockBytes` (not read), or data that does
  /// not end in the magic trailer (not laid out as XMP says, so where the packet ends is unknown).
  static func packet(at range: Range<Int>?, in input: GIFInput) throws -> (xmp: Data?, leftOut: LeftOutMetadata?) {
    guard let range, range.lowerBound >= 0, range.upperBound <= input.count else { return (nil, nil) }
    guard range.count >= trailer.count,
      try input.bytes((range.upperBound - trailer.count)..<range.upperBound).elementsEqual(trailer)
    else {
      return (nil, LeftOutMetadata(.xmp, "The GIF's XMP application extension does not end in XMP's magic trailer (XMP specification part 3); it is left out."))
    }
    let length = range.count - trailer.count
    guard length <= MetadataLimits.maxBlockBytes else {
      return (nil, MetadataLimits.leftOut(.xmp, "The GIF's XMP application extension", bytes: length))
    }
    return (length > 0 ? try input.bytes(range.lowerBound..<(range.lowerBound + length)) : nil, nil)
  }
}
