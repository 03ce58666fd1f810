// GainMapBranch.swift — the gain map of an Ultra HDR source, carried through an image's graph as a
// second branch at the map's own resolution.
//
// The branch starts at the map's JPEG bytes as an encoded source of its own (so the decode cache and
// shrink-on-load serve it as they serve the base) — for an HDR (PQ/HLG) AVIF/HEIC source, at the
// same file decoded with `gain-map` (the map that restores its HDR light from the tone-mapped SDR
// the graph works on, HDRGainMap.swift) — and repeats the base's operations on the map:
//
// - geometry that can repeat itself at the map's resolution (`ResolutionMappable`: scale, crop,
//   orient, extend, pad, affine, rotate by any angle, roundcorners — ResolutionMapping.swift) is
//   repeated there; new areas it paints with a colour get the map value meaning "no boost"
//   (`neutralFill`): that area is SDR content, and a boost there would brighten a border the user
//   chose; where it makes the map transparent, the map is flattened onto that value; a blur
//   (`mixesLight`) is applied at the map's resolution to both renditions instead, and the map made
//   again as their ratio (GainMapRerendering.swift);
// - a window chosen by an analysis of the base (`WindowChoosingOperation`: trim, smartcrop) is
//   taken by the map at its resolution (GainMapWindow.swift);
// - colour and tone operations that keep brighter brighter, and sharpen (`GainMapCarrying`), leave
//   the map as it is: the map is the ratio of the HDR rendition to the SDR one, so the HDR rendition
//   of the edited base is the same edit seen through the same highlights (recomputed where an edit
//   scaling the light takes the base past SDR white: GainMapClipping.swift); a power of the light
//   (`GainMapRescaling`: gamma) scales the map's log boosts, its metadata; any other per-pixel edit
//   (`PointOperation`: invert, a reversing curve) makes the map again from the edit applied to the
//   HDR rendition (GainMapRerendering.swift);
// - an overlay without a map of its own placed on the base (`OverlayingOperation`: composite, and so
//   text and logos) sets the map to "no boost" under it, blended by its coverage (GainMapOverlay.swift);
//   an overlay with a map of its own (`mapBlend`) makes the map again, at the base's resolution,
//   from the same blend of the two HDR renditions (GainMapBlending.swift), a base without a map
//   being SDR content, its own light (a map of "no boost");
// - which operation gets which, and why: GainMapPolicy.swift;
// - an operation that says its output is no picture of the scene's light (`GainMapEnding`:
//   `convolve preset=edges`) and anything else end
//   the branch: the output is written without its map, with a warning giving the reason.
import Foundation
import ImageCodecs
import PixelBufferModule

/// An image's gain map, following its geometry.
public struct GainMapBranch {
  /// The map as the graph leaves it (8-bit gray or RGB, stored values).
  public let map: Image
  /// What the map means (unchanged by geometry).
  public let metadata: GainMapMetadata
}

extension GainMapBranch {
  /// What `Renderer.explain` adds for an image with a gain map: the map's branch as the graph
  /// printer shows a graph, or why the map is not written; empty for other images.
  static func explanation(of image: Image, rendering: ColorRendering) -> String {
    switch image.gainMapBranch() {
    case (let branch?, _): return "\n\ngain map (written as Ultra HDR to JPEG):\n" + GraphPrinter.describe(branch.map.node, rendering: rendering)
    case (nil, let problem?): return "\n\ngain map: not written (\(problem))"
    default: return ""
    }
  }
}

extension Image {
  /// The gain map that follows this image's operations, or nil with the reason it cannot (nil
  /// reason: no source of the image has a gain map).
  public func gainMapBranch() -> (branch: GainMapBranch?, problem: String?) {
    switch Self.branch(of: node) {
    case .none: return (nil, nil)
    case .dropped(let why): return (nil, why)
    case .map(let map, let metadata, _):
      // Where the map became transparent (round corners), the output is flattened onto a colour:
      // SDR content, so no boost there.
      let flattened = map.info.layout.hasAlpha ? ImageNode(operation: StoredValuesFlattenOperation(fill: metadata.neutralFill), inputs: [map]) : map
      return (GainMapBranch(map: Image(node: flattened), metadata: metadata), nil)
    }
  }

  private enum BranchState {
    case none
    case dropped(String)
    /// The map, its metadata, and the ratio of the map's resolution to the base's per axis as the
    /// source has it (what a resample to an absolute size keeps: the map's own sizes are rounded).
    case map(ImageNode, GainMapMetadata, ratio: (Double, Double))
  }

