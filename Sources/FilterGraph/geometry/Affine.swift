// Affine.swift — any linear map plus a translation, resampled: `affine`, and `rotate` by any angle.
//
// Definition. Coordinates are continuous, pixel (i, j) covering [i, i + 1) × [j, j + 1), so its
// centre is (i + ½, j + ½). The forward map sends an input point p to the output point
//
//   q = M·p + t,   M = [a b; c d],  t = (e, f)        (M invertible).
//
// The output is W × H; output pixel (x, y) shows the input around
//
//   (u, v) = M⁻¹·((x + ½, y + ½) − t) − (½, ½)        (in pixel indices: (u, v) = (i, j) is a centre)
//
//   out(x, y) = Σᵢ Σⱼ k((i − u)/sₓ)·k((j − v)/s_y)·in′(i, j)  /  Σᵢ Σⱼ k((i − u)/sₓ)·k((j − v)/s_y)
//
// over |i − u| ≤ support·sₓ, |j − v| ≤ support·s_y, where k is a kernel of ResampleKernel.swift and
// in′(i, j) is the input pixel inside the input's extent and the background colour B outside it
// (so edges blend into the background, antialiased, instead of repeating edge pixels). The kernel
// is stretched by sₓ = max(1, ‖row 0 of M⁻¹‖), s_y = max(1, ‖row 1 of M⁻¹‖) — the input pixels one
// output step travels along each input axis — so shrinking averages instead of aliasing, and
// rotations and enlargements interpolate with the kernel as is. `nearest` copies the one pixel
// (i, j) = (⌊u + ½⌋, ⌊v + ½⌋) (or B). Arithmetic is on premultiplied RGBA in linear light; alpha is
// clipped to 0…1 after negative-lobed kernels, as in Scale.swift.
//
// Output size: given (its origin at the output plane's (0, 0)), or the bounding box of the mapped
// input extent M·[0, w]×[0, h] + t, whose top-left corner (rounded down) then becomes the output's
// origin: without a size the translation only moves the sampling grid by its fractional part.
// With `centre`, the output is that bounding box's size rounded up, ⌈w·|a| + h·|b|⌉ ×
// ⌈w·|c| + h·|d|⌉ (less 10⁻⁶ before rounding up, so float noise adds no row), and t is chosen so
// that the input's centre maps to the output's centre (the given translation is ignored).
// Sizes and translation are computed from the input the operation receives, so they follow an
// input whose size is known only at render time (after `trim`).
//
// `rotate angle=θ` is `centre` with M the clockwise rotation by θ (y points down):
// M = [cos θ  −sin θ; sin θ  cos θ]. Multiples of 90° are not resampled: they are the exact pixel
// moves of Orient.swift.
//
// Each output tile asks for the bounding box of its corners mapped back through M⁻¹, grown by the
// kernel's reach and clipped to the input, so tiles pull only the input they read (a tile of
// background alone, the input pixel nearest to that box: bands then read the input top to bottom
// whenever the map allows, and a JPEG source streams).

import Foundation
import PixelBufferModule

/// A 2×2 matrix and a translation: the point p maps to (a·x + b·y + tx, c·x + d·y + ty).
public struct AffineMatrix: Hashable, Sendable, CustomStringConvertible {
  /// First row of the linear part.
  public var a: Double, b: Double
  /// Second row of the linear part.
  public var c: Double, d: Double
  /// The translation.
  public var tx: Double, ty: Double

  /// Creates a matrix from its linear part and translation.
  public init(a: Double, b: Double, c: Double, d: Double, tx: Double = 0, ty: Double = 0) {
    (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
  }

  /// The clockwise rotation by `degrees` about the origin (y points down).
  public init(rotationByDegrees degrees: Double) {
    let r = degrees * .pi / 180
    let cs = cos(r), sn = sin(r)
    self.init(a: cs, b: -sn, c: sn, d: cs)
  }

  /// The determinant of the linear part.
  public var determinant: Double { a * d - b * c }

  /// True when the matrix can be inverted (and every entry is finite).
  public var isInvertible: Bool {
    [a, b, c, d, tx, ty].allSatisfy(\.isFinite) && abs(determinant) > 1e-12
  }

  /// The inverse map (only meaningful when `isInvertible`).
  public var inverted: AffineMatrix {
    let det = determinant
    let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
    return AffineMatrix(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ib * ty), ty: -(ic * tx + id * ty))
  }

