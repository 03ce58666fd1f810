// Convolve.swift — a user-given m × n kernel, and the edges / emboss / laplacian presets.
//
// Definition: for a kernel K of m columns and n rows (m, n odd, 1 … 15), centre (cx, cy) =
// (⌊m/2⌋, ⌊n/2⌋), a scale s ≠ 0 and an offset o, each colour channel c of premultiplied RGBA in the
// encoded (stored sRGB) space is
//
//     output_c(x, y) = (1/s) · Σ_{j<n, i<m} K[j][i] · input_c(x + i − cx, y + j − cy)  +  o · α(x, y),
//
// where K[j][i] is the i-th value of row j as written (the kernel is not flipped: a correlation,
// as libvips's `conv` and ImageMagick's `-morphology Convolve` with a symmetric kernel compute),
// s defaults to Σ K, or 1 when that is 0, and α is the pixel's alpha, which is kept as it is (so o
// shifts the straight colour by o where the neighbourhood is uniformly opaque). Coordinates outside
// the image repeat the nearest edge pixel. Colours are not clipped here (the working space is
// extended range); the store clips them to 0…1.
//
// Presets (3 × 3): `emboss` is K = [−2 −1 0; −1 1 1; 0 1 2] (Σ = 1), `laplacian` is
// K = [0 1 0; 1 −4 1; 0 1 0] (Σ = 0, so s = 1), and `edges` is the Sobel gradient magnitude
//
//     output_c = √(Gx_c² + Gy_c²) + o · α,   Gx = K_x ⋆ input, Gy = K_y ⋆ input, s = 1,
//     K_x = [−1 0 1; −2 0 2; −1 0 1],  K_y = K_xᵀ,
//
// (I. Sobel, G. Feldman, 1968), unnormalised: a step of height h gives 4h. A flat region gives 0
// (within Float rounding, 10⁻⁶ of its value: 0 in 8- and 16-bit output).
//
// Evaluation (`method`), each computing the sum above in Float in a fixed order per kernel, so
// tile-parallel renders equal one-tile renders bit for bit:
//  * direct: one pass over each output row per nonzero tap, in row-major tap order, four channels
//    at a time: m·n multiply–adds per pixel.
//  * separable: the kernel's singular value decomposition K/s = Σ_k σ_k u_k v_kᵀ (KernelSVD.swift),
//    each term a row pass with σ_k v_k then a column pass with u_k: rank·(m + n) per pixel. Exact
//    for separable kernels up to Float rounding; the two methods agree within 10⁻⁵ · Σ|K/s|
//    (the tests' tolerance).
//  * auto (the default) picks separable when rank·(m + n) is at most half the number of nonzero
//    taps, direct otherwise. The third candidate, im2col + `cblas_sgemm`, is not in the library:
//    it is measured against these two by Benchmarks/ConvolveComparison (docs/Performance.md,
//    "convolve").

import Foundation
import PixelBufferModule

/// A convolution kernel: its size, values, scale and offset (see the definition at the top of
/// Convolve.swift).
public struct ConvolutionKernel: Hashable, Sendable {
  /// Columns (m) and rows (n), both odd, 1 … 15.
  public let size: Size
  /// m·n values, row by row.
  public let values: [Double]
  /// The divisor s (never 0).
  public let scale: Double
  /// The offset o, added after dividing (in 0…1 units, times alpha).
  public let offset: Double

  /// The largest side.
  public static let maximumSide = 15

  /// Creates a kernel. `scale` defaults to the sum of the values, or 1 when that is 0.
  ///
  /// - Throws: `FilterError` unless both sides are odd and 1 … 15, `values` has width × height
  ///   finite numbers, and `scale` (when given) and `offset` are finite and `scale` is not 0.
  public init(size: Size, values: [Double], scale: Double? = nil, offset: Double = 0) throws {
    let side = 1...Self.maximumSide
    guard side.contains(size.width), side.contains(size.height), size.width % 2 == 1, size.height % 2 == 1 else {
      throw FilterError("convolve size=\(size) is not a kernel size: each side must be odd, 1 to \(Self.maximumSide).")
    }
    guard values.count == size.width * size.height else {
      throw FilterError(
        "convolve size=\(size) needs \(size.width * size.height) values, row by row; \(values.count) were given.")
    }
    guard values.allSatisfy(\.isFinite), offset.isFinite, scale?.isFinite ?? true else {
      throw FilterError("convolve values, scale and offset must be finite numbers.")
    }
    guard scale != 0 else { throw FilterError("convolve scale=0 would divide by zero: give a nonzero scale.") }
    self.init(checked: size, values: values, scale: scale, offset: offset)
  }

