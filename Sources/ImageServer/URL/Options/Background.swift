// Background.swift — background/bg: the colour transparency is flattened onto (`flattened(onto:)`)
// and new canvas (extend, padding) is filled with. `bg:R:G:B` (0–255) or `bg:RRGGBB`; `bg:`
// alone turns it off.

import FilterGraph

/// The flatten step.
struct BackgroundStep: ImageStep {
  static let stage = Stage.background

  func apply(to image: Image, context: StepContext) throws -> Image {
    guard let color = context.background else { return image }
    return image.flattened(onto: color)
  }
}

extension URLOption {
  static let background = URLOption(
    names: ["background", "bg"], arguments: "%R:%G:%B | %hex", summary: "Flatten transparency onto this colour; fills extend and padding."
  ) { args, options in
    try args.expect(atMost: 3)
    switch args.values.filter({ !$0.isEmpty }).count {
    case 0:
      options.background = nil
      options.remove(.background)
      return
    case 1: options.background = try args.color(0)
    case 3:
      let c = try (0..<3).map { Float(try args.integer($0, in: 0...255, default: 0)) / 255 }
      options.background = Color(red: c[0], green: c[1], blue: c[2])
    default: throw args.fail("takes a hex colour or three numbers R:G:B")
    }
    options.set(BackgroundStep())
  }
}