  /// The state of every node below `root`, each computed once from its inputs' (a loop, not a
  /// recursion: graphs may be tens of thousands of nodes deep, and shared branches are visited
  /// once).
  private static func branch(of root: ImageNode) -> BranchState {
    var states: [ObjectIdentifier: BranchState] = [:]
    var pending: [(node: ImageNode, inputsDone: Bool)] = [(root, false)]
    while let (node, inputsDone) = pending.popLast() {
      guard states[ObjectIdentifier(node)] == nil else { continue }
      if inputsDone {
        states[ObjectIdentifier(node)] = step(node, node.inputs.map { states[ObjectIdentifier($0)] ?? .none })
      } else {
        pending.append((node, true))
        pending += node.inputs.filter { states[ObjectIdentifier($0)] == nil }.map { ($0, false) }
      }
    }
    return states[ObjectIdentifier(root)] ?? .none
  }

  /// A node's state from its inputs' `states`.
  private static func step(_ node: ImageNode, _ states: [BranchState]) -> BranchState {
    let sourceNode = node
    if let source = node.operation as? EncodedSourceOperation {
      if source.source.header.hdrTransfer != nil, let bytes = source.source.bytes {
        // An HDR source: its map restores the HDR light from the tone-mapped SDR (HDRGainMap.swift).
        var options = source.source.options
        options.formatOptions["gain-map"] = .boolean(true)
        guard let map = try? EncodedSource(data: bytes, options: options) else { return .dropped("its gain map could not be made") }
        let node = ImageNode(operation: EncodedSourceOperation(source: map), inputs: [])
        let peak = map.header.hdrPeak ?? HDRToneMapping.nominalPeak
        return .map(node, HDRToneMapping.gainMapMetadata(peak: peak), ratio: ResolutionRatio.of(node.info.size, sourceNode.info.size))
      }
      guard let gainMap = source.source.header.gainMap else { return .none }
      guard let bytes = source.source.gainMapBytes, let map = try? EncodedSource(data: bytes, options: LoadOptions()) else {
        return .dropped("its gain map could not be read again")
      }
      let node = ImageNode(operation: EncodedSourceOperation(source: map), inputs: [])
      return .map(node, gainMap.metadata, ratio: ResolutionRatio.of(node.info.size, sourceNode.info.size))
    }
    let carried = states.enumerated().compactMap { i, s -> (Int, ImageNode, GainMapMetadata, (Double, Double))? in
      if case .map(let m, let meta, let ratio) = s { return (i, m, meta, ratio) }
      return nil
    }
    if let dropped = states.lazy.compactMap({ s -> String? in if case .dropped(let why) = s { return why } else { return nil } }).first {
      return .dropped(dropped)
    }
    guard let (index, map, metadata, ratio) = carried.first else { return .none }
    let name = node.operation.descriptor.name
    if let overlaying = node.operation as? any OverlayingOperation, node.inputs.count == 2, index == 0 {
      let baseSize = node.inputs[0].info.size
      if carried.count == 2, let blend = overlaying.mapBlend(baseSize: baseSize, mapSize: baseSize) {
        // The overlay has a map of its own: the blend of the two HDR renditions, made at the base's
        // resolution (GainMapBlending.swift).
        let (_, overlayMap, overlayMetadata, _) = carried[1]
        guard !metadata.baseRenditionIsHDR, !overlayMetadata.baseRenditionIsHDR else {
          return .dropped("\(node.operation.descriptor.name) blends two images whose gain maps' base images are HDR renditions")
        }
        let (made, stored) = GainMapBlending.node(
          base: node.inputs[0], map: map, metadata: metadata, overlay: node.inputs[1], overlayMap: overlayMap, overlayMetadata: overlayMetadata,
          blend: blend.operation, overlaySize: blend.overlaySize, mean: blend.mean)
        return .map(made, stored, ratio: (1, 1))
      }
      let (operation, layer) = overlaying.mapOverlay(
        of: Image(node: node.inputs[1]), baseSize: baseSize, mapSize: map.info.size, fill: metadata.neutralFill,
        mapIsGray: map.info.layout.isGray)
      return .map(ImageNode(operation: operation, inputs: [map, layer.node]), metadata, ratio: ratio)
    }
    if let overlaying = node.operation as? any OverlayingOperation, node.inputs.count == 2, index == 1,
      let blend = overlaying.mapBlend(baseSize: node.inputs[0].info.size, mapSize: node.inputs[0].info.size)
    {
      // Only the overlay has a map: the base is SDR content, whose HDR rendition is its own light
      // (a map of "no boost" everywhere), and the two renditions are blended as two mapped
      // photos' are (GainMapBlending.swift).
      guard !metadata.baseRenditionIsHDR else {
        return .dropped("\(name) puts an image whose gain map's base image is an HDR rendition on one without a gain map")
      }
      let sdr = metadata.includingNoBoost
      let neutral = ImageNode(operation: ColorSourceOperation(color: sdr.neutralFill, size: node.inputs[0].info.size), inputs: [])
      let (made, stored) = GainMapBlending.node(
        base: node.inputs[0], map: neutral, metadata: sdr, overlay: node.inputs[1], overlayMap: map, overlayMetadata: metadata,
        blend: blend.operation, overlaySize: blend.overlaySize, mean: blend.mean)
      return .map(made, stored, ratio: (1, 1))
    }
    guard node.inputs.count == 1, index == 0 else {
      return .dropped(index > 0 ? "\(name) takes its gain map from an image other than its first, which has none" : "\(name) combines images, and gain maps are not combined")
    }
    let op = node.operation
    if let ending = op as? any GainMapEnding, let why = ending.gainMapEndsBecause { return .dropped(why) }
    switch GainMapTreatment.of(op) {
    case .windowed:
      if let window = op as? any WindowChoosingOperation {
        return .map(windowNode(window, base: node.inputs[0], map: map, fill: metadata.neutralFill), metadata, ratio: ratio)
      }
    case .transformed:
      if let geometry = op as? any ResolutionMappable,
        let mapped = geometry.mapped(from: node.inputs[0].info.size, to: map.info.size, ratio: ratio, fill: metadata.neutralFill)
      {
        let turned = (op as? any ScaleCommutingOperation)?.swapsAxes == true
        return .map(ImageNode(operation: mapped, inputs: [map]), metadata, ratio: turned ? (ratio.1, ratio.0) : ratio)
      }
    case .recomputed:
      if let scaling = op as? any LightScalingOperation {
        let (made, widened) = GainMapClipping.node(map: map, edited: node, largestOutput: scaling.largestOutput, metadata: metadata)
        return .map(made, widened, ratio: ratio)
      }
    case .rerendered where !metadata.baseRenditionIsHDR:
      // A blur at the map's resolution (the map ends when it cannot be repeated there), or the
      // per-pixel operation itself.
      let blur = (op as? any ResolutionMappable).flatMap { $0.mixesLight ? $0 : nil }
      let f = blur.map { $0.mapped(from: node.inputs[0].info.size, to: map.info.size, ratio: ratio, fill: metadata.neutralFill) } ?? op
      if let f {
        let (made, widened) = GainMapRerendering.node(map: map, base: node.inputs[0], operation: f, mean: blur != nil, metadata: metadata)
        return .map(made, widened, ratio: ratio)
      }
    case .carried: return .map(map, metadata, ratio: ratio)
    case .rescaled:
      if let power = (op as? any GainMapRescaling)?.gainMapLogScale { return .map(map, metadata.scalingLogBoosts(by: power), ratio: ratio) }
    case .overlaid, .rerendered, .dropped: break
    }
    return .dropped("\(name) is not applied to gain maps")
  }

