// GaussianBlur.swift — Gaussian blur with a standard deviation in pixels.
//
// Definition: output(x, y) = Σ_{i,j} w(i)·w(j)·input(x + i, y + j), with w the sampled,
// normalised Gaussian of `GaussianKernel` (radius ⌈3σ⌉), applied to premultiplied RGBA (all four
// channels, so transparent pixels do not bleed colour). Coordinates outside the image repeat the
// nearest edge pixel, so borders do not darken: a flat image stays exactly flat.
//
// Working space: linear light by default (`linearLight: true`: the sRGB curve is removed first,
// as a lens would blur, so bright detail does not darken when spread); `linearLight: false`
// blurs the stored (encoded) values instead, as libvips' gaussblur, ImageMagick and most tools
// do — pick it to match their output.
//
// Method: σ ≤ `GaussianBlurOperation.boxThreshold` (12) convolves with the exact sampled kernel
// (rows, then columns: 2r + 1 multiply-adds per pixel per direction). Above it a cascade of three
// extended boxes with exactly the Gaussian's variance runs in O(1) per pixel whatever σ
// (see `GaussianKernel.boxCascade`). It is an approximation, as in SVG's feGaussianBlur: its 1-D
// impulse response is a piecewise quadratic that differs from the sampled Gaussian by up to 6.3 %
// of the Gaussian's peak (12.1 % of the 2-D peak), and blurred step edges differ from the exact
// result by at most 1.05 % of the step height (≤ 3 levels of 8 bits on a black/white edge;
// checked in GaussianBlurTests). The threshold 12 is where the two cost about the same on the
// 2-core test machine. `method=exact` or `method=box` forces either. Above σ = 32 the automatic
// method blurs a reduced copy instead, so the cost does not grow with σ (GaussianBlurPyramid.swift).
// Otherwise, from a reach of 128 pixels for the exact kernel (σ above about 42) and 256 for the
// boxes, the rows and columns run as two nodes, the rows held (HeldColumnPass.swift), so a tile
// does not read its halo on every side: the same pixels, bit for bit. From a reach of 256
// (σ above about 85) the exact kernel's row pass runs through the Fourier transform
// (SpectralRows.swift: the same sum within float rounding, at O(log r) a pixel), its column pass
// at 2r + 1 taps a pixel.

import PixelBufferModule

/// Blurs with a Gaussian of standard deviation `sigma` pixels.
public struct GaussianBlurOperation: ImageOperation {
  /// How the blur is computed.
  public enum Method: String, Hashable, Sendable, CaseIterable, ParameterChoice {
    /// Exact sampled kernel up to `boxThreshold`, extended boxes above it.
    case automatic = "auto"
    /// Always the exact sampled kernel (O(σ) per pixel).
    case exact
    /// Always the three-box cascade (O(1) per pixel, approximate).
    case box
  }

  /// Above this σ the automatic method uses the box cascade.
  public static let boxThreshold: Double = 12

  /// `blur sigma=2 linear=true method=auto`.
  public struct Parameters: FilterParameters {
    /// The standard deviation.
    @Param("sigma", range: 0...500, help: "Standard deviation in pixels; 0 leaves the image as is.")
    public var sigma: Double
    /// Blur linear light or stored values.
    @Param("linear", help: "Blur in linear light (true) or on the stored sRGB values, as most tools do (false).")
    public var linear = true
    /// Exact, box or auto.
    @Param("method", help: "exact: sampled kernel; box: three extended boxes, O(1) per pixel; auto: box above sigma 12.")
    public var method = Method.automatic

    /// The defaults; `sigma` must be given.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  /// True when the box cascade will run.
  public var usesBoxes: Bool {
    switch parameters.method {
    case .automatic: return parameters.sigma > Self.boxThreshold
    case .exact: return false
    case .box: return parameters.sigma > 0
    }
  }

  /// How far the blur reads on each side of a pixel.
  public var reach: Int {
    usesBoxes
      ? GaussianKernel.boxCascade(sigma: parameters.sigma).reduce(0) { $0 + $1.reach }
      : GaussianKernel.radius(for: parameters.sigma)
  }

  public static let table = OperationDescriptor(
    name: "blur", category: .convolution,
    summary: "Gaussian blur with standard deviation sigma pixels (edges extended).",
    parameters: Parameters.table, example: "blur sigma=2")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { parameters.linear ? .linear : .encoded }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    SeparableFilter.inputRegion(for: output, reach: reach, extent: inputs[0].extent)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    try Self.blur(inputs[0], into: &output, sigma: parameters.sigma, boxes: usesBoxes)
  }

  /// Blurs `input` (covering `output.rect` widened by the reach, clipped to the image) into
  /// `output`; shared with sharpen.
  static func blur(_ input: Tile, into output: inout Tile, sigma: Double, boxes: Bool) throws(PixelAllocationError) {
    if boxes {
      try SeparableFilter.boxCascade(input, into: &output, boxes: GaussianKernel.boxCascade(sigma: sigma))
    } else {
      try SeparableFilter.convolve(input, into: &output, weights: GaussianKernel(sigma: sigma).floatWeights)
    }
  }
}

extension Image {
  /// The image blurred with a Gaussian of standard deviation `sigma` pixels (clamped to 0 … 500;
  /// 0 returns the image unchanged), in linear light unless `linearLight` is false, by `method`
  /// (`.automatic`: three extended boxes above σ 12, the sampled kernel below).
  public func blurred(sigma: Double, linearLight: Bool = true, method: GaussianBlurOperation.Method = .automatic) -> Image {
    var parameters = GaussianBlurOperation.Parameters()
    (parameters.sigma, parameters.linear, parameters.method) = (sigma, linearLight, method)
    return applyingBlur(GaussianBlurOperation(parameters))
  }
}

extension GaussianBlurOperation: LowPassOperation {
  /// The Gaussian's σ (the box cascade stands for the same σ).
  var lowPassSigma: Double { parameters.sigma }
}
