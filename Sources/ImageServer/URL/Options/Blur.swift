// Blur.swift — blur/bl: a Gaussian blur of the result (`blurred(sigma:)`); 0 turns it off.

import FilterGraph

/// The blur step.
struct BlurStep: ImageStep {
  static let stage = Stage.blur
  var sigma: Double

  func apply(to image: Image, context: StepContext) throws -> Image { image.blurred(sigma: sigma) }
}

extension URLOption {
  static let blur = URLOption(names: ["blur", "bl"], arguments: "%sigma", summary: "Gaussian blur of the result (sigma in pixels).") { args, options in
    try args.expect(atMost: 1)
    let sigma = try args.number(0, in: 0...1000, default: 0)
    if sigma == 0 { options.remove(.blur) } else { options.set(BlurStep(sigma: sigma)) }
  }
}
