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
// kernel's reach and clipped to the input, so tiles pull only the input they read.

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
  /// The map as given: input → output continuous coordinates.
  public let matrix: AffineMatrix
  /// The output's size, or nil for the mapped input's bounding box.
  public let outputSize: Size?
  /// True to map the input's centre to the output's (the translation is then ignored).
  public let centred: Bool
  /// The interpolation kernel.
  public let kernel: ResampleKernel
  /// What lies outside the input (straight sRGB-encoded RGBA).
  public let background: Color

  /// The kernel stretches (they depend on the linear part only), computed once.
  private let stretch: (x: Double, y: Double)

  /// Creates the operation; `matrix` must be invertible (`Image.transformed(by:…)` checks).
  public init(
    matrix: AffineMatrix, outputSize: Size? = nil, centred: Bool = false, kernel: ResampleKernel = .cubic,
    background: Color = .clear
  ) {
    self.matrix = matrix
    self.outputSize = outputSize
    self.centred = centred
    self.kernel = kernel
    self.background = background
    let inv = matrix.inverted
    stretch = (max(1, (inv.a * inv.a + inv.b * inv.b).squareRoot()), max(1, (inv.c * inv.c + inv.d * inv.d).squareRoot()))
  }

  /// The forward map (translation resolved) and output size for an input of `size`.
  public func placement(for size: Size) -> (map: AffineMatrix, size: Size) {
    let w = Double(size.width), h = Double(size.height)
    var m = matrix
    let limit = Double(Self.maximumSide)
    func side(_ v: Double) -> Int { Int(min(max(v, 1), limit)) }
    if centred {
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
    if let outputSize { return (m, outputSize) }
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

  /// The `affine` verb's table.
  public static let table = OperationDescriptor(
    name: "affine", category: .geometry,
    summary: "Maps the image through a 2×2 matrix (and translation), resampled with a scale kernel.",
    parameters: [matrixKey.spec, translate.spec, size.spec, centre.spec, kernelKey.spec, backgroundKey.spec],
    example: "affine matrix=1,0.3,0,1 background=white")

  /// `matrix`: a,b,c,d (required).
  public static let matrixKey = Parameter<[Double]>(
    "matrix", count: 4, help: "a,b,c,d: the output point is (a·x + b·y, c·x + d·y) + translate.")
  /// `translate`: e,f.
  public static let translate = Parameter<[Double]>(
    "translate", count: 2, default: [0, 0], help: "e,f added after the matrix (moves the image only when size is given).")
  /// `size`: the output size (optional: the bounding box when not given).
  public static let size = Parameter<Size>(
    "size", sides: 1...maximumSide, optional: true,
    help: "Output size, its origin at the output plane's (0, 0); default: the mapped image's bounding box.")
  /// `centre`: map the centre to the output's centre.
  public static let centre = Parameter<Bool>(
    "centre", default: false,
    help: "Map the image's centre to the output's centre, on its bounding box (translate and size ignored).")
  /// `kernel`: the interpolation kernel.
  public static let kernelKey = Parameter<ResampleKernel>("kernel", default: .cubic, help: "Interpolation kernel.")
  /// `background`: the colour outside the image.
  public static let backgroundKey = Parameter<Color>(
    "background", default: .clear, help: "Colour outside the image (default transparent).")

  public var descriptor: OperationDescriptor { Self.table }
  /// The map as given, the size when given (else `centre`), kernel and background.
  public var arguments: Arguments {
    var values: [(String, ParameterValue)] = [("matrix", .numbers([matrix.a, matrix.b, matrix.c, matrix.d]))]
    if centred {
      values.append(("centre", .boolean(true)))
    } else {
      values.append(("translate", .numbers([matrix.tx, matrix.ty])))
      if let outputSize { values.append(("size", .size(outputSize))) }
    }
    values += [("kernel", .choice(kernel.rawValue)), ("background", .color(background))]
    return Arguments(values)
  }
  public var workingSpace: WorkingSpace? { .linear }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.size = placement(for: info.size).size
    if background.alpha < 1 { info.layout = info.layout.withAlpha }
    if info.layout.isGray && !background.isGray { info.layout = info.layout.hasAlpha ? .rgba : .rgb }
    return info
  }


  /// How far (in input pixels) a tap can be from the sample position, per axis.
  private var reach: (x: Double, y: Double) {
    let s = max(kernel.support, 1)
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
    // A tile that sees only background still needs some input tile: one pixel.
    return needed.isEmpty ? Rect(x: 0, y: 0, width: 1, height: 1) : needed
  }

  /// Not used: sampling needs the input's extent (`render(into:inputs:inputInfos:)`).
  public func render(into output: inout Tile, inputs: [Tile]) throws {
    throw FilterError("affine needs its input's size to render: the renderer calls render(into:inputs:inputInfos:).")
  }

  public func render(into output: inout Tile, inputs: [Tile], inputInfos: [ImageInfo]) throws {
    let input = inputs[0]
    let extent = inputInfos[0].extent
    let inverse = placement(for: extent.size).map.inverted
    // Taps are read only where the input is and the tile holds it.
    let valid = input.rect.intersection(extent)
    let bg = background.premultiplied(in: .linear)
    let weights = AffineKernelTable.table(for: kernel)
    let support = kernel.support
    let (sx, sy) = stretch
    let (rx, ry) = (support * sx, support * sy)
    let invSX = Float(1 / sx), invSY = Float(1 / sy)
    let maxTaps = (x: 2 * Int(rx.rounded(.up)) + 2, y: 2 * Int(ry.rounded(.up)) + 2)
    var wx = [Float](repeating: 0, count: maxTaps.x), wy = [Float](repeating: 0, count: maxTaps.y)
    let ox = output.rect.x, oy = output.rect.y
    let nearest = kernel == .nearest
    input.withPixels { src in
      output.withMutablePixels { dst in
        for y in 0..<dst.height {
          let row = dst[row: y]
          for x in 0..<dst.width {
            // The input position (in pixel indices) output pixel (x, y) samples.
            let p = inverse.apply(Double(ox + x) + 0.5, Double(oy + y) + 0.5)
            let u = p.x - 0.5, v = p.y - 0.5
            // No tap reaches the input: background (this also keeps huge positions from `Int`).
            guard u + rx > -1, v + ry > -1, u - rx < Double(extent.width), v - ry < Double(extent.height) else {
              row[x] = bg
              continue
            }
            if nearest {
              let i = Int((u + 0.5).rounded(.down)), j = Int((v + 0.5).rounded(.down))
              row[x] = valid.contains(i, j) ? src[row: j - input.rect.y][i - input.rect.x] : bg
              continue
            }
            // Taps i with |i − u| ≤ rx: from ⌈u − rx⌉ to ⌊u + rx⌋.
            let i0 = Int((u - rx).rounded(.up)), i1 = Int((u + rx).rounded(.down))
            let j0 = Int((v - ry).rounded(.up)), j1 = Int((v + ry).rounded(.down))
            let nx = i1 - i0 + 1, ny = j1 - j0 + 1
            var sumX: Float = 0, sumY: Float = 0
            let fu = Float(u - Double(i0)), fv = Float(v - Double(j0))
            for k in 0..<nx {
              let w = weights.weight(abs(Float(k) - fu) * invSX)
              wx[k] = w
              sumX += w
            }
            for k in 0..<ny {
              let w = weights.weight(abs(Float(k) - fv) * invSY)
              wy[k] = w
              sumY += w
            }
            let norm = sumX * sumY
            var acc = SIMD4<Float>.zero
            if i0 >= valid.x, i1 < valid.maxX, j0 >= valid.y, j1 < valid.maxY {
              // Every tap inside: no per-tap tests.
              for k in 0..<ny {
                let p = src[row: j0 + k - input.rect.y] + (i0 - input.rect.x)
                var racc = SIMD4<Float>.zero
                for m in 0..<nx { racc += p[m] * wx[m] }
                acc += racc * wy[k]
              }
            } else {
              for k in 0..<ny {
                let j = j0 + k
                var racc = SIMD4<Float>.zero
                if j >= valid.y && j < valid.maxY {
                  let p = src[row: j - input.rect.y]
                  for m in 0..<nx {
                    let i = i0 + m
                    racc += (i >= valid.x && i < valid.maxX ? p[i - input.rect.x] : bg) * wx[m]
                  }
                } else {
                  racc = bg * sumX
                }
                acc += racc * wy[k]
              }
            }
            let value = norm > 0 ? acc / norm : bg
            let a = min(max(value.w, 0), 1)
            row[x] = a > 0 ? SIMD4(value.x, value.y, value.z, a) : .zero
          }
        }
      }
    }
  }
}

