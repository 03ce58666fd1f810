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
public struct FusedPointOperation: PositionalPointOperation {
  /// The stages, first applied first.
  public let stages: [any PositionalPointOperation]

  /// Fuses `stages`, merging neighbours that compose (colour matrices).
  public init(stages: [any PositionalPointOperation]) {
    var merged: [any PositionalPointOperation] = []
    for stage in stages {
      if let last = merged.last as? any ComposablePointOperation, let stage = stage as? any PointOperation,
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
    name: "fused", category: .color, summary: "Per-pixel filters run as one pass (made by the optimizer).",
    parameters: [], example: "")

  public var descriptor: OperationDescriptor { Self.table }
  /// The stages' labels (`stages=tint … → gamma …`): two fused passes are the same computation
  /// only when their stages are.
  public var arguments: Arguments { Arguments([("stages", .choice(label))]) }
  /// The space the first stage wants its input in.
  public var workingSpace: WorkingSpace? { stages.first { $0.workingSpace != nil }?.workingSpace }
  /// The space the last stage leaves its pixels in.
  public var resultSpace: WorkingSpace? { stages.last { $0.resultSpace != nil }?.resultSpace }

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

  /// Runs the stages over one row, which arrives in `workingSpace` and is left in `resultSpace`.
  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int, at position: PixelRowPosition) {
    var space = workingSpace
    for stage in stages {
      if let wanted = stage.workingSpace, let current = space, wanted != current {
        SRGBCurve.convertRow(pixels, count: count, to: wanted)
      }
      stage.apply(to: pixels, count: count, at: position)
      space = stage.resultSpace ?? space
    }
  }
}
