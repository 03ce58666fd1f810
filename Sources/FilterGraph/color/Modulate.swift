// Modulate.swift — brightness, saturation, hue and lightness in the Oklch perceptual space.
//
// Definition, on straight (not premultiplied) linear-light sRGB c = (r, g, b) (Oklab is defined on
// linear sRGB; Björn Ottosson, "A perceptual color space for image processing", 2020):
//
//   (L, a, b) = M₂ · ∛(M₁ · c)                              Oklab; ∛ per component, odd for negatives
//   L' = L · brightness + lightness
//   (a', b') = saturation · R(hue) · (a, b)                 chroma C = √(a² + b²) scaled, angle h + hue
//   c' = M₁⁻¹ · (M₂⁻¹ · (L', a', b'))³                       alpha unchanged
//
// with R(θ) the rotation by θ degrees, M₁ and M₂ Ottosson's published matrices (LMS from linear
// sRGB; Oklab from cube-rooted LMS) and M₁⁻¹, M₂⁻¹ his published inverses. In Oklch terms: L' = βL + λ,
// C' = sC, h' = h + θ. Lightness is an offset in Oklab L units (0 black, 1 white); brightness and
// saturation are multipliers (1 = unchanged); hue is degrees. No clamping: colours pushed outside
// sRGB stay outside until the output is stored (where they clip), so consecutive modulates
// compose exactly — and the optimizer merges them: (β₁, λ₁, s₁, θ₁) then (β₂, λ₂, s₂, θ₂) is
// (β₁β₂, λ₁β₂ + λ₂, s₁s₂, θ₁ + θ₂). The steps between the cube roots are affine, so they run as
// one 3×3 matrix plus offset on cube-rooted LMS: K = M₂⁻¹ · A · M₂, k = M₂⁻¹ · (λ, 0, 0).
// The cube root is computed to Float precision without a division (an exponent-bits first guess
// and Newton steps on the inverse cube root).

import CKernels
import Foundation
import PixelBufferModule

/// Scales Oklab lightness and chroma, rotates hue and offsets lightness; see the file's definition.
public struct ModulateOperation: ComposablePointOperation {
  /// `modulate brightness=1 saturation=1 hue=0 lightness=0`.
  public struct Parameters: FilterParameters {
    /// Multiplies Oklab L.
    @Param("brightness", range: 0...10, percent: .fraction, help: "Multiplies Oklab lightness L (1 = unchanged).")
    public var brightness = 1.0
    /// Multiplies Oklch chroma.
    @Param("saturation", range: 0...10, percent: .fraction, help: "Multiplies Oklch chroma (1 = unchanged, 0 = gray).")
    public var saturation = 1.0
    /// Rotates Oklch hue, in degrees.
    @Param("hue", range: -360...360, help: "Rotates Oklch hue by this many degrees.")
    public var hue = 0.0
    /// Added to Oklab L.
    @Param("lightness", range: -1...1, percent: .fraction, help: "Added to Oklab L (0 black … 1 white).")
    public var lightness = 0.0

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges (of two merged operations: the merged values, clamped).
  public let parameters: Parameters
  /// The values applied, in table order (brightness, saturation, hue, lightness): the
  /// parameters', or a merge's, which may leave the rows' ranges and stay unclamped so that the
  /// merge is exact.
  private let applied: SIMD4<Double>

  private let matrix: [SIMD4<Float>]  // rows of K (w unused)
  private let offset: SIMD4<Float>
  /// M₁, K, k and M₁⁻¹ as the AVX2 kernel `fg_modulate` reads them (the same floats).
  private let kernelConstants: [Float]

  /// Creates the operation.
  public init(_ parameters: Parameters) {
    self.init(parameters, applying: SIMD4(parameters.brightness, parameters.saturation, parameters.hue, parameters.lightness))
  }

  /// The composition of two operations, `values` in table order.
  private init(merged values: SIMD4<Double>) {
    var parameters = Parameters()
    (parameters.brightness, parameters.saturation, parameters.hue, parameters.lightness) = (values[0], values[1], values[2], values[3])
    self.init(parameters, applying: values)
  }

