// Padding.swift — padding/pd: add a border after the other steps, CSS-style (top, right, bottom,
// left; missing sides copy their opposite), times dpr, in the background colour or transparent
// (`extended(by:mode:)`).

import FilterGraph

/// The padding step.
struct PaddingStep: ImageStep {
  static let stage = Stage.padding
  var top: Int, right: Int, bottom: Int, left: Int

  func apply(to image: Image, context: StepContext) throws -> Image {
    let insets = EdgeInsets(top: context.scaled(top), right: context.scaled(right), bottom: context.scaled(bottom), left: context.scaled(left))
    return image.extended(by: insets, mode: .color(context.background ?? .clear))
  }
}

extension URLOption {
  static let padding = URLOption(
    names: ["padding", "pd"], arguments: "%top:%right:%bottom:%left", summary: "Border added around the result (CSS order)."
  ) { args, options in
    try args.expect(atMost: 4)
    guard (0..<4).contains(where: args.has) else { throw args.fail("needs at least one side") }
    let top = try args.integer(0, in: 0...4096, default: 0)
    let right = try args.integer(1, in: 0...4096, default: top)
    let bottom = try args.integer(2, in: 0...4096, default: top)
    let left = try args.integer(3, in: 0...4096, default: right)
    options.set(PaddingStep(top: top, right: right, bottom: bottom, left: left))
  }
}
