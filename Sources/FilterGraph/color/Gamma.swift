// Gamma.swift — a power curve on colour values.
//
// Definition, on straight (not premultiplied) colour c in the working space (encoded by default:
// values as stored, as ImageMagick's -gamma and libvips' gamma use them):
//
//   c' = c^(1/γ)   for each of r, g, b;   a' = a
//
// γ > 1 brightens the mid-tones, γ < 1 darkens them; 0 and 1 stay fixed. Negative values (from
// earlier float arithmetic) follow the odd extension −(−c)^(1/γ). Not a matrix: a power curve is
// not linear, so it is its own operation. Two gamma operations in a row merge into one with
// γ = γ₁ · γ₂ ((c^(1/γ₁))^(1/γ₂) = c^(1/(γ₁γ₂)) exactly in real numbers).

import Foundation
import Locking
import PixelBufferModule

/// Applies `c^(1/gamma)` to red, green and blue; see the file's definition.
public struct GammaOperation: ComposablePointOperation {
  /// `gamma value=2.2 space=encoded`.
  public struct Parameters: FilterParameters {
    /// γ.
    @Param("value", range: 0.1...10, help: "γ: the exponent is 1/γ.")
    public var value = 2.2
    /// The encoding the curve is applied in.
    @Param("space", help: WorkingSpace.parameterHelp)
    public var space = WorkingSpace.encoded

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges (of two merged curves: their product, clamped).
  public let parameters: Parameters
  /// The γ applied: `parameters.value`, or the product of two merged curves unclamped (it may
  /// leave 0.1…10, and the merge is exact only unclamped).
  let gamma: Double

  /// Creates the operation.
  public init(_ parameters: Parameters) {
    self.parameters = parameters
    gamma = parameters.value
  }

  /// Two curves in a row: γ₁ · γ₂ in `space`.
  private init(merged gamma: Double, space: WorkingSpace) {
    var parameters = Parameters()
    (parameters.value, parameters.space) = (gamma, space)
    self.parameters = parameters
    self.gamma = gamma
  }

  public static let table = OperationDescriptor(
    name: "gamma", category: .color, summary: "Raises red, green and blue to the power 1/value (value > 1 brightens mid-tones).",
    parameters: Parameters.table, example: "gamma value=2.2")

  public var descriptor: OperationDescriptor { Self.table }
  /// A merged curve's γ may leave the row's range: it is spelt as it is, not clamped.
  public var arguments: Arguments {
    Arguments([parameters.$value.argument(gamma), parameters.$space.argument(parameters.space)])
  }
  public var workingSpace: WorkingSpace? { parameters.space }

  public func composed(with next: any PointOperation) -> (any PointOperation)? {
    guard let other = next as? GammaOperation, other.parameters.space == parameters.space else { return nil }
    return GammaOperation(merged: gamma * other.gamma, space: parameters.space)
  }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    let e = Float(1 / gamma)
    if e == 1 { return }
    let table = GammaTable.shared(for: e)
    table.mantissa.withUnsafeBufferPointer { mt in
      table.scale.withUnsafeBufferPointer { st in
        let m = mt.baseAddress!, sc = st.baseAddress!
        @inline(__always) func curve(_ c: Float) -> Float { GammaTable.power(c, e, m, sc) }
        for i in 0..<count {
          let p = pixels[i]
          let a = p.w
          if a == 1 {
            pixels[i] = SIMD4(curve(p.x), curve(p.y), curve(p.z), 1)
          } else if a > 0 {
            let inv = 1 / a
            pixels[i] = SIMD4(curve(p.x * inv) * a, curve(p.y * inv) * a, curve(p.z * inv) * a, a)
          }
        }
      }
    }
  }
}

/// |x|^e by table: x = 2^(E − 127) · m with m in [1, 2) from the float's bits, so
/// x^e = 2^(e·(E − 127)) · m^e, the first factor from a 256-entry table (exact in Double, rounded
/// to Float), m^e interpolated linearly in a 4097-entry table over [1, 2] indexed by the top 12
/// mantissa bits. Interpolation error ≤ h²/8 · |e(e − 1)| m^(e−2) with h = 2⁻¹², relative
/// ≤ 6.7·10⁻⁷ at e = 10 (γ = 0.1), ≤ 2·10⁻⁹ at e = 1/2.2; with Float rounding the result is within
/// 1.5·10⁻⁶ relative of the exact power (checked in GammaTests). No infinite slope near 0 — each
/// binade has its own factor — and 0, subnormals, infinities and NaN fall back to `powf`.
/// Negative values follow the odd extension.
final class GammaTable: Sendable {
  let mantissa: [Float]
  let scale: [Float]

  init(exponent e: Float) {
    let ed = Double(e)
    mantissa = (0...4096).map { Float(Foundation.pow(1 + Double($0) / 4096, ed)) }
    scale = (0..<256).map { Float(Foundation.pow(2, ed * Double($0 - 127))) }
  }

  private static let tables = Locked<[Float: GammaTable]>([:])

  static func shared(for e: Float) -> GammaTable {
    tables.withLock { tables in
      if let t = tables[e] { return t }
      let t = GammaTable(exponent: e)
      if tables.count >= 16 { tables.removeAll() }
      tables[e] = t
      return t
    }
  }

  @inline(__always)
  static func power(_ x: Float, _ e: Float, _ m: UnsafePointer<Float>, _ sc: UnsafePointer<Float>) -> Float {
    let bits = x.bitPattern
    let biased = Int((bits >> 23) & 0xFF)
    if biased == 0 || biased == 255 { return x >= 0 ? powf(x, e) : -powf(-x, e) }
    let index = Int((bits >> 11) & 0xFFF)
    let frac = Float(bits & 0x7FF) * (1 / 2048 as Float)
    let lo = m[index], hi = m[index &+ 1]
    let r = (lo + (hi - lo) * frac) * sc[biased]
    return Float(bitPattern: r.bitPattern | (bits & 0x8000_0000))
  }
}

extension Image {
  /// The image with `c^(1/gamma)` applied to red, green and blue (γ clamped to 0.1…10, NaN counts
  /// as the default; 2.2 by default, as `gamma` with no value) in `space`.
  public func adjustingGamma(_ gamma: Double = 2.2, in space: WorkingSpace = .encoded) -> Image {
    var parameters = GammaOperation.Parameters()
    (parameters.value, parameters.space) = (gamma, space)
    return applying(GammaOperation(parameters))
  }
}