  /// A kernel from values already checked; `scale` nil for the sum of the values (1 when it is 0).
  private init(checked size: Size, values: [Double], scale: Double?, offset: Double) {
    let sum = values.reduce(0, +)
    self.size = size
    self.values = values
    self.scale = scale ?? (sum == 0 ? 1 : sum)
    self.offset = offset
  }

  /// A 3 × 3 kernel from literal values (scale from their sum).
  private init(preset values: [Double], offset: Double) {
    self.init(checked: Size(width: 3, height: 3), values: values, scale: nil, offset: offset)
  }

  /// The emboss preset, [−2 −1 0; −1 1 1; 0 1 2].
  public static func emboss(offset: Double = 0) -> ConvolutionKernel {
    ConvolutionKernel(preset: [-2, -1, 0, -1, 1, 1, 0, 1, 2], offset: offset)
  }

  /// The Laplacian preset, [0 1 0; 1 −4 1; 0 1 0] (scale 1).
  public static func laplacian(offset: Double = 0) -> ConvolutionKernel {
    ConvolutionKernel(preset: [0, 1, 0, 1, -4, 1, 0, 1, 0], offset: offset)
  }

  /// Sobel's horizontal-gradient kernel, [−1 0 1; −2 0 2; −1 0 1] (scale 1).
  public static func sobelX(offset: Double = 0) -> ConvolutionKernel {
    ConvolutionKernel(preset: [-1, 0, 1, -2, 0, 2, -1, 0, 1], offset: offset)
  }

  /// The kernel mirrored about its main diagonal (Sobel's vertical kernel from the horizontal).
  var transposed: ConvolutionKernel {
    let m = size.width, n = size.height
    let t = (0..<(m * n)).map { k in values[(k % n) * m + k / n] }
    return ConvolutionKernel(checked: Size(width: n, height: m), values: t, scale: scale, offset: offset)
  }
}

/// The kernel presets of `convolve preset=`.
public enum ConvolutionPreset: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Sobel gradient magnitude.
  case edges
  /// [−2 −1 0; −1 1 1; 0 1 2].
  case emboss
  /// [0 1 0; 1 −4 1; 0 1 0].
  case laplacian
}

/// How `convolve` evaluates its kernel (see the file comment).
public enum ConvolutionMethod: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Separable when rank·(m + n) is at most half the nonzero taps, direct otherwise.
  case automatic = "auto"
  /// m·n multiply–adds per pixel.
  case direct
  /// The kernel's SVD terms, rank·(m + n) multiply–adds per pixel.
  case separable
}

/// Convolves with a kernel, or takes the Sobel gradient magnitude (see the definition at the top
/// of Convolve.swift).
public struct ConvolveOperation: ImageOperation {
  /// The kernel; for the `edges` preset, Sobel's horizontal kernel.
  public let kernel: ConvolutionKernel
  /// True for the `edges` preset: the magnitude of `kernel`'s and its transpose's responses.
  public let gradientMagnitude: Bool
  /// The requested evaluation.
  public let method: ConvolutionMethod
  /// What runs: one plan, or two for the gradient magnitude.
  let plans: [ConvolutionPlan]

  /// Convolves with `kernel`.
  public init(kernel: ConvolutionKernel, method: ConvolutionMethod = .automatic) {
    self.init(kernel: kernel, gradientMagnitude: false, method: method)
  }

  /// The `preset`'s operation, with `offset`.
  public init(preset: ConvolutionPreset, offset: Double = 0, method: ConvolutionMethod = .automatic) {
    let o = offset.isFinite ? offset : 0
    switch preset {
    case .edges: self.init(kernel: .sobelX(offset: o), gradientMagnitude: true, method: method)
    case .emboss: self.init(kernel: .emboss(offset: o), gradientMagnitude: false, method: method)
    case .laplacian: self.init(kernel: .laplacian(offset: o), gradientMagnitude: false, method: method)
    }
  }

  private init(kernel: ConvolutionKernel, gradientMagnitude: Bool, method: ConvolutionMethod) {
    self.kernel = kernel
    self.gradientMagnitude = gradientMagnitude
    self.method = method
    let kernels = gradientMagnitude ? [kernel, kernel.transposed] : [kernel]
    self.plans = kernels.map { ConvolutionPlan($0, method: method) }
  }

