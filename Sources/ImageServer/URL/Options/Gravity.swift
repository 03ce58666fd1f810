// Gravity.swift — gravity/g: where crops (crop, fill) keep the picture. `sm` is the library's
// smart crop (`smartCropped`, attention strategy); `fp:x:y` a focus point.

extension URLOption {
  static let gravity = URLOption(
    names: ["gravity", "g"], arguments: "%type:%x_offset:%y_offset",
    summary: "ce (default), no, so, ea, we, noea, nowe, soea, sowe, sm (smart), fp:%x:%y."
  ) { args, options in
    options.gravity = try GravityChoice.parse(args, at: 0)
  }
}
