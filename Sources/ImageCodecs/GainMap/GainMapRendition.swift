// GainMapRendition.swift — the other rendition of a gain-map image, whole: for each base pixel
// (x, y) of a W×H base, the map is sampled bilinearly at the same point of the picture, with pixel
// centres aligned: map coordinate u = (x + ½) · w / W − ½ (likewise v), clamped to the map's edges;
// then each channel follows `GainMapMetadata` (a gray map's one sample serves all three). The base
// is 8-bit sRGB-encoded (its own primaries: the gain is applied in the base colour space) and is
// taken to linear light by the sRGB curve; the result is linear, 1 = SDR white.
import Foundation
import PixelBufferModule

/// Applies gain maps to whole images.
public enum GainMapRendition {
  /// The rendition of `base` (8-bit gray or RGB, sRGB-encoded) with `map` (8-bit gray or RGB, no
  /// larger than the base) and `metadata` on a display of headroom `displayHeadroom` (log2; by
  /// default the map's own, where it is applied fully): RGB 32-bit floats, linear sRGB, the base's size.
  ///
  /// - Throws: `PixelAllocationError` when the system refuses the rendition's memory (12 bytes a
  ///   pixel): a clear error, not a stopped process.
  public static func render(
    base: PixelBuffer, map: PixelBuffer, metadata: GainMapMetadata, displayHeadroom: Double? = nil
  ) throws(PixelAllocationError) -> PixelBuffer {
    let (w, h) = (base.width, base.height)
    let (mw, mh) = (map.width, map.height)
    let weight = metadata.weight(displayHeadroom: displayHeadroom ?? metadata.hdrCapacityMax)
    let baseChannels = base.channelCount, mapChannels = map.channelCount
    let offsets = (0..<3).map { metadata.offsets(channel: $0) }
    let linear: [Double] = (0..<256).map { i in
      let v = Double(i) / 255
      return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
    var out = try PixelBuffer.allocate(width: w, height: h, format: PixelFormat(layout: .rgb, component: .float32), colorSpace: .linearSRGB)
    out.withUnsafeMutablePixels(as: Float.self) { o in
    base.withUnsafePixels(as: UInt8.self) { b in
      map.withUnsafePixels(as: UInt8.self) { m in
        for y in 0..<h {
          let outRow = o[row: y]
          let v = min(max((Double(y) + 0.5) * Double(mh) / Double(h) - 0.5, 0), Double(mh - 1))
          let y0 = Int(v), y1 = min(y0 + 1, mh - 1), fy = v - Double(y0)
          let row = b[row: y]
          for x in 0..<w {
            let u = min(max((Double(x) + 0.5) * Double(mw) / Double(w) - 0.5, 0), Double(mw - 1))
            let x0 = Int(u), x1 = min(x0 + 1, mw - 1), fx = u - Double(x0)
            for c in 0..<3 {
              let mc = mapChannels >= 3 ? c : 0
              func sample(_ yy: Int, _ xx: Int) -> Double { Double(m[row: yy][xx * mapChannels + mc]) }
              let s = (sample(y0, x0) * (1 - fx) + sample(y0, x1) * fx) * (1 - fy) + (sample(y1, x0) * (1 - fx) + sample(y1, x1) * fx) * fy
              let factor = metadata.factor(sample: s / 255, channel: c, weight: weight)
              let sdr = linear[Int(row[x * baseChannels + (baseChannels >= 3 ? c : 0)])]
              outRow[x * 3 + c] = Float((sdr + offsets[c].base) * factor - offsets[c].other)
            }
          }
        }
      }
    }
    }
    return out
  }
}