  /// `parameters` for readers; `values` (table order) is what the matrix and offset apply.
  private init(_ parameters: Parameters, applying values: SIMD4<Double>) {
    self.parameters = parameters
    applied = values
    let (brightness, saturation, hue, lightness) = (values[0], values[1], values[2], values[3])
    let theta = hue * .pi / 180
    let cs = saturation * cos(theta), sn = saturation * sin(theta)
    let a: [[Double]] = [[brightness, 0, 0], [0, cs, -sn], [0, sn, cs]]
    let k = Self.multiply(Self.m2Inverse, Self.multiply(a, Self.m2))
    matrix = k.map { SIMD4(Float($0[0]), Float($0[1]), Float($0[2]), 0) }
    let o = Self.m2Inverse.map { $0[0] * lightness }
    offset = SIMD4(Float(o[0]), Float(o[1]), Float(o[2]), 0)
    let (a0, a1, a2) = Self.toLMS, (b0, b1, b2) = Self.fromLMS
    kernelConstants = [a0.x, a1.x, a2.x, a0.y, a1.y, a2.y, a0.z, a1.z, a2.z]
      + matrix.flatMap { [$0.x, $0.y, $0.z] } + [offset.x, offset.y, offset.z]
      + [b0.x, b1.x, b2.x, b0.y, b1.y, b2.y, b0.z, b1.z, b2.z]
  }

  public static let table = OperationDescriptor(
    name: "modulate", category: .color,
    summary: "Brightness and saturation multipliers, hue rotation and lightness offset in Oklch (perceptual).",
    parameters: Parameters.table, example: "modulate brightness=1.05 saturation=1.2 hue=10")

  public var descriptor: OperationDescriptor { Self.table }
  /// A merged operation's values may leave their rows' ranges: they are spelt as they are.
  public var arguments: Arguments {
    Arguments(parameters.arguments.values.enumerated().map { ($1.0, .number(applied[$0])) })
  }
  public var workingSpace: WorkingSpace? { .linear }

  public func composed(with next: any PointOperation) -> (any PointOperation)? {
    guard let n = next as? ModulateOperation else { return nil }
    // (β₁β₂, s₁s₂, θ₁ + θ₂, λ₁β₂ + λ₂): the file's definition.
    let (a, b) = (applied, n.applied)
    return ModulateOperation(merged: SIMD4(a[0] * b[0], a[1] * b[1], a[2] + b[2], a[3] * b[0] + b[3]))
  }

  /// Eight pixels at a time, in planes (r, g, b, a each a SIMD8): the cube roots' dependent
  /// steps of eight pixels overlap instead of waiting on one another (a pixel at a time, the
  /// divisions' latency made modulate six times slower than sepia). A row's last pixels are
  /// padded to eight, so every pixel takes the same arithmetic whatever the tiling.
  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    // The AVX2 kernel (the same arithmetic) takes whole groups of eight where the CPU has it.
    var i = kernelConstants.withUnsafeBufferPointer { constants in
      pixels.withMemoryRebound(to: Float.self, capacity: count * 4) { fg_modulate($0, count, constants.baseAddress!) }
    }
    while i + 8 <= count {
      applyEight(pixels + i)
      i += 8
    }
    guard i < count else { return }
    var rest = (SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero,
                SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero)
    withUnsafeMutableBytes(of: &rest) { raw in
      let block = raw.baseAddress!.assumingMemoryBound(to: SIMD4<Float>.self)
      block.update(from: pixels + i, count: count - i)
      applyEight(block)
      (pixels + i).update(from: block, count: count - i)
    }
  }

  /// The definition on eight pixels.
  @inline(__always)
  private func applyEight(_ p: UnsafeMutablePointer<SIMD4<Float>>) {
    var r = SIMD8<Float>(), g = SIMD8<Float>(), b = SIMD8<Float>(), a = SIMD8<Float>()
    for k in 0..<8 {
      let v = p[k]
      r[k] = v.x
      g[k] = v.y
      b[k] = v.z
      a[k] = v.w
    }
    let covered = a .> 0, opaque = all(a .== 1)
    if !opaque {
      let reciprocal = 1 / a.replacing(with: 1, where: .!covered)
      r *= reciprocal
      g *= reciprocal
      b *= reciprocal
    }
    let (a0, a1, a2) = Self.toLMS, (b0, b1, b2) = Self.fromLMS
    let k0 = matrix[0], k1 = matrix[1], k2 = matrix[2], off = offset
    let l = Self.cubeRoot(a0.x * r + a1.x * g + a2.x * b)
    let m = Self.cubeRoot(a0.y * r + a1.y * g + a2.y * b)
    let s = Self.cubeRoot(a0.z * r + a1.z * g + a2.z * b)
    var l2 = k0.x * l + k0.y * m + k0.z * s + off.x
    var m2 = k1.x * l + k1.y * m + k1.z * s + off.y
    var s2 = k2.x * l + k2.y * m + k2.z * s + off.z
    l2 = l2 * l2 * l2
    m2 = m2 * m2 * m2
    s2 = s2 * s2 * s2
    var outR = b0.x * l2 + b1.x * m2 + b2.x * s2
    var outG = b0.y * l2 + b1.y * m2 + b2.y * s2
    var outB = b0.z * l2 + b1.z * m2 + b2.z * s2
    if !opaque {
      outR *= a
      outG *= a
      outB *= a
    }
    for k in 0..<8 where covered[k] {
      p[k] = SIMD4(outR[k], outG[k], outB[k], a[k])
    }
  }

