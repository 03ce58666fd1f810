// TileWriter.swift — computes one tile of the output and stores it into its band, in the
// output's format.
//
// Tiles are evaluated in the space the output needs and stored by one of four paths: rows copied
// as bytes when the graph is just its source in the output's own format (PassThrough), or when
// the tile lies outside every rectangle a chain of `RegionalOperation`s above such a source
// changes (a credit composited on a photo: every tile but the credit's is the photo's rows, and a
// tile the credit touches computes only the bounding box of what it touches); through
// an lcms2 transform into an output ICC profile; linear light straight to 8-bit sRGB codes
// through one table (TileConversion.storeLinear8); or the plain store of encoded values.

import Foundation
import PixelBufferModule

/// How the tiles of one render are computed and stored.
struct TileWriter {
  private let plan: RenderPlan
  private let evaluator: TileEvaluator
  private let format: PixelFormat
  private let passThrough: PassThrough?
  /// What the root's `RegionalOperation`s change, and the copy of the stored source below them
  /// for the tiles outside every one of those rectangles.
  private let regional: (changed: [Rect], copy: PassThrough)?
  private let outputTransform: ColorTransform?
  /// Linear tiles go to 8-bit codes through one table (`storeLinear8`).
  private let linearStore: Bool
  /// The space tiles are evaluated in.
  private let evaluationSpace: WorkingSpace

  /// The writer of `plan`'s tiles in `format`; with `outputTransform` (an output ICC profile)
  /// tiles are evaluated in linear light and stored through it.
  init(plan: RenderPlan, format: PixelFormat, outputTransform: ColorTransform?) {
    self.plan = plan
    self.evaluator = TileEvaluator(plan: plan)
    self.format = format
    self.outputTransform = outputTransform
    // A linear-tagged image (`converted(to: .linearSRGB)`) is evaluated in linear light so its
    // values are written without the sRGB curve.
    let storeSpace: WorkingSpace = plan.root.info.colorSpace.isLinear ? .linear : .encoded
    // A root that computes in linear light and an 8-bit encoded output: the tiles stay linear and
    // go to codes through one table, not encode-then-quantise.
    linearStore = storeSpace == .encoded && TileConversion.storesLinear8(format) && Renderer.outputSpace(of: plan.root) == .linear
    evaluationSpace = linearStore || outputTransform != nil ? .linear : storeSpace
    // Stored pixels are copied unchanged only when they are already in the output's colour space:
    // no output profile, or the very profile they are stored in (`--profile keep`).
    let storedAsWritten: Bool
    if let outputTransform {
      if case .icc(let stored) = plan.root.info.colorSpace { storedAsWritten = stored == outputTransform.profileData } else { storedAsWritten = false }
    } else {
      storedAsWritten = true
    }
    passThrough = storedAsWritten ? PassThrough(plan: plan, format: format) : nil
    regional = passThrough == nil && storedAsWritten ? Self.regionalCopy(plan, format: format) : nil
  }

  /// The rectangles the root's chain of `RegionalOperation`s changes and the copy of the source
  /// at its foot, when that source is stored in `format` with no profile to apply (its pixels
  /// then come back unchanged from the float path too).
  private static func regionalCopy(_ plan: RenderPlan, format: PixelFormat) -> (changed: [Rect], copy: PassThrough)? {
    var node = plan.root
    var changed: [Rect] = []
    while let op = node.operation as? any RegionalOperation, let base = node.inputs.first {
      changed.append(op.changedRect)
      node = base
    }
    guard !changed.isEmpty, plan.sourceTransforms[ObjectIdentifier(node)] == nil,
      let copy = PassThrough(plan: plan, source: node, format: format)
    else { return nil }
    return (changed, copy)
  }

  /// Computes `rect` of the output and stores it at `destination` (its first pixel), rows
  /// `rowBytes` apart.
  func write(_ rect: Rect, to destination: UnsafeMutableRawPointer, rowBytes: Int) throws {
    if let passThrough {
      try passThrough.copy(rect, to: destination, rowBytes: rowBytes)
      return
    }
    if let regional {
      let touched = regional.changed.map { $0.intersection(rect) }.filter { !$0.isEmpty }
      guard let first = touched.first else {
        try regional.copy.copy(rect, to: destination, rowBytes: rowBytes)
        return
      }
      // Only the part of the tile the rectangles touch is computed; the rest is the source's rows.
      let changed = touched.dropFirst().reduce(first) { $0.union($1) }
      if changed != rect {
        try regional.copy.copy(rect, to: destination, rowBytes: rowBytes)
        let offset = (changed.y - rect.y) * rowBytes + (changed.x - rect.x) * format.bytesPerPixel
        try compute(changed, to: destination + offset, rowBytes: rowBytes)
        return
      }
    }
    try compute(rect, to: destination, rowBytes: rowBytes)
  }

  /// Evaluates `rect` of the root and stores it at `destination`, rows `rowBytes` apart.
  private func compute(_ rect: Rect, to destination: UnsafeMutableRawPointer, rowBytes: Int) throws {
    var memo: [TileEvaluator.MemoKey: Tile] = [:]
    let tile = try evaluator.evaluate(plan.root, rect, space: evaluationSpace, memo: &memo)
    if let outputTransform {
      TileConversion.storeConverting(tile, into: destination, rowBytes: rowBytes, format: format, transform: outputTransform)
    } else if linearStore {
      TileConversion.storeLinear8(tile, into: destination, rowBytes: rowBytes, format: format)
    } else {
      TileConversion.store(tile, into: destination, rowBytes: rowBytes, format: format)
    }
  }
}

extension Renderer {
  /// The space `node` leaves its pixels in when asked for its own: its last stage's working
  /// space, looking through operations that take whichever space they are asked for; nil for
  /// sources and operations that have none.
  static func outputSpace(of node: ImageNode) -> WorkingSpace? {
    let op = node.operation
    // A source with an ICC profile is loaded through lcms2 into linear light; a source computed
    // in a working space (a held blur's column pass) gives it.
    if op.asSource != nil {
      if case .icc = node.info.colorSpace { return .linear }
      return op.workingSpace
    }
    if let point = op.asPositionalPoint {
      if let space = point.resultSpace { return space }
    } else if let space = op.workingSpace {
      return space
    }
    return node.inputs.count == 1 ? outputSpace(of: node.inputs[0]) : nil
  }
}
