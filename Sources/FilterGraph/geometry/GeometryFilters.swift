// GeometryFilters.swift — the recipe verbs of the geometry family.

import PixelBufferModule

/// Recipe verbs: `crop` (CropFilter.swift), `rotate`, `flip`, `orient`.
public enum GeometryFilters {
  /// `rotate degrees=`: the clockwise angle (required).
  public static let degrees = Parameter<String>("degrees", words: ["90", "180", "270", "-90"], help: "Clockwise angle.")
  /// `flip axis=`: which way to mirror.
  public static let axis = Parameter<String>(
    "axis", words: ["horizontal", "vertical"], default: "horizontal", help: "Which way to mirror.")

  /// `rotate degrees=90|180|270`.
  public static let rotate = FilterDefinition(
    OperationDescriptor(
      name: "rotate", category: .geometry, summary: "Rotates clockwise by a multiple of 90°.",
      parameters: [degrees.spec], example: "rotate degrees=90")
  ) { inputs, args, _ in inputs[0].rotated(byDegrees: Int(args[degrees]) ?? 0) }

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
    let o = Orientation(rawValue: args[OrientOperation.orientation]) ?? .up
    return o == .up ? inputs[0] : inputs[0].oriented(o)
  }

  /// Every geometry verb.
  public static var all: [FilterDefinition] { [crop, rotate, flip, orient] }
}
