// Composite.swift — places one image (the overlay) on another (the base) and blends them.
//
// Definition: input 0 is the base B (W × H), input 1 the overlay S (w × h), placed with its
// top-left pixel at the integer point (ox, oy) of the base. The output has the base's extent;
// output pixel (x, y) is
//
//     out(x, y) = mode.blend(opacity · S(x − ox, y − oy), over: B(x, y))
//
// on premultiplied RGBA (formulas in BlendMode.swift), where S is transparent (0, 0, 0, 0)
// outside its w × h extent — so outside the overlay the base shows unchanged — and `opacity`
// (0…1) scales all four premultiplied lanes of the overlay. The arithmetic runs in linear light
// (sRGB curve removed) by default, or on the stored sRGB-encoded values with `linearLight: false`
// (what most image editors do: a 50 % black over white is then 128, not 188).
//
// Placement: (ox, oy) = anchor(gravity, margin) + (x, y). The anchor puts the overlay against the
// side(s) the gravity names, `margin` pixels in from them, and centres it (rounding towards −∞)
// on the axes it does not name; the offset (x, y), positive right and down, moves it from there.
// So `gravity=northwest x=10 y=20` places the overlay's top-left at (10, 20) exactly.
//
// The output keeps the base's size, colour space and metadata; it has colour channels when
// either input does, alpha when the base has alpha (an opaque base stays opaque in every mode),
// and 16-bit components when either input has them.

import PixelBufferModule

/// Where an overlay sits on a base: against a side or corner, or centred.
public enum Gravity: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Centred on both axes.
  case center
  /// Top edge, centred horizontally.
  case north
  /// Bottom edge, centred horizontally.
  case south
  /// Right edge, centred vertically.
  case east
  /// Left edge, centred vertically.
  case west
  /// Top-right corner.
  case northEast = "northeast"
  /// Top-left corner.
  case northWest = "northwest"
  /// Bottom-right corner.
  case southEast = "southeast"
  /// Bottom-left corner.
  case southWest = "southwest"

  /// The top-left point of an `overlay`-sized image placed on a `base`-sized image with this
  /// gravity, `margin` pixels in from the named sides (centring on the other axes rounds down).
  public func origin(of overlay: Size, in base: Size, margin: Int = 0) -> Point {
    func centred(_ free: Int) -> Int { free >= 0 ? free / 2 : -((-free + 1) / 2) }
    let freeX = base.width - overlay.width, freeY = base.height - overlay.height
    let x: Int, y: Int
    switch self {
    case .west, .northWest, .southWest: x = margin
    case .east, .northEast, .southEast: x = freeX - margin
    case .center, .north, .south: x = centred(freeX)
    }
    switch self {
    case .north, .northWest, .northEast: y = margin
    case .south, .southWest, .southEast: y = freeY - margin
    case .center, .west, .east: y = centred(freeY)
    }
    return Point(x: x, y: y)
  }
}

/// Blends an overlay (input 1), placed at an integer point, onto a base (input 0).
public struct CompositeOperation: ImageOperation, RegionalOperation {
  /// How overlay and base colours combine.
  public let mode: BlendMode
  /// The factor the overlay's premultiplied pixels are scaled by, 0…1.
  public let opacity: Float
  /// The overlay's top-left pixel in base coordinates.
  public let origin: Point
  /// The overlay's size (pixels outside it are transparent).
  public let overlaySize: Size
  /// True to blend in linear light, false to blend sRGB-encoded values.
  public let linearLight: Bool

  /// Creates the operation. `overlaySize` must be the size of the overlay input (the `Image`
  /// methods pass it); `opacity` is clamped into 0…1 (NaN counts as 1).
  public init(mode: BlendMode, opacity: Double = 1, origin: Point, overlaySize: Size, linearLight: Bool = true) {
    self.mode = mode
    self.opacity = Float(Parameters().$opacity.clamped(opacity))
    self.origin = origin
    self.overlaySize = overlaySize
    self.linearLight = linearLight
  }

  /// The largest offset or margin accepted, in pixels.
  public static let maxOffset = 65535

  /// `composite over=BASE mode=over opacity=1 gravity=center margin=0 x=0 y=0 linear=true`: the
  /// verb's parameters (the operation holds the placement they resolve to).
  public struct Parameters: FilterParameters {
    /// The base image (the recipe compiler passes it as input 1).
    @Param(image: "over", help: "The base image the chain's image is placed on; the output has its size.")
    public var over: String
    /// The blend mode.
    @Param("mode", help: "How colours combine.")
    public var mode = BlendMode.over
    /// Scales the overlay.
    @Param("opacity", range: 0...1, percent: .fraction, help: "Scales the overlay's opacity.")
    public var opacity = 1.0
    /// Where the overlay sits.
    @Param("gravity", help: "Which side or corner of the base the overlay sits against.")
    public var gravity = Gravity.center
    /// Distance from the named sides.
    @Param("margin", pixels: 0...maxOffset, help: "Distance from the side(s) gravity names, in pixels or N% of the base's shorter side.")
    public var margin = Length.pixels(0)
    /// Extra horizontal offset.
    @Param("x", range: -maxOffset...maxOffset, help: "Extra horizontal offset in pixels (positive moves right).")
    public var x = 0
    /// Extra vertical offset.
    @Param("y", range: -maxOffset...maxOffset, help: "Extra vertical offset in pixels (positive moves down).")
    public var y = 0
    /// Blend linear light or encoded values.
    @Param("linear", help: "Blend in linear light (true) or on sRGB-encoded values (false).")
    public var linear = true

    /// The defaults; `over` must be given.
    public init() {}
  }

