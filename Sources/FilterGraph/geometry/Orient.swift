// Orient.swift — turn and mirror by multiples of 90°: auto-orient, rotate, flip.
//
// Definition: the output pixel (x, y) is the input pixel M·(x, y) + t, where M is one of the
// eight 2×2 matrices with entries in {-1, 0, 1} that map the rectangle onto itself (the dihedral
// group of the square, which is also the set of EXIF orientations) and t puts the result at the
// origin. Rotations by 90° and 270° exchange width and height. Pixels are moved, never resampled.

import PixelBufferModule

/// One of the eight axis-aligned transforms, as the matrix mapping output offsets to input offsets.
public struct OrientTransform: Hashable, Sendable {
  /// Matrix rows: `inX = a·x + b·y`, `inY = c·x + d·y` (plus a translation).
  public let a: Int, b: Int, c: Int, d: Int

  /// The transform that shows pixels stored with EXIF `orientation` upright.
  public init(_ orientation: Orientation) {
    switch orientation {
    case .up: (a, b, c, d) = (1, 0, 0, 1)
    case .upMirrored: (a, b, c, d) = (-1, 0, 0, 1)
    case .down: (a, b, c, d) = (-1, 0, 0, -1)
    case .downMirrored: (a, b, c, d) = (1, 0, 0, -1)
    case .leftMirrored: (a, b, c, d) = (0, 1, 1, 0)
    case .right: (a, b, c, d) = (0, 1, -1, 0)
    case .rightMirrored: (a, b, c, d) = (0, -1, -1, 0)
    case .left: (a, b, c, d) = (0, -1, 1, 0)
    }
  }

  /// The EXIF orientation this transform undoes.
  public var orientation: Orientation {
    Orientation.allCases.first { OrientTransform($0) == self }!
  }

  private init(a: Int, b: Int, c: Int, d: Int) { (self.a, self.b, self.c, self.d) = (a, b, c, d) }

  /// `self` applied first, then `next` (on the result of `self`).
  public func followed(by next: OrientTransform) -> OrientTransform {
    OrientTransform(
      a: a * next.a + b * next.c, b: a * next.b + b * next.d,
      c: c * next.a + d * next.c, d: c * next.b + d * next.d)
  }

  /// True when width and height are exchanged.
  public var swapsAxes: Bool { a == 0 }

  /// The output size for an input of `size`.
  public func outputSize(for size: Size) -> Size { swapsAxes ? size.transposed : size }

  /// The input pixel that output pixel `(x, y)` shows, for an input of `inputSize`.
  @inlinable public func sourcePoint(x: Int, y: Int, inputSize: Size) -> Point {
    let out = swapsAxes ? inputSize.transposed : inputSize
    // Doubled coordinates keep the centre of even-sized images on the integer grid.
    let dx = 2 * x - (out.width - 1), dy = 2 * y - (out.height - 1)
    return Point(
      x: (a * dx + b * dy + inputSize.width - 1) / 2,
      y: (c * dx + d * dy + inputSize.height - 1) / 2)
  }
}

/// Turns and mirrors an image by a multiple of 90°.
public struct OrientOperation: ImageOperation {

  /// `orient orientation=1`.
  public struct Parameters: FilterParameters {
    /// The EXIF orientation to undo.
    @Param("orientation", range: 1...8, help: "EXIF orientation to undo.")
    public var orientation = 1

    /// The defaults.
    public init() {}
  }

  /// `flip axis=horizontal|vertical`: the `flip` verb's parameters.
  public struct FlipParameters: FilterParameters {
    /// Which way to mirror.
    @Param("axis", words: ["horizontal", "vertical"], help: "Which way to mirror.")
    public var axis = "horizontal"

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters
  /// The transform of `parameters.orientation`.
  let transform: OrientTransform

  /// Creates the operation.
  public init(_ parameters: Parameters) {
    self.parameters = parameters
    transform = OrientTransform(Orientation(rawValue: parameters.orientation) ?? .up)
  }

