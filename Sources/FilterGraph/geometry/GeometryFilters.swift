// GeometryFilters.swift — the recipe verbs of the geometry family.

import PixelBufferModule

/// Recipe verbs: `crop` (CropFilter.swift), `rotate`, `affine`, `extend`, `pad`, `roundcorners`, `flip`, `orient`.
public enum GeometryFilters {
  /// `rotate angle=θ [kernel=] [background=]`: clockwise by any angle; multiples of 90° are exact
  /// pixel moves, others are resampled onto the rotated bounding box (Affine.swift).
  public static let rotate = FilterDefinition(
    OperationDescriptor(
      name: "rotate", category: .geometry,
      summary: "Rotates clockwise by any angle: multiples of 90° exactly, others resampled onto the rotated bounding box.",
      parameters: [
        ParameterSpec("angle", .number(-3600...3600), help: "Clockwise angle in degrees (90, 180, 270 move pixels exactly)."),
        ParameterSpec("kernel", .choice(ResampleKernel.names), default: .choice(ResampleKernel.cubic.rawValue), help: "Interpolation kernel for angles that are not multiples of 90°."),
        ParameterSpec("background", .color, default: .color(.clear), help: "Colour of the corners the rotation uncovers (default transparent)."),
      ],
      example: "rotate angle=12.5 background=white")
  ) { inputs, args, _ in
    inputs[0].rotated(
      byDegrees: args.number("angle"), kernel: ResampleKernel(rawValue: args.choice("kernel")) ?? .cubic,
      background: args.color("background"))
  }

  /// `affine matrix=a,b,c,d [translate=e,f] [size=WxH | centre=true] [kernel=] [background=]` (Affine.swift).
  public static let affine = FilterDefinition(AffineOperation.table) { inputs, args, _ in
    let m = args.numbers("matrix"), t = args.numbers("translate")
    guard m.count == 4 else { throw FilterError("affine needs a matrix: write 'affine matrix=a,b,c,d'.") }
    let matrix = AffineMatrix(a: m[0], b: m[1], c: m[2], d: m[3], tx: t.first ?? 0, ty: t.count > 1 ? t[1] : 0)
    return try inputs[0].transformed(
      by: matrix, size: args.size("size"), centred: args.bool("centre"), kernel: ResampleKernel(rawValue: args.choice("kernel")) ?? .cubic,
      background: args.color("background"))
  }

  /// `extend top= right= bottom= left= [mode=color|copy|mirror] [color=]` (Extend.swift).
  public static let extend = FilterDefinition(ExtendOperation.table) { inputs, args, _ in
    let insets = EdgeInsets(
      top: args.integer("top"), right: args.integer("right"), bottom: args.integer("bottom"), left: args.integer("left"))
    let mode: ExtendMode
    switch args.choice("mode") {
    case "copy": mode = .copy
    case "mirror": mode = .mirror
    default: mode = .color(args.color("color"))
    }
    return inputs[0].extended(by: insets, mode: mode)
  }

  /// `pad size=WxH | square=true [gravity=] [color=]` (Pad.swift).
  public static let pad = FilterDefinition(PadOperation.table) { inputs, args, _ in
    let gravity = Gravity(rawValue: args.choice("gravity")) ?? .center, color = args.color("color")
    switch (args.size("size"), args.bool("square")) {
    case (let size?, false): return inputs[0].padded(to: size, gravity: gravity, color: color)
    case (nil, true): return inputs[0].paddedToSquare(gravity: gravity, color: color)
    default: throw FilterError("pad needs a canvas: write 'pad size=WIDTHxHEIGHT' or 'pad square=true' (not both).")
    }
  }

  /// `roundcorners radius=` (RoundCorners.swift).
  public static let roundcorners = FilterDefinition(RoundCornersOperation.table) { inputs, args, _ in
    inputs[0].roundingCorners(radius: args.number("radius"))
  }

  /// `flip axis=horizontal|vertical`.
  public static let flip = FilterDefinition(
    OperationDescriptor(
      name: "flip", category: .geometry, summary: "Mirrors left–right (horizontal) or top–bottom (vertical).",
      parameters: [ParameterSpec("axis", .choice(["horizontal", "vertical"]), default: .choice("horizontal"), help: "Which way to mirror.")],
      example: "flip axis=vertical")
  ) { inputs, args, _ in
    args.choice("axis") == "vertical" ? inputs[0].flippedVertically() : inputs[0].flippedHorizontally()
  }

  /// `orient orientation=1…8`.
  public static let orient = FilterDefinition(OrientOperation.table) { inputs, args, _ in
    let o = Orientation(rawValue: args.integer("orientation")) ?? .up
    return o == .up ? inputs[0] : inputs[0].oriented(o)
  }

  /// Every geometry verb.
  public static var all: [FilterDefinition] { [crop, rotate, affine, extend, pad, roundcorners, flip, orient] }
}
