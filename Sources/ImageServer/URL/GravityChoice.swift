// GravityChoice.swift — imgproxy's gravity values: an edge or corner with an offset, smart
// (the library's attention-based smart crop), or a focus point.

import FilterGraph

/// Where a crop keeps the picture.
enum GravityChoice: Equatable, Sendable {
  /// Against an edge or corner, moved by an offset (pixels, or a fraction of the image below 1).
  case edge(Gravity, x: Double, y: Double)
  /// The most interesting part (`smartCropped`).
  case smart
  /// Centred on a point given as fractions of the width and height.
  case focus(x: Double, y: Double)

  /// imgproxy's short names.
  static let edges: [String: Gravity] = [
    "ce": .center, "no": .north, "so": .south, "ea": .east, "we": .west,
    "noea": .northEast, "nowe": .northWest, "soea": .southEast, "sowe": .southWest,
  ]

  /// Reads `type:x:y` starting at argument `index` of `arguments`.
  static func parse(_ arguments: OptionArguments, at index: Int, allowsSmart: Bool = true) throws -> GravityChoice {
    guard arguments.has(index) else { return .edge(.center, x: 0, y: 0) }
    let type = String(arguments.values[index])
    if type == "sm" {
      guard allowsSmart else { throw arguments.fail("smart gravity (sm) is not allowed here") }
      try arguments.expect(atMost: index + 1)
      return .smart
    }
    if type == "fp" {
      try arguments.expect(atMost: index + 3)
      return .focus(
        x: try arguments.number(index + 1, in: 0...1, default: 0.5), y: try arguments.number(index + 2, in: 0...1, default: 0.5))
    }
    guard let edge = edges[type] else {
      throw arguments.fail("gravity '\(type.prefix(20))' is not one of ce, no, so, ea, we, noea, nowe, soea, sowe, sm, fp")
    }
    try arguments.expect(atMost: index + 3)
    return .edge(
      edge, x: try arguments.number(index + 1, in: -65535...65535, default: 0),
      y: try arguments.number(index + 2, in: -65535...65535, default: 0))
  }

  /// `image` cropped to `box` (at most the image's size) where this gravity says; offsets of at
  /// least 1 are pixels (times `dpr`), smaller ones fractions of the image.
  func crop(_ image: Image, to box: Size, dpr: Double) -> Image {
    let size = image.size
    let box = Size(width: min(box.width, size.width), height: min(box.height, size.height))
    switch self {
    case .smart:
      return image.smartCropped(to: box)
    case .focus(let fx, let fy):
      let x = Int((fx * Double(size.width)).rounded()) - box.width / 2
      let y = Int((fy * Double(size.height)).rounded()) - box.height / 2
      return image.cropped(
        to: Rect(
          x: min(max(x, 0), size.width - box.width), y: min(max(y, 0), size.height - box.height),
          width: box.width, height: box.height))
    case .edge(let gravity, let dx, let dy):
      return image.cropped(to: box, gravity: gravity, x: Self.offset(dx, side: size.width, dpr: dpr), y: Self.offset(dy, side: size.height, dpr: dpr))
    }
  }

  /// imgproxy's offsets: at least 1 (in size) is pixels times `dpr`, less is a fraction of `side`.
  static func offset(_ value: Double, side: Int, dpr: Double) -> Int {
    abs(value) < 1 ? Int((value * Double(side)).rounded()) : Int((value * dpr).rounded())
  }
}
