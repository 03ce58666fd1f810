// Curves.swift — a tone curve through given input:output points, monotone between them.
//
// Definition, on straight (not premultiplied) colour values c in the sRGB encoding (as stored, as
// tone curves in photo editors work), for each channel `channel` selects (alpha unchanged): with
// points (x₀, y₀) … (xₙ, yₙ), x strictly increasing, the output is the monotone cubic Hermite
// interpolant of Fritsch & Carlson ("Monotone piecewise cubic interpolation", SIAM J. Numer.
// Anal. 17, 1980):
//
//   hₖ = xₖ₊₁ − xₖ,   δₖ = (yₖ₊₁ − yₖ) / hₖ
//   slopes: m₀ = δ₀, mₙ = δₙ₋₁, mₖ = (δₖ₋₁ + δₖ) / 2 where δₖ₋₁, δₖ have the same sign, else 0;
//   on each interval with δₖ = 0: mₖ = mₖ₊₁ = 0; otherwise with α = mₖ/δₖ, β = mₖ₊₁/δₖ,
//   when α² + β² > 9 both are scaled by 3 / √(α² + β²) (the sufficient condition for monotonicity)
//   f(c) = h₀₀(t) yₖ + h₁₀(t) hₖ mₖ + h₀₁(t) yₖ₊₁ + h₁₁(t) hₖ mₖ₊₁,  t = (c − xₖ) / hₖ,  xₖ ≤ c ≤ xₖ₊₁
//
// with the cubic Hermite basis h₀₀ = 2t³ − 3t² + 1, h₁₀ = t³ − 2t² + t, h₀₁ = −2t³ + 3t², h₁₁ = t³ − t².
// Outside [x₀, xₙ] the curve is flat: f(c) = y₀ below, yₙ above. So monotone points give a monotone
// curve, points on the diagonal give the identity on [x₀, xₙ] (every δ and m is 1, and the Hermite
// sum reduces to c), and two points give a straight line. The slopes and the per-interval
// polynomial coefficients are computed in Double and evaluated in Float (Horner).

import Foundation
import PixelBufferModule

/// One point of a tone curve: `input` maps to `output`.
public struct CurvePoint: Hashable, Sendable, CustomStringConvertible {
  /// The input value (0…1 as stored).
  public var input: Double
  /// The value it becomes.
  public var output: Double

  /// Creates a point.
  public init(_ input: Double, _ output: Double) {
    self.input = input
    self.output = output
  }

  /// `input:output`, the recipe spelling.
  public var description: String { "\(ParameterValue.format(input)):\(ParameterValue.format(output))" }
}

extension CurvePoint: ParameterListElement {
  /// The points of `.pairs` (input:output), or nil.
  public static func list(from value: ParameterValue) -> [CurvePoint]? {
    guard case .pairs(let v) = value else { return nil }
    return v.map { CurvePoint($0.x, $0.y) }
  }
  /// `.pairs` of (input, output).
  public static func parameterValue(of list: [CurvePoint]) -> ParameterValue { .pairs(list.map { SIMD2($0.input, $0.output) }) }
}

extension Param where Value == [CurvePoint] {
  /// Between `count.lowerBound` and `count.upperBound` input:output pairs (required).
  public init(_ name: String, pairs count: ClosedRange<Int>, help: String) {
    self.init(Parameter(spec: ParameterSpec(name, .pairs(count: count), help: help)), value: nil)
  }
}

/// Applies a monotone cubic tone curve; see the file's definition.
public struct CurvesOperation: PointOperation {
  /// `curves points=… channel=all`.
  public struct Parameters: FilterParameters {
    /// The curve's input:output pairs.
    @Param("points", pairs: 2...64, help: "input:output pairs (0…1 as stored), inputs distinct, e.g. 0:0,0.5:0.6,1:1.")
    public var points: [CurvePoint]
    /// The channels changed.
    @Param("channel", help: ToneChannel.parameterHelp)
    public var channel = ToneChannel.all

    /// The defaults; `points` must be given.
    public init() {}
  }

  /// The parameters, the points sorted by input, inputs distinct.
  public let parameters: Parameters
  /// Per interval k: the polynomial in t = (c − xₖ)/hₖ, coefficients of 1, t, t², t³.
  private let coefficients: [SIMD4<Float>]
  private let knots: [Float]
  private let inverseWidths: [Float]

