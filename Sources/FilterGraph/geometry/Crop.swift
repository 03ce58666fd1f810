// Crop.swift — cut a rectangle out of an image.
//
// Definition: with R = region ∩ input extent (the region clipped to the image), the output is
// R.width × R.height and output pixel (x, y) is input pixel (R.x + x, R.y + y), unchanged: pixels
// are moved, never resampled, in whatever encoding they arrive. When the region misses the image
// entirely, R is the 1 × 1 image pixel nearest to the region's top-left corner (a crop is never
// empty).
//
// Recipe verb `crop size=WxH [gravity=…] [x=…] [y=…]` (CropFilter.swift): the box of `size` is
// placed against the side or corner `gravity` names (default northwest; centring rounds down),
// then moved by (x, y) — positive is right and down whatever the gravity — and clipped as above.
// So `crop size=800x600 x=100 y=50` keeps the pixels from (100, 50), and
// `crop size=800x800 gravity=center` keeps a centred square.

import PixelBufferModule

/// Keeps a rectangle of its input (see the definition at the top of Crop.swift).
public struct CropOperation: ImageOperation {
  /// The rectangle asked for, in input coordinates (it is clipped to the input when applied).
  public let region: Rect

  /// Creates the operation.
  public init(region: Rect) { self.region = region }

  /// `size`: the rectangle's size (required).
  public static let size = Parameter<Size>("size", sides: 1...65535, help: "Width and height of the rectangle.")
  /// `x`: horizontal move from the gravity's place.
  public static let x = Parameter<Int>(
    "x", range: -65535...65535, default: 0, help: "Moves the rectangle right (negative: left) from where gravity puts it.")
  /// `y`: vertical move from the gravity's place.
  public static let y = Parameter<Int>(
    "y", range: -65535...65535, default: 0, help: "Moves the rectangle down (negative: up) from where gravity puts it.")
  /// `gravity`: the side or corner the rectangle sits against (the words `composite` uses).
  public static let gravity = Parameter<Gravity>(
    "gravity", cases: [.northWest, .north, .northEast, .west, .center, .east, .southWest, .south, .southEast],
    default: .northWest, help: "Which side or corner of the image the rectangle sits against.")

  /// The `crop` verb's table (the operation itself records the resolved `size`, `x`, `y`).
  public static let table = OperationDescriptor(
    name: "crop", category: .geometry,
    summary: "Keeps a rectangle: a size placed at a gravity, moved by x and y, clipped to the image.",
    parameters: [size.spec, x.spec, y.spec, gravity.spec],
    example: "crop size=800x600 gravity=center")

  public var descriptor: OperationDescriptor { Self.table }
  /// The region as `size`, `x`, `y` (gravity already resolved).
  public var arguments: Arguments {
    Arguments([Self.size.argument(region.size), Self.x.argument(region.x), Self.y.argument(region.y)])
  }
  public var workingSpace: WorkingSpace? { nil }

  /// The region clipped to an input of `size` (never empty; see the file's definition).
  public func clippedRegion(in size: Size) -> Rect {
    let extent = Rect(size: size)
    let r = region.intersection(extent)
    if !r.isEmpty { return r }
    let x = min(max(region.x, 0), max(size.width - 1, 0)), y = min(max(region.y, 0), max(size.height - 1, 0))
    return Rect(x: x, y: y, width: 1, height: 1)
  }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.size = clippedRegion(in: info.size).size
    return info
  }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    let r = clippedRegion(in: inputs[0].size)
    return output.offsetBy(dx: r.x, dy: r.y)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    // The input tile is exactly the output's pixels, moved: share them without copying.
    output.buffer = inputs[0].buffer
  }
}

extension Image {
  /// The pixels of the image inside `region`: the region is clipped to the image, and a region
  /// that misses it entirely keeps the one pixel nearest to its top-left corner.
  public func cropped(to region: Rect) -> Image {
    let op = CropOperation(region: region)
    if op.clippedRegion(in: size) == extent { return self }
    return applying(op)
  }
}
