// JPEGMetadata.swift — EXIF, XMP, IPTC and comments in JPEG segments.
//
// - EXIF: APP1 `Exif\0\0` + TIFF structure (at most 65527 bytes).
// - XMP: APP1 `http://ns.adobe.com/xap/1.0/\0` + the packet (at most 65504 bytes).
// - Extended XMP (XMP specification part 3, 1.1.3.1): what does not fit the main packet is a second
//   serialized packet, split into APP1 segments `http://ns.adobe.com/xmp/extension/\0` + the
//   32-character GUID (the main packet's `xmpNote:HasExtendedXMP`, the MD5 of the extension in
//   upper-case hex) + the extension's full length (4 bytes, big-endian) + this piece's offset in it
//   (4 bytes) + the piece (at most 65458 bytes). It is read when the pieces with the main packet's
//   GUID agree on the length and cover it exactly (at most `MetadataLimits.maxBlockBytes`), and
//   written back as the same pieces, so its bytes, and the main packet's, survive unchanged.
// - IPTC: APP13 `Photoshop 3.0\0` + image resource blocks (`8BIM`, 16-bit id, padded Pascal name,
//   32-bit size, data padded to even); IPTC-IIM is resource 0x0404. Only that resource is read
//   and written (the others — a Photoshop thumbnail among them — are not kept).
// - Comment: COM, text (UTF-8 when valid, else Latin-1).
// The first segment of each kind is read.
import CJPEG
import Foundation
import PixelBufferModule

/// A metadata segment of a JPEG header.
public struct JPEGSegment: Hashable, Sendable {
  /// The marker: 0xE1 (APP1), 0xED (APP13) or 0xFE (COM).
  public var marker: Int
  /// The bytes after the length field.
  public var payload: [UInt8]

  /// Creates a segment.
  public init(marker: Int, payload: [UInt8]) {
    self.marker = marker
    self.payload = payload
  }
}

/// Reads and makes the metadata segments of JPEG files.
public enum JPEGMetadata {
  /// The prefix of an XMP APP1 payload.
  public static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
  /// The prefix of an extended-XMP APP1 payload (then GUID, full length, offset, piece).
  public static let xmpExtensionSignature: [UInt8] = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
  /// The most extension bytes one segment carries.
  static let maxXMPExtensionPiece = maxPayload - xmpExtensionSignature.count - 32 - 8
  /// The prefix of a Photoshop APP13 payload.
  public static let photoshopSignature: [UInt8] = Array("Photoshop 3.0".utf8) + [0]
  /// The Photoshop image resource holding IPTC-IIM records.
  static let iptcResource = 0x0404
  /// The most payload bytes a segment holds (65535 minus the length field).
  public static let maxPayload = 65533

  /// `metadata` with the EXIF, XMP, IPTC and comment blocks of `segments` (APP1, APP13, COM, in
  /// file order) filled in.
  public static func read(_ segments: [JPEGSegment], into metadata: inout ImageMetadata) {
    var pieces = XMPExtensionPieces()
    for segment in segments {
      segment.payload.withUnsafeBytes { read(marker: segment.marker, payload: $0, into: &metadata, extension: &pieces) }
    }
    pieces.finish(&metadata)
  }

  /// Fills in the block of one segment (APP1, APP13 or COM; segments in file order) that
  /// `metadata` does not hold yet, copying only the bytes it keeps; extended-XMP pieces go to
  /// `pieces`, whose `finish` reassembles them after the last segment.
  public static func read(
    marker: Int, payload p: UnsafeRawBufferPointer, into metadata: inout ImageMetadata, extension pieces: inout XMPExtensionPieces
  ) {
    switch marker {
    case 0xE1 where metadata.exif == nil && p.starts(with: EXIF.app1Signature) && p.count > 6:
      metadata.exif = Data(UnsafeRawBufferPointer(rebasing: p[6...]))
    case 0xE1 where metadata.xmp == nil && p.starts(with: xmpSignature) && p.count > xmpSignature.count:
      metadata.xmp = Data(UnsafeRawBufferPointer(rebasing: p[xmpSignature.count...]))
    case 0xED where metadata.iptc == nil && p.starts(with: photoshopSignature):
      metadata.iptc = iptc(photoshopResources: ArraySlice(p[photoshopSignature.count...])).map { Data($0) }
    case 0xFE where metadata.comment == nil && !p.isEmpty:
      metadata.comment = text(Array(p))
    case 0xE1 where p.starts(with: xmpExtensionSignature):
      pieces.add(UnsafeRawBufferPointer(rebasing: p[xmpExtensionSignature.count...]), mainPacket: metadata.xmp)
    default: break
    }
  }

