// HeldColumnPass.swift — a separable blur of large reach as a row pass and a column pass over its
// held result.
//
// Definition: output(x, y) = Σ_{|j| ≤ r} k(j)·rows(x, y + j), where rows is RowPassOperation's
// output and y + j outside the image repeats the nearest edge row (for boxes: the cascade down
// the column). Computed by the column pass of SeparableFilter.swift's engines, with their
// rounding, this is the blur of BoxBlur.swift or GaussianBlur.swift (any method but the reduced
// copy of GaussianBlurPyramid.swift) bit for bit: the split changes the schedule, not one value
// (except where the row pass runs through the Fourier transform, RowPass.swift: there within
// float rounding).
//
// Why: a blur's tile reads its rectangle widened by the reach r on every side and filters every
// row of it, so at large r each tile reads and filters (w + 2r)(h + 2r) pixels for w·h outputs:
// `boxblur radius=1000` on a 24 MP photo read about 34 times the photo, one 2128 × 2064 region
// per 128 × 64 tile (79 s), `blur sigma=200 method=exact` 89 s. Split, a tile of the row pass
// reads (w + 2r)·h pixels, its own rows, and filters only them; the row pass's output is held
// whole (HeldInput.swift: 16 bytes a pixel, counted in the memory estimate as every held input
// is), and each output tile runs the column pass straight on the held rows
// (`ColumnPassSource`), copying nothing. What remains per output tile is O(h + 2r) per column
// for boxes (the running sums start 2r rows above the tile), O(r) per pixel for the sampled
// kernel, which is the definition's own cost.
//
// Used from a reach of `sampledSplitReach` (128) for the sampled kernel, whose halo rows each
// cost 2r + 1 taps a pixel, and of `boxSplitReach` (256) for boxes, whose cost a pixel does not
// depend on r: below them the split saved little or no time for four times the memory (the held
// rows, 384 MB on 24 MP), above them it saves much (docs/Reliability.md, finding 11).

import PixelBufferModule

/// The column pass of the blur it names, reading its input held whole; see the file comment.
struct ColumnPassOperation: ImageOperation, HeldPixelsReader {
  /// From this reach on, blurs with a sampled kernel are split (see the file comment).
  static let sampledSplitReach = 128
  /// From this reach on, blurs with a box cascade are split.
  static let boxSplitReach = 256

  let blur: SplitBlur

  var arguments: Arguments { blur.arguments }
  var descriptor: OperationDescriptor { Self.descriptor(of: blur.name) }
  var workingSpace: WorkingSpace? { blur.space }

  /// The table of the column pass of `blurName`.
  static func descriptor(of blurName: String) -> OperationDescriptor {
    OperationDescriptor(
      name: "\(blurName) columns", category: .convolution,
      summary: "The column pass of a large \(blurName), over its row pass held in memory (not a recipe filter).", parameters: [],
      example: "")
  }

  func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    let reach = blur.kernel.reach
    let tall = Rect(x: output.x, y: output.y - reach, width: output.width, height: output.height + 2 * reach)
    let clipped = tall.intersection(inputs[0].extent)
    return clipped.isEmpty ? output : clipped
  }

  /// The pass over a tile of the row pass (the same floats as over the held rows).
  func render(into output: inout Tile, inputs: [Tile]) throws {
    let input = inputs[0], src = input.rect, o = output.rect
    try input.withPixels { rows in
      try Self.pass(blur.kernel, into: &output) { y in
        UnsafePointer(rows[row: min(max(y, src.y), src.maxY - 1) - src.y] + (o.x - src.x))
      }
    }
  }

  func reading(held pixels: PixelBuffer, of input: ImageNode, identity: String) -> any SourceOperation {
    ColumnPassSource(pass: self, rows: pixels, info: outputInfo(inputs: [input.info]), identity: identity)
  }

  /// The column pass into `tile`: `row(y)` is the row pass's row y (clamped) at the tile's
  /// first column. The sampled kernel runs in strips of 64 columns, so the rows it weighs stay
  /// in cache.
  static func pass(
    _ kernel: SeparableKernel, into tile: inout Tile, row: (Int) -> UnsafePointer<SIMD4<Float>>
  ) throws(PixelAllocationError) {
    let o = tile.rect
    switch kernel {
    case .sampled(let weights):
      tile.withMutablePixels { dst in
        weights.withUnsafeBufferPointer { k in
          for x0 in stride(from: 0, to: o.width, by: 64) {
            SeparableFilter.convolveColumns(rows: o.y..<o.maxY, count: min(64, o.width - x0), weights: k, into: { dst[row: $0 - o.y] + x0 }) {
              row($0) + x0
            }
          }
        }
      }
    case .boxes(let boxes):
      let buffers = try SeparableFilter.CascadeBuffers(length: o.height + 2 * kernel.reach, lanes: SeparableFilter.columnStrip)
      tile.withMutablePixels { dst in
        SeparableFilter.boxColumns(rows: o.y..<o.maxY, count: o.width, boxes: boxes, buffers: buffers, into: { dst[row: $0 - o.y] }, row: row)
      }
    }
  }
}

/// `ColumnPassOperation` over its input's rows held in `rows` (premultiplied float in the pass's
/// space): the node a held column pass resolves to. Not a recipe filter.
struct ColumnPassSource: SourceOperation {
  let pass: ColumnPassOperation
  /// The row pass's output, whole.
  let rows: PixelBuffer
  /// The blurred image's description.
  let info: ImageInfo
  let identity: String

  var descriptor: OperationDescriptor { pass.descriptor }
  var arguments: Arguments { pass.arguments }
  /// The pass's space, which the writer then takes its pixels in (as from the one-operation blur).
  var workingSpace: WorkingSpace? { pass.blur.space }

  func outputInfo(inputs: [ImageInfo]) -> ImageInfo { info }

  func decodePixels() throws -> PixelBuffer? { nil }

  /// The pass in its own space, then converted to the `space` asked for.
  func fill(_ tile: inout Tile, space: WorkingSpace) throws {
    let x = tile.rect.x, height = rows.height
    try rows.withUnsafeBaseAddress { base, rowBytes in
      try ColumnPassOperation.pass(pass.blur.kernel, into: &tile) { y in
        (base + min(max(y, 0), height - 1) * rowBytes).assumingMemoryBound(to: SIMD4<Float>.self) + x
      }
    }
    if space != pass.blur.space {
      tile.withMutablePixels { dst in
        for y in 0..<dst.height { SRGBCurve.convertRow(dst[row: y], count: dst.width, to: space) }
      }
    }
  }
}

extension Image {
  /// The blur `op`, separable with `kernel` on each axis: as a row pass and a held column pass
  /// when its reach is at least the kernel's split reach, else `op` itself (the same
  /// pixels either way; see HeldColumnPass.swift).
  func applyingSeparable(_ op: any ImageOperation, kernel: SeparableKernel) -> Image {
    let splitReach: Int
    switch kernel {
    case .sampled: splitReach = ColumnPassOperation.sampledSplitReach
    case .boxes: splitReach = ColumnPassOperation.boxSplitReach
    }
    guard kernel.reach >= splitReach else { return applying(op) }
    let blur = SplitBlur(kernel, of: op)
    return applying(RowPassOperation(blur: blur)).applying(HeldInputOperation(operation: ColumnPassOperation(blur: blur)))
  }
}
