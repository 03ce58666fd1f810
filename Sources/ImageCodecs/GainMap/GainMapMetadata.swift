// GainMapMetadata.swift — what a gain map means: the numbers that turn a base image and its gain
// map into the other rendition (Adobe's gain map specification 1.0, `hdrgm:`; ISO 21496-1).
//
// With the base rendition SDR (the usual case), for each colour channel c, a gain-map sample
// g ∈ [0, 1] (code / 255), and a display whose headroom is H (its peak over SDR white, log2):
//
//   recovery  = g ^ (1 / gamma[c])
//   logBoost  = gainMapMin[c] · (1 − recovery) + gainMapMax[c] · recovery        (log2 units)
//   weight    = clamp((H − hdrCapacityMin) / (hdrCapacityMax − hdrCapacityMin), 0, 1)
//   HDR[c]    = (SDR[c] + offsetSDR[c]) · 2^(logBoost · weight) − offsetHDR[c]
//
// SDR and HDR are linear light, 1 being SDR white. With the base rendition HDR the roles of the two
// offsets swap and the weight is 1 − weight (the map then darkens towards SDR). `gainMapMin`,
// `gainMapMax`, `hdrCapacityMin` and `hdrCapacityMax` are log2 values in both encodings.
import Foundation

/// The gain-map metadata of one image, per colour channel (R, G, B; a single-channel file's values
/// repeated three times).
public struct GainMapMetadata: Hashable, Sendable {
  /// log2 of the smallest boost the map encodes (a sample of 0).
  public var gainMapMin: [Double]
  /// log2 of the largest boost the map encodes (a sample of 1).
  public var gainMapMax: [Double]
  /// The gamma the map's samples were encoded with (recovery = sample^(1/gamma)).
  public var gamma: [Double]
  /// Added to the SDR rendition's linear values before the boost.
  public var offsetSDR: [Double]
  /// Subtracted from the HDR rendition's linear values after it.
  public var offsetHDR: [Double]
  /// log2 of the display headroom below which the map is not applied at all.
  public var hdrCapacityMin: Double
  /// log2 of the display headroom from which the map is applied fully.
  public var hdrCapacityMax: Double
  /// True when the base image is the HDR rendition and the map leads to SDR.
  public var baseRenditionIsHDR: Bool
  /// ISO 21496-1's `use_base_colour_space`: the gain is applied in the base image's colour space
  /// (always true for Adobe's XMP, which has no such field).
  public var usesBaseColorSpace: Bool

  /// Adobe's defaults (`hdrgm:` fields absent): boosts 2^0…2^1, gamma 1, offsets 1/64, headroom 0…1.
  public init(
    gainMapMin: [Double] = [0, 0, 0], gainMapMax: [Double] = [1, 1, 1], gamma: [Double] = [1, 1, 1],
    offsetSDR: [Double] = [1.0 / 64, 1.0 / 64, 1.0 / 64], offsetHDR: [Double] = [1.0 / 64, 1.0 / 64, 1.0 / 64],
    hdrCapacityMin: Double = 0, hdrCapacityMax: Double = 1, baseRenditionIsHDR: Bool = false, usesBaseColorSpace: Bool = true
  ) {
    self.gainMapMin = gainMapMin
    self.gainMapMax = gainMapMax
    self.gamma = gamma
    self.offsetSDR = offsetSDR
    self.offsetHDR = offsetHDR
    self.hdrCapacityMin = hdrCapacityMin
    self.hdrCapacityMax = hdrCapacityMax
    self.baseRenditionIsHDR = baseRenditionIsHDR
    self.usesBaseColorSpace = usesBaseColorSpace
  }

  /// True when the three channels carry the same values (one set is written).
  public var isSingleChannel: Bool {
    [gainMapMin, gainMapMax, gamma, offsetSDR, offsetHDR].allSatisfy { $0[1] == $0[0] && $0[2] == $0[0] }
  }

  /// The headroom (log2) at which the map is applied fully: the HDR rendition's.
  public var headroom: Double { hdrCapacityMax }

