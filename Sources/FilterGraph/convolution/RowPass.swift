// RowPass.swift — the row pass of a separable blur of large reach, as an operation of its own.
//
// Definition: output(x, y) = Σ_{|i| ≤ r} k(i)·input(x + i, y) for a sampled symmetric kernel k
// (the exact Gaussian's weights), or the cascade of extended boxes along the row (a box blur's
// box, a Gaussian's three boxes), with x + i outside the image repeating the nearest edge pixel.
// Computed by the row pass of SeparableFilter.swift's engines, with their rounding, so the column
// pass of HeldColumnPass.swift over this output is the one-operation blur bit for bit; except a
// sampled kernel of reach ≥ `RowSpectrum.minimumReach`, whose row pass runs through the discrete
// Fourier transform (SpectralRows.swift), the same sum within float rounding at a cost that
// grows with log r instead of r. A tile reads only its own rows, widened by the reach r along
// them (for the transform, the 512-pixel blocks its columns fall in, widened by r).

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

/// What both passes of a split blur carry: the filter along their axis, the blur's working
/// space, and the blur's name and arguments, which the two nodes are the halves of.
struct SplitBlur: Sendable {
  let kernel: SeparableKernel
  let space: WorkingSpace
  let name: String
  let arguments: Arguments

  /// The passes of `blur` (whose working space they take) filtering with `kernel`.
  init(_ kernel: SeparableKernel, of blur: any ImageOperation) {
    self.kernel = kernel
    space = blur.workingSpace ?? .linear
    name = blur.descriptor.name
    arguments = blur.arguments
  }
}

/// The row pass of the blur it names; see the file comment.
struct RowPassOperation: ImageOperation {
  let blur: SplitBlur
  /// The kernel's transform, for a sampled kernel of reach ≥ `RowSpectrum.minimumReach`.
  let spectrum: RowSpectrum?

  init(blur: SplitBlur) {
    self.blur = blur
    if case .sampled(let weights) = blur.kernel, weights.count - 1 >= RowSpectrum.minimumReach {
      spectrum = RowSpectrum(weights: weights)
    } else {
      spectrum = nil
    }
  }

  var arguments: Arguments { blur.arguments }
  var descriptor: OperationDescriptor {
    OperationDescriptor(
      name: "\(blur.name) rows", category: .convolution, summary: "The row pass of a large \(blur.name) (not a recipe filter).",
      parameters: [], example: "")
  }
  var workingSpace: WorkingSpace? { blur.space }

  func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    if let spectrum { return spectrum.inputRegion(for: output, extent: inputs[0].extent) }
    let reach = blur.kernel.reach
    let wide = Rect(x: output.x - reach, y: output.y, width: output.width + 2 * reach, height: output.height)
    let clipped = wide.intersection(inputs[0].extent)
    return clipped.isEmpty ? output : clipped
  }

  func render(into output: inout Tile, inputs: [Tile]) throws {
    let o = output.rect, input = inputs[0]
    if let spectrum {
      let buffers = try RowSpectrum.Buffers(length: spectrum.length)
      output.withMutablePixels { dst in
        spectrum.convolveRows(input, columns: o.x..<o.maxX, rows: o.y..<o.maxY, buffers: buffers) { dst[row: $0 - o.y] }
      }
      return
    }
    switch blur.kernel {
    case .sampled(let weights):
      output.withMutablePixels { dst in
        weights.withUnsafeBufferPointer { k in
          SeparableFilter.convolveRows(input, columns: o.x..<o.maxX, rows: o.y..<o.maxY, weights: k) { dst[row: $0 - o.y] }
        }
      }
    case .boxes(let boxes):
      let buffers = try SeparableFilter.CascadeBuffers(length: o.width + 2 * blur.kernel.reach, lanes: 1)
      output.withMutablePixels { dst in
        SeparableFilter.boxRows(input, columns: o.x..<o.maxX, rows: o.y..<o.maxY, boxes: boxes, buffers: buffers) { dst[row: $0 - o.y] }
      }
    }
  }
}
