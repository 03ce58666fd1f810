// Renderer+HDRSignal.swift — `--hdr hdr` to AVIF, HEIC or PNG: the HDR rendition (base × gain map at
// the map's full headroom H, linear light, BT.709 primaries, 1 = SDR white) written as 16-bit PNG or
// 12-bit (or 10-bit) AVIF/HEIC samples of BT.2020 primaries and the PQ (SMPTE ST 2084) or HLG
// (ITU-R BT.2100) transfer (`WriteOptions.hdrTransfer`):
//   - SDR white is placed at BT.2408's HDR reference white, 203 cd/m², so the rendition peaks at
//     203·2^H cd/m² (display light F, BT.2020 RGB);
//   - linear BT.709 → BT.2020 by BT.2087's matrix (BT.709's gamut lies inside BT.2020's; the negative
//     values of extended-range colours are clipped to 0);
//   - PQ: the inverse EOTF, s = ((c1 + c2·Y^m1) / (1 + c3·Y^m1))^m2 with Y = F / 10000 (light above
//     10000 cd/m², PQ's ceiling, is clipped: a headroom of log2 49.3);
//   - HLG: BT.2100's inverse OOTF for a display of Lw = 1000 cd/m², black 0, γ = 1.2 — scene light
//     E = (F / Lw) · (Y_D / Lw)^((1 − γ)/γ), Y_D the display luminance (0.2627, 0.6780, 0.0593) —
//     each E clipped to 0…1 (light above the 1000 cd/m² display's range: a headroom of log2 4.9),
//     then the OETF, √(3E) for E ≤ 1/12 else a·ln(12E − b) + c (a = 0.17883277, b = 1 − 4a,
//     c = 0.5 − a·ln 4a). SDR white then sits at the 75 % signal BT.2408 names;
//   - declared (`HDRSignalMetadata`): H.273 primaries 9 and transfer 16 (PQ) or 18 (HLG) (PNG cICP,
//     HEIF nclx); the mastering display as BT.709's primaries and D65 (the gamut the rendition
//     fills) from 0 to min(203·2^H, the transfer's ceiling) cd/m²; MaxCLL and MaxFALL of the written
//     light, after the clip (for HLG, the OOTF of the clipped scene light) (PNG mDCv and cLLi, HEIF
//     mdcv and clli);
//   - AVIF/HEIC: quality, effort, chroma and bit depth from their options (default 12 bits: libheif
//     1.15 with libaom writes 10-bit AVIF at 4:2:2 only); PNG: compression and filter from its
//     options, always 16 bits. The metadata is not copied (the rendition is a new picture).
import Foundation
import ImageCodecs
import PixelBufferModule

extension Renderer {
  /// BT.2408's HDR reference white (cd/m²): where the rendition's 1 (SDR white) is placed.
  static let pqReferenceWhite = 203.0

  /// The AVIF, HEIC or PNG file of the rendition `values` (RGB floats, linear) of a map whose full
  /// headroom is `headroom` (log2).
  func hdrSignalBytes(_ values: PixelBuffer, headroom: Double, format: ImageFileFormat, options: WriteOptions) throws -> Data {
    let (pixels, signal) = try signalPixels(values, headroom: headroom, transfer: options.hdrTransfer)
    let encoder: any ImageRowEncoder
    if format == .png {
      var png = PNGCodec.EncodeOptions(try options.formatOptions.resolved(by: PNGCodec.EncodeOptions.table)).png
      png.hdrSignal = signal
      encoder = try PNGStreamEncoder(size: pixels.size, layout: .rgb, component: .uint16, options: png)
    } else {
      let chosen = HEIFEncodeOptions(try options.formatOptions.resolved(by: HEIFEncodeOptions.table))
      var settings = HEIFEncodeSettings(
        compression: format == .heic ? .hevc : .av1, quality: chosen.quality, isLossless: false, effort: chosen.effort,
        chroma: chosen.chroma, bitDepth: chosen.bitDepth.map { max($0, 10) } ?? 12)
      settings.hdrSignal = signal
      encoder = try HEIFStreamEncoder(size: pixels.size, format: .rgb16, settings: settings)
    }
    try encoder.write(rows: pixels)
    return try encoder.finish() ?? Data()
  }