  /// Why these values cannot describe a gain map, as a sentence, or nil when they can: every value
  /// finite, three per channel, gamma > 0, gainMapMax ≥ gainMapMin, 0 ≤ hdrCapacityMin <
  /// hdrCapacityMax, offsets ≥ 0, and every magnitude below 2^16 (a boost of 2^65536 is no image).
  public var problem: String? {
    let channels: [(String, [Double])] = [
      ("GainMapMin", gainMapMin), ("GainMapMax", gainMapMax), ("Gamma", gamma), ("OffsetSDR", offsetSDR), ("OffsetHDR", offsetHDR),
    ]
    for (name, values) in channels {
      guard values.count == 3 else { return "\(name) has \(values.count) values, not 1 or 3." }
      if let bad = values.first(where: { !$0.isFinite || abs($0) >= 65536 }) { return "\(name) is \(bad), not a finite number." }
    }
    for (name, value) in [("HDRCapacityMin", hdrCapacityMin), ("HDRCapacityMax", hdrCapacityMax)] where !value.isFinite || abs(value) >= 65536 {
      return "\(name) is \(value), not a finite number."
    }
    if let c = (0..<3).first(where: { gamma[$0] <= 0 }) { return "Gamma is \(gamma[c]); it must be positive." }
    if let c = (0..<3).first(where: { gainMapMax[$0] < gainMapMin[$0] }) {
      return "GainMapMax (\(gainMapMax[c])) is below GainMapMin (\(gainMapMin[c]))."
    }
    if let bad = (offsetSDR + offsetHDR).first(where: { $0 < 0 }) { return "An offset is \(bad); offsets cannot be negative." }
    guard hdrCapacityMin >= 0, hdrCapacityMax > hdrCapacityMin else {
      return "HDRCapacityMin (\(hdrCapacityMin)) and HDRCapacityMax (\(hdrCapacityMax)) must satisfy 0 ≤ min < max."
    }
    return nil
  }

  /// The weight the map is applied with on a display of headroom `displayHeadroom` (log2), towards
  /// the alternate rendition: 0 shows the base, 1 the other rendition.
  public func weight(displayHeadroom: Double) -> Double {
    let w = min(max((displayHeadroom - hdrCapacityMin) / (hdrCapacityMax - hdrCapacityMin), 0), 1)
    return baseRenditionIsHDR ? 1 - w : w
  }

  /// The factor channel `c` of a base pixel is multiplied by for a map sample `sample` (0…1) at
  /// `weight`, and the offsets around it: `other = (base + offsets.base) · factor − offsets.other`.
  @inline(__always)
  public func factor(sample: Double, channel c: Int, weight: Double) -> Double {
    exp2(logBoost(sample: sample, channel: c) * weight)
  }

  /// The log2 boost a map sample `sample` (0…1, clamped) stands for in channel `c`:
  /// `gainMapMin · (1 − r) + gainMapMax · r` with `r = sample^(1 / gamma)`.
  @inline(__always)
  public func logBoost(sample: Double, channel c: Int) -> Double {
    let recovery = pow(min(max(sample, 0), 1), 1 / gamma[c])
    return gainMapMin[c] * (1 - recovery) + gainMapMax[c] * recovery
  }

  /// The map sample (0…1) standing for the log2 boost `boost` in channel `c`, the inverse of
  /// `logBoost(sample:channel:)`: clamped to the map's range, 0 when the range is empty.
  public func sample(logBoost boost: Double, channel c: Int) -> Double {
    let span = gainMapMax[c] - gainMapMin[c]
    guard span > 0, gamma[c] > 0, !boost.isNaN else { return 0 }
    return pow(min(max((boost - gainMapMin[c]) / span, 0), 1), gamma[c])
  }

  /// The offsets of the base and the alternate rendition for channel `c`.
  public func offsets(channel c: Int) -> (base: Double, other: Double) {
    baseRenditionIsHDR ? (offsetHDR[c], offsetSDR[c]) : (offsetSDR[c], offsetHDR[c])
  }

  /// True when `other` carries the same values within `tolerance` (relative to each value's size,
  /// at least absolute `tolerance`): what two encodings of one map (XMP decimals, ISO fractions)
  /// must satisfy to agree.
  public func agrees(with other: GainMapMetadata, tolerance: Double = 1e-4) -> Bool {
    func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= tolerance * max(1, abs(a), abs(b)) }
    let mine = [gainMapMin, gainMapMax, gamma, offsetSDR, offsetHDR].flatMap { $0 } + [hdrCapacityMin, hdrCapacityMax]
    let theirs = [other.gainMapMin, other.gainMapMax, other.gamma, other.offsetSDR, other.offsetHDR].flatMap { $0 } + [
      other.hdrCapacityMin, other.hdrCapacityMax,
    ]
    return mine.count == theirs.count && zip(mine, theirs).allSatisfy(near) && baseRenditionIsHDR == other.baseRenditionIsHDR
  }
}