  /// The image of the point (x, y).
  public func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) { (a * x + b * y + tx, c * x + d * y + ty) }

  /// `a,b,c,d`, the recipe spelling of the linear part.
  public var description: String { [a, b, c, d].map(ParameterValue.format).joined(separator: ",") }
}

/// Resamples its input through an affine map (see the definition at the top of Affine.swift).
public struct AffineOperation: ImageOperation {
  /// The parameters (`matrix` must be invertible: `Image.transformed(by:…)` checks).
  public let parameters: Parameters
  /// The map of `parameters.matrix` and `parameters.translate`: input → output continuous coordinates.
  let matrix: AffineMatrix
  /// The kernel stretches (they depend on the linear part only), computed once.
  private let stretch: (x: Double, y: Double)

  /// Creates the operation.
  public init(_ parameters: Parameters) {
    self.parameters = parameters
    let m = parameters.matrix, t = parameters.translate
    matrix = AffineMatrix(a: m[0], b: m[1], c: m[2], d: m[3], tx: t[0], ty: t[1])
    let inv = matrix.inverted
    stretch = (max(1, (inv.a * inv.a + inv.b * inv.b).squareRoot()), max(1, (inv.c * inv.c + inv.d * inv.d).squareRoot()))
  }

  /// The operation of `matrix` (a rotation, or a map a gain map computed), with the other parameters.
  init(matrix: AffineMatrix, outputSize: Size? = nil, centred: Bool = false, kernel: ResampleKernel, background: Color) {
    var parameters = Parameters()
    (parameters.matrix, parameters.translate) = ([matrix.a, matrix.b, matrix.c, matrix.d], [matrix.tx, matrix.ty])
    (parameters.size, parameters.centre, parameters.kernel, parameters.background) = (outputSize, centred, kernel, background)
    self.init(parameters)
  }

  /// The forward map (translation resolved) and output size for an input of `size`.
  public func placement(for size: Size) -> (map: AffineMatrix, size: Size) {
    let w = Double(size.width), h = Double(size.height)
    var m = matrix
    let limit = Double(Self.maximumSide)
    func side(_ v: Double) -> Int { Int(min(max(v, 1), limit)) }
    if parameters.centre {
      let out = Size(
        width: side((w * abs(m.a) + h * abs(m.b) - 1e-6).rounded(.up)),
        height: side((w * abs(m.c) + h * abs(m.d) - 1e-6).rounded(.up)))
      m.tx = 0
      m.ty = 0
      let centre = m.apply(w / 2, h / 2)
      m.tx = Double(out.width) / 2 - centre.x
      m.ty = Double(out.height) / 2 - centre.y
      return (m, out)
    }
    if let outputSize = parameters.size { return (m, outputSize) }
    let corners = [m.apply(0, 0), m.apply(w, 0), m.apply(0, h), m.apply(w, h)]
    let x0 = corners.map(\.x).min()!, x1 = corners.map(\.x).max()!
    let y0 = corners.map(\.y).min()!, y1 = corners.map(\.y).max()!
    let left = (x0 + 1e-6).rounded(.down), top = (y0 + 1e-6).rounded(.down)
    let out = Size(width: side((x1 - left - 1e-6).rounded(.up)), height: side((y1 - top - 1e-6).rounded(.up)))
    m.tx -= left
    m.ty -= top
    return (m, out)
  }

  /// The largest output side.
  public static let maximumSide = 65535

  /// `affine matrix=a,b,c,d translate=0,0 size=WxH centre=false kernel=cubic background=clear`.
  public struct Parameters: FilterParameters {
    /// a,b,c,d.
    @Param("matrix", count: 4, help: "a,b,c,d: the output point is (a·x + b·y, c·x + d·y) + translate.")
    public var matrix: [Double]
    /// e,f.
    @Param("translate", count: 2, help: "e,f added after the matrix (moves the image only when size is given).")
    public var translate = [0.0, 0]
    /// The output size (the bounding box when not given).
    @OptionalParam(
      "size", sides: 1...maximumSide, help: "Output size, its origin at the output plane's (0, 0); default: the mapped image's bounding box.")
    public var size: Size?
    /// Map the centre to the output's centre.
    @Param("centre", help: "Map the image's centre to the output's centre, on its bounding box (translate and size ignored).")
    public var centre = false
    /// The interpolation kernel.
    @Param("kernel", help: "Interpolation kernel.")
    public var kernel = ResampleKernel.cubic
    /// The colour outside the image.
    @Param("background", help: "Colour outside the image (default transparent).")
    public var background = Color.clear

