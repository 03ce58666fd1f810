// GainMapBlending.swift — the gain map of a blend of two images that both have one (an Ultra HDR
// photo composited over another): the HDR rendition of the result is the same blend of the two HDR
// renditions, and the map is made again as its ratio to the blended SDR output.
//
// Definition: an `OverlayingOperation` C (composite, blend: mode, opacity, placement, working space)
// puts overlay S (w × h) on base B (size S_B); B's map M_B (metadata m_B) has size S_M, r = S_M / S_B
// per axis, and S has a map M_S (metadata m_S) of its own. The output's headroom is
// h = max(2^HDRCapacityMax of m_B, of m_S), so neither photo's highlights are clipped. At M_B's
// resolution, with C_r the same blend placed at the overlay's corners × r (rounded, as the map of
// an overlay without a map is placed: GainMapOverlay.swift):
//
//   B̄ = B box-averaged in linear light to S_M,   S̄ = S box-averaged to round(w·r) × round(h·r),
//   M̄_S = M_S resampled to that size on its stored values (as a scale repeats on a map),
//   H_B = (B̄ + o_B)·2^L_B − o′_B,   H_S = (S̄ + o_S)·2^L_S − o′_S (each map's log boost L, offsets
//   o, o′ and full headroom: GainMapRerendering.swift), S̄'s alpha kept,
//   SDR′ = clamp(C_r(B̄, S̄), 0, 1),   HDR′ = h · clamp(C_r(H_B / h, H_S / h), 0, 1),
//   L′_c = log2((HDR′_c + o′_c) / (SDR′_c + o_c)) with m_B's offsets, per channel (an RGB map).
//
// The blend is applied over the headroom as the rerendered treatment applies an edit
// (GainMapRerendering.swift: the modes are defined on 0…1, black to white of the display); for
// `over` in linear light C is linear, so HDR′ = C_r(H_B, H_S): the blend of the two renditions. Where
// the overlay does not reach, L′ = L_B (the base's rendition, stored again); where it covers opaquely,
// the overlay's own boost.
//
// Metadata: m_B's, with HDRCapacityMax log2(h) and GainMapMin/Max the union of the two maps' ranges.
// For `over` in linear light (a weighted mean of the two lights: `mapBlend`'s `mean`) the ratio is
// the (SDR + o)-weighted mean of the two ratios, so it stays within that union (up to the two maps'
// offsets differing); any other mode widens it to every boost a rerendering can give
// (`widenedForRerendering`), so none is clamped.
//
// Computed at the base map's resolution: the overlay's map is resampled to it (its finer detail, if
// it has more, is lost as any map at a lower resolution loses it), and where the overlay's edge
// falls inside a map pixel the box-averaged renditions blend the two photos' light by coverage.
import Foundation
import ImageCodecs
import PixelBufferModule

enum GainMapBlending {
  /// The map made again after `blend` (the overlaying operation repeated at the base map's
  /// resolution, `overlaySize` its overlay's size there) put `overlay` (with map `overlayMap`,
  /// `overlayMetadata`) on `base` (with `map`, `metadata`), and the metadata it is stored with.
  static func node(
    base: ImageNode, map: ImageNode, metadata: GainMapMetadata, overlay: ImageNode, overlayMap: ImageNode, overlayMetadata: GainMapMetadata,
    blend: any ImageOperation, overlaySize: Size, mean: Bool
  ) -> (ImageNode, GainMapMetadata) {
    let union = metadata.union(overlayMetadata)
    let stored = mean ? union : union.widenedForRerendering
    let headroom = union.fullHeadroom
    let baseSDR = ImageNode(
      operation: ScaleOperation(targetSize: map.info.size, kernel: .box, linearLight: true, allowsShrinkOnLoad: false), inputs: [base])
    let overlaySDR = ImageNode(
      operation: ScaleOperation(targetSize: overlaySize, kernel: .box, linearLight: true, allowsShrinkOnLoad: false), inputs: [overlay])
    let placedMap = ImageNode(
      operation: ScaleOperation(targetSize: overlaySize, kernel: .lanczos3, linearLight: false, allowsShrinkOnLoad: false), inputs: [overlayMap])
    let baseHDR = ImageNode(
      operation: GainMapRerendering.HDRRenditionOperation(metadata: metadata, gray: map.info.layout.isGray, headroom: headroom),
      inputs: [map, baseSDR])
    let overlayHDR = ImageNode(
      operation: GainMapRerendering.HDRRenditionOperation(
        metadata: overlayMetadata, gray: overlayMap.info.layout.isGray, headroom: headroom, keepsAlpha: true),
      inputs: [placedMap, overlaySDR])
    let hdr = ImageNode(operation: blend, inputs: [baseHDR, overlayHDR]), sdr = ImageNode(operation: blend, inputs: [baseSDR, overlaySDR])
    return (ImageNode(operation: GainMapRerendering.RatioMapOperation(metadata: stored), inputs: [map, hdr, sdr]), stored)
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
