// Resize.swift — resize/rs, size/s, resizing_type/rt, width/w, height/h, enlarge/el, extend/ex:
// one step that scales the image into the requested box the way the resizing type says, then
// extends it to the box when asked.
//
//   fit        the largest scaling inside the box (`scaled(toFit:)`; one side given: toWidth/toHeight)
//   fill       scaled to cover the box, then cropped to it by gravity (`scaled(toFill:)` when centred)
//   fill-down  as fill, but a source smaller than the box is cropped to the box's aspect ratio
//              at the largest size it holds, not enlarged
//   force      scaled to exactly the box (aspect ratio not kept)
//   auto       fill when the source and the box are both portrait or both landscape, else fit
//
// Sizes are multiplied by dpr; 0 means "from the other side" (force: "the source's"). Without
// enlarge nothing is scaled up. Source: https://docs.imgproxy.net/usage/processing#resizing-type

import FilterGraph

/// imgproxy's resizing types.
enum ResizingType: String, CaseIterable, Sendable {
  case fit, fill, fillDown = "fill-down", force, auto
}

/// The resize step.
struct ResizeStep: ImageStep {
  static let stage = Stage.resize
  var type = ResizingType.fit
  var width = 0
  var height = 0
  var enlarge = false
  var extend = false
  var extendGravity = Gravity.center

  func apply(to image: Image, context: StepContext) throws -> Image {
    let source = image.size
    let (w, h) = (context.scaled(width), context.scaled(height))
    var result = image
    switch resolvedType(source: source, width: w, height: h) {
    case .force:
      var target = Size(width: w > 0 ? w : source.width, height: h > 0 ? h : source.height)
      if !enlarge { target = Size(width: min(target.width, source.width), height: min(target.height, source.height)) }
      result = image.scaled(to: target)
    case .fill, .fillDown:
      result = fill(image, box: Size(width: w, height: h), context: context)
    case .fit, .auto:
      let factors = [w > 0 ? Double(w) / Double(source.width) : nil, h > 0 ? Double(h) / Double(source.height) : nil].compactMap { $0 }
      guard let factor = factors.min(), factor < 1 || enlarge else { break }
      if w > 0 && h > 0 {
        result = image.scaled(toFit: Size(width: w, height: h))
      } else if w > 0 {
        result = image.scaled(toWidth: w)
      } else {
        result = image.scaled(toHeight: h)
      }
    }
    guard extend else { return result }
    let canvas = Size(width: max(result.size.width, w), height: max(result.size.height, h))
    return canvas == result.size ? result : result.padded(to: canvas, gravity: extendGravity, color: context.background ?? .clear)
  }

  /// `auto` decided, and fill types with a side missing read as fit.
  private func resolvedType(source: Size, width w: Int, height h: Int) -> ResizingType {
    switch type {
    case .fill, .fillDown, .auto:
      guard w > 0 && h > 0 else { return .fit }
      if type == .auto { return (source.width >= source.height) == (w >= h) ? .fill : .fit }
      return type
    case .fit, .force: return type
    }
  }

  /// Fill and fill-down: scale to cover `box` (unless that enlarges and enlarging is off), then
  /// crop by gravity.
  private func fill(_ image: Image, box: Size, context: StepContext) -> Image {
    let source = image.size
    let factor = max(Double(box.width) / Double(source.width), Double(box.height) / Double(source.height))
    if factor <= 1 || enlarge {
      if context.gravity == .edge(.center, x: 0, y: 0) { return image.scaled(toFill: box) }
      return context.gravity.crop(image.scaled(to: Self.cover(source, box)), to: box, dpr: context.dpr)
    }
    var target = Size(width: min(box.width, source.width), height: min(box.height, source.height))
    if type == .fillDown {
      let k = min(Double(source.width) / Double(box.width), Double(source.height) / Double(box.height))
      target = Size(width: max(1, Int((Double(box.width) * k).rounded())), height: max(1, Int((Double(box.height) * k).rounded())))
    }
    return context.gravity.crop(image, to: target, dpr: context.dpr)
  }

