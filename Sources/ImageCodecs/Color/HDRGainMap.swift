// HDRGainMap.swift — the gain map that turns an HDR image's tone-mapped SDR rendition
// (`HDRToneMapping`) back into its HDR light, so that an HDR (PQ/HLG) source can be written as an
// Ultra HDR JPEG: the SDR base by BT.2446 method A plus this map (`gainMapMetadata`).
//
// Per pixel and channel, with H the HDR light in BT.709 primaries and SDR-white units (cd/m² / 203,
// BT.2408's HDR reference white; components of BT.2020 colours outside BT.709 clipped to 0) and S
// the tone-mapped SDR light (linear, 0…1):
//   recovery = log2((H + 1/64) / (S + 1/64)), clamped to [−2, 6],
//   stored   = round(255 · (recovery + 2) / 8)      (gamma 1).
// A reader applying the map fully (Adobe's gain map / ISO 21496-1 rendition) gets
// H' = (S + 1/64) · 2^recovery − 1/64, H itself wherever the recovery is inside the range. The
// range: the operator darkens no channel by 4× or more except where gamut mapping lifted a
// component BT.709 cannot show (clamped there), and brightens by at most 2^6 (PQ's 10000 cd/m² over
// SDR black's offset). The full rendition's headroom is 10000 / 203 (log2 5.62), PQ's peak.
import Foundation
import PixelBufferModule

extension HDRToneMapping {
  /// The gain-map metadata of maps made by `gainMap(ofSignal:)`.
  public static let gainMapMetadata = GainMapMetadata(
    gainMapMin: [-2, -2, -2], gainMapMax: [6, 6, 6], hdrCapacityMin: 0, hdrCapacityMax: log2(10000 / 203))

  /// The 8-bit RGB gain map of `signal` (8- or 16-bit RGB(A), HDR signal in `transfer`, primaries to
  /// BT.2020 by `toBT2020`), written into `map` (8-bit RGB, the same width) from its row `firstRow`.
  public static func gainMap(
    ofSignal signal: PixelBuffer, into map: inout PixelBuffer, at firstRow: Int = 0, transfer: HDRTransfer, toBT2020: [SIMD3<Double>]
  ) {
    let channels = signal.format.channelCount, width = signal.width, height = signal.height
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
              let sdr = sdrLight(s, transfer: transfer, toBT2020: toBT2020)
              for c in 0..<3 {
                let recovery = min(max(log2((max(hdr[c], 0) + offset) / (sdr[c] + offset)), -2), 6)
                mapRow[x * 3 + c] = UInt8(((recovery + 2) / 8 * 255).rounded())
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