extension Rect {
  /// True when pixel (x, y) lies inside.
  @inline(__always) func contains(_ px: Int, _ py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }
}

/// A kernel sampled every 1/1024 of a pixel and interpolated linearly, so taps cost two table
/// reads rather than a `sin` (error below 10⁻⁶). Integer distances fall on samples exactly, so
/// k(0) = 1 and k(n) = 0 stay exact for the interpolating kernels.
struct AffineKernelTable: Sendable {
  /// k(i / 1024) for i = 0 … ⌈support·1024⌉.
  let samples: [Float]

  /// The kernel at distance `t` ≥ 0, interpolated linearly between samples.
  @inline(__always) func weight(_ t: Float) -> Float {
    let s = t * 1024
    let i = Int(s)
    guard i + 1 < samples.count else { return i < samples.count ? samples[i] : 0 }
    return samples[i] + (samples[i + 1] - samples[i]) * (s - Float(i))
  }

  private static let tables: [ResampleKernel: AffineKernelTable] = Dictionary(
    uniqueKeysWithValues: ResampleKernel.allCases.map { k in
      let n = Int((k.support * 1024).rounded(.up))
      // sin(πn) is not exactly 0 in Double: snap rounding noise (≈10⁻¹⁷) to the exact zero, so an
      // interpolating kernel at an integer position reads exactly one pixel.
      return (k, AffineKernelTable(samples: (0...n).map { i in
        let w = k.weight(at: Double(i) / 1024)
        return abs(w) < 1e-12 ? 0 : Float(w)
      }))
    })

  /// The shared table of `kernel`.
  static func table(for kernel: ResampleKernel) -> AffineKernelTable { tables[kernel]! }
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
