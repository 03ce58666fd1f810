// JPEGMetadata.swift — EXIF, XMP, IPTC and comments in JPEG segments.
//
// - EXIF: APP1 `Exif\0\0` + TIFF structure (at most 65527 bytes).
// - XMP: APP1 `http://ns.adobe.com/xap/1.0/\0` + the packet (at most 65504 bytes; the extended XMP
//   of larger packets, split over `http://ns.adobe.com/xmp/extension/` segments, is not read).
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
  /// The prefix of a Photoshop APP13 payload.
  public static let photoshopSignature: [UInt8] = Array("Photoshop 3.0".utf8) + [0]
  /// The Photoshop image resource holding IPTC-IIM records.
  static let iptcResource = 0x0404
  /// The most payload bytes a segment holds (65535 minus the length field).
  public static let maxPayload = 65533

  /// `metadata` with the EXIF, XMP, IPTC and comment blocks of `segments` (APP1, APP13, COM, in
  /// file order) filled in.
  public static func read(_ segments: [JPEGSegment], into metadata: inout ImageMetadata) {
    for segment in segments {
      segment.payload.withUnsafeBytes { read(marker: segment.marker, payload: $0, into: &metadata) }
    }
  }

  /// Fills in the block of one segment (APP1, APP13 or COM; segments in file order) that
  /// `metadata` does not hold yet, copying only the bytes it keeps.
  public static func read(marker: Int, payload p: UnsafeRawBufferPointer, into metadata: inout ImageMetadata) {
    switch marker {
    case 0xE1 where metadata.exif == nil && p.starts(with: EXIF.app1Signature) && p.count > 6:
      metadata.exif = Data(UnsafeRawBufferPointer(rebasing: p[6...]))
    case 0xE1 where metadata.xmp == nil && p.starts(with: xmpSignature) && p.count > xmpSignature.count:
      metadata.xmp = Data(UnsafeRawBufferPointer(rebasing: p[xmpSignature.count...]))
    case 0xED where metadata.iptc == nil && p.starts(with: photoshopSignature):
      metadata.iptc = iptc(photoshopResources: ArraySlice(p[photoshopSignature.count...])).map { Data($0) }
    case 0xFE where metadata.comment == nil && !p.isEmpty:
      metadata.comment = text(Array(p))
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
    func add(_ marker: Int, _ payload: [UInt8], _ what: String, limit: Int) throws {
      guard payload.count <= maxPayload else {
        throw CodecError(
          .tooLarge,
          "The \(what) is \(payload.count - (maxPayload - limit)) bytes; a JPEG holds at most \(limit) bytes of it in one segment. Leave it out (--keep without it, or --strip).")
      }
      out.append(JPEGSegment(marker: marker, payload: payload))
    }
    if let exif = metadata.exif {
      try add(0xE1, EXIF.app1Signature + exif, "EXIF block", limit: maxPayload - EXIF.app1Signature.count)
    }
    if let xmp = metadata.xmp {
      try add(0xE1, xmpSignature + xmp, "XMP packet", limit: maxPayload - xmpSignature.count)
    }
    if let iptc = metadata.iptc {
      var payload = photoshopSignature + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
      let n = iptc.count
      payload += [UInt8(truncatingIfNeeded: n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
      payload += iptc
      if n & 1 == 1 { payload.append(0) }
      try add(0xED, payload, "IPTC block", limit: maxPayload - 26)
    }
    if let comment = metadata.comment {
      try add(0xFE, Array(comment.utf8), "comment", limit: maxPayload)
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
/// Only the chunks are copied, at most 255 of at most 65,519 bytes.
struct ICCProfileChunks {
  private static let signature = Array("ICC_PROFILE".utf8) + [0]
  private var chunks: [Int: [UInt8]] = [:]
  private var expected: Int?
  private var inconsistent = false

  /// Takes one APP2 payload; others than ICC chunks are ignored.
  mutating func add(_ p: UnsafeRawBufferPointer) {
    guard !inconsistent, p.count >= 14, p.starts(with: Self.signature) else { return }
    let sequence = Int(p[12]), count = Int(p[13])
    guard count > 0, sequence >= 1, sequence <= count, expected == nil || expected == count, chunks[sequence] == nil else {
      inconsistent = true
      chunks = [:]
      return
    }
    expected = count
    chunks[sequence] = Array(p[14...])
  }

  /// The profile, or nil when there is none or the chunks are inconsistent (missing, repeated, or
  /// disagreeing counts).
  var profile: Data? {
    guard !inconsistent, let expected, chunks.count == expected else { return nil }
    var profile = Data()
    for i in 1...expected { profile.append(contentsOf: chunks[i]!) }
    return profile.isEmpty ? nil : profile
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
