// HDRSignalMetadata.swift — what an HDR output file declares about its samples, in the forms the
// containers carry:
//   - the ITU-T H.273 colour primaries and transfer characteristics (PNG cICP, HEIF nclx), matrix 0
//     (RGB) or the encoder's own, full range;
//   - the mastering display colour volume (SMPTE ST 2086: red, green, blue and white chromaticities,
//     minimum and maximum luminance; PNG mDCv, HEIF mdcv);
//   - the content light levels (CTA-861.3): MaxCLL, the largest max(R, G, B) of any pixel, and
//     MaxFALL, the largest frame average of max(R, G, B) — for a still image, its average — both in
//     display light, cd/m² (PNG cLLi, HEIF clli).
import Foundation

/// The signal description of an HDR output (H.273 code points, SMPTE ST 2086, CTA-861.3).
public struct HDRSignalMetadata: Hashable, Sendable {
  /// H.273 `colour_primaries` (9: BT.2020).
  public var primaries: Int
  /// H.273 `transfer_characteristics` (16: PQ, 18: HLG).
  public var transfer: Int
  /// The mastering display's red, green, blue and white (x, y) chromaticities.
  public var masteringChromaticities: [Double]
  /// The mastering display's minimum luminance, cd/m².
  public var masteringMinLuminance: Double
  /// The mastering display's maximum luminance, cd/m².
  public var masteringMaxLuminance: Double
  /// MaxCLL, cd/m².
  public var maxContentLightLevel: Double
  /// MaxFALL, cd/m².
  public var maxFrameAverageLightLevel: Double

  /// Creates the description.
  public init(
    primaries: Int, transfer: Int, masteringChromaticities: [Double], masteringMinLuminance: Double, masteringMaxLuminance: Double,
    maxContentLightLevel: Double, maxFrameAverageLightLevel: Double
  ) {
    self.primaries = primaries
    self.transfer = transfer
    self.masteringChromaticities = masteringChromaticities
    self.masteringMinLuminance = masteringMinLuminance
    self.masteringMaxLuminance = masteringMaxLuminance
    self.maxContentLightLevel = maxContentLightLevel
    self.maxFrameAverageLightLevel = maxFrameAverageLightLevel
  }

  /// MaxCLL and MaxFALL of `light`: RGB triples of display light in cd/m².
  public static func contentLightLevels(_ light: [Double]) -> (maxCLL: Double, maxFALL: Double) {
    var peak = 0.0, sum = 0.0
    let pixels = light.count / 3
    for i in 0..<pixels {
      let m = max(light[3 * i], light[3 * i + 1], light[3 * i + 2], 0)
      peak = max(peak, m)
      sum += m
    }
    return (peak, pixels == 0 ? 0 : sum / Double(pixels))
  }

  /// A chromaticity in the containers' unit, 0.00002.
  func chromaticityCode(_ index: Int) -> UInt16 {
    UInt16((min(max(masteringChromaticities[index], 0), 1.3107) / 0.00002).rounded())
  }

  /// A luminance in the containers' 32-bit unit, 0.0001 cd/m².
  static func luminanceCode(_ nits: Double) -> UInt32 {
    UInt32((min(max(nits, 0), 429_496) * 10_000).rounded())
  }
}
