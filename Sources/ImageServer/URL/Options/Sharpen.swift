// Sharpen.swift — sharpen/sh: an unsharp mask of the result (`sharpened(sigma:)`); 0 turns it off.

import FilterGraph

/// The sharpen step.
struct SharpenStep: ImageStep {
  static let stage = Stage.sharpen
  var sigma: Double

  func apply(to image: Image, context: StepContext) throws -> Image { image.sharpened(sigma: sigma) }
}

extension URLOption {
  static let sharpen = URLOption(names: ["sharpen", "sh"], arguments: "%sigma", summary: "Unsharp mask of the result (sigma in pixels).") { args, options in
    try args.expect(atMost: 1)
    let sigma = try args.number(0, in: 0...100, default: 0)
    if sigma == 0 { options.remove(.sharpen) } else { options.set(SharpenStep(sigma: sigma)) }
  }
}
