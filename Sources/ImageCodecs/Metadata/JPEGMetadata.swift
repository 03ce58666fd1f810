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
      let p = segment.payload
      switch segment.marker {
      case 0xE1 where metadata.exif == nil && p.starts(with: EXIF.app1Signature) && p.count > 6:
        metadata.exif = Data(p[6...])
      case 0xE1 where metadata.xmp == nil && p.starts(with: xmpSignature) && p.count > xmpSignature.count:
        metadata.xmp = Data(p[xmpSignature.count...])
      case 0xED where metadata.iptc == nil && p.starts(with: photoshopSignature):
        metadata.iptc = iptc(photoshopResources: p[photoshopSignature.count...]).map { Data($0) }
      case 0xFE where metadata.comment == nil && !p.isEmpty:
        metadata.comment = text(p)
      default: break
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
