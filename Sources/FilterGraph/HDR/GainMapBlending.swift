// GainMapBlending.swift — the gain map of a blend of two images that both have one (an Ultra HDR
// photo composited over another): the HDR rendition of the result is the same blend of the two HDR
// renditions, and the map is made again as its ratio to the blended SDR output.
//
// Definition: an `OverlayingOperation` C (composite, blend: mode, opacity, placement, working space)
// puts overlay S (w × h) on base B (size S_B); B's map M_B (metadata m_B) and S's map M_S (metadata
// m_S) have their own resolutions (a base without a map is SDR content: M_B is then "no boost"
// everywhere and m_B is m_S with its range widened to hold a boost of 1, GainMapBranch.swift).
// The output's headroom is h = max(2^HDRCapacityMax of m_B, of
// m_S), so neither photo's highlights are clipped. At the base's resolution:
//
//   M̄_B = M_B resampled to S_B, M̄_S = M_S resampled to w × h, on their stored values (bilinear, as
//   the decoders interpolate a map),
//   H_B = (B + o_B)·2^L_B − o′_B,   H_S = (S + o_S)·2^L_S − o′_S (each map's log boost L from M̄,
//   offsets o, o′ and full headroom: GainMapRerendering.swift), S's alpha kept,
//   SDR′ = clamp(C(B, S), 0, 1),   HDR′ = h · clamp(C(H_B / h, H_S / h), 0, 1),
//   L′_c = log2((HDR′_c + o′_c) / (SDR′_c + o_c)) with m_B's offsets, per channel (an RGB map).
//
// The blend is applied over the headroom as the rerendered treatment applies an edit
// (GainMapRerendering.swift: the modes are defined on 0…1, black to white of the display); for
// `over` in linear light C is linear, so HDR′ = C(H_B, H_S): the blend of the two renditions. Where
// the overlay does not reach, L′ = L_B (the base's map, resampled); where it covers opaquely, the
// overlay's own boost.
//
// Why the base's resolution: at the overlay's edges the ratio steps from the overlay's boost to the
// base's within one pixel, and a map at a lower resolution cannot hold a step — a decoder
// interpolates its samples, so the step spreads over a map pixel and the overlay's border band
// shows the mean of the two boosts. GainMapBlendingTests' ramps (boosted up to 2² at their right
// edge) over the libvips fixture (about 2^0.3 there), with the map at the base map's quarter
// resolution: libultrahdr renders the overlay's last four columns at 2^1.1–2^1.4 instead of 2^1.9
// (errors of 0.8–1.5 on values of 2.6–2.9), 24.5 dB within the overlay and 42.2 dB without its
// 4-pixel border, where the quarter-resolution map was within 0.05 stops of the ratio of the box
// means. So the map is as large as the base (16 times the pixels of a quarter-size one, written
// and computed at the base's resolution) wherever two photos with maps are blended.
//
// Metadata: m_B's, with HDRCapacityMax log2(h) and GainMapMin/Max the union of the two maps' ranges.
// For `over` in linear light (a weighted mean of the two lights: `mapBlend`'s `mean`) the ratio is
// the (SDR + o)-weighted mean of the two ratios, so it stays within that union (up to the two maps'
// offsets differing); any other mode widens it to every boost a rerendering can give
// (`widenedForRerendering`), so none is clamped.
import Foundation
import ImageCodecs
import PixelBufferModule

enum GainMapBlending {
  /// The map made again, at the base's resolution, after `blend` (the overlaying operation at the
  /// base's resolution, `overlaySize` its overlay's size) put `overlay` (with map `overlayMap`,
  /// `overlayMetadata`) on `base` (with `map`, `metadata`), and the metadata it is stored with.
  static func node(
    base: ImageNode, map: ImageNode, metadata: GainMapMetadata, overlay: ImageNode, overlayMap: ImageNode, overlayMetadata: GainMapMetadata,
    blend: any ImageOperation, overlaySize: Size, mean: Bool
  ) -> (ImageNode, GainMapMetadata) {
    let union = metadata.union(overlayMetadata)
    let stored = mean ? union : union.widenedForRerendering
    let headroom = union.fullHeadroom
    let baseMap = ImageNode(
      operation: ScaleOperation(targetSize: base.info.size, kernel: .linear, linearLight: false, allowsShrinkOnLoad: false), inputs: [map])
    let placedMap = ImageNode(
      operation: ScaleOperation(targetSize: overlaySize, kernel: .linear, linearLight: false, allowsShrinkOnLoad: false), inputs: [overlayMap])
    let baseHDR = ImageNode(
      operation: GainMapRerendering.HDRRenditionOperation(metadata: metadata, gray: map.info.layout.isGray, headroom: headroom),
      inputs: [baseMap, base])
    let overlayHDR = ImageNode(
      operation: GainMapRerendering.HDRRenditionOperation(
        metadata: overlayMetadata, gray: overlayMap.info.layout.isGray, headroom: headroom, keepsAlpha: true),
      inputs: [placedMap, overlay])
    let hdr = ImageNode(operation: blend, inputs: [baseHDR, overlayHDR]), sdr = ImageNode(operation: blend, inputs: [base, overlay])
    return (ImageNode(operation: GainMapRerendering.RatioMapOperation(metadata: stored), inputs: [baseMap, hdr, sdr]), stored)
  }
}

extension GainMapMetadata {
  /// This metadata with its boosts' range and headroom widened to hold `other`'s too.
  func union(_ other: GainMapMetadata) -> GainMapMetadata {
    var m = self
    for c in 0..<3 {
      m.gainMapMin[c] = min(gainMapMin[c], other.gainMapMin[c])
      m.gainMapMax[c] = max(gainMapMax[c], other.gainMapMax[c])
    }
    m.hdrCapacityMax = max(hdrCapacityMax, other.hdrCapacityMax)
    return m
  }
}
