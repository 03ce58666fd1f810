// Renderer+PQ.swift — `--hdr hdr` to AVIF or HEIC: the HDR rendition (base × gain map at the map's full
// headroom, linear light, BT.709 primaries, 1 = SDR white) written as a 12-bit (or 10-bit) file whose
// nclx box says BT.2020 primaries and the PQ transfer (SMPTE ST 2084):
//   - SDR white is placed at BT.2408's HDR reference white, 203 cd/m², so a rendition with headroom H
//     peaks at 203·H cd/m² (light above 10000 cd/m², PQ's ceiling, is clipped: a headroom of 49.3);
//   - linear BT.709 → BT.2020 by BT.2087's matrix (BT.709's gamut lies inside BT.2020's; the negative
//     values of extended-range colours are clipped to 0);
//   - the PQ inverse EOTF, s = ((c1 + c2·Y^m1) / (1 + c3·Y^m1))^m2 with Y = F / 10000;
//   - quality, effort, chroma and bit depth from the AVIF/HEIC options (default 12 bits: libheif 1.15
//     with libaom writes 10-bit AVIF at 4:2:2 only); the metadata is not copied (the rendition is a
//     new picture, not the base).
import Foundation
import ImageCodecs
import PixelBufferModule

extension Renderer {
  /// BT.2408's HDR reference white (cd/m²): where the rendition's 1 (SDR white) is placed.
  static let pqReferenceWhite = 203.0

  /// The AVIF or HEIC file of the rendition `values` (RGB floats, `width` × `height`).
  func pqHEIFBytes(_ values: [Float], width: Int, height: Int, format: ImageFileFormat, options: WriteOptions) throws -> Data {
    let chosen = HEIFEncodeOptions(try options.formatOptions.resolved(by: HEIFEncodeOptions.table))
    var settings = HEIFEncodeSettings(
      compression: format == .heic ? .hevc : .av1, quality: chosen.quality, isLossless: false, effort: chosen.effort,
      chroma: chosen.chroma, bitDepth: chosen.bitDepth.map { max($0, 10) } ?? 12)
    settings.nclx = (primaries: 9, transfer: 16)
    var pixels = try PixelBuffer.forDecoding(width: width, height: height, format: .rgb16, colorSpace: .sRGB, metadata: ImageMetadata())
    let m: [SIMD3<Double>] = [SIMD3(0.6274, 0.3293, 0.0433), SIMD3(0.0691, 0.9195, 0.0114), SIMD3(0.0164, 0.0880, 0.8956)]
    pixels.withUnsafeMutablePixels(as: UInt16.self) { p in
      for y in 0..<height {
        let row = p[row: y]
        for x in 0..<width {
          let i = (y * width + x) * 3
          let linear = SIMD3(Double(values[i]), Double(values[i + 1]), Double(values[i + 2]))
          for c in 0..<3 {
            let nits = max(0, (m[c] * linear).sum()) * Self.pqReferenceWhite
            row[x * 3 + c] = UInt16((Self.pqSignal(nits) * 65535).rounded())
          }
        }
      }
    }
    let encoder = try HEIFStreamEncoder(size: pixels.size, format: .rgb16, settings: settings)
    try encoder.write(rows: pixels)
    return try encoder.finish() ?? Data()
  }

  /// The PQ signal (0…1) of display light `nits` (cd/m², clipped to 0…10000).
  static func pqSignal(_ nits: Double) -> Double {
    let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
    let y = pow(min(max(nits / 10000, 0), 1), m1)
    return pow((c1 + c2 * y) / (1 + c3 * y), m2)
  }
}
