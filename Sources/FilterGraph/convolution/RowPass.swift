// RowPass.swift — the row pass of a separable blur of large reach, as an operation of its own.
//
// Definition: output(x, y) = Σ_{|i| ≤ r} k(i)·input(x + i, y) for a sampled symmetric kernel k
// (the exact Gaussian's weights), or the cascade of extended boxes along the row (a box blur's
// box, a Gaussian's three boxes), with x + i outside the image repeating the nearest edge pixel.
// Computed by the row pass of SeparableFilter.swift's engines, with their rounding, so the column
// pass of HeldColumnPass.swift over this output is the one-operation blur bit for bit. A tile
// reads only its own rows, widened by the reach r along them.

import PixelBufferModule

/// One axis of a separable blur: a sampled symmetric kernel or a cascade of extended boxes.
enum SeparableKernel: Hashable, Sendable {
  /// `[0]` the centre weight, `[i]` the weight at ±i.
  case sampled([Float])
  /// Applied in turn.
  case boxes([ExtendedBox])

  /// How far it reads on each side of a pixel.
  var reach: Int {
    switch self {
    case .sampled(let weights): return weights.count - 1
    case .boxes(let boxes): return boxes.reduce(0) { $0 + $1.reach }
    }
  }
}

/// The row pass of the blur it names; see the file comment.
struct RowPassOperation: ImageOperation {
  /// The filter along each row.
  let kernel: SeparableKernel
  /// The space the blur works in.
  let space: WorkingSpace
  /// The blur's name and arguments, which this node is the first half of.
  let blurName: String
  let arguments: Arguments

  /// The pass of `blur` (whose working space it takes) filtering rows with `kernel`.
  init(_ kernel: SeparableKernel, of blur: any ImageOperation) {
    self.kernel = kernel
    space = blur.workingSpace ?? .linear
    blurName = blur.descriptor.name
    arguments = blur.arguments
  }

  var descriptor: OperationDescriptor {
    OperationDescriptor(
      name: "\(blurName) rows", category: .convolution, summary: "The row pass of a large \(blurName) (not a recipe filter).",
      parameters: [], example: "")
  }
  var workingSpace: WorkingSpace? { space }

  func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    let reach = kernel.reach
    let wide = Rect(x: output.x - reach, y: output.y, width: output.width + 2 * reach, height: output.height)
    let clipped = wide.intersection(inputs[0].extent)
    return clipped.isEmpty ? output : clipped
  }

  func render(into output: inout Tile, inputs: [Tile]) throws {
    let o = output.rect, input = inputs[0]
    output.withMutablePixels { dst in
      switch kernel {
      case .sampled(let weights):
        weights.withUnsafeBufferPointer { k in
          SeparableFilter.convolveRows(input, columns: o.x..<o.maxX, rows: o.y..<o.maxY, weights: k) { dst[row: $0 - o.y] }
        }
      case .boxes(let boxes):
        SeparableFilter.boxRows(input, columns: o.x..<o.maxX, rows: o.y..<o.maxY, boxes: boxes) { dst[row: $0 - o.y] }
      }
    }
  }
}
