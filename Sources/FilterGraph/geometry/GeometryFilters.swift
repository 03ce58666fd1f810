// GeometryFilters.swift — the recipe verbs of the geometry family.

import PixelBufferModule

/// Recipe verbs: `crop` (CropFilter.swift), `rotate`, `affine`, `extend`, `pad`, `roundcorners`, `trim`, `smartcrop`,
/// `flip`, `orient`.
public enum GeometryFilters {
  /// `rotate angle=`: the clockwise angle (required).
  public static let angle = Parameter<Double>(
    "angle", range: -3600...3600, help: "Clockwise angle in degrees (90, 180, 270 move pixels exactly).")
  /// `rotate kernel=`.
  public static let rotateKernel = Parameter<ResampleKernel>(
    "kernel", default: .cubic, help: "Interpolation kernel for angles that are not multiples of 90°.")
  /// `rotate background=`.
  public static let background = Parameter<Color>(
    "background", default: .clear, help: "Colour of the corners the rotation uncovers (default transparent).")
  /// `flip axis=`: which way to mirror.
  public static let axis = Parameter<String>(
    "axis", words: ["horizontal", "vertical"], default: "horizontal", help: "Which way to mirror.")

  /// `rotate angle=θ [kernel=] [background=]`: clockwise by any angle; multiples of 90° are exact
  /// pixel moves, others are resampled onto the rotated bounding box (Affine.swift).
  public static let rotate = FilterDefinition(
    OperationDescriptor(
      name: "rotate", category: .geometry,
      summary: "Rotates clockwise by any angle: multiples of 90° exactly, others resampled onto the rotated bounding box.",
      parameters: [angle.spec, rotateKernel.spec, background.spec],
      example: "rotate angle=12.5 background=white")
  ) { inputs, args, _ in
    inputs[0].rotated(byDegrees: args[angle], kernel: args[rotateKernel], background: args[background])
  }

  /// `affine matrix=a,b,c,d [translate=e,f] [size=WxH | centre=true] [kernel=] [background=]` (Affine.swift).
  public static let affine = FilterDefinition(AffineOperation.table) { inputs, args, _ in
    typealias Affine = AffineOperation
    let m = args[Affine.matrixKey], t = args[Affine.translate]
    let matrix = AffineMatrix(a: m[0], b: m[1], c: m[2], d: m[3], tx: t[0], ty: t[1])
    return try inputs[0].transformed(
      by: matrix, size: args.given(Affine.size), centred: args[Affine.centre], kernel: args[Affine.kernelKey],
      background: args[Affine.backgroundKey])
  }

  /// `extend top= right= bottom= left= [mode=color|copy|mirror] [color=]` (Extend.swift).
  public static let extend = FilterDefinition(ExtendOperation.table) { inputs, args, _ in
    typealias Extend = ExtendOperation
    let insets = EdgeInsets(top: args[Extend.top], right: args[Extend.right], bottom: args[Extend.bottom], left: args[Extend.left])
    let mode: ExtendMode
    switch args[Extend.modeKey] {
    case "copy": mode = .copy
    case "mirror": mode = .mirror
    default: mode = .color(args[Extend.color])
    }
    return inputs[0].extended(by: insets, mode: mode)
  }

  /// `pad size=WxH | square=true [gravity=] [color=]` (Pad.swift).
  public static let pad = FilterDefinition(PadOperation.table) { inputs, args, _ in
    typealias Pad = PadOperation
    let gravity = args[Pad.gravityKey], color = args[Pad.colorKey]
    switch (args.given(Pad.size), args[Pad.square]) {
    case (let size?, false): return inputs[0].padded(to: size, gravity: gravity, color: color)
    case (nil, true): return inputs[0].paddedToSquare(gravity: gravity, color: color)
    default: throw FilterError("pad needs a canvas: write 'pad size=WIDTHxHEIGHT' or 'pad square=true' (not both).")
    }
  }

  /// `roundcorners radius=` (RoundCorners.swift).
  public static let roundcorners = FilterDefinition(RoundCornersOperation.table) { inputs, args, _ in
    inputs[0].roundingCorners(radius: args[RoundCornersOperation.radiusKey])
  }

  /// `trim threshold= background=` (Trim.swift).
  public static let trim = FilterDefinition(TrimOperation.table) { inputs, args, _ in
    inputs[0].trimmed(threshold: args[TrimOperation.thresholdKey], background: args.given(TrimOperation.backgroundKey))
  }

  /// `smartcrop size=WxH strategy=attention|entropy|centre` (SmartCrop.swift).
  public static let smartcrop = FilterDefinition(SmartCropOperation.table) { inputs, args, _ in
    inputs[0].smartCropped(to: args[SmartCropOperation.sizeKey], strategy: args[SmartCropOperation.strategyKey])
  }

  /// `flip axis=horizontal|vertical`.
  public static let flip = FilterDefinition(
    OperationDescriptor(
      name: "flip", category: .geometry, summary: "Mirrors left–right (horizontal) or top–bottom (vertical).",
      parameters: [axis.spec], example: "flip axis=vertical")
  ) { inputs, args, _ in
    args[axis] == "vertical" ? inputs[0].flippedVertically() : inputs[0].flippedHorizontally()
  }

  /// `orient orientation=1…8`.
  public static let orient = FilterDefinition(OrientOperation.table) { inputs, args, _ in
    inputs[0].oriented(Orientation(rawValue: args[OrientOperation.orientation]) ?? .up)
  }

  /// Every geometry verb.
  public static var all: [FilterDefinition] { [crop, rotate, affine, extend, pad, roundcorners, trim, smartcrop, flip, orient] }
}
