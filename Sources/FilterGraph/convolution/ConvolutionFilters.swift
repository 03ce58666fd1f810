// ConvolutionFilters.swift — the recipe verbs of the convolution family.

import PixelBufferModule

/// Recipe verbs: `blur`, `boxblur`, `sharpen`, over the tables their operation files declare.
public enum ConvolutionFilters {
  /// `blur sigma=2 linear=true method=auto`.
  public static let blur = FilterDefinition(GaussianBlurOperation.table) { inputs, args, _ in
    let sigma = args.number("sigma")
    let method = GaussianBlurOperation.Method(rawValue: args.choice("method")) ?? .automatic
    let op = GaussianBlurOperation(sigma: sigma, linearLight: args.bool("linear"), method: method)
    return inputs[0].applyingBlur(op)
  }

  /// `boxblur radius=3 linear=true`.
  public static let boxblur = FilterDefinition(BoxBlurOperation.table) { inputs, args, _ in
    inputs[0].boxBlurred(radius: args.integer("radius"), linearLight: args.bool("linear"))
  }

  /// `sharpen sigma=1 amount=1 threshold=0`.
  public static let sharpen = FilterDefinition(SharpenOperation.table) { inputs, args, _ in
    inputs[0].sharpened(sigma: args.number("sigma"), amount: args.number("amount"), threshold: args.number("threshold"))
  }

  /// Every convolution verb.
  public static var all: [FilterDefinition] { [blur, boxblur, sharpen] }

  /// `value` clamped into the range the table gives the numeric parameter `name` (NaN becomes
  /// the lower bound): how the Swift methods keep out-of-range values from trapping.
  static func clamped(_ value: Double, _ name: String, in table: OperationDescriptor) -> Double {
    let range: ClosedRange<Double>
    switch table.parameter(named: name)?.kind {
    case .number(let r)?: range = r
    case .integer(let r)?: range = Double(r.lowerBound)...Double(r.upperBound)
    default: return value
    }
    if value.isNaN { return range.lowerBound }
    return min(max(value, range.lowerBound), range.upperBound)
  }
}