  /// The map cropped to the window `window` chooses on `base`.
  private static func windowNode<W: WindowChoosingOperation>(_ window: W, base: ImageNode, map: ImageNode, fill: Color) -> ImageNode {
    GainMapWindowOperation.node(window, base: base, map: map, fill: fill)
  }
}

extension EncodedSource {
  /// The gain map's JPEG without its metadata (`UltraHDR.plainMapJPEG`), when the header found one in bytes held in memory.
  var gainMapBytes: Data? {
    guard let map = header.gainMap, let data = bytes, map.range.upperBound <= data.count else { return nil }
    return UltraHDR.plainMapJPEG(map, in: data)
  }
}

extension GainMapMetadata {
  /// This metadata with its boosts' range widened to hold a boost of 1 (log2 0), the boost of SDR
  /// content, so that its `neutralFill` stores exactly that.
  var includingNoBoost: GainMapMetadata {
    var m = self
    for c in 0..<3 {
      m.gainMapMin[c] = min(gainMapMin[c], 0)
      m.gainMapMax[c] = max(gainMapMax[c], 0)
    }
    return m
  }

  /// The map value (straight sRGB-encoded colour = stored samples) meaning a boost of 1 (log2 0):
  /// ((0 − min) / (max − min))^gamma per channel, clamped to 0…1.
  var neutralFill: Color {
    let v = (0..<3).map { Float(sample(logBoost: 0, channel: $0)) }
    return Color(red: v[0], green: v[1], blue: v[2])
  }
}
