// ResampleFilters.swift — the recipe verbs of the resample family.

import PixelBufferModule

/// Recipe verbs: `scale` (the table is `ScaleOperation.table`).
public enum ResampleFilters {
  /// The size modes of `scale`, of which a recipe gives exactly one.
  static let scaleModes = ["factor", "width", "height", "fit", "fill", "size"]

  /// `scale FACTOR | width=N | height=N | fit=WxH | fill=WxH | size=WxH [kernel=…] [linear=…] [shrink=…]`.
  ///
  /// Throws `FilterError` unless exactly one of the six size modes is given.
  public static let scale = FilterDefinition(ScaleOperation.table) { inputs, args, _ in
    let given = scaleModes.filter { args[$0] != nil }
    guard given.count == 1, let mode = given.first else {
      let list = scaleModes.joined(separator: "=, ") + "="
      throw FilterError(
        given.isEmpty
          ? "scale needs a size: give one of \(list) (for example 'scale 0.5' or 'scale fit=800x800')."
          : "scale takes one size at a time, but was given \(given.joined(separator: " and ")): keep one of them.")
    }
    let image = inputs[0]
    let kernel = ResampleKernel(rawValue: args.choice("kernel")) ?? .lanczos3
    let linear = args.bool("linear"), shrink = args.bool("shrink")
    switch mode {
    case "factor": return image.scaled(by: args.number("factor"), kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)
    case "width": return image.scaled(toWidth: args.integer("width"), kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)
    case "height": return image.scaled(toHeight: args.integer("height"), kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)
    case "fit": return image.scaled(toFit: args.size("fit")!, kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)
    case "fill": return image.scaled(toFill: args.size("fill")!, kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)
    default: return image.scaled(to: args.size("size")!, kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)
    }
  }

  /// Every resample verb.
  public static var all: [FilterDefinition] { [scale] }
}
