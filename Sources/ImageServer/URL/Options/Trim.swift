// Trim.swift — trim/t: remove the border of the background colour (`trimmed(threshold:background:)`).
// imgproxy's threshold is on the 0…255 scale; the library's is 0…1 (threshold / 255). The
// equal_hor/equal_ver arguments are refused (not supported) rather than ignored.

import FilterGraph

/// The trim step.
struct TrimStep: ImageStep {
  static let stage = Stage.trim
  var threshold: Double
  var color: Color?

  func apply(to image: Image, context: StepContext) throws -> Image {
    image.trimmed(threshold: threshold / 255, background: color)
  }
}

extension URLOption {
  static let trim = URLOption(
    names: ["trim", "t"], arguments: "%threshold:%color", summary: "Remove the border within threshold (0–255) of a colour (default: the top-left pixel's)."
  ) { args, options in
    try args.expect(atMost: 4)
    if try args.boolean(2, default: false) || args.boolean(3, default: false) {
      throw args.fail("equal_hor and equal_ver are not supported")
    }
    let threshold = try args.number(0, in: 0...255, default: 10)
    options.set(TrimStep(threshold: threshold, color: args.has(1) ? try args.color(1) : nil))
  }
}
