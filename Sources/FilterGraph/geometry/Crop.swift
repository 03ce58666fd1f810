// Crop.swift — cut a rectangle out of an image.
//
// Definition: for an input of W × H, a box of w × h, a gravity and an offset (dx, dy), the region
// is the box with its top-left corner at Gravity.origin(of: w × h, in: W × H) + (dx, dy) — against
// the sides the gravity names, centred (rounding towards −∞) on the other axes; with the default
// gravity, northwest, the offset is the region's corner. With R = region ∩ input extent (the
// region clipped to the image), the output is
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
//
// The region is placed from the input the operation receives, so it follows an input whose size
// is known only at render time: `trim; crop size=800x800 gravity=center` centres on the trimmed
// image, not on the size `trim` reports before its analysis.

import PixelBufferModule

/// Keeps a rectangle of its input (see the definition at the top of Crop.swift).
public struct CropOperation: ImageOperation {
  /// `crop size=WxH x=0 y=0 gravity=northwest`.
  public struct Parameters: FilterParameters {
    /// The rectangle's size.
    @Param("size", sides: 1...65535, help: "Width and height of the rectangle.")
    public var size: Size
    /// Horizontal move from the gravity's place.
    @Param("x", range: -65535...65535, help: "Moves the rectangle right (negative: left) from where gravity puts it.")
    public var x = 0
    /// Vertical move from the gravity's place.
    @Param("y", range: -65535...65535, help: "Moves the rectangle down (negative: up) from where gravity puts it.")
    public var y = 0
    /// The side or corner the rectangle sits against (the words `composite` uses).
    @Param(
      "gravity", cases: [.northWest, .north, .northEast, .west, .center, .east, .southWest, .south, .southEast],
      help: "Which side or corner of the image the rectangle sits against.")
    public var gravity = Gravity.northWest

    /// The defaults; `size` must be given.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  /// The crop of `region`, in input coordinates (a window the renderer or a gain map computed);
  /// its sides and offsets are clamped into the rows' ranges.
  init(region: Rect) {
    var parameters = Parameters()
    (parameters.size, parameters.x, parameters.y) = (region.size, region.x, region.y)
    self.init(parameters)
  }

  /// The rectangle asked for: its size, and its offset from where `parameters.gravity` places a
  /// box of that size in the input (with `.northWest`, its position in input coordinates). It is
  /// clipped to the input when applied.
  public var region: Rect { Rect(origin: Point(x: parameters.x, y: parameters.y), size: parameters.size) }

  /// The `crop` verb's table.
  public static let table = OperationDescriptor(
    name: "crop", category: .geometry,
    summary: "Keeps a rectangle: a size placed at a gravity, moved by x and y, clipped to the image.",
    parameters: Parameters.table, example: "crop size=800x600 gravity=center")

  public var descriptor: OperationDescriptor { Self.table }
  /// The parameters, without `gravity` when it is the default, northwest (the spelling cache
  /// keys have always had).
  public var arguments: Arguments {
    let all = parameters.arguments
    return parameters.gravity == .northWest ? Arguments(all.values.filter { $0.0 != parameters.$gravity.name }) : all
  }
  public var workingSpace: WorkingSpace? { nil }

  /// The region placed by `gravity` in an input of `size`, before clipping.
  public func placedRegion(in size: Size) -> Rect {
    let o = parameters.gravity.origin(of: region.size, in: size)
    return region.offsetBy(dx: o.x, dy: o.y)
  }

  /// The region placed and clipped in an input of `size` (never empty; see the file's definition).
  public func clippedRegion(in size: Size) -> Rect {
    let placed = placedRegion(in: size)
    let r = placed.intersection(Rect(size: size))
    if !r.isEmpty { return r }
    let x = min(max(placed.x, 0), max(size.width - 1, 0)), y = min(max(placed.y, 0), max(size.height - 1, 0))
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
    // Clipped here to the largest extent the image can have, or to the one pixel at its corner
    // when it misses it, so a region outside the rows' ranges keeps its pixels; the operation clips
    // again to the input it gets, with the same result.
    let inside = region.intersection(extent)
    let op = CropOperation(region: inside.isEmpty ? Rect(origin: region.origin, size: Size(width: 1, height: 1)) : inside)
    if op.clippedRegion(in: size) == extent { return self }
    return applying(op)
  }

  /// The pixels inside a box of `size` placed against the side or corner `gravity` names (the
  /// top-left corner by default; centred on the other axes, rounding down) and moved by (`x`,
  /// `y`), clipped to the image as
  /// `cropped(to:)` clips. The box is placed when the image renders, from its actual size: after
  /// `trimmed()` it is placed in the trimmed image.
  public func cropped(to size: Size, gravity: Gravity = .northWest, x: Int = 0, y: Int = 0) -> Image {
    var parameters = CropOperation.Parameters()
    (parameters.size, parameters.gravity, parameters.x, parameters.y) = (size, gravity, x, y)
    let op = CropOperation(parameters)
    // Sizes known before render are the largest the image can be, so a box covering this extent
    // covers the final one too.
    if op.clippedRegion(in: self.size) == extent { return self }
    return applying(op)
  }
}

extension CropOperation: WindowOperation {}
