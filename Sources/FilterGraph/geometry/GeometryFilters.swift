// GeometryFilters.swift — the recipe verbs of the geometry family.

import PixelBufferModule

/// Recipe verbs: `crop` (CropFilter.swift), `rotate`, `affine`, `extend`, `pad`, `roundcorners`, `trim`, `smartcrop`,
/// `flip`, `orient`.
public enum GeometryFilters {
  /// `rotate angle=θ [kernel=] [background=]`: clockwise by any angle; multiples of 90° are exact
  /// pixel moves, others are resampled onto the rotated bounding box (Affine.swift).
  public static let rotate = FilterDefinition(
    OperationDescriptor(
      name: "rotate", category: .geometry,
      summary: "Rotates clockwise by any angle: multiples of 90° exactly, others resampled onto the rotated bounding box.",
      parameters: AffineOperation.RotationParameters.table, example: "rotate angle=12.5 background=white"),
    reading: AffineOperation.RotationParameters.self
  ) { inputs, p, _ in
    inputs[0].rotated(byDegrees: p.angle, kernel: p.kernel, background: p.background)
  }

  /// `affine matrix=a,b,c,d [translate=e,f] [size=WxH | centre=true] [kernel=] [background=]` (Affine.swift).
  public static let affine = FilterDefinition(AffineOperation.table, reading: AffineOperation.Parameters.self) { inputs, p, _ in
    let m = p.matrix, t = p.translate
    let matrix = AffineMatrix(a: m[0], b: m[1], c: m[2], d: m[3], tx: t[0], ty: t[1])
    return try inputs[0].transformed(by: matrix, size: p.size, centred: p.centre, kernel: p.kernel, background: p.background)
  }

  /// `extend top= right= bottom= left= [mode=color|copy|mirror] [color=]` (Extend.swift).
  public static let extend = FilterDefinition(ExtendOperation.table, reading: ExtendOperation.Parameters.self) { inputs, p, _ in
    let insets = EdgeInsets(top: p.top, right: p.right, bottom: p.bottom, left: p.left)
    let mode: ExtendMode
    switch p.mode {
    case "copy": mode = .copy
    case "mirror": mode = .mirror
    default: mode = .color(p.color)
    }
    return inputs[0].extended(by: insets, mode: mode)
  }

  /// `pad size=WxH | square=true [gravity=] [color=]` (Pad.swift).
  public static let pad = FilterDefinition(PadOperation.table, reading: PadOperation.Parameters.self) { inputs, p, _ in
    switch (p.size, p.square) {
    case (let size?, false): return inputs[0].padded(to: size, gravity: p.gravity, color: p.color)
    case (nil, true): return inputs[0].paddedToSquare(gravity: p.gravity, color: p.color)
    default: throw FilterError("pad needs a canvas: write 'pad size=WIDTHxHEIGHT' or 'pad square=true' (not both).")
    }
  }

  /// `roundcorners radius=` (RoundCorners.swift).
  public static let roundcorners = FilterDefinition(RoundCornersOperation.table, reading: RoundCornersOperation.Parameters.self) {
    inputs, p, _ in inputs[0].roundingCorners(radius: p.radius)
  }

  /// `trim threshold= background=` (Trim.swift).
  public static let trim = FilterDefinition(TrimOperation.table, reading: TrimOperation.Parameters.self) { inputs, p, _ in
    inputs[0].trimmed(threshold: p.threshold, background: p.background)
  }

  /// `smartcrop size=WxH strategy=attention|entropy|centre` (SmartCrop.swift).
  public static let smartcrop = FilterDefinition(SmartCropOperation.table, reading: SmartCropOperation.Parameters.self) { inputs, p, _ in
    inputs[0].smartCropped(to: p.size, strategy: p.strategy)
  }

  /// `flip axis=horizontal|vertical`.
  public static let flip = FilterDefinition(
    OperationDescriptor(
      name: "flip", category: .geometry, summary: "Mirrors left–right (horizontal) or top–bottom (vertical).",
      parameters: OrientOperation.FlipParameters.table, example: "flip axis=vertical"),
    reading: OrientOperation.FlipParameters.self
  ) { inputs, p, _ in
    p.axis == "vertical" ? inputs[0].flippedVertically() : inputs[0].flippedHorizontally()
  }

  /// `orient orientation=1…8`.
  public static let orient = FilterDefinition(OrientOperation.table, reading: OrientOperation.Parameters.self) { inputs, p, _ in
    inputs[0].oriented(Orientation(rawValue: p.orientation) ?? .up)
  }

  /// Every geometry verb.
  public static var all: [FilterDefinition] { [crop, rotate, affine, extend, pad, roundcorners, trim, smartcrop, flip, orient] }
}