    /// The defaults; `matrix` must be given.
    public init() {}
  }

  /// `rotate angle=θ kernel=cubic background=clear`: the `rotate` verb's parameters.
  public struct RotationParameters: FilterParameters {
    /// The clockwise angle.
    @Param("angle", range: -3600...3600, help: "Clockwise angle in degrees (90, 180, 270 move pixels exactly).")
    public var angle: Double
    /// The interpolation kernel.
    @Param("kernel", help: "Interpolation kernel for angles that are not multiples of 90°.")
    public var kernel = ResampleKernel.cubic
    /// The colour of the uncovered corners.
    @Param("background", help: "Colour of the corners the rotation uncovers (default transparent).")
    public var background = Color.clear

    /// The defaults; `angle` must be given.
    public init() {}
  }

  /// The `affine` verb's table.
  public static let table = OperationDescriptor(
    name: "affine", category: .geometry,
    summary: "Maps the image through a 2×2 matrix (and translation), resampled with a scale kernel.",
    parameters: Parameters.table, example: "affine matrix=1,0.3,0,1 background=white")

  public var descriptor: OperationDescriptor { Self.table }
  /// The parameters, with `centre=true` and without the translation and size it ignores, or with
  /// them and without `centre=false` (the spelling cache keys have always had).
  public var arguments: Arguments {
    let p = parameters
    let left = p.centre ? [p.$translate.name, p.$size.name] : [p.$centre.name]
    return Arguments(p.arguments.values.filter { !left.contains($0.0) })
  }
  public var workingSpace: WorkingSpace? { .linear }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    let background = parameters.background
    info.size = placement(for: info.size).size
    if background.alpha < 1 { info.layout = info.layout.withAlpha }
    if info.layout.isGray && !background.isGray { info.layout = info.layout.hasAlpha ? .rgba : .rgb }
    return info
  }

  /// How far (in input pixels) a tap can be from the sample position, per axis.
  private var reach: (x: Double, y: Double) {
    let s = max(parameters.kernel.support, 1)
    return (s * stretch.x, s * stretch.y)
  }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    let inverse = placement(for: inputs[0].size).map.inverted
    var lo = (u: Double.infinity, v: Double.infinity), hi = (u: -Double.infinity, v: -Double.infinity)
    for (x, y) in [(output.x, output.y), (output.maxX, output.y), (output.x, output.maxY), (output.maxX, output.maxY)] {
      let p = inverse.apply(Double(x), Double(y))
      lo = (min(lo.u, p.x - 0.5), min(lo.v, p.y - 0.5))
      hi = (max(hi.u, p.x - 0.5), max(hi.v, p.y - 0.5))
    }
    let r = reach
    let extent = inputs[0].extent
    // Clamp before converting: a far-away tile must not overflow Int.
    func bound(_ v: Double, _ limit: Int) -> Int { Int(min(max(v, -1), Double(limit + 1))) }
    let x0 = bound((lo.u - r.x).rounded(.down) - 1, extent.width), x1 = bound((hi.u + r.x).rounded(.up) + 2, extent.width)
    let y0 = bound((lo.v - r.y).rounded(.down) - 1, extent.height), y1 = bound((hi.v + r.y).rounded(.up) + 2, extent.height)
    let needed = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0).intersection(extent)
    guard needed.isEmpty else { return needed }
    // A tile that sees only background still needs some input tile: the one pixel of the input
    // nearest to where it maps, so that bands still read the input top to bottom (a decoder can
    // stream it).
    return Rect(x: max(min(x0, extent.width - 1), 0), y: max(min(y0, extent.height - 1), 0), width: 1, height: 1)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    let input = inputs[0]
    let extent = Rect(size: inputs[0].imageSize)
    let inverse = placement(for: extent.size).map.inverted
    let (sx, sy) = stretch
    let kernel = parameters.kernel
    let reach = (x: kernel.support * sx, y: kernel.support * sy)
    // The general path's taps ⌈u − rx⌉ … ⌊u + rx⌋ are at most ⌊2·rx⌋ + 1 (the window's ⌈2·rx⌉ fit).
    let maxTaps = (x: Int((2 * reach.x).rounded(.down)) + 1, y: Int((2 * reach.y).rounded(.down)) + 1)
    let ox = output.rect.x, oy = output.rect.y
    withUnsafeTemporaryAllocation(of: Float.self, capacity: maxTaps.x + maxTaps.y) { scratch in
      AffineKernelTable.table(for: kernel).samples.withUnsafeBufferPointer { samples in
        input.withPixels { src in
          let sampler = AffineSampler(
            src: src, input: input.rect, extent: extent, inverse: inverse, kernel: kernel, reach: reach,
            stretch: stretch, background: parameters.background.premultiplied(in: .linear), table: samples,
            wx: scratch.baseAddress!, wy: scratch.baseAddress! + maxTaps.x)
          output.withMutablePixels { dst in
            for y in 0..<dst.height {
              let row = dst[row: y]
              let cy = Double(oy + y) + 0.5
              // The middle of the row skips `sample`'s tests; the ends and what lies outside the
              // input go through them. Either way a pixel gets the same value.
              let span = sampler.windowSpan(cy, from: ox, count: dst.width)
              for x in 0..<span.lowerBound { sampler.sample(ox + x, cy, into: row + x) }
              if !span.isEmpty { sampler.windowSums(ox + span.lowerBound, span.count, cy, into: row + span.lowerBound) }
              for x in span.upperBound..<dst.width { sampler.sample(ox + x, cy, into: row + x) }
            }
          }
        }
      }
    }
  }
}