  /// `convolve size=3x3 values=0,-1,0,-1,5,-1,0,-1,0 scale= offset=0 method=auto`, or
  /// `convolve preset=edges|emboss|laplacian offset=0 method=auto`.
  public struct Parameters: FilterParameters {
    /// The kernel's width and height.
    @OptionalParam("size", sides: 1...ConvolutionKernel.maximumSide, help: "Kernel width x height, odd sides up to 15 (with values=).")
    public var size: Size?
    /// The kernel, row by row.
    @OptionalParam(
      "values", counts: 1...(ConvolutionKernel.maximumSide * ConvolutionKernel.maximumSide),
      help: "The width·height kernel values, row by row (with size=).")
    public var values: [Double]?
    /// The divisor.
    @OptionalParam("scale", range: -1e9...1e9, help: "Divides the weighted sum (default: the sum of the values, or 1 when it is 0).")
    public var scale: Double?
    /// Added after dividing.
    @Param("offset", range: -1000...1000, percent: .fraction, help: "Added to each colour after dividing (0…1 units; times alpha).")
    public var offset = 0.0
    /// A named kernel instead of size and values.
    @OptionalParam("preset", help: "edges: Sobel gradient magnitude; emboss; laplacian (instead of size= and values=).")
    public var preset: ConvolutionPreset?
    /// How the sum is evaluated.
    @Param("method", help: "direct: m·n taps per pixel; separable: the kernel's SVD terms; auto: whichever is cheaper for the kernel.")
    public var method = ConvolutionMethod.automatic

    /// The defaults; a kernel or a preset must be given.
    public init() {}
  }

  public static let table = OperationDescriptor(
    name: "convolve", category: .convolution,
    summary: "Convolves with a kernel of odd size up to 15x15 given row by row, or a preset (edges, emboss, laplacian); edges extended.",
    parameters: Parameters.table, example: "convolve size=3x3 values=0,-1,0,-1,5,-1,0,-1,0")

  public var descriptor: OperationDescriptor { Self.table }
  /// `preset=edges` for the gradient magnitude; otherwise size, values and scale; then offset and
  /// method. The kernel's offset and scale are spelt as they are, not clamped.
  public var arguments: Arguments {
    let rows = Parameters()
    let shape: [(String, ParameterValue)] =
      gradientMagnitude
      ? [rows.$preset.argument(.edges)]
      : [rows.$size.argument(kernel.size), rows.$values.argument(kernel.values), rows.$scale.argument(kernel.scale)]
    return Arguments(shape + [rows.$offset.argument(kernel.offset), rows.$method.argument(method)])
  }
  public var workingSpace: WorkingSpace? { .encoded }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    Tile.window(around: output, dx: reach.width, dy: reach.height)
  }

  /// How far the kernel reads left and right (width) and up and down (height).
  var reach: Size {
    let m = kernel.size.width, n = kernel.size.height
    return gradientMagnitude ? Size(width: max(m, n) / 2, height: max(m, n) / 2) : Size(width: m / 2, height: n / 2)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    let input = try inputs[0].covering(Tile.window(around: output.rect, dx: reach.width, dy: reach.height))
    let o = Float(kernel.offset)
    let w = output.rect.width, h = output.rect.height
    try plans[0].run(input, into: &output)
    if gradientMagnitude {
      var vertical = try Tile(allocating: output.rect, imageSize: output.imageSize)
      try plans[1].run(input, into: &vertical)
      vertical.withPixels { gy in
        output.withMutablePixels { gx in
          for y in 0..<h {
            let a = gx[row: y], b = gy[row: y]
            for x in 0..<w { a[x] = (a[x] * a[x] + b[x] * b[x]).squareRoot() }
          }
        }
      }
    }
    // The offset times alpha on the colours; alpha is the input's.
    let (cx, cy) = (reach.width, reach.height)
    input.withPixels { src in
      output.withMutablePixels { dst in
        for y in 0..<h {
          let s = src[row: y + cy] + cx, d = dst[row: y]
          for x in 0..<w {
            let alpha = s[x].w
            var v = d[x]
            v.x += o * alpha
            v.y += o * alpha
            v.z += o * alpha
            v.w = alpha
            d[x] = v
          }
        }
      }
    }
  }
}

/// One kernel prepared for evaluation: its Float taps divided by the scale, and its SVD terms.
struct ConvolutionPlan: Sendable {
  /// Columns and rows.
  let width: Int, height: Int
  /// K/s row by row, as Float.
  let taps: [Float]
  /// The SVD terms of K/s: row filter σ·v and column filter u, as Float.
  let terms: [(row: [Float], column: [Float])]
  /// True when the separable evaluation runs.
  let separable: Bool