  /// ∛x per lane (odd for negatives) within 2·10⁻⁷ relative (about an ulp), without a division:
  /// Newton's method on the inverse cube root, y ← y · (4 − |x|·y³) / 3, then ∛|x| = |x| · y²
  /// refined once.
  /// Magnitudes below 10⁻³⁰ (whose y³ would overflow) count as 10⁻³⁰, an error under 10⁻¹⁰.
  @inline(__always)
  static func cubeRoot(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let ax = x.replacing(with: -x, where: x .< 0)
    let safe = ax.replacing(with: 1e-30, where: ax .< 1e-30)
    // First guess from the exponent bits (a positive float's bits are nearly 2²³·(log₂ x + 127)):
    // 1/∛x has bits ≈ K − bits / 3, within 7 % for the K fitted over 10⁻⁶…10⁴. The third is
    // taken with shifts and adds (n/4 + n/16 + …, Hacker's Delight's divu3 without its final
    // correction: a few units short, nothing for a guess); SIMD has no integer division.
    let n = unsafeBitCast(safe, to: SIMD8<UInt32>.self)
    var third = (n &>> 2) &+ (n &>> 4)
    third &+= third &>> 4
    third &+= third &>> 8
    third &+= third &>> 16
    var y = unsafeBitCast(0x54A2_1DC0 &- third, to: SIMD8<Float>.self)
    for _ in 0..<2 {  // quadratic: 7 % → 5·10⁻³ → 2·10⁻⁵
      y = y * (4 - safe * (y * y * y)) * (1 / 3 as Float)
    }
    // One Newton step on ∛ itself, r ← r + (|x| − r³) / (3r²) with 1/r² ≈ y²: 2·10⁻⁵ → 10⁻⁷.
    var r = safe * (y * y)
    r += (safe - r * r * r) * (y * y) * (1 / 3 as Float)
    r = r.replacing(with: 0, where: ax .== 0)
    return r.replacing(with: -r, where: x .< 0)
  }

  /// M₁ as columns (lane j of column i is row j): LMS = Σ col_i · c_i.
  static let toLMS = columns([
    [0.4122214708, 0.5363325363, 0.0514459929],
    [0.2119034982, 0.6806995451, 0.1073969566],
    [0.0883024619, 0.2817188376, 0.6299787005],
  ])
  /// M₁⁻¹ as columns.
  static let fromLMS = columns([
    [4.0767416621, -3.3077115913, 0.2309699292],
    [-1.2684380046, 2.6097574011, -0.3413193965],
    [-0.0041960863, -0.7034186147, 1.7076147010],
  ])
  /// M₂: cube-rooted LMS → Oklab.
  static let m2: [[Double]] = [
    [0.2104542553, 0.7936177850, -0.0040720468],
    [1.9779984951, -2.4285922050, 0.4505937099],
    [0.0259040371, 0.7827717662, -0.8086757660],
  ]
  /// M₂⁻¹: Oklab → cube-rooted LMS.
  static let m2Inverse: [[Double]] = [
    [1, 0.3963377774, 0.2158037573],
    [1, -0.1055613458, -0.0638541728],
    [1, -0.0894841775, -1.2914855480],
  ]

  private static func columns(_ m: [[Double]]) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    func col(_ i: Int) -> SIMD4<Float> { SIMD4(Float(m[0][i]), Float(m[1][i]), Float(m[2][i]), 0) }
    return (col(0), col(1), col(2))
  }

  private static func multiply(_ x: [[Double]], _ y: [[Double]]) -> [[Double]] {
    (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + x[i][$1] * y[$1][j] } } }
  }
}

extension Image {
  /// The image with Oklab lightness multiplied by `brightness` and offset by `lightness`, Oklch
  /// chroma multiplied by `saturation` and hue rotated by `hue` degrees (see Modulate.swift).
  /// Values are clamped to the table's ranges (NaN: the default, unchanged).
  public func modulated(brightness: Double = 1, saturation: Double = 1, hue: Double = 0, lightness: Double = 0) -> Image {
    var parameters = ModulateOperation.Parameters()
    (parameters.brightness, parameters.saturation, parameters.hue, parameters.lightness) = (brightness, saturation, hue, lightness)
    return applying(ModulateOperation(parameters))
  }
}
