// GainMapISO.swift — gain-map metadata in ISO 21496-1's binary form, as JPEG carries it in APP2
// segments `urn:iso:std:iso:ts:21496:-1\0` (big-endian throughout):
//
//   u16 minimum_version (0), u16 writer_version
//   — the primary image's segment ends here; the gain map's goes on —
//   u8  flags: 0x80 multichannel (3 channel sets, else 1), 0x40 use_base_colour_space,
//              0x08 common denominator (one u32 denominator first, then numerators only)
//   base_hdr_headroom (u32 n / u32 d), alternate_hdr_headroom (u32 n / u32 d)
//   per channel: gain_map_min (s32/u32), gain_map_max (s32/u32), gamma (u32/u32),
//                base_offset (s32/u32), alternate_offset (s32/u32)
//
// The headroom of the base rendition is below the alternate's when the base is SDR: then
// hdrCapacityMin = base headroom, hdrCapacityMax = alternate headroom, and the base offset is
// OffsetSDR. A base rendition with the larger headroom is HDR and both pairs swap.
import Foundation

/// Reads and writes ISO 21496-1 gain-map metadata.
public enum GainMapISO {
  /// The APP2 payload prefix.
  public static let signature: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]

  /// The metadata in an ISO 21496-1 block (after the signature), or nil when the block is the
  /// primary image's version-only one.
  ///
  /// - Throws: `.unsupported` for a minimum version other than 0; `.corrupt` for a block cut
  ///   short, a zero denominator, or values that describe no gain map (`GainMapMetadata.problem`).
  public static func metadata(_ block: ArraySlice<UInt8>) throws -> GainMapMetadata? {
    var reader = Reader(bytes: block)
    let minimumVersion = try reader.u16()
    guard minimumVersion == 0 else {
      throw CodecError(.unsupported, "The ISO 21496-1 gain-map metadata needs a reader of version \(minimumVersion); version 0 is read.")
    }
    _ = try reader.u16()
    guard !reader.isAtEnd else { return nil }
    let flags = try reader.u8()
    let channels = flags & 0x80 != 0 ? 3 : 1
    let common: UInt32? = flags & 0x08 != 0 ? try reader.u32() : nil
    func fraction(signed: Bool, _ name: String) throws -> Double {
      let n = try reader.u32()
      let d = try common ?? reader.u32()
      guard d != 0 else { throw CodecError(.corrupt, "The ISO 21496-1 gain-map metadata's \(name) has a zero denominator.") }
      return (signed ? Double(Int32(bitPattern: n)) : Double(n)) / Double(d)
    }
    let baseHeadroom = try fraction(signed: false, "base headroom")
    let alternateHeadroom = try fraction(signed: false, "alternate headroom")
    var sets: [[Double]] = []
    for _ in 0..<channels {
      sets.append([
        try fraction(signed: true, "gain map minimum"), try fraction(signed: true, "gain map maximum"),
        try fraction(signed: false, "gamma"), try fraction(signed: true, "base offset"), try fraction(signed: true, "alternate offset"),
      ])
    }
    func channel(_ i: Int) -> [Double] { (0..<3).map { sets[channels == 3 ? $0 : 0][i] } }
    let baseIsHDR = baseHeadroom > alternateHeadroom
    let metadata = GainMapMetadata(
      gainMapMin: channel(0), gainMapMax: channel(1), gamma: channel(2),
      offsetSDR: baseIsHDR ? channel(4) : channel(3), offsetHDR: baseIsHDR ? channel(3) : channel(4),
      hdrCapacityMin: min(baseHeadroom, alternateHeadroom), hdrCapacityMax: max(baseHeadroom, alternateHeadroom),
      baseRenditionIsHDR: baseIsHDR, usesBaseColorSpace: flags & 0x40 != 0)
    if let problem = metadata.problem { throw CodecError(.corrupt, "The ISO 21496-1 gain-map metadata is invalid: \(problem)") }
    return metadata
  }

  /// The version-only block the primary image carries (without the signature).
  public static let versionBlock: [UInt8] = [0, 0, 0, 0]

  /// `metadata` as an ISO 21496-1 block (without the signature): each value as the closest
  /// fraction with a denominator below 2^30 (so a value read from a fraction with a smaller
  /// denominator is written as that same fraction).
  public static func block(_ metadata: GainMapMetadata) -> [UInt8] {
    var out: [UInt8] = versionBlock
    let channels = metadata.isSingleChannel ? 1 : 3
    out.append((channels == 3 ? 0x80 : 0) | (metadata.usesBaseColorSpace ? 0x40 : 0))
    func put(_ v: UInt32) { out += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    func put(_ value: Double, signed: Bool) {
      let (n, d) = fraction(value, limit: signed ? Int64(Int32.max) : Int64(UInt32.max))
      put(signed ? UInt32(bitPattern: Int32(n)) : UInt32(n))
      put(UInt32(d))
    }
    let sdrFirst = !metadata.baseRenditionIsHDR
    put(sdrFirst ? metadata.hdrCapacityMin : metadata.hdrCapacityMax, signed: false)
    put(sdrFirst ? metadata.hdrCapacityMax : metadata.hdrCapacityMin, signed: false)
    for c in 0..<channels {
      put(metadata.gainMapMin[c], signed: true)
      put(metadata.gainMapMax[c], signed: true)
      put(metadata.gamma[c], signed: false)
      let (base, other) = metadata.offsets(channel: c)
      put(base, signed: true)
      put(other, signed: true)
    }
    return out
  }

  /// The best rational approximation n/d of `value` with d < 2^30 and |n| ≤ `limit`
  /// (continued fractions, stopping once exact to double precision).
  static func fraction(_ value: Double, limit: Int64) -> (Int64, Int64) {
    let maxDenominator: Int64 = 1 << 30
    let sign: Int64 = value < 0 ? -1 : 1
    var x = abs(value)
    var (p0, q0, p1, q1): (Int64, Int64, Int64, Int64) = (0, 1, 1, 0)
    for _ in 0..<64 {
      guard x < Double(limit) else { break }
      let a = Int64(x.rounded(.down))
      let (p2, q2) = (a.multipliedReportingOverflow(by: p1).partialValue + p0, a.multipliedReportingOverflow(by: q1).partialValue + q0)
      guard q2 < maxDenominator, p2 <= limit, p2 >= 0 else { break }
      (p0, q0, p1, q1) = (p1, q1, p2, q2)
      let rest = x - Double(a)
      if rest < 1e-12 || abs(Double(p1) / Double(q1) - abs(value)) <= abs(value) * 1e-15 { break }
      x = 1 / rest
    }
    return q1 == 0 ? (0, 1) : (sign * p1, q1)
  }

  /// Big-endian reading that throws when the block ends.
  private struct Reader {
    let bytes: ArraySlice<UInt8>
    var at: Int
    init(bytes: ArraySlice<UInt8>) {
      self.bytes = bytes
      at = bytes.startIndex
    }
    var isAtEnd: Bool { at >= bytes.endIndex }
    mutating func u8() throws -> UInt8 {
      guard at < bytes.endIndex else { throw Self.short }
      defer { at += 1 }
      return bytes[at]
    }
    mutating func u16() throws -> UInt16 { UInt16(try u8()) << 8 | UInt16(try u8()) }
    mutating func u32() throws -> UInt32 { UInt32(try u16()) << 16 | UInt32(try u16()) }
    static let short = CodecError(.corrupt, "The ISO 21496-1 gain-map metadata ends before its last value.")
  }
}
