// ResampleFilters.swift — the recipe verbs of the resample family.

import PixelBufferModule

/// Recipe verbs: `scale` (the table is `ScaleOperation.table`).
public enum ResampleFilters {
  /// `scale FACTOR | width=N|N% | height=N|N% | fit=WxH | fill=WxH [focus=…] | size=WxH [enlarge=…] [kernel=…] [linear=…] [shrink=…]`.
  ///
  /// A percentage is of the image `of=` names when the input is named before it
  /// (`scale logo width=15% of=photo`), else of the input's own size.
  ///
  /// Throws `FilterError` unless exactly one of the six size modes is given, or when `focus=` is
  /// given without `fill=`.
  public static let scale = FilterDefinition(ScaleOperation.table, reading: ScaleOperation.Parameters.self) { inputs, p, _ in
    // Percentages of width= and height= are of the reference (`scale logo width=15% of=photo`),
    // the input itself when none is named.
    let image = inputs[0], reference = inputs.count > 1 ? inputs[1] : inputs[0]
    let k = p.kernel, l = p.linear, s = p.shrink, e = p.enlarge
    if p.fill == nil, let focus = p.focus {
      throw FilterError("focus=\(focus.parameterValue) chooses the window of fill=WxH; give fill= or remove focus=.")
    }
    let names = (p.$factor.name, p.$width.name, p.$height.name, p.$fit.name, p.$fill.name, p.$size.name)
    let modes: [(name: String, image: Image)] = [
      (names.0, p.factor.map { image.scaled(by: $0, kernel: k, linearLight: l, allowsShrinkOnLoad: s, allowsEnlargement: e) }),
      (names.1, p.width.map { image.scaled(toWidth: $0, of: reference, kernel: k, linearLight: l, allowsShrinkOnLoad: s, allowsEnlargement: e) }),
      (names.2, p.height.map { image.scaled(toHeight: $0, of: reference, kernel: k, linearLight: l, allowsShrinkOnLoad: s, allowsEnlargement: e) }),
      (names.3, p.fit.map { image.scaled(toFit: $0, kernel: k, linearLight: l, allowsShrinkOnLoad: s, allowsEnlargement: e) }),
      (names.4, p.fill.map { image.scaled(
          toFill: $0, focus: p.focus ?? .centre, kernel: k, linearLight: l, allowsShrinkOnLoad: s, allowsEnlargement: e) }),
      (names.5, p.size.map { image.scaled(to: $0, kernel: k, linearLight: l, allowsShrinkOnLoad: s, allowsEnlargement: e) }),
    ].compactMap { name, image in image.map { (name, $0) } }
    guard modes.count == 1 else {
      let list = [names.0, names.1, names.2, names.3, names.4, names.5]
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
