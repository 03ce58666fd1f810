// PNGCICP.swift — a PNG's cICP chunk (PNG 3rd edition, 11.3.2.6): four ITU-T H.273 code points,
// colour primaries, transfer characteristics, matrix coefficients (0: RGB, the only one PNG allows)
// and the full-range flag. cICP outranks iCCP, sRGB, gAMA and cHRM; one whose transfer is PQ or HLG
// makes the decoder tone-map the image to SDR sRGB (`HDRToneMapping`) and drop any ICC profile.
import Foundation

/// The code points of a cICP chunk.
struct PNGCICP: Hashable, Sendable {
  /// `colour_primaries` (1: BT.709, 9: BT.2020, 12: Display P3…).
  var primaries: Int
  /// `transfer_characteristics` (16: PQ, 18: HLG, 13: sRGB…).
  var transfer: Int
  /// `matrix_coefficients`: 0 (RGB) in a valid PNG.
  var matrix: Int
  /// Full-range samples (a narrow-range PNG maps its signal's 0…1 to 16/255…235/255 of the range).
  var isFullRange: Bool

  /// Red, green, blue and white (x, y) chromaticities of the H.273 primaries the cICP chunk names, or
  /// nil for a code this reader does not know (BT.709, BT.470 M and B/G, BT.601, film, BT.2020,
  /// DCI-P3, Display P3, EBU 3213).
  var chromaticities: [Double]? {
    let d65 = [0.3127, 0.3290], illuminantC = [0.310, 0.316]
    switch primaries {
    case 1: return [0.640, 0.330, 0.300, 0.600, 0.150, 0.060] + d65
    case 4: return [0.67, 0.33, 0.21, 0.71, 0.14, 0.08] + illuminantC
    case 5: return [0.640, 0.330, 0.290, 0.600, 0.150, 0.060] + d65
    case 6, 7: return [0.630, 0.340, 0.310, 0.595, 0.155, 0.070] + d65
    case 8: return [0.681, 0.319, 0.243, 0.692, 0.145, 0.049] + illuminantC
    case 9: return [0.708, 0.292, 0.170, 0.797, 0.131, 0.046] + d65
    case 11: return [0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.314, 0.351]
    case 12: return [0.680, 0.320, 0.265, 0.690, 0.150, 0.060] + d65
    case 22: return [0.630, 0.340, 0.295, 0.605, 0.155, 0.077] + d65
    default: return nil
    }
  }

  /// The chunk's HDR transfer (PQ or HLG), or nil.
  var hdrTransfer: HDRTransfer? { HDRTransfer(code: transfer) }

  /// The matrix from the primaries to BT.2020, and a sentence when the primaries are not known (the
  /// signal is then taken as BT.2020, HDR's usual primaries).
  var toBT2020: (matrix: [SIMD3<Double>], warning: String?) {
    if let c = chromaticities, let m = HDRToneMapping.toBT2020(chromaticities: c) { return (m, nil) }
    return (
      [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)],
      "The PNG's cICP chunk names colour primaries \(primaries), which FilterGraph does not know; they are taken as BT.2020's."
    )
  }
}

/// The peak light a PNG's cLLi and mDCv chunks declare (PNG 3rd edition, 11.3.2.7–8), cd/m².
struct PNGLightLevels: Hashable, Sendable {
  /// cLLi's MaxCLL, the largest max(R, G, B) of any pixel.
  var maxCLL: Double?
  /// mDCv's maximum luminance of the mastering display.
  var masteringMax: Double?
}