  /// `blend mode=over opacity=1 linear=true`: rows of `composite`'s.
  public struct BlendParameters: FilterParameters {
    private static let rows = CompositeOperation.Parameters()
    /// The blend mode.
    @Param(BlendParameters.rows.$mode) public var mode: BlendMode
    /// Scales the overlay.
    @Param(BlendParameters.rows.$opacity) public var opacity: Double
    /// Blend linear light or encoded values.
    @Param(BlendParameters.rows.$linear) public var linear: Bool

    /// The defaults.
    public init() {}
  }

  /// The parameter table of the `composite` recipe verb.
  public static let table = OperationDescriptor(
    name: "composite", category: .compositing,
    summary: "Places the image over another (`over=`) at a gravity, margin and offset, and blends it.",
    inputCount: 2, parameters: Parameters.table,
    example: "output = composite logo over=photo gravity=southeast margin=24 opacity=0.5")

  public var descriptor: OperationDescriptor { Self.table }

  /// Mode, opacity, the resolved placement (as `gravity=northwest x= y=`) and `linear`.
  public var arguments: Arguments {
    let rows = Parameters()
    return Arguments([
      rows.$mode.argument(mode), rows.$opacity.argument(Double(opacity)), rows.$gravity.argument(.northWest),
      rows.$x.argument(origin.x), rows.$y.argument(origin.y), rows.$linear.argument(linearLight),
    ])
  }

  public var workingSpace: WorkingSpace? { linearLight ? .linear : .encoded }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    let overlay = inputs[1]
    if info.layout.isGray && !overlay.layout.isGray { info.layout = info.layout.hasAlpha ? .rgba : .rgb }
    if overlay.component.byteCount > info.component.byteCount { info.component = overlay.component }
    return info
  }

  /// The overlay's extent in base coordinates.
  public var overlayRect: Rect { Rect(origin: origin, size: overlaySize) }

  /// Outside the overlay the base shows unchanged, in every mode.
  var changedRect: Rect { overlayRect }

  /// Input 0: `output`. Input 1: the part of `output` the overlay covers, in overlay coordinates
  /// (one pixel at the overlay's origin when it covers none, since a region cannot be empty).
  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    if index == 0 { return output }
    let covered = output.intersection(overlayRect)
    if covered.isEmpty { return Rect(x: 0, y: 0, width: 1, height: 1) }
    return covered.offsetBy(dx: -origin.x, dy: -origin.y)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    output.buffer = inputs[0].buffer
    try change(&output, others: Array(inputs.dropFirst()))
  }

  /// Blends the overlay (`others[0]`) into the base's tile in place.
  func change(_ output: inout Tile, others: [Tile]) throws {
    let covered = output.rect.intersection(overlayRect)
    if covered.isEmpty { return }
    let overlay = others[0]
    // Where the covered part starts in the overlay tile and in the output tile.
    let sx = covered.x - origin.x - overlay.rect.x, sy = covered.y - origin.y - overlay.rect.y
    let dx = covered.x - output.rect.x, dy = covered.y - output.rect.y
    let mode = self.mode, opacity = self.opacity
    overlay.withPixels { src in
      output.withMutablePixels { dst in
        for row in 0..<covered.height {
          mode.blendRow(src[row: sy + row] + sx, into: dst[row: dy + row] + dx, count: covered.width, opacity: opacity)
        }
      }
    }
  }
}

extension Image {
  /// This image (the overlay) placed on `base` and blended with it; the result has `base`'s size.
  ///
  /// The overlay sits against the side or corner `gravity` names, `margin` pixels in, then moves
  /// by `offset` (positive right and down); outside it the base shows unchanged. `opacity` scales
  /// the overlay. Blending runs in linear light unless `linearLight` is false. Out-of-range values
  /// are clamped: `opacity` into 0…1, `margin` into 0…65535, offsets into ±65535.
  ///
  /// ```swift
  /// let watermarked = logo.composited(over: photo, gravity: .southEast, margin: 24, opacity: 0.5)
  /// ```
  public func composited(
    over base: Image, gravity: Gravity = .center, margin: Int = 0, offset: Point = Point(x: 0, y: 0),
    mode: BlendMode = .over, opacity: Double = 1, linearLight: Bool = true
  ) -> Image {
    let anchor = gravity.origin(of: size, in: base.size, margin: min(max(margin, 0), CompositeOperation.maxOffset))
    var moved = CompositeOperation.Parameters()
    (moved.x, moved.y) = (offset.x, offset.y)
    let origin = Point(x: anchor.x + moved.x, y: anchor.y + moved.y)
    let op = CompositeOperation(mode: mode, opacity: opacity, origin: origin, overlaySize: size, linearLight: linearLight)
    return base.applying(op, with: [self])
  }

  /// This image (the overlay) blended onto `base` with its top-left pixel at `origin` (base
  /// coordinates, which may be negative or beyond the base: only the covered part shows).
  public func composited(
    over base: Image, at origin: Point, mode: BlendMode = .over, opacity: Double = 1, linearLight: Bool = true
  ) -> Image {
    composited(over: base, gravity: .northWest, offset: origin, mode: mode, opacity: opacity, linearLight: linearLight)
  }

  /// The same as `overlay.composited(over: self, …)`, read from the base: this image with
  /// `overlay` placed on it and blended.
  ///
  /// ```swift
  /// let watermarked = photo.overlaid(with: logo, gravity: .southEast, margin: 24, opacity: 0.5)
  /// ```
  public func overlaid(
    with overlay: Image, gravity: Gravity = .center, margin: Int = 0, offset: Point = Point(x: 0, y: 0),
    mode: BlendMode = .over, opacity: Double = 1, linearLight: Bool = true
  ) -> Image {
    overlay.composited(
      over: self, gravity: gravity, margin: margin, offset: offset, mode: mode, opacity: opacity,
      linearLight: linearLight)
  }
}
