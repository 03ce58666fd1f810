// GeometryFilters.swift — the recipe verbs of the geometry family.

import PixelBufferModule

/// Recipe verbs: `crop` (CropFilter.swift), `rotate`, `flip`, `orient`.
public enum GeometryFilters {
  /// `rotate degrees=90|180|270`.
  public static let rotate = FilterDefinition(
    OperationDescriptor(
      name: "rotate", category: .geometry, summary: "Rotates clockwise by a multiple of 90°.",
      parameters: [ParameterSpec("degrees", .choice(["90", "180", "270", "-90"]), help: "Clockwise angle.")],
      example: "rotate degrees=90")
  ) { inputs, args, _ in inputs[0].rotated(byDegrees: Int(args.choice("degrees")) ?? 0) }

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
  public static var all: [FilterDefinition] { [crop, rotate, flip, orient] }
}
