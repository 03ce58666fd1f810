// Info+GainMap.swift — `--hdr` as an argument, and how `fgrun info` describes an Ultra HDR file's gain map: its size and
// channels, the boosts it encodes (2^GainMapMin…2^GainMapMax, per channel when they differ), its
// gamma, and the display headroom at which it is fully applied (2^HDRCapacityMax).

import ArgumentParser
import FilterGraph
import Foundation
import ImageCodecs

extension Info {
  /// One line: `1920x1080 gray, boost 1…4.93 (log2 0…2.3), gamma 1, headroom 4.93 (log2 2.3), from ISO 21496-1`.
  static func gainMapText(_ map: GainMapImage) -> String {
    let m = map.metadata
    func values(_ v: [Double], _ f: (Double) -> String) -> String {
      v.allSatisfy({ $0 == v[0] }) ? f(v[0]) : v.map(f).joined(separator: "/")
    }
    func linear(_ v: Double) -> String { String(format: "%.4g", exp2(v)) }
    func log(_ v: Double) -> String { String(format: "%.4g", v) }
    let channels = map.layout == .gray ? "gray" : "rgb"
    return "\(map.size) \(channels), boost \(values(m.gainMapMin, linear))…\(values(m.gainMapMax, linear))"
      + " (log2 \(values(m.gainMapMin, log))…\(values(m.gainMapMax, log))), gamma \(values(m.gamma, log)),"
      + " headroom \(linear(m.hdrCapacityMax)) (log2 \(log(m.hdrCapacityMin))…\(log(m.hdrCapacityMax)))"
      + "\(m.baseRenditionIsHDR ? ", HDR base" : ""), from \(map.metadataSource)"
  }

  /// The gain map as a JSON object (log2 values as stored).
  static func gainMapObject(_ map: GainMapImage) -> [String: Any] {
    let m = map.metadata
    return [
      "width": map.size.width, "height": map.size.height, "channels": map.layout.channelCount,
      "gain_map_min": m.gainMapMin, "gain_map_max": m.gainMapMax, "gamma": m.gamma, "offset_sdr": m.offsetSDR, "offset_hdr": m.offsetHDR,
      "hdr_capacity_min": m.hdrCapacityMin, "hdr_capacity_max": m.hdrCapacityMax, "base_rendition_is_hdr": m.baseRenditionIsHDR,
      "metadata_source": map.metadataSource,
    ]
  }
}
extension HDROutput: ExpressibleByArgument {}
extension HDRTransfer: ExpressibleByArgument {}
