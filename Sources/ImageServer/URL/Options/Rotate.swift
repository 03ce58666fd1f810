// Rotate.swift — rotate/rot: turn the picture clockwise by a multiple of 90° (after its EXIF
// orientation, before cropping): `oriented(.right)` is 90°, `.down` 180°, `.left` 270°.

import FilterGraph

/// The rotate step.
struct RotateStep: ImageStep {
  static let stage = Stage.rotate
  /// 90, 180 or 270.
  var degrees: Int

  func apply(to image: Image, context: StepContext) throws -> Image {
    switch degrees {
    case 90: return image.oriented(.right)
    case 180: return image.oriented(.down)
    default: return image.oriented(.left)
    }
  }
}

extension URLOption {
  static let rotate = URLOption(names: ["rotate", "rot"], arguments: "%angle", summary: "Turn clockwise by 0, 90, 180 or 270 degrees.") { args, options in
    try args.expect(atMost: 1)
    let angle = try args.integer(0, in: -3600...3600, default: 0)
    guard angle % 90 == 0 else { throw args.fail("only multiples of 90 degrees are supported, not \(angle)") }
    let degrees = (angle % 360 + 360) % 360
    if degrees == 0 { options.remove(.rotate) } else { options.set(RotateStep(degrees: degrees)) }
  }
}
