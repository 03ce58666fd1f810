// Renderer+HDRSignal.swift — `--hdr hdr` to AVIF, HEIC or PNG: the HDR rendition (base × gain map at
// the map's full headroom H, linear light, BT.709 primaries, 1 = SDR white) written as 16-bit PNG or
// 12-bit (or 10-bit) AVIF/HEIC samples of BT.2020 primaries and the PQ transfer (SMPTE ST 2084):
//   - SDR white is placed at BT.2408's HDR reference white, 203 cd/m², so the rendition peaks at
//     203·2^H cd/m² (light above 10000 cd/m², PQ's ceiling, is clipped: a headroom of log2 49.3);
//   - linear BT.709 → BT.2020 by BT.2087's matrix (BT.709's gamut lies inside BT.2020's; the negative
//     values of extended-range colours are clipped to 0);
//   - the PQ inverse EOTF, s = ((c1 + c2·Y^m1) / (1 + c3·Y^m1))^m2 with Y = F / 10000;
//   - declared (`HDRSignalMetadata`): H.273 primaries 9 and transfer 16 (PNG cICP, HEIF nclx); the
//     mastering display as BT.709's primaries and D65 (the gamut the rendition fills) from 0 to
//     min(203·2^H, 10000) cd/m²; MaxCLL and MaxFALL of the written light, after the clip (PNG mDCv
//     and cLLi, HEIF mdcv and clli);
//   - AVIF/HEIC: quality, effort, chroma and bit depth from their options (default 12 bits: libheif
//     1.15 with libaom writes 10-bit AVIF at 4:2:2 only); PNG: compression and filter from its
//     options, always 16 bits. The metadata is not copied (the rendition is a new picture).
import Foundation
import ImageCodecs
import PixelBufferModule

extension Renderer {
  /// BT.2408's HDR reference white (cd/m²): where the rendition's 1 (SDR white) is placed.
  static let pqReferenceWhite = 203.0

  /// The AVIF, HEIC or PNG file of the rendition `values` (RGB floats, `width` × `height`) of a map
  /// whose full headroom is `headroom` (log2).
  func hdrSignalBytes(_ values: [Float], width: Int, height: Int, headroom: Double, format: ImageFileFormat, options: WriteOptions) throws -> Data {
    let (pixels, signal) = try pqPixels(values, width: width, height: height, headroom: headroom)
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

  /// The 16-bit PQ samples of `values` and their description.
  func pqPixels(_ values: [Float], width: Int, height: Int, headroom: Double) throws -> (PixelBuffer, HDRSignalMetadata) {
    var pixels = try PixelBuffer.forDecoding(width: width, height: height, format: .rgb16, colorSpace: .sRGB, metadata: ImageMetadata())
    let m: [SIMD3<Double>] = [SIMD3(0.6274, 0.3293, 0.0433), SIMD3(0.0691, 0.9195, 0.0114), SIMD3(0.0164, 0.0880, 0.8956)]
    var light = [Double](repeating: 0, count: values.count)
    pixels.withUnsafeMutablePixels(as: UInt16.self) { p in
      for y in 0..<height {
        let row = p[row: y]
        for x in 0..<width {
          let i = (y * width + x) * 3
          let linear = SIMD3(Double(values[i]), Double(values[i + 1]), Double(values[i + 2]))
          for c in 0..<3 {
            let nits = min(max(0, (m[c] * linear).sum()) * Self.pqReferenceWhite, 10000)
            light[i + c] = nits
            row[x * 3 + c] = UInt16((Self.pqSignal(nits) * 65535).rounded())
          }
        }
      }
    }
    let levels = HDRSignalMetadata.contentLightLevels(light)
    let signal = HDRSignalMetadata(
      primaries: 9, transfer: 16, masteringChromaticities: [0.640, 0.330, 0.300, 0.600, 0.150, 0.060, 0.3127, 0.3290],
      masteringMinLuminance: 0, masteringMaxLuminance: min(Self.pqReferenceWhite * pow(2, headroom), 10000),
      maxContentLightLevel: levels.maxCLL, maxFrameAverageLightLevel: levels.maxFALL)
    return (pixels, signal)
  }

  /// The PQ signal (0…1) of display light `nits` (cd/m², clipped to 0…10000).
  static func pqSignal(_ nits: Double) -> Double {
    let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
    let y = pow(min(max(nits / 10000, 0), 1), m1)
    return pow((c1 + c2 * y) / (1 + c3 * y), m2)
  }
}
