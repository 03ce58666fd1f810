// Pad.swift — place the image on a canvas of a size (or a square) and colour, by gravity.
//
// Definition: for an input of w × h the canvas is W × H — the given size, or with `square` the
// square of side max(w, h) — and the input's top-left corner goes to
// (ox, oy) = Gravity.origin(of: w × h, in: W × H): against the sides the gravity names, centred
// (rounding towards −∞) on the other axes. Output pixel (x, y) is input pixel (x − ox, y − oy)
// where that lies inside the input, and the colour C (straight sRGB-encoded RGBA; not opaque
// gives the result alpha) elsewhere. An input larger than the canvas on an axis is thus cut to
// the part that lands on it. Pixels are moved, never resampled; the colour is painted on
// sRGB-encoded values, where it is defined.
//
// The canvas and placement are computed from the input the operation receives, so they follow
// an input whose size is known only at render time (`trim; pad square=true`).

import PixelBufferModule

/// Places its input on a canvas (see the definition at the top of Pad.swift).
public struct PadOperation: ImageOperation {
  /// The largest canvas side.
  public static let maximumSide = 65535

  /// `pad size=WxH | square=true gravity=center color=black`.
  public struct Parameters: FilterParameters {
    /// The canvas (or `square`).
    @OptionalParam("size", sides: 1...maximumSide, help: "Canvas width and height (give size or square=true).")
    public var size: Size?
    /// A square canvas.
    @Param("square", help: "A square canvas as wide as the image's longer side.")
    public var square = false
    /// Where the image sits.
    @Param("gravity", help: "Which side or corner of the canvas the image sits against.")
    public var gravity = Gravity.center
    /// The canvas colour.
    @Param("color", help: "Canvas colour (transparent colours give the image alpha).")
    public var color = Color.black

    /// The defaults; `size` or `square` must be given.
    public init() {}
  }

  /// The parameters, in their ranges: the canvas is `size`, or without one the square of the
  /// input's longer side.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  public static let table = OperationDescriptor(
    name: "pad", category: .geometry,
    summary: "Places the image on a canvas of a size (or a square) and colour, against a side or corner (cut where larger).",
    parameters: Parameters.table, example: "pad square=true color=white")

  public var descriptor: OperationDescriptor { Self.table }
  /// The parameters, without `square=false` (the spelling cache keys have always had).
  public var arguments: Arguments {
    let all = parameters.arguments
    return parameters.square ? all : Arguments(all.values.filter { $0.0 != parameters.$square.name })
  }
  public var workingSpace: WorkingSpace? { .encoded }

  /// The canvas for an input of `size`.
  public func canvasSize(for size: Size) -> Size {
    parameters.size ?? { let side = min(max(size.width, size.height), Self.maximumSide); return Size(width: side, height: side) }()
  }

  /// Where the input's top-left pixel lands, for an input of `size`.
  public func origin(for size: Size) -> Point { parameters.gravity.origin(of: size, in: canvasSize(for: size)) }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    let color = parameters.color
    info.size = canvasSize(for: info.size)
    if color.alpha < 1 { info.layout = info.layout.withAlpha }
    if info.layout.isGray && !color.isGray { info.layout = info.layout.hasAlpha ? .rgba : .rgb }
    return info
  }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    let o = origin(for: inputs[0].size)
    let inside = output.offsetBy(dx: -o.x, dy: -o.y).intersection(inputs[0].extent)
    return inside.isEmpty ? Rect(x: 0, y: 0, width: 1, height: 1) : inside
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    let input = inputs[0]
    let o = origin(for: inputs[0].imageSize)
    let shifted = output.rect.offsetBy(dx: -o.x, dy: -o.y)
    let inside = shifted.intersection(Rect(size: inputs[0].imageSize))
    let fill = parameters.color.premultiplied(in: .encoded)
    input.withPixels { src in
      output.withMutablePixels { dst in
        for y in 0..<dst.height { dst[row: y].update(repeating: fill, count: dst.width) }
        guard !inside.isEmpty else { return }
        let sx = inside.x - input.rect.x, sy = inside.y - input.rect.y
        let dx = inside.x - shifted.x, dy = inside.y - shifted.y
        for row in 0..<inside.height {
          (dst[row: dy + row] + dx).update(from: src[row: sy + row] + sx, count: inside.width)
        }
      }
    }
  }
}

extension Image {
  /// The image placed on a `size` canvas of `color` (black by default) against the side or corner
  /// `gravity` names (centred on the other axes, rounding down); an image larger than the canvas
  /// on an axis is cut to the part that lands on it. Sides are clamped into 1…65535. See Pad.swift.
  public func padded(to size: Size, gravity: Gravity = .center, color: Color = .black) -> Image {
    var parameters = PadOperation.Parameters()
    (parameters.size, parameters.gravity, parameters.color) = (size, gravity, color)
    return applying(PadOperation(parameters))
  }

  /// The image centred (or placed by `gravity`) on a square canvas of `color` whose side is the
  /// image's longer side. See Pad.swift.
  public func paddedToSquare(gravity: Gravity = .center, color: Color = .black) -> Image {
    var parameters = PadOperation.Parameters()
    (parameters.square, parameters.gravity, parameters.color) = (true, gravity, color)
    return applying(PadOperation(parameters))
  }
}
