// ConvolutionFilters.swift — the recipe verbs of the convolution family.

import PixelBufferModule

/// Recipe verbs: `blur`, `boxblur`, `sharpen`, `median`, `convolve`, over the tables their operation files declare.
public enum ConvolutionFilters {
  /// `blur sigma=2 linear=true method=auto`.
  public static let blur = FilterDefinition(GaussianBlurOperation.table, reading: GaussianBlurOperation.Parameters.self) { inputs, p, _ in
    inputs[0].blurred(sigma: p.sigma, linearLight: p.linear, method: p.method)
  }

  /// `boxblur radius=3 linear=true`.
  public static let boxblur = FilterDefinition(BoxBlurOperation.table, reading: BoxBlurOperation.Parameters.self) { inputs, p, _ in
    inputs[0].boxBlurred(radius: p.radius, linearLight: p.linear)
  }

  /// `sharpen sigma=1 amount=1 threshold=0`.
  public static let sharpen = FilterDefinition(SharpenOperation.table, reading: SharpenOperation.Parameters.self) { inputs, p, _ in
    inputs[0].sharpened(sigma: p.sigma, amount: p.amount, threshold: p.threshold)
  }

  /// `median radius=1`.
  public static let median = FilterDefinition(MedianOperation.table, reading: MedianOperation.Parameters.self) { inputs, p, _ in
    inputs[0].median(radius: p.radius)
  }

  /// `convolve size=3x3 values=0,-1,0,-1,5,-1,0,-1,0 scale= offset=0 method=auto` or
  /// `convolve preset=edges|emboss|laplacian`.
  ///
  /// Throws `FilterError` unless given either `preset=` or `size=` with `values=` (and the kernel
  /// is valid: odd sides, width × height values, a nonzero scale).
  public static let convolve = FilterDefinition(ConvolveOperation.table, reading: ConvolveOperation.Parameters.self) { inputs, p, _ in
    if let preset = p.preset {
      guard p.size == nil, p.values == nil, p.scale == nil else {
        throw FilterError("convolve takes either preset= or a kernel (size=, values=, scale=), not both.")
      }
      return inputs[0].convolved(preset: preset, offset: p.offset, method: p.method)
    }
    guard let size = p.size, let values = p.values else {
      throw FilterError(
        "convolve needs a kernel: size=WxH and values=… row by row (for example 'convolve size=3x3 values=0,-1,0,-1,5,-1,0,-1,0'), or preset=edges|emboss|laplacian.")
    }
    let kernel = try ConvolutionKernel(size: size, values: values, scale: p.scale, offset: p.offset)
    return inputs[0].convolved(with: kernel, method: p.method)
  }

  /// Every convolution verb.
  public static var all: [FilterDefinition] { [blur, boxblur, sharpen, median, convolve] }
}