  /// Creates the operation from at least two points with distinct inputs (they are sorted); fewer
  /// usable points give the identity curve (0:0, 1:1). Of points with equal inputs the last is kept.
  public init(_ parameters: Parameters) {
    var sorted: [CurvePoint] = []
    for p in parameters.points.filter({ $0.input.isFinite && $0.output.isFinite }).enumerated().sorted(by: { ($0.element.input, $0.offset) < ($1.element.input, $1.offset) }).map(\.element) {
      if sorted.last?.input == p.input { sorted.removeLast() }
      sorted.append(p)
    }
    if sorted.count < 2 { sorted = [CurvePoint(0, 0), CurvePoint(1, 1)] }
    var normalized = parameters
    normalized.points = sorted
    self.parameters = normalized
    let slopes = Self.slopes(sorted)
    var coefficients: [SIMD4<Float>] = []
    for k in 0..<(sorted.count - 1) {
      let h = sorted[k + 1].input - sorted[k].input
      let y0 = sorted[k].output, y1 = sorted[k + 1].output
      let d0 = h * slopes[k], d1 = h * slopes[k + 1]
      // h₀₀ y₀ + h₁₀ d₀ + h₀₁ y₁ + h₁₁ d₁ expanded in powers of t.
      let c0 = y0, c1 = d0
      let c2 = -3 * y0 - 2 * d0 + 3 * y1 - d1
      let c3 = 2 * y0 + d0 - 2 * y1 + d1
      coefficients.append(SIMD4(Float(c0), Float(c1), Float(c2), Float(c3)))
    }
    self.coefficients = coefficients
    knots = sorted.map { Float($0.input) }
    inverseWidths = (0..<(sorted.count - 1)).map { Float(1 / (sorted[$0 + 1].input - sorted[$0].input)) }
  }

  /// The Fritsch–Carlson tangents mₖ at each point (see the file's definition).
  static func slopes(_ p: [CurvePoint]) -> [Double] {
    let n = p.count
    let delta = (0..<(n - 1)).map { (p[$0 + 1].output - p[$0].output) / (p[$0 + 1].input - p[$0].input) }
    var m = [Double](repeating: 0, count: n)
    m[0] = delta[0]
    m[n - 1] = delta[n - 2]
    if n > 2 {
      for k in 1..<(n - 1) { m[k] = delta[k - 1] * delta[k] > 0 ? (delta[k - 1] + delta[k]) / 2 : 0 }
    }
    for k in 0..<(n - 1) {
      if delta[k] == 0 {
        m[k] = 0
        m[k + 1] = 0
        continue
      }
      let alpha = m[k] / delta[k], beta = m[k + 1] / delta[k]
      let r = alpha * alpha + beta * beta
      if r > 9 {
        let tau = 3 / r.squareRoot()
        m[k] = tau * alpha * delta[k]
        m[k + 1] = tau * beta * delta[k]
      }
    }
    return m
  }

  public static let table = OperationDescriptor(
    name: "curves", category: .color,
    summary: "A monotone cubic tone curve (Fritsch–Carlson) through input:output points.",
    parameters: Parameters.table, example: "curves points=0:0,0.25:0.2,0.75:0.85,1:1")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { .encoded }

  /// f(c) for one value (the definition's curve, in Float).
  @inline(__always)
  func curve(_ c: Float, _ knots: UnsafeBufferPointer<Float>, _ coefficients: UnsafeBufferPointer<SIMD4<Float>>, _ inverseWidths: UnsafeBufferPointer<Float>) -> Float {
    let last = knots.count - 1
    if !(c > knots[0]) { return c.isNaN ? c : coefficients[0].x }
    if c >= knots[last] {
      let q = coefficients[last - 1]
      return q.x + q.y + q.z + q.w
    }
    var k = 0
    while c >= knots[k + 1] { k += 1 }
    let t = (c - knots[k]) * inverseWidths[k]
    let q = coefficients[k]
    return q.x + t * (q.y + t * (q.z + t * q.w))
  }

  /// The curve at `value` (for tests and tools).
  public func value(at value: Double) -> Double {
    knots.withUnsafeBufferPointer { kn in
      coefficients.withUnsafeBufferPointer { co in
        inverseWidths.withUnsafeBufferPointer { iw in Double(curve(Float(value), kn, co, iw)) }
      }
    }
  }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    let lanes = parameters.channel.lanes, keep = 1 - lanes
    knots.withUnsafeBufferPointer { kn in
      coefficients.withUnsafeBufferPointer { co in
        inverseWidths.withUnsafeBufferPointer { iw in
          for i in 0..<count {
            let p = pixels[i]
            let a = p.w
            if a <= 0 { continue }
            let s = p / a
            let f = SIMD4(curve(s.x, kn, co, iw), curve(s.y, kn, co, iw), curve(s.z, kn, co, iw), 0)
            pixels[i] = p * keep + lanes * f * a
          }
        }
      }
    }
  }
}

extension Image {
  /// The image with `channel`'s values passed through the monotone cubic curve through `points`
  /// (see Curves.swift); with fewer than two distinct finite inputs, the identity.
  public func applyingCurve(_ points: [CurvePoint], channel: ToneChannel = .all) -> Image {
    var parameters = CurvesOperation.Parameters()
    (parameters.points, parameters.channel) = (points, channel)
    return applying(CurvesOperation(parameters))
  }
}
