// MultiPicture.swift — CIPA DC-007 Multi-Picture Format (MPF) index, as Ultra HDR uses it to say
// where its gain-map JPEG lies after the primary one.
//
// APP2 payload: `MPF\0`, then a TIFF structure (byte order, 42, offset of the MP Index IFD) with
// MPFVersion (0xB000, UNDEFINED[4] "0100"), NumberOfImages (0xB001, LONG) and MPEntry (0xB002,
// UNDEFINED[16 × images]). Each MP entry: u32 attribute (bits 24–26 the data format, 0 = JPEG;
// bits 0–23 the type, 0x030000 the baseline primary image), u32 size, u32 offset, u16 u16 the
// dependent images. The offset is counted from the TIFF header's first byte (the byte after
// `MPF\0`) and is 0 for the first image (the file itself starts there, not at the offset).
import Foundation

/// The images a Multi-Picture Format index lists.
public struct MultiPictureIndex: Hashable, Sendable {
  /// One image: where its bytes are in the file.
  public struct Image: Hashable, Sendable {
    /// The MP entry's attribute word.
    public var attribute: UInt32
    /// The bytes of the file it occupies.
    public var range: Range<Int>
  }

  /// The APP2 payload prefix.
  public static let signature: [UInt8] = Array("MPF".utf8) + [0]
  /// The most images read from one index (a phone writes 2 or 3).
  public static let maxImages = 16

  /// The images, the primary first.
  public var images: [Image]

  /// Reads the index in an APP2 payload (after the signature) that begins at file offset
  /// `tiffStart` in a file of `fileLength` bytes.
  ///
  /// - Throws: `.corrupt` when the structure is cut short, lists no images or more than
  ///   `maxImages`, or an image (other than the first) lies outside the file or overlaps the
  ///   index itself.
  public init(payload: [UInt8], tiffStart: Int, fileLength: Int) throws {
    func fail(_ why: String) -> CodecError { CodecError(.corrupt, "The JPEG's Multi-Picture index (MPF) \(why).") }
    guard let tiff = TIFFStructure(payload), let first = tiff.firstIFD, let entries = tiff.entries(ofIFDAt: first) else {
      throw fail("is not a readable TIFF structure")
    }
    guard let count = entries.first(where: { $0.tag == 0xB001 }).flatMap(tiff.integer), count >= 1 else {
      throw fail("gives no number of images")
    }
    guard count <= Self.maxImages else { throw fail("lists \(count) images; at most \(Self.maxImages) are read") }
    guard let list = entries.first(where: { $0.tag == 0xB002 }), let value = list.value, value.count >= 16 * count else {
      throw fail("has no entry for each of its \(count) images")
    }
    images = []
    for i in 0..<count {
      let at = value.lowerBound + 16 * i
      let attribute = UInt32(tiff.u32(at)!), size = tiff.u32(at + 4)!, offset = tiff.u32(at + 8)!
      let start = offset == 0 && i == 0 ? 0 : tiffStart + offset
      guard offset != 0 || i == 0, size > 0, start <= fileLength, size <= fileLength - start else {
        throw fail("places image \(i + 1) at bytes \(start)…\(start + size), outside the \(fileLength)-byte file")
      }
      guard i == 0 || start >= tiffStart + payload.count else {
        throw fail("places image \(i + 1) inside the primary image's header")
      }
      images.append(Image(attribute: attribute, range: start..<(start + size)))
    }
  }

  /// An index payload (signature included) for a primary image of `primaryLength` bytes followed
  /// by a gain map of `gainMapLength` bytes, written big-endian; `payloadStart` is the file offset
  /// of the byte after `MPF\0` (the APP2 segment's position decides it).
  public static func payload(primaryLength: Int, gainMapLength: Int, tiffStart: Int) -> [UInt8] {
    var out: [UInt8] = []
    func u16(_ v: Int) { out += [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    func u32(_ v: Int) { out += [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    out += [0x4D, 0x4D]
    u16(42)
    u32(8)
    // The MP Index IFD: 3 entries, then the next-IFD offset 0, then the 32 bytes of MP entries.
    let entriesAt = 8 + 2 + 3 * 12 + 4
    u16(3)
    u16(0xB000); u16(7); u32(4); out += Array("0100".utf8)
    u16(0xB001); u16(4); u32(1); u32(2)
    u16(0xB002); u16(7); u32(32); u32(entriesAt)
    u32(0)
    // Primary: a baseline primary JPEG (type 0x030000), offset 0. Gain map: an undefined-type
    // JPEG, counted from the TIFF header.
    u32(0x030000); u32(primaryLength); u32(0); u16(0); u16(0)
    u32(0); u32(gainMapLength); u32(primaryLength - tiffStart); u16(0); u16(0)
    return signature + out
  }

  /// The payload's length, which does not depend on the values in it.
  public static let payloadLength = 4 + 8 + 2 + 3 * 12 + 4 + 32
}
