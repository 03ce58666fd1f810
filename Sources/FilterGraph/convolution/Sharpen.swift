// Sharpen.swift — unsharp mask.
//
// Definition, per colour channel c of premultiplied RGBA in the encoded (stored sRGB) space:
//
//     b = G_σ ∗ input                     (the Gaussian blur of GaussianBlur.swift, edges extended)
//     d = input − b
//     output = input + amount · d   where |d| > threshold,   input elsewhere,
//
// then clamped to 0 … alpha (0 … 1 for opaque pixels); alpha is kept as it is. A flat region has
// d = 0 and stays exactly as it was; across an edge the dark side darkens and the bright side
// brightens by amount · |d|.
//
// It runs in the encoded space, as Photoshop's and GIMP's unsharp masks do, so the halos on
// either side of an edge look equally strong (in linear light the dark halo would dominate).
// It is one operation that reads the widened region and blurs it internally, rather than a
// blur node plus a combining node, so the input region is fetched once per tile.

import PixelBufferModule

/// Sharpens with an unsharp mask: adds `amount` times the difference from a Gaussian blur.
public struct SharpenOperation: ImageOperation {
  /// `sharpen sigma=1 amount=1 threshold=0`.
  public struct Parameters: FilterParameters {
    /// The blur's standard deviation.
    @Param("sigma", range: 0...100, help: "Standard deviation of the blur, in pixels.")
    public var sigma = 1.0
    /// The strength.
    @Param("amount", range: 0...20, percent: .fraction, help: "Strength: 1 adds the whole difference.")
    public var amount = 1.0
    /// Differences left alone.
    @Param("threshold", range: 0...1, percent: .fraction, help: "Leave channels whose difference from the blur is at most this (0…1) unchanged.")
    public var threshold = 0.0

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  public static let table = OperationDescriptor(
    name: "sharpen", category: .convolution,
    summary: "Unsharp mask: adds amount × (image − Gaussian blur) where that exceeds threshold.",
    parameters: Parameters.table, example: "sharpen sigma=1 amount=0.8")

  /// True when the blur uses the box cascade (the same rule as `blur method=auto`).
  var usesBoxes: Bool { parameters.sigma > GaussianBlurOperation.boxThreshold }

  /// How far the operation reads on each side of a pixel.
  var reach: Int {
    usesBoxes
      ? GaussianKernel.boxCascade(sigma: parameters.sigma).reduce(0) { $0 + $1.reach }
      : GaussianKernel.radius(for: parameters.sigma)
  }

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { .encoded }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    SeparableFilter.inputRegion(for: output, reach: reach, extent: inputs[0].extent)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    let input = inputs[0]
    let o = output.rect
    try GaussianBlurOperation.blur(input, into: &output, sigma: parameters.sigma, boxes: usesBoxes)
    let k = Float(parameters.amount), t = Float(parameters.threshold)
    let zero = SIMD4<Float>(repeating: 0)
    input.withPixels { src in
      output.withMutablePixels { dst in
        for y in 0..<o.height {
          let s = src[row: o.y - input.rect.y + y] + (o.x - input.rect.x)
          let d = dst[row: y]
          for x in 0..<o.width {
            let c = s[x]
            let diff = c - d[x]
            var v = c + k * diff
            if t > 0 {
              let magnitude = pointwiseMax(diff, zero - diff)
              v.replace(with: c, where: magnitude .<= t)
            }
            v = pointwiseMin(pointwiseMax(v, zero), SIMD4(repeating: c.w))
            v.w = c.w
            d[x] = v
          }
        }
      }
    }
  }
}

extension Image {
  /// The image sharpened by an unsharp mask: `amount` × (image − Gaussian blur of `sigma`
  /// pixels) is added where its magnitude exceeds `threshold` (0…1), in the encoded space, the
  /// result clamped. Values are clamped into sigma 0…100, amount 0…20, threshold 0…1; sigma or
  /// amount 0 returns the image unchanged.
  public func sharpened(sigma: Double = 1, amount: Double = 1, threshold: Double = 0) -> Image {
    var parameters = SharpenOperation.Parameters()
    (parameters.sigma, parameters.amount, parameters.threshold) = (sigma, amount, threshold)
    return parameters.sigma == 0 || parameters.amount == 0 ? self : applying(SharpenOperation(parameters))
  }
}