extension Image {
  /// The image mapped through `matrix` (p ↦ M·p + t, y down) and resampled with `kernel` in linear
  /// light; outside the image the `background` shows (transparent by default: the result then has
  /// alpha). The output is `size` with its origin at the output plane's (0, 0), or, when `size`
  /// is nil, the bounding box of the mapped image; `centred` maps the image's centre to the
  /// centre of that bounding box instead (see Affine.swift).
  ///
  /// - Throws: `FilterError` when the matrix is not invertible or the output would be larger
  ///   than 65535 pixels on a side.
  public func transformed(
    by matrix: AffineMatrix, size: Size? = nil, centred: Bool = false, kernel: ResampleKernel = .cubic,
    background: Color = .clear
  ) throws -> Image {
    guard matrix.isInvertible else {
      throw FilterError("affine needs an invertible matrix: \(matrix) has determinant \(ParameterValue.format(matrix.determinant)).")
    }
    if let size, size.width < 1 || size.height < 1 || size.width > AffineOperation.maximumSide || size.height > AffineOperation.maximumSide {
      throw FilterError("affine's output size must be 1…\(AffineOperation.maximumSide) on each side, not \(size).")
    }
    let op = AffineOperation(matrix: matrix, outputSize: centred ? nil : size, centred: centred, kernel: kernel, background: background)
    // The bounding box of this image mapped (the renderer recomputes it from the input it gets).
    let w = Double(self.size.width), h = Double(self.size.height)
    let bbox = (w * abs(matrix.a) + h * abs(matrix.b), w * abs(matrix.c) + h * abs(matrix.d))
    if size == nil || centred, bbox.0 > Double(AffineOperation.maximumSide) + 1 || bbox.1 > Double(AffineOperation.maximumSide) + 1 {
      throw FilterError("affine would make a \(Int(bbox.0))×\(Int(bbox.1)) image; the largest side is \(AffineOperation.maximumSide).")
    }
    return applying(op)
  }

  /// The image rotated clockwise by `degrees`. Multiples of 90° move pixels exactly (no
  /// resampling, no background); other angles are resampled with `kernel` in linear light onto the
  /// rotated image's bounding box, the corners filled with `background` (transparent by default:
  /// the result then has alpha). See Affine.swift for the exact definition.
  public func rotated(byDegrees degrees: Double, kernel: ResampleKernel = .cubic, background: Color = .clear) -> Image {
    guard degrees.isFinite else { return self }
    let turn = degrees.truncatingRemainder(dividingBy: 360)
    let quarters = turn / 90
    if quarters == quarters.rounded() {
      let orientation: [Orientation] = [.up, .right, .down, .left]
      let q = ((Int(quarters) % 4) + 4) % 4
      return q == 0 ? self : oriented(orientation[q])
    }
    return applying(
      AffineOperation(matrix: AffineMatrix(rotationByDegrees: turn), centred: true, kernel: kernel, background: background))
  }
}
