// TileEvaluator.swift — computes one region of one node by pulling the regions it needs.

import PixelBufferModule

/// Evaluates regions of an optimized graph. Read-only and shared by all workers of a render;
/// each call keeps its own memo of regions of shared nodes.
final class TileEvaluator: Sendable {
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
    if inside == rect { return tile }
    var extended = TileConversion.extendEdges(tile, to: rect)
    extended.imageSize = node.info.size
    return extended
  }

  private func compute(_ node: ImageNode, _ rect: Rect, space: WorkingSpace, memo: inout [MemoKey: Tile]) throws -> Tile {
    let shared = plan.consumerCount[ObjectIdentifier(node), default: 0] > 1
    let key = MemoKey(node: ObjectIdentifier(node), rect: rect, space: space)
    if shared, let hit = memo[key] { return hit }
    var tile: Tile
    let op = node.operation
    if let source = op as? SourceOperation {
      tile = Tile(rect: rect, imageSize: node.info.size)
      if let stream = plan.streamed[ObjectIdentifier(node)] {
        try stream.prepare(rect.y..<rect.maxY)
        TileConversion.load(
          rows: { stream.row(rect.y + $0, x: rect.x) }, format: stream.format, colorSpace: stream.colorSpace,
          into: &tile, space: space, transform: plan.sourceTransforms[ObjectIdentifier(node)])
      } else if let pixels = plan.decoded[ObjectIdentifier(node)] {
        let origin = plan.decodedOrigins[ObjectIdentifier(node)] ?? Point(x: 0, y: 0)
        TileConversion.load(
          pixels.cropped(to: rect.offsetBy(dx: -origin.x, dy: -origin.y)), into: &tile, space: space,
          transform: plan.sourceTransforms[ObjectIdentifier(node)])
      } else {
        source.fill(&tile, space: space)
      }
    } else if let point = op as? any PositionalPointOperation {
      // In place on the input's tile (same rect), converting each row to `space` while in cache.
      let inSpace = point.workingSpace ?? space
      let outSpace = point.resultSpace ?? inSpace
      let size = node.info.size
      tile = try evaluate(node.inputs[0], rect, space: inSpace, memo: &memo)
      tile.withMutablePixels { px in
        for y in 0..<px.height {
          let row = px[row: y]
          point.apply(to: row, count: px.width, at: PixelRowPosition(x: rect.x, y: rect.y + y, imageSize: size))
          if outSpace != space { SRGBCurve.convertRow(row, count: px.width, to: space) }
        }
      }
    } else {
      let opSpace = op.workingSpace ?? space
      var inputs: [Tile] = []
      inputs.reserveCapacity(node.inputs.count)
      for (i, input) in node.inputs.enumerated() {
        let region = Regions.input(i, of: node, for: rect)
        inputs.append(try evaluate(input, region, space: opSpace, memo: &memo))
      }
      tile = Tile(rect: rect, imageSize: node.info.size)
      try op.render(into: &tile, inputs: inputs)
      if opSpace != space {
        tile.withMutablePixels { px in
          for y in 0..<px.height { SRGBCurve.convertRow(px[row: y], count: px.width, to: space) }
        }
      }
    }
    if shared { memo[key] = tile }
    return tile
  }
}
