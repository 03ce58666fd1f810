// ConvolutionFilters.swift — the recipe verbs of the convolution family.

import PixelBufferModule

/// Recipe verbs: `blur`, `boxblur`, `sharpen`, `median`, `convolve`, over the tables their operation files declare.
public enum ConvolutionFilters {
  /// `blur sigma=2 linear=true method=auto`.
  public static let blur = FilterDefinition(GaussianBlurOperation.table) { inputs, args, _ in
    typealias Blur = GaussianBlurOperation
    return inputs[0].blurred(sigma: args[Blur.sigma], linearLight: args[Blur.linear], method: args[Blur.method])
  }

  /// `boxblur radius=3 linear=true`.
  public static let boxblur = FilterDefinition(BoxBlurOperation.table) { inputs, args, _ in
    inputs[0].boxBlurred(radius: args[BoxBlurOperation.radius], linearLight: args[BoxBlurOperation.linear])
  }

  /// `sharpen sigma=1 amount=1 threshold=0`.
  public static let sharpen = FilterDefinition(SharpenOperation.table) { inputs, args, _ in
    typealias Sharpen = SharpenOperation
    return inputs[0].sharpened(sigma: args[Sharpen.sigma], amount: args[Sharpen.amount], threshold: args[Sharpen.threshold])
  }

  /// `median radius=1`.
  public static let median = FilterDefinition(MedianOperation.table) { inputs, args, _ in
    inputs[0].median(radius: args[MedianOperation.radius])
  }

  /// `convolve size=3x3 values=0,-1,0,-1,5,-1,0,-1,0 scale= offset=0 method=auto` or
  /// `convolve preset=edges|emboss|laplacian`.
  ///
  /// Throws `FilterError` unless given either `preset=` or `size=` with `values=` (and the kernel
  /// is valid: odd sides, width × height values, a nonzero scale).
  public static let convolve = FilterDefinition(ConvolveOperation.table) { inputs, args, _ in
    typealias C = ConvolveOperation
    let method = args[C.methodKey], offset = args[C.offset]
    if let preset = args.given(C.preset) {
      guard args.given(C.size) == nil, args.given(C.values) == nil, args.given(C.scale) == nil else {
        throw FilterError("convolve takes either preset= or a kernel (size=, values=, scale=), not both.")
      }
      return inputs[0].convolved(preset: preset, offset: offset, method: method)
    }
    guard let size = args.given(C.size), let values = args.given(C.values) else {
      throw FilterError(
        "convolve needs a kernel: size=WxH and values=… row by row (for example 'convolve size=3x3 values=0,-1,0,-1,5,-1,0,-1,0'), or preset=edges|emboss|laplacian.")
    }
    let kernel = try ConvolutionKernel(size: size, values: values, scale: args.given(C.scale), offset: offset)
    return inputs[0].convolved(with: kernel, method: method)
  }

  /// Every convolution verb.
  public static var all: [FilterDefinition] { [blur, boxblur, sharpen, median, convolve] }
}