  /// The smallest size keeping `source`'s aspect ratio that covers `box`.
  static func cover(_ source: Size, _ box: Size) -> Size {
    let (w, h) = (Double(max(source.width, 1)), Double(max(source.height, 1)))
    if box.width * source.height >= box.height * source.width {
      return Size(width: box.width, height: max(Int((h * Double(box.width) / w).rounded()), box.height))
    }
    return Size(width: max(Int((w * Double(box.height) / h).rounded()), box.width), height: box.height)
  }
}

extension URLOption {
  static let resize = URLOption(
    names: ["resize", "rs"], arguments: "%type:%width:%height:%enlarge:%extend",
    summary: "Resizing type, box and enlarge/extend at once (see resizing_type)."
  ) { args, options in
    try args.expect(atMost: 5)
    let type = try resizingType(args, 0)
    try options.update(ResizeStep()) { step in
      if let type { step.type = type }
      try readSize(args, from: 1, into: &step)
    }
  }

  static let size = URLOption(
    names: ["size", "s"], arguments: "%width:%height:%enlarge:%extend",
    summary: "The box and enlarge/extend at once."
  ) { args, options in
    try args.expect(atMost: 4)
    try options.update(ResizeStep()) { try readSize(args, from: 0, into: &$0) }
  }

  static let resizingType = URLOption(
    names: ["resizing_type", "rt"], arguments: "%type", summary: "fit (default), fill, fill-down, force or auto."
  ) { args, options in
    try args.expect(atMost: 1)
    let type = try resizingType(args, 0) ?? .fit
    options.update(ResizeStep()) { $0.type = type }
  }

  static let width = URLOption(names: ["width", "w"], arguments: "%width", summary: "The box's width (0: from the height).") { args, options in
    try args.expect(atMost: 1)
    let value = try args.integer(0, in: 0...65535, default: 0)
    options.update(ResizeStep()) { $0.width = value }
  }

  static let height = URLOption(names: ["height", "h"], arguments: "%height", summary: "The box's height (0: from the width).") { args, options in
    try args.expect(atMost: 1)
    let value = try args.integer(0, in: 0...65535, default: 0)
    options.update(ResizeStep()) { $0.height = value }
  }

  static let enlarge = URLOption(names: ["enlarge", "el"], arguments: "%enlarge", summary: "Scale up sources smaller than the box.") { args, options in
    try args.expect(atMost: 1)
    let value = try args.boolean(0, default: false)
    options.update(ResizeStep()) { $0.enlarge = value }
  }

  static let extend = URLOption(
    names: ["extend", "ex"], arguments: "%extend:%gravity", summary: "Pad a smaller result to the box (background colour, else transparent)."
  ) { args, options in
    try args.expect(atMost: 2)
    let value = try args.boolean(0, default: false)
    let gravity = try extendGravity(args, 1)
    options.update(ResizeStep()) {
      $0.extend = value
      $0.extendGravity = gravity
    }
  }

  private static func resizingType(_ args: OptionArguments, _ index: Int) throws -> ResizingType? {
    guard args.has(index) else { return nil }
    guard let type = ResizingType(rawValue: String(args.values[index])) else {
      throw args.fail("resizing type '\(args.values[index].prefix(20))' is not fit, fill, fill-down, force or auto")
    }
    return type
  }

  private static func extendGravity(_ args: OptionArguments, _ index: Int) throws -> Gravity {
    guard args.has(index) else { return .center }
    guard let gravity = GravityChoice.edges[String(args.values[index])] else {
      throw args.fail("extend gravity '\(args.values[index].prefix(20))' is not one of ce, no, so, ea, we, noea, nowe, soea, sowe")
    }
    return gravity
  }

  /// `%width:%height:%enlarge:%extend` starting at `index`.
  private static func readSize(_ args: OptionArguments, from index: Int, into step: inout ResizeStep) throws {
    step.width = try args.integer(index, in: 0...65535, default: step.width)
    step.height = try args.integer(index + 1, in: 0...65535, default: step.height)
    step.enlarge = try args.boolean(index + 2, default: step.enlarge)
    step.extend = try args.boolean(index + 3, default: step.extend)
  }
}