  init(_ kernel: ConvolutionKernel, method: ConvolutionMethod) {
    let m = kernel.size.width, n = kernel.size.height
    let scaled = kernel.values.map { $0 / kernel.scale }
    width = m
    height = n
    taps = scaled.map { Float($0) }
    let svd = KernelSVD(rows: n, columns: m, values: scaled)
    terms = svd.terms.map { t in (t.row.map { Float(t.sigma * $0) }, t.column.map { Float($0) }) }
    switch method {
    case .direct: separable = false
    case .separable: separable = true
    case .automatic: separable = 2 * svd.rank * (m + n) <= taps.filter { $0 != 0 }.count
    }
  }

  /// Computes `output` (all four channels) from `input`, which covers it widened by at least the
  /// kernel's half size on every side, centred.
  func run(_ input: Tile, into output: inout Tile) throws {
    if separable { try runSeparable(input, into: &output) } else { runDirect(input, into: &output) }
  }

  /// Each output row: one pass per nonzero tap, in row-major order.
  private func runDirect(_ input: Tile, into output: inout Tile) {
    let w = output.rect.width, h = output.rect.height
    let dx = output.rect.x - width / 2 - input.rect.x, dy = output.rect.y - height / 2 - input.rect.y
    let m = width, n = height
    taps.withUnsafeBufferPointer { k in
      input.withPixels { src in
        output.withMutablePixels { dst in
          for y in 0..<h {
            let d = dst[row: y]
            var first = true
            for j in 0..<n {
              let row = src[row: y + j + dy] + dx
              for i in 0..<m where k[j * m + i] != 0 {
                let t = k[j * m + i], s = row + i
                if first {
                  for x in 0..<w { d[x] = t * s[x] }
                  first = false
                } else {
                  for x in 0..<w { d[x] = d[x] + t * s[x] }
                }
              }
            }
            if first { d.update(repeating: SIMD4(), count: w) }
          }
        }
      }
    }
  }

  /// Each SVD term: every input row the columns need, filtered by the term's row filter into a
  /// scratch buffer, then the column filter down it, added to the output.
  private func runSeparable(_ input: Tile, into output: inout Tile) throws {
    let w = output.rect.width, h = output.rect.height
    let dx = output.rect.x - width / 2 - input.rect.x, dy = output.rect.y - height / 2 - input.rect.y
    let rows = h + height - 1
    let (storage, mid) = try TileMemoryPool.scratch(SIMD4<Float>.self, count: rows * w)
    defer { withExtendedLifetime(storage) {} }
    input.withPixels { src in
      output.withMutablePixels { dst in
        if terms.isEmpty {
          for y in 0..<h { dst[row: y].update(repeating: SIMD4(), count: w) }
        }
        for (index, term) in terms.enumerated() {
          term.row.withUnsafeBufferPointer { f in
            for r in 0..<rows {
              let s = src[row: r + dy] + dx, line = mid + r * w
              let f0 = f[0]
              for x in 0..<w { line[x] = f0 * s[x] }
              for i in 1..<f.count {
                let fi = f[i], si = s + i
                for x in 0..<w { line[x] = line[x] + fi * si[x] }
              }
            }
          }
          term.column.withUnsafeBufferPointer { g in
            for y in 0..<h {
              let d = dst[row: y]
              let g0 = g[0], m0 = mid + y * w
              if index == 0 {
                for x in 0..<w { d[x] = g0 * m0[x] }
              } else {
                for x in 0..<w { d[x] = d[x] + g0 * m0[x] }
              }
              for j in 1..<g.count {
                let gj = g[j], mj = mid + (y + j) * w
                for x in 0..<w { d[x] = d[x] + gj * mj[x] }
              }
            }
          }
        }
      }
    }
  }
}

extension Image {
  /// The image convolved with `kernel` (see Convolve.swift): each premultiplied colour channel
  /// becomes the kernel-weighted sum of its neighbourhood divided by the kernel's scale, plus its
  /// offset times alpha; alpha is kept; edges extended.
  public func convolved(with kernel: ConvolutionKernel, method: ConvolutionMethod = .automatic) -> Image {
    applying(ConvolveOperation(kernel: kernel, method: method))
  }

  /// The image filtered by a preset: `edges` (Sobel gradient magnitude), `emboss` or `laplacian`,
  /// plus `offset` times alpha (see Convolve.swift).
  public func convolved(preset: ConvolutionPreset, offset: Double = 0, method: ConvolutionMethod = .automatic) -> Image {
    applying(ConvolveOperation(preset: preset, offset: offset, method: method))
  }
}
