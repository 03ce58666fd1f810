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
    if inside == rect { return try compute(node, inside, space: space, memo: &memo) }
    if rect.contains(inside) && !isShared(node) && hasStoredPixels(node) {
      // A decoded or streamed source loads straight into the larger tile and repeats its edges
      // there, without a second copy of the tile.
      var tile = try Tile(allocating: rect, imageSize: node.info.size)
      let inner = inside.offsetBy(dx: -rect.x, dy: -rect.y)
      try tile.withMutablePixels { pixels in
        try loadStored(node, inside, into: pixels.cropped(to: inner), space: space)
        TileConversion.extendEdges(in: pixels, around: inner)
      }
      return tile
    }
    var extended = try TileConversion.extendEdges(try compute(node, inside, space: space, memo: &memo), to: rect)
    extended.imageSize = node.info.size
    return extended
  }

  private func isShared(_ node: ImageNode) -> Bool { plan.consumerCount[ObjectIdentifier(node), default: 0] > 1 }

  private func hasStoredPixels(_ node: ImageNode) -> Bool {
    node.operation.asSource != nil
      && (plan.streamed[ObjectIdentifier(node)] != nil || plan.decoded[ObjectIdentifier(node)] != nil)
  }

  /// `rect` of a source whose pixels are decoded or streamed (`hasStoredPixels`), into `pixels`.
  private func loadStored(_ node: ImageNode, _ rect: Rect, into pixels: UnsafeMutablePixels<SIMD4<Float>>, space: WorkingSpace) throws {
    let transform = plan.sourceTransforms[ObjectIdentifier(node)]
    if let stream = plan.streamed[ObjectIdentifier(node)] {
      try stream.prepare(rect.y..<rect.maxY)
      TileConversion.load(
        rows: { stream.row(rect.y + $0, x: rect.x) }, format: stream.format, colorSpace: stream.colorSpace, into: pixels,
        space: space, transform: transform)
    } else if let decoded = plan.decoded[ObjectIdentifier(node)] {
      let origin = plan.decodedOrigins[ObjectIdentifier(node)] ?? Point(x: 0, y: 0)
      TileConversion.load(
        decoded.cropped(to: rect.offsetBy(dx: -origin.x, dy: -origin.y)), into: pixels, space: space, transform: transform)
    }
  }

  /// `rect` of a decoded source whose pixels are already the tile's (premultiplied float RGBA in
  /// `space`, no profile to apply), as a view of them: no copy, no fresh
  /// memory. An operation that writes to it copies it first (`Tile.withMutablePixels`).
  private func storedView(_ node: ImageNode, _ rect: Rect, space: WorkingSpace) -> Tile? {
    let id = ObjectIdentifier(node)
    guard let decoded = plan.decoded[id], plan.sourceTransforms[id] == nil, decoded.format == .rgbaFloatPremultiplied,
      decoded.colorSpace == (space == .linear ? .linearSRGB : .sRGB)
    else { return nil }
    let origin = plan.decodedOrigins[id] ?? Point(x: 0, y: 0)
    return Tile(rect: rect, buffer: decoded.cropped(to: rect.offsetBy(dx: -origin.x, dy: -origin.y)), imageSize: node.info.size)
  }

  /// The stored rows a `StoredRowsReader` node reads for `rect`, when it can have them: its input
  /// is a decoded or streamed 8-bit gray or RGB source, sRGB-encoded with no profile to apply,
  /// read by this node only, and the region overlaps it. Rows beyond the source are its nearest
  /// edge row; `columns` are the region's columns inside it (the rows point at the first of them).
  private func storedRows8(
    _ node: ImageNode, _ rect: Rect
  ) throws -> (rows: [UnsafePointer<UInt8>], columns: Range<Int>, channels: Int, region: Rect)? {
    guard node.inputs.count == 1, let input = node.inputs.first, hasStoredPixels(input),
      !isShared(input), plan.sourceTransforms[ObjectIdentifier(input)] == nil
    else { return nil }
    let region = Regions.input(0, of: node, for: rect)
    let inside = Regions.computed(region, extent: input.info.extent)
    guard !region.isEmpty, region.contains(inside) else { return nil }
    let columns = (inside.x - region.x)..<(inside.maxX - region.x)
    func sourceRow(_ r: Int) -> Int { min(max(region.y + r, inside.y), inside.maxY - 1) }
    func channels(_ format: PixelFormat, _ colorSpace: ColorSpace) -> Int? {
      guard format.component == .uint8, !colorSpace.isLinear else { return nil }
      return format.layout == .gray ? 1 : format.layout == .rgb ? 3 : nil
    }
    if let stream = plan.streamed[ObjectIdentifier(input)] {
      // A region taller than the ring (a sequential plan's reduction) is taken in bands instead.
      guard let n = channels(stream.format, stream.colorSpace), inside.height <= stream.capacity else { return nil }
      try stream.prepare(inside.y..<inside.maxY)
      let rows = (0..<region.height).map { stream.row(sourceRow($0), x: inside.x).assumingMemoryBound(to: UInt8.self) }
      return (rows, columns, n, region)
    }
    guard let decoded = plan.decoded[ObjectIdentifier(input)], let n = channels(decoded.format, decoded.colorSpace) else {
      return nil
    }
    // The decoded buffer lives as long as the plan, so its row addresses outlast this render.
    let origin = plan.decodedOrigins[ObjectIdentifier(input)] ?? Point(x: 0, y: 0)
    let view = decoded.cropped(to: inside.offsetBy(dx: -origin.x, dy: -origin.y))
    let rows = view.withUnsafeBaseAddress { base, rowBytes in
      (0..<region.height).map { UnsafePointer((base + (sourceRow($0) - inside.y) * rowBytes).assumingMemoryBound(to: UInt8.self)) }
    }
    return (rows, columns, n, region)
  }

  /// The most input pixels a `BandedInputReader` receives as one tile (64 MiB of float pixels at
  /// 16 bytes each); for a larger region it takes its input in bands.
  static let largestWholeInput = 1 << 22

  static func pixels(in rect: Rect) -> Int { max(rect.width, 0) * max(rect.height, 0) }

  /// Rows per band of an input region `width` pixels wide: about 2^20 pixels, at least 16 rows.
  static func bandRows(forWidth width: Int) -> Int { max(16, (1 << 20) / max(width, 1)) }

  /// `rect` of `node` from its input taken in bands (`BandedInputReader`). Each band is evaluated
  /// with a memo of its own, so that no band outlives its use.
  private func renderInBands(_ op: any BandedInputReader, _ node: ImageNode, _ rect: Rect, space: WorkingSpace) throws -> Tile {
    let input = node.inputs[0]
    let region = Regions.input(0, of: node, for: rect)
    let bandRows = Self.bandRows(forWidth: region.width)
    var tile = try Tile(allocating: rect, imageSize: node.info.size)
    try op.render(into: &tile, input: region, inputImageSize: input.info.size, bandRows: bandRows) { rows in
      var bandMemo: [MemoKey: Tile] = [:]
      return try evaluate(input, Rect(x: region.x, y: rows.lowerBound, width: region.width, height: rows.count), space: space, memo: &bandMemo)
    }
    return tile
  }

  private func compute(_ node: ImageNode, _ rect: Rect, space: WorkingSpace, memo: inout [MemoKey: Tile]) throws -> Tile {
    let shared = isShared(node)
    let key = MemoKey(node: ObjectIdentifier(node), rect: rect, space: space)
    if shared, let hit = memo[key] { return hit }
    var tile: Tile
    let op = node.operation
    if let source = op.asSource {
      if let view = storedView(node, rect, space: space) { return view }
      tile = try Tile(allocating: rect, imageSize: node.info.size)
      if hasStoredPixels(node) {
        try tile.withMutablePixels { try loadStored(node, rect, into: $0, space: space) }
      } else if let raster = plan.rasters[ObjectIdentifier(node)], let rasterized = source.asRasterized {
        if !raster.isDone { plan.rasterWaits.add(1, ordering: .relaxed) }
        try rasterized.fill(&tile, space: space, from: try raster.result().pixels)
      } else {
        try source.fill(&tile, space: space)
      }
    } else if let point = op.asPositionalPoint {
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
      if let reader = op as? any StoredRowsReader, reader.readsStoredRows, let stored = try storedRows8(node, rect) {
        tile = try Tile(allocating: rect, imageSize: node.info.size)
        try reader.render(
          into: &tile, rows: stored.rows, columns: stored.columns, channels: stored.channels, input: stored.region,
          inputImageSize: node.inputs[0].info.size)
      } else if let regional = op as? any RegionalOperation {
        // In place on input 0's tile, whose region is the output rectangle.
        tile = try evaluate(node.inputs[0], rect, space: opSpace, memo: &memo)
        var others: [Tile] = []
        for i in node.inputs.indices.dropFirst() {
          others.append(try evaluate(node.inputs[i], Regions.input(i, of: node, for: rect), space: opSpace, memo: &memo))
        }
        try regional.change(&tile, others: others)
      } else if let banded = op as? any BandedInputReader, node.inputs.count == 1,
        Self.pixels(in: Regions.input(0, of: node, for: rect)) > Self.largestWholeInput
      {
        tile = try renderInBands(banded, node, rect, space: opSpace)
      } else {
        var inputs: [Tile] = []
        inputs.reserveCapacity(node.inputs.count)
        for (i, input) in node.inputs.enumerated() {
          let region = Regions.input(i, of: node, for: rect)
          inputs.append(try evaluate(input, region, space: opSpace, memo: &memo))
        }
        // Allocated after the inputs: down a chain of operations only the tiles of the level
        // being computed are held, not one output tile per level waiting for its inputs.
        tile = try Tile(allocating: rect, imageSize: node.info.size)
        try op.render(into: &tile, inputs: inputs)
      }
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