  /// The operation of `transform` (an orientation read from a file, or two folded into one).
  init(_ transform: OrientTransform) {
    var parameters = Parameters()
    parameters.orientation = transform.orientation.rawValue
    self.init(parameters)
  }

  /// The parameter table (`orient` in `fgrun filters`).
  public static let table = OperationDescriptor(
    name: "orient", category: .geometry,
    summary: "Turns and mirrors by an EXIF orientation (1 = as is … 8); rotate and flip are shorthands.",
    parameters: Parameters.table, example: "orient orientation=6")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { nil }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.size = transform.outputSize(for: info.size)
    info.metadata.orientation = .up
    return info
  }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    let size = inputs[0].size
    let p0 = transform.sourcePoint(x: output.x, y: output.y, inputSize: size)
    let p1 = transform.sourcePoint(x: output.maxX - 1, y: output.maxY - 1, inputSize: size)
    return Rect(x: min(p0.x, p1.x), y: min(p0.y, p1.y), width: abs(p1.x - p0.x) + 1, height: abs(p1.y - p0.y) + 1)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    let input = inputs[0]
    // The input tile is exactly the bounding box of the mapped output tile, so the source of the
    // tile's first pixel is the box corner the matrix points back to; then step with the matrix.
    let t = transform
    input.withPixels { src in
      output.withMutablePixels { dst in
        // Map the output tile's corner through the transform relative to the input tile.
        let stepX = Point(x: t.a, y: t.c), stepY = Point(x: t.b, y: t.d)
        let startX = (t.a < 0 ? src.width - 1 : 0) + (t.b < 0 ? src.width - 1 : 0)
        let startY = (t.c < 0 ? src.height - 1 : 0) + (t.d < 0 ? src.height - 1 : 0)
        if !t.swapsAxes {
          for y in 0..<dst.height {
            let row = dst[row: y]
            var ix = startX + y * stepY.x, iy = startY + y * stepY.y
            for x in 0..<dst.width {
              row[x] = src[row: iy][ix]
              ix += stepX.x
              iy += stepX.y
            }
          }
          return
        }
        // A transpose: walking an output row walks an input column (one cache line and one page
        // per pixel), so go in 16 × 16 blocks whose input lines stay in L1.
        let block = 16
        var by = 0
        while by < dst.height {
          let yEnd = min(by + block, dst.height)
          var bx = 0
          while bx < dst.width {
            let xEnd = min(bx + block, dst.width)
            for y in by..<yEnd {
              let row = dst[row: y]
              var ix = startX + y * stepY.x + bx * stepX.x, iy = startY + y * stepY.y + bx * stepX.y
              for x in bx..<xEnd {
                row[x] = src[row: iy][ix]
                ix += stepX.x
                iy += stepX.y
              }
            }
            bx = xEnd
          }
          by = yEnd
        }
      }
    }
  }
}

extension Image {
  /// The image turned upright from pixels stored with EXIF `orientation` (`.up`: the image as
  /// it is).
  public func oriented(_ orientation: Orientation) -> Image {
    orientation == .up ? self : applying(OrientOperation(OrientTransform(orientation)))
  }

  /// The image mirrored left–right.
  public func flippedHorizontally() -> Image { oriented(.upMirrored) }

  /// The image mirrored top–bottom.
  public func flippedVertically() -> Image { oriented(.downMirrored) }
}

extension OrientOperation: FoldingOperation, ScaleCommutingOperation {
  /// `inner`'s transform followed by this one, when `inner` is an orientation too.
  public func folded(after inner: any ImageOperation) -> (any ImageOperation)? {
    guard let inner = inner as? OrientOperation else { return nil }
    return OrientOperation(inner.transform.followed(by: transform))
  }

  /// True for the identity transform.
  public var isIdentity: Bool { transform == OrientTransform(.up) }

  /// True for quarter turns and transpositions.
  public var swapsAxes: Bool { transform.swapsAxes }
}