  /// The 16-bit PQ or HLG samples of `values` and their description.
  func signalPixels(
    _ values: PixelBuffer, headroom: Double, transfer: HDRTransfer
  ) throws -> (PixelBuffer, HDRSignalMetadata) {
    let (width, height) = (values.width, values.height)
    var pixels = try PixelBuffer.forDecoding(width: width, height: height, format: .rgb16, colorSpace: .sRGB, metadata: ImageMetadata())
    let m: [SIMD3<Double>] = [SIMD3(0.6274, 0.3293, 0.0433), SIMD3(0.0691, 0.9195, 0.0114), SIMD3(0.0164, 0.0880, 0.8956)]
    // The light written, a row at a time: its peak and the sum of the rows' averages.
    var light = [Double](repeating: 0, count: width * 3)
    var levels = (maxCLL: 0.0, maxFALL: 0.0)
    values.withUnsafePixels(as: Float.self) { v in
      pixels.withUnsafeMutablePixels(as: UInt16.self) { p in
        for y in 0..<height {
          let row = p[row: y], source = v[row: y]
          for x in 0..<width {
            let i = x * 3
            let linear = SIMD3(Double(source[i]), Double(source[i + 1]), Double(source[i + 2]))
            let display = SIMD3((0..<3).map { max(0, (m[$0] * linear).sum()) * Self.pqReferenceWhite })
            let (signal, written) = transfer == .pq ? Self.pqSignal(display) : Self.hlgSignal(display)
            for c in 0..<3 {
              light[i + c] = written[c]
              row[i + c] = UInt16((signal[c] * 65535).rounded())
            }
          }
          let rowLevels = HDRSignalMetadata.contentLightLevels(light)
          levels = (max(levels.maxCLL, rowLevels.maxCLL), levels.maxFALL + rowLevels.maxFALL)
        }
      }
    }
    if height > 0 { levels.maxFALL /= Double(height) }
    let signal = HDRSignalMetadata(
      primaries: 9, transfer: transfer == .pq ? 16 : 18,
      masteringChromaticities: [0.640, 0.330, 0.300, 0.600, 0.150, 0.060, 0.3127, 0.3290], masteringMinLuminance: 0,
      masteringMaxLuminance: min(Self.pqReferenceWhite * pow(2, headroom), transfer == .pq ? 10000 : Self.hlgDisplayPeak),
      maxContentLightLevel: levels.maxCLL, maxFrameAverageLightLevel: levels.maxFALL)
    return (pixels, signal)
  }

  /// The nominal peak of the HLG display the signal is written for (cd/m²).
  static let hlgDisplayPeak = 1000.0

  /// The PQ signal (0…1) of display light `nits` (cd/m², BT.2020 RGB) and the light it encodes
  /// (clipped to 0…10000).
  static func pqSignal(_ nits: SIMD3<Double>) -> (signal: SIMD3<Double>, light: SIMD3<Double>) {
    let light = nits.clamped(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 10000))
    return (SIMD3((0..<3).map { pqSignal(light[$0]) }), light)
  }

  /// The PQ signal (0…1) of display light `nits` (cd/m², clipped to 0…10000).
  static func pqSignal(_ nits: Double) -> Double {
    let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
    let y = pow(min(max(nits / 10000, 0), 1), m1)
    return pow((c1 + c2 * y) / (1 + c3 * y), m2)
  }

  /// The HLG signal (0…1) of display light `nits` (cd/m², BT.2020 RGB) on a 1000 cd/m² display,
  /// and the display light it encodes (the OOTF of the clipped scene light).
  static func hlgSignal(_ nits: SIMD3<Double>) -> (signal: SIMD3<Double>, light: SIMD3<Double>) {
    let weights = SIMD3(0.2627, 0.6780, 0.0593), gamma = 1.2, peak = hlgDisplayPeak
    let displayLuminance = (weights * nits).sum() / peak
    guard displayLuminance > 0 else { return (.zero, .zero) }
    let ootfGain: Double = pow(displayLuminance, (1 - gamma) / gamma) / peak
    let scene = (nits * ootfGain).clamped(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 1))
    let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
    func oetf(_ e: Double) -> Double { e <= 1.0 / 12 ? (3 * e).squareRoot() : a * log(12 * e - b) + c }
    let signal = SIMD3(oetf(scene.x), oetf(scene.y), oetf(scene.z))
    let sceneLuminance: Double = (weights * scene).sum()
    let light = scene * (peak * pow(sceneLuminance, gamma - 1))
    return (signal, light)
  }
}
