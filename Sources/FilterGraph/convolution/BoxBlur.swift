// BoxBlur.swift — mean over a square window.
//
// Definition: output(x, y) = (1 / (2r + 1)²) · Σ_{|i| ≤ r, |j| ≤ r} input(x + i, y + j) on
// premultiplied RGBA, with coordinates outside the image repeating the nearest edge pixel.
// Computed separably (rows, then columns) with running window sums, so the cost per pixel does
// not depend on r; the sums are exact (see SeparableFilter.swift), so tiles agree bit for bit.
// From a radius of 256 the rows and columns run as two nodes, the rows held (HeldColumnPass.swift),
// so a tile does not read its (2r)-wide halo on every side: the same pixels, bit for bit.
// Working space: linear light by default, encoded values with `linearLight: false`.

import PixelBufferModule

/// Replaces each pixel by the mean of the (2r + 1) × (2r + 1) square around it.
public struct BoxBlurOperation: ImageOperation {
  /// `boxblur radius=3 linear=true`.
  public struct Parameters: FilterParameters {
    /// The window radius.
    @Param("radius", range: 0...1000, help: "Window radius in pixels; 0 leaves the image as is.")
    public var radius: Int
    /// Average linear light or stored values.
    @Param("linear", help: "Average linear light (true) or the stored sRGB values (false).")
    public var linear = true

    /// The defaults; `radius` must be given.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  public static let table = OperationDescriptor(
    name: "boxblur", category: .convolution,
    summary: "Mean over the (2·radius+1)² square around each pixel (edges extended).",
    parameters: Parameters.table, example: "boxblur radius=3")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { parameters.linear ? .linear : .encoded }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    SeparableFilter.inputRegion(for: output, reach: parameters.radius, extent: inputs[0].extent)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    try SeparableFilter.boxCascade(inputs[0], into: &output, boxes: [ExtendedBox(radius: parameters.radius, alpha: 0)])
  }
}

extension Image {
  /// The image with each pixel replaced by the mean of the (2·radius + 1)² square around it
  /// (radius clamped to 0 … 1000; 0 returns the image unchanged), in linear light unless
  /// `linearLight` is false.
  public func boxBlurred(radius: Int, linearLight: Bool = true) -> Image {
    var parameters = BoxBlurOperation.Parameters()
    (parameters.radius, parameters.linear) = (radius, linearLight)
    guard parameters.radius > 0 else { return self }
    return applyingSeparable(BoxBlurOperation(parameters), kernel: .boxes([ExtendedBox(radius: parameters.radius, alpha: 0)]))
  }
}
