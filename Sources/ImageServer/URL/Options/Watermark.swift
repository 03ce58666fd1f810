// Watermark.swift — watermark/wm: the server's watermark file (`--watermark`) laid over the
// result (`overlaid(with:gravity:offset:opacity:)`), optionally scaled to a fraction of the
// result's width. Offsets of at least 1 are pixels (times dpr), smaller ones fractions. The
// `re` (repeat) position is refused, not supported.

import FilterGraph

/// The watermark step.
struct WatermarkStep: ImageStep {
  static let stage = Stage.watermark
  var opacity: Double
  var gravity: Gravity
  var x: Double, y: Double
  var scale: Double

  func apply(to image: Image, context: StepContext) throws -> Image {
    guard var mark = context.resources.watermark else {
      throw ServerError.badURL("Option 'watermark': this server has no watermark file (--watermark).")
    }
    if scale > 0 { mark = mark.scaled(toWidth: .percent(scale * 100), of: image) }
    let offset = Point(
      x: GravityChoice.offset(x, side: image.size.width, dpr: context.dpr), y: GravityChoice.offset(y, side: image.size.height, dpr: context.dpr))
    return image.overlaid(with: mark, gravity: gravity, offset: offset, opacity: opacity)
  }
}

extension URLOption {
  static let watermark = URLOption(
    names: ["watermark", "wm"], arguments: "%opacity:%position:%x_offset:%y_offset:%scale",
    summary: "Lay the server's watermark over the result (position ce, no, so, ea, we, noea, nowe, soea, sowe)."
  ) { args, options in
    try args.expect(atMost: 5)
    let opacity = try args.number(0, in: 0...1, default: 1)
    if opacity == 0 {
      options.remove(.watermark)
      return
    }
    var gravity = Gravity.center
    if args.has(1) {
      guard let named = GravityChoice.edges[String(args.values[1])] else {
        throw args.fail("position '\(args.values[1].prefix(20))' is not supported (ce, no, so, ea, we, noea, nowe, soea, sowe)")
      }
      gravity = named
    }
    options.set(
      WatermarkStep(
        opacity: opacity, gravity: gravity, x: try args.number(2, in: -65535...65535, default: 0),
        y: try args.number(3, in: -65535...65535, default: 0), scale: try args.number(4, in: 0...1, default: 0)))
  }
}
