// TileEvaluator.swift — computes one region of one node by pulling the regions it needs.

import PixelBufferModule

/// Evaluates regions of an optimized graph. Read-only and shared by all workers of a render;
/// each call keeps its own memo of regions of shared nodes.
final class TileEvaluator: @unchecked Sendable {
  let plan: RenderPlan

  init(plan: RenderPlan) { self.plan = plan }

  struct MemoKey: Hashable {
    let node: ObjectIdentifier
    let rect: Rect
    let space: WorkingSpace
  }

  /// Exactly `rect` of `node` in `space`; pixels outside the node's extent repeat its edges.
  func evaluate(_ node: ImageNode, _ rect: Rect, space: WorkingSpace, memo: inout [MemoKey: Tile]) throws -> Tile {
    let inside = Regions.computed(rect, extent: node.info.extent)
    let tile = try compute(node, inside, space: space, memo: &memo)
    return inside == rect ? tile : TileConversion.extendEdges(tile, to: rect)
  }

  private func compute(_ node: ImageNode, _ rect: Rect, space: WorkingSpace, memo: inout [MemoKey: Tile]) throws -> Tile {
    let shared = plan.consumerCount[ObjectIdentifier(node), default: 0] > 1
    let key = MemoKey(node: ObjectIdentifier(node), rect: rect, space: space)
    if shared, let hit = memo[key] { return hit }
    var tile: Tile
    let op = node.operation
    if let source = op as? SourceOperation {
      tile = Tile(rect: rect)
      if let stream = plan.streamed[ObjectIdentifier(node)] {
        try stream.prepare(rect.y..<rect.maxY)
        TileConversion.load(
          rows: { stream.row(rect.y + $0, x: rect.x) }, format: stream.format, colorSpace: stream.colorSpace,
          into: &tile, space: space, transform: plan.sourceTransforms[ObjectIdentifier(node)])
      } else if let pixels = plan.decoded[ObjectIdentifier(node)] {
        TileConversion.load(pixels.cropped(to: rect), into: &tile, space: space, transform: plan.sourceTransforms[ObjectIdentifier(node)])
      } else {
        source.fill(&tile, space: space)
      }
    } else if let fused = op as? FusedPointOperation {
      let inSpace = fused.workingSpace ?? space
      tile = try evaluate(node.inputs[0], rect, space: inSpace, memo: &memo)
      fused.apply(to: &tile, inputSpace: inSpace, outputSpace: space)
    } else if let point = op as? any PointOperation {
      let opSpace = point.workingSpace ?? space
      tile = try evaluate(node.inputs[0], rect, space: opSpace, memo: &memo)
      tile.withMutablePixels { px in
        for y in 0..<px.height { point.apply(to: px[row: y], count: px.width) }
      }
      if opSpace != space { convert(&tile, from: opSpace, to: space) }
    } else {
      let opSpace = op.workingSpace ?? space
      let infos = node.inputs.map(\.info)
      var inputs: [Tile] = []
      inputs.reserveCapacity(node.inputs.count)
      for (i, input) in node.inputs.enumerated() {
        let region = Regions.input(i, of: node, for: rect)
        inputs.append(try evaluate(input, region, space: opSpace, memo: &memo))
      }
      tile = Tile(rect: rect)
      try op.render(into: &tile, inputs: inputs, inputInfos: infos)
      if opSpace != space { convert(&tile, from: opSpace, to: space) }
    }
    if shared { memo[key] = tile }
    return tile
  }

  private func convert(_ tile: inout Tile, from: WorkingSpace, to: WorkingSpace) {
    tile.withMutablePixels { px in
      for y in 0..<px.height {
        if to == .linear { SRGBCurve.decodeRow(px[row: y], count: px.width) } else { SRGBCurve.encodeRow(px[row: y], count: px.width) }
      }
    }
  }
}
