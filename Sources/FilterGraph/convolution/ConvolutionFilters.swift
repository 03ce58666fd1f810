// ConvolutionFilters.swift — the recipe verbs of the convolution family.

import PixelBufferModule

/// Recipe verbs: `blur`, `boxblur`, `sharpen`, `median`, over the tables their operation files declare.
public enum ConvolutionFilters {
  /// `blur sigma=2 linear=true method=auto`.
  public static let blur = FilterDefinition(GaussianBlurOperation.table) { inputs, args, _ in
    typealias Blur = GaussianBlurOperation
    return inputs[0].applyingBlur(Blur(sigma: args[Blur.sigma], linearLight: args[Blur.linear], method: args[Blur.method]))
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

  /// Every convolution verb.
  public static var all: [FilterDefinition] { [blur, boxblur, sharpen, median] }
}
