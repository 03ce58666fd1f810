// FusedPointOperation.swift — a chain of per-pixel filters run as one pass over each tile.

import PixelBufferModule

/// A per-pixel operation that can merge with the next one into a single operation
/// (colour matrices multiply together; a custom kernel may not).
public protocol ComposablePointOperation: PointOperation {
  /// One operation equal to applying `self` and then `next`, or nil when they don't merge.
  func composed(with next: any PointOperation) -> (any PointOperation)?
}

/// Consecutive point operations fused by the optimizer: each row of a tile goes through every
/// stage while it is in cache, converting between linear and encoded values only where two
/// stages disagree.
public struct FusedPointOperation: ImageOperation {
  /// The stages, first applied first.
  public let stages: [any PointOperation]

  /// Fuses `stages`, merging neighbours that compose (colour matrices).
  public init(stages: [any PointOperation]) {
    var merged: [any PointOperation] = []
    for stage in stages {
      if let last = merged.last as? any ComposablePointOperation,
        last.workingSpace == stage.workingSpace,
        let both = last.composed(with: stage)
      {
        merged[merged.count - 1] = both
      } else {
        merged.append(stage)
      }
    }
    self.stages = merged
  }

  /// The descriptor of a fused run (`fused`; made by the optimizer, not a recipe filter).
  public static let table = OperationDescriptor(
    name: "fused", category: .colour, summary: "Per-pixel filters run as one pass (made by the optimizer).",
    parameters: [], example: "")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { Arguments() }
  /// The space the first stage wants its input in.
  public var workingSpace: WorkingSpace? { stages.first { $0.workingSpace != nil }?.workingSpace }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    for stage in stages { info = stage.outputInfo(inputs: [info]) }
    return info
  }

  /// The stages' labels joined by ` → `.
  public var label: String {
    stages.map { s in
      let args = s.arguments.description
      return args.isEmpty ? s.descriptor.name : "\(s.descriptor.name) \(args)"
    }.joined(separator: " → ")
  }

  /// Runs the stages over `tile`, which arrives in `inputSpace`, leaving it in `outputSpace`.
  func apply(to tile: inout Tile, inputSpace: WorkingSpace, outputSpace: WorkingSpace) {
    tile.withMutablePixels { px in
      for y in 0..<px.height {
        let row = px[row: y]
        var space = inputSpace
        for stage in stages {
          if let wanted = stage.workingSpace, wanted != space {
            if wanted == .linear { SRGBCurve.decodeRow(row, count: px.width) } else { SRGBCurve.encodeRow(row, count: px.width) }
            space = wanted
          }
          stage.apply(to: row, count: px.width)
        }
        if space != outputSpace {
          if outputSpace == .linear { SRGBCurve.decodeRow(row, count: px.width) } else { SRGBCurve.encodeRow(row, count: px.width) }
        }
      }
    }
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    output.buffer = inputs[0].buffer
    let space = workingSpace ?? .encoded
    apply(to: &output, inputSpace: space, outputSpace: space)
  }
}