  /// Calls `body` with the marker code and payload (the bytes after the length field, in place)
  /// of each segment of the JPEG in `bytes` before its first scan, in file order, reading the
  /// markers as libjpeg does: bytes before a marker that are not 0xFF and 0xFF fill bytes are
  /// skipped; RSTn, TEM and SOI have no length; SOS or EOI ends the walk, and so does a segment
  /// whose length runs past the data. Nothing is copied or kept.
  public static func forEachSegment(in bytes: UnsafeRawBufferPointer, _ body: (Int, UnsafeRawBufferPointer) -> Void) {
    let n = bytes.count
    guard n >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return }
    var i = 2
    while true {
      while i < n && bytes[i] != 0xFF { i += 1 }
      while i < n && bytes[i] == 0xFF { i += 1 }
      guard i < n else { return }
      let marker = Int(bytes[i])
      i += 1
      switch marker {
      case 0xDA, 0xD9: return
      case 0x01, 0xD0...0xD8: continue
      default:
        guard i + 2 <= n else { return }
        let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])
        guard length >= 2, length <= n - i else { return }
        body(marker, UnsafeRawBufferPointer(rebasing: bytes[(i + 2)..<(i + length)]))
        i += length
      }
    }
  }

  /// The GUID a main XMP packet names its extension by (`xmpNote:HasExtendedXMP`, as an attribute
  /// or an element): 32 hexadecimal digits, or nil.
  static func extendedXMPGUID(_ xmp: Data) -> [UInt8]? {
    let text = [UInt8](xmp)
    let name = Array("HasExtendedXMP".utf8)
    guard let at = text.indices.first(where: { text[$0...].starts(with: name) }) else { return nil }
    var i = at + name.count
    while i < text.count, [UInt8(ascii: "="), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ">"), UInt8(ascii: " ")].contains(text[i]) { i += 1 }
    guard i + 32 <= text.count else { return nil }
    let guid = Array(text[i..<i + 32])
    return guid.allSatisfy({ (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }) ? guid : nil
  }

  /// The extension reassembled from `pieces` (each: GUID, full length, offset, bytes) with GUID
  /// `guid`, or nil when they disagree on the length, overlap, leave a gap or exceed the limit.
  static func xmpExtension(guid: [UInt8], pieces: [ArraySlice<UInt8>]) -> Data? {
    func u32(_ p: ArraySlice<UInt8>, _ o: Int) -> Int { p[p.startIndex + o..<p.startIndex + o + 4].reduce(0) { $0 << 8 | Int($1) } }
    var total: Int?
    var parts: [(offset: Int, bytes: ArraySlice<UInt8>)] = []
    for p in pieces where p.count > 40 && p.prefix(32).elementsEqual(guid) {
      let length = u32(p, 32), offset = u32(p, 36)
      guard total == nil || total == length, length <= MetadataLimits.maxBlockBytes else { return nil }
      total = length
      parts.append((offset, p[(p.startIndex + 40)...]))
    }
    guard let total, total > 0 else { return nil }
    parts.sort { $0.offset < $1.offset }
    var out = Data(capacity: total)
    for part in parts {
      guard part.offset == out.count, part.offset + part.bytes.count <= total else { return nil }
      out.append(contentsOf: part.bytes)
    }
    return out.count == total ? out : nil
  }

  /// The IPTC-IIM data in a run of Photoshop image resource blocks, or nil.
  public static func iptc(photoshopResources bytes: ArraySlice<UInt8>) -> [UInt8]? {
    let b = Array(bytes)
    var i = 0
    func u16(_ o: Int) -> Int { Int(b[o]) << 8 | Int(b[o + 1]) }
    while i + 12 <= b.count, b[i..<(i + 4)].elementsEqual("8BIM".utf8) {
      let id = u16(i + 4)
      let nameLength = Int(b[i + 6])
      let nameField = (1 + nameLength + 1) & ~1  // length byte + name, padded to even
      let sizeAt = i + 6 + nameField
      guard sizeAt + 4 <= b.count else { return nil }
      let size = u16(sizeAt) << 16 | u16(sizeAt + 2)
      let dataAt = sizeAt + 4
      guard size <= b.count - dataAt else { return nil }
      if id == iptcResource { return size > 0 ? Array(b[dataAt..<(dataAt + size)]) : nil }
      i = dataAt + size + (size & 1)
    }
    return nil
  }

  /// The segments that carry `metadata`'s EXIF, XMP, IPTC and comment blocks, in the order they
  /// are written (EXIF, XMP, IPTC, comment). The ICC profile is not among them.
  ///
  /// - Throws: `.tooLarge` when a block does not fit in one segment.
  public static func segments(for metadata: ImageMetadata) throws -> [JPEGSegment] {
    var out: [JPEGSegment] = []
    /// Adds a segment holding a block of `size` bytes, or refuses it when the segment would exceed
    /// `maxPayload` (`limit` being the largest block that fits).
    func add(_ marker: Int, _ payload: [UInt8], _ what: String, size: Int, limit: Int) throws {
      guard payload.count <= maxPayload else {
        throw CodecError(
          .tooLarge,
          "The \(what) is \(size) bytes; a JPEG holds at most \(limit) bytes of it in one segment. Leave it out (--keep without it, or --strip).")
      }
      out.append(JPEGSegment(marker: marker, payload: payload))
    }
    if let exif = metadata.exif {
      try add(0xE1, EXIF.app1Signature + exif, "EXIF block", size: exif.count, limit: maxPayload - EXIF.app1Signature.count)
    }
    if let xmp = metadata.xmp {
      try add(0xE1, xmpSignature + xmp, "XMP packet", size: xmp.count, limit: maxPayload - xmpSignature.count)
      if let extended = metadata.xmpExtension, !extended.isEmpty {
        guard let guid = extendedXMPGUID(xmp) else {
          throw CodecError(
            .invalidArgument, "The extended XMP cannot be written: the main XMP packet names no extension (xmpNote:HasExtendedXMP).")
        }
        let bytes = [UInt8](extended)
        func u32(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
        for offset in stride(from: 0, to: bytes.count, by: maxXMPExtensionPiece) {
          let piece = bytes[offset..<min(offset + maxXMPExtensionPiece, bytes.count)]
          out.append(JPEGSegment(marker: 0xE1, payload: xmpExtensionSignature + guid + u32(bytes.count) + u32(offset) + piece))
        }
      }
    }
    if let iptc = metadata.iptc {
      var payload = photoshopSignature + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
      let n = iptc.count
      payload += [UInt8(truncatingIfNeeded: n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
      payload += iptc
      if n & 1 == 1 { payload.append(0) }
      // 26 bytes of signature and resource header, and the data padded to an even length.
      try add(0xED, payload, "IPTC block", size: n, limit: (maxPayload - 26) & ~1)
    }
    if let comment = metadata.comment {
      try add(0xFE, Array(comment.utf8), "comment", size: comment.utf8.count, limit: maxPayload)
    }
    return out
  }

  /// Text from bytes: UTF-8 when valid, else Latin-1; a trailing NUL is dropped.
  static func text(_ bytes: [UInt8]) -> String {
    var b = bytes
    while b.last == 0 { b.removeLast() }
    return String(validating: b, as: UTF8.self) ?? String(b.map { Character(Unicode.Scalar($0)) })
  }
}

/// An ICC profile split over APP2 segments, collected as the segments are read: each payload is
/// `"ICC_PROFILE\0"`, a 1-based sequence number, the chunk count, then the chunk (ICC.1, B.4).
/// Only the chunks are copied, at most 255 of at most 65,519 bytes. A profile is not descriptive
/// metadata (it says what the pixels' numbers mean): it has no limit of its own below that.
struct ICCProfileChunks {
  private static let signature = Array("ICC_PROFILE".utf8) + [0]
  /// The largest profile a JPEG holds: 255 segments of 65,519 bytes (a segment's 65,533 bytes of
  /// payload less the signature, sequence number and count).
  static let maxProfileBytes = 255 * 65_519
  private var chunks: [Int: [UInt8]] = [:]
  private var expected: Int?
  /// Why the chunks cannot make one profile, once that is known.
  private var fault: String?

  /// Takes one APP2 payload; others than ICC chunks are ignored.
  mutating func add(_ p: UnsafeRawBufferPointer) {
    guard fault == nil, p.count >= 14, p.starts(with: Self.signature) else { return }
    let sequence = Int(p[12]), count = Int(p[13])
    if count == 0 || sequence < 1 || sequence > count {
      fault = "a segment is numbered \(sequence) of \(count)"
    } else if let expected, expected != count {
      fault = "the segments disagree on their number (\(expected) and \(count))"
    } else if chunks[sequence] != nil {
      fault = "segment \(sequence) of \(count) appears twice"
    }
    guard fault == nil else {
      chunks = [:]
      return
    }
    expected = count
    chunks[sequence] = Array(p[14...])
  }

  /// The profile, or nil when there is none or the chunks are inconsistent (see `problem`).
  var profile: Data? {
    guard fault == nil, let expected, chunks.count == expected else { return nil }
    var profile = Data()
    for i in 1...expected { profile.append(contentsOf: chunks[i]!) }
    return profile.isEmpty ? nil : profile
  }

  /// Why the ICC_PROFILE segments make no profile (a segment missing or repeated, counts that
  /// disagree, impossible numbers), as a sentence; nil when they make one or there are none.
  var problem: String? {
    var reason = fault
    if reason == nil, let expected, chunks.count < expected {
      let missing = (1...expected).filter { chunks[$0] == nil }
      reason = "segment\(missing.count > 1 ? "s" : "") \(missing.prefix(8).map(String.init).joined(separator: ", "))\(missing.count > 8 ? "…" : "") of \(expected) \(missing.count > 1 ? "are" : "is") missing"
    }
    return reason.map { "Its ICC profile is split over APP2 segments that do not fit together (\($0)); its colours are read as sRGB." }
  }
}

/// Extended-XMP pieces (each: GUID, full length, offset, bytes) collected as segments are read,
/// copied. Once the main packet is read only the pieces with its GUID are kept; pieces before it
/// are kept whatever their GUID, at most `MetadataLimits.maxBlockBytes` plus one segment in all
/// (the longest extension that is read): past that the extension is not read.
public struct XMPExtensionPieces {
  private var pieces: [ArraySlice<UInt8>] = []
  private var bytes = 0
  private var overflowed = false

  /// No pieces yet.
  public init() {}

  /// Takes a piece (the payload after the signature), given the main packet when it is known.
  mutating func add(_ piece: UnsafeRawBufferPointer, mainPacket: Data?) {
    guard !overflowed else { return }
    if let mainPacket, let guid = JPEGMetadata.extendedXMPGUID(mainPacket), !piece.starts(with: guid) { return }
    bytes += piece.count
    guard bytes <= MetadataLimits.maxBlockBytes + JPEGMetadata.maxPayload else {
      overflowed = true
      pieces = []
      return
    }
    pieces.append(ArraySlice(piece))
  }

  /// Sets `metadata.xmpExtension` from the pieces named by its main packet; returns the record
  /// of the extension left out for being over `MetadataLimits.maxBlockBytes`.
  @discardableResult
  func finish(_ metadata: inout ImageMetadata) -> LeftOutMetadata? {
    guard let xmp = metadata.xmp, let guid = JPEGMetadata.extendedXMPGUID(xmp) else { return nil }
    let declared = pieces.lazy.filter { $0.count > 40 && $0.prefix(32).elementsEqual(guid) }.map { p in
      p[p.startIndex + 32..<p.startIndex + 36].reduce(0) { $0 << 8 | Int($1) }
    }.first
    if overflowed || (declared ?? 0) > MetadataLimits.maxBlockBytes {
      return MetadataLimits.leftOut(.xmp, "The JPEG's extended XMP", bytes: declared ?? bytes)
    }
    metadata.xmpExtension = JPEGMetadata.xmpExtension(guid: guid, pieces: pieces)
    return nil
  }
}

extension Array where Element == JPEGSegment {
  /// Calls `body` with the segments as the shim's `cj_marker` list (pointers valid during the call).
  func withMarkers<R>(_ body: (UnsafePointer<cj_marker>?, Int32) -> R) -> R {
    guard !isEmpty else { return body(nil, 0) }
    let joined = flatMap(\.payload)
    return joined.withUnsafeBufferPointer { base in
      var offset = 0
      let markers = map { segment -> cj_marker in
        defer { offset += segment.payload.count }
        return cj_marker(marker: Int32(segment.marker), data: base.baseAddress.map { $0 + offset }, length: segment.payload.count)
      }
      return markers.withUnsafeBufferPointer { body($0.baseAddress, Int32($0.count)) }
    }
  }
}
