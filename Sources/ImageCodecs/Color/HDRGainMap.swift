// HDRGainMap.swift — the gain map that turns an HDR image's tone-mapped SDR rendition
// (`HDRToneMapping`) back into its HDR light, so that an HDR (PQ/HLG) source can be written as an
// Ultra HDR JPEG: the SDR base by BT.2446 method A plus this map (`gainMapMetadata`).
//
// Per pixel and channel, with H the HDR light in BT.709 primaries and SDR-white units (cd/m² / 203,
// BT.2408's HDR reference white; components of BT.2020 colours outside BT.709 clipped to 0), S the
// tone-mapped SDR light (linear, 0…1) and P the content's peak (HDRContentPeak.swift, cd/m²):
//   headroom = log2(P / 203),   top = headroom + 1,
//   recovery = log2((H + 1/64) / (S + 1/64)), clamped to [−2, top],
//   stored   = round(255 · (recovery + 2) / (top + 2))      (gamma 1).
// A reader applying the map fully (Adobe's gain map / ISO 21496-1 rendition) gets
// H' = (S + 1/64) · 2^recovery − 1/64, H itself wherever the recovery is inside the range. The
// metadata says so: GainMapMin −2, GainMapMax `top`, HDRCapacityMax `headroom` (the full rendition
// is for a display of the content's own headroom, P / 203 × SDR white). The range: the operator
// darkens no channel by 4× or more except where gamut mapping lifted a component BT.709 cannot
// show (clamped there); the content's brightest grey, P / 203, is what method A maps to SDR white,
// so no grey needs more than `headroom`, but the weaker channels of saturated colours need up to
// about twice a grey's boost: on the tone-mapping tests' PQ pattern (hdr-tonemap-check.py, 400,
// 1000 and 4000 cd/m²) the rendition written as Ultra HDR and resized is 33.1–33.3 dB from the
// source's light with `top` = headroom, 38.2–38.9 dB with headroom + 1, 37.6–38.6 dB with + 1.5
// and + 2 (the 8 bits spread wider), 35.1–37.8 dB with the fixed [−2, 6] for a headroom of
// 10000 / 203 used before. A BT.709 component above the headroom (a saturated BT.2020 colour near
// the peak: up to 1.66 × P / 203) is clipped there, as libultrahdr's rendition clips.
import Foundation
import PixelBufferModule

extension HDRToneMapping {
  /// The gain-map metadata of the maps `gainMap(ofSignal:)` makes for content whose peak is `peak` cd/m².
  public static func gainMapMetadata(peak: Double) -> GainMapMetadata {
    let top = recoveryTop(peak: peak)
    return GainMapMetadata(gainMapMin: [-2, -2, -2], gainMapMax: [top, top, top], hdrCapacityMin: 0, hdrCapacityMax: log2(peak / 203))
  }

  /// The largest recovery (log2) of the maps for content whose peak is `peak` cd/m²: one stop above
  /// the headroom log2(peak / 203) (see the file's header).
  static func recoveryTop(peak: Double) -> Double { log2(peak / 203) + 1 }

  /// The 8-bit RGB gain map of `signal` (8- or 16-bit RGB(A) samples of the HDR signal `hdrSignal`),
  /// written into `map` (8-bit RGB, the same width) from its row `firstRow`.
  public static func gainMap(ofSignal signal: PixelBuffer, into map: inout PixelBuffer, at firstRow: Int = 0, hdrSignal: HDRSignal) {
    let channels = signal.format.channelCount, width = signal.width, height = signal.height
    let transfer = hdrSignal.transfer, toBT2020 = hdrSignal.toBT2020, peak = hdrSignal.peak
    let top = recoveryTop(peak: peak)
    let toBT709 = multipliedRows(bt2020ToBT709, toBT2020)
    let offset = 1.0 / 64
    func run<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) {
      let scale = Double(T.max)
      signal.withUnsafePixels(as: T.self) { source in
        map.withUnsafeMutablePixels(as: UInt8.self) { out in
          for y in 0..<height {
            let row = source[row: y], mapRow = out[row: firstRow + y]
            for x in 0..<width {
              let i = x * channels
              let s = SIMD3(Double(row[i]), Double(row[i + 1]), Double(row[i + 2])) / scale
              let light = displayLight(s, transfer: transfer)
              let hdr = SIMD3((toBT709[0] * light).sum(), (toBT709[1] * light).sum(), (toBT709[2] * light).sum()) / 203
              let sdr = sdrLight(s, transfer: transfer, toBT2020: toBT2020, hdrPeak: peak)
              for c in 0..<3 {
                let recovery = min(max(log2((max(hdr[c], 0) + offset) / (sdr[c] + offset)), -2), top)
                mapRow[x * 3 + c] = UInt8(((recovery + 2) / (top + 2) * 255).rounded())
              }
            }
          }
        }
      }
    }
    if signal.format.component == .uint16 { run(UInt16.self) } else { run(UInt8.self) }
  }

  /// The product `a · b` of 3×3 matrices (rows).
  static func multipliedRows(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> [SIMD3<Double>] {
    a.map { row in b[0] * row.x + b[1] * row.y + b[2] * row.z }
  }
}
