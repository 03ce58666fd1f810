// ResampleFilters.swift — the recipe verbs of the resample family.

import PixelBufferModule

/// Recipe verbs: `scale` (the table is `ScaleOperation.table`).
public enum ResampleFilters {
  /// `scale FACTOR | width=N | height=N | fit=WxH | fill=WxH | size=WxH [kernel=…] [linear=…] [shrink=…]`.
  ///
  /// Throws `FilterError` unless exactly one of the six size modes is given.
  public static let scale = FilterDefinition(ScaleOperation.table) { inputs, args, _ in
    typealias Scale = ScaleOperation
    let image = inputs[0]
    let kernel = args[Scale.kernel], linear = args[Scale.linear], shrink = args[Scale.shrink]
    var modes: [(name: String, image: Image)] = []
    if let f = args.given(Scale.factor) {
      modes.append((Scale.factor.name, image.scaled(by: f, kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)))
    }
    if let w = args.given(Scale.width) {
      modes.append((Scale.width.name, image.scaled(toWidth: w, kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)))
    }
    if let h = args.given(Scale.height) {
      modes.append((Scale.height.name, image.scaled(toHeight: h, kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)))
    }
    if let box = args.given(Scale.fit) {
      modes.append((Scale.fit.name, image.scaled(toFit: box, kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)))
    }
    if let box = args.given(Scale.fill) {
      modes.append((Scale.fill.name, image.scaled(toFill: box, kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)))
    }
    if let s = args.given(Scale.size) {
      modes.append((Scale.size.name, image.scaled(to: s, kernel: kernel, linearLight: linear, allowsShrinkOnLoad: shrink)))
    }
    guard modes.count == 1 else {
      let list = [Scale.factor.name, Scale.width.name, Scale.height.name, Scale.fit.name, Scale.fill.name, Scale.size.name]
      throw FilterError(
        modes.isEmpty
          ? "scale needs a size: give one of \(list.joined(separator: "=, "))= (for example 'scale 0.5' or 'scale fit=800x800')."
          : "scale takes one size at a time, but was given \(modes.map(\.name).joined(separator: " and ")): keep one of them.")
    }
    return modes[0].image
  }

  /// Every resample verb.
  public static var all: [FilterDefinition] { [scale] }
}
