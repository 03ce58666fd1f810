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
import PixelBufferModule

/// Applies `c^(1/gamma)` to red, green and blue; see the file's definition.
public struct GammaOperation: ComposablePointOperation {
  /// γ, 0.1…10.
  public let gamma: Double
  /// The encoding the curve is applied in.
  public let space: WorkingSpace

  /// Creates the operation; `gamma` is clamped to the table's 0.1…10 (NaN becomes 1, no change).
  public init(gamma: Double, space: WorkingSpace = .encoded) {
    let range = 0.1...10.0
    self.gamma = gamma.isNaN ? 1 : min(max(gamma, range.lowerBound), range.upperBound)
    self.space = space
  }

  /// Two curves in a row, unclamped (the product of two valid γ may leave 0.1…10 and stays exact).
  private init(merged gamma: Double, space: WorkingSpace) {
    self.gamma = gamma
    self.space = space
  }

  /// `gamma value=2.2`.
  public static let table = OperationDescriptor(
    name: "gamma", category: .colour, summary: "Raises red, green and blue to the power 1/value (value > 1 brightens mid-tones).",
    parameters: [
      ParameterSpec("value", .number(0.1...10), default: .number(2.2), help: "γ: the exponent is 1/γ."),
      ColorMatrixOperation.spaceParameter(default: .encoded),
    ],
    example: "gamma value=2.2")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { Arguments([("value", .number(gamma)), ("space", .choice(space.rawValue))]) }
  public var workingSpace: WorkingSpace? { space }

  public func composed(with next: any PointOperation) -> (any PointOperation)? {
    guard let other = next as? GammaOperation, other.space == space else { return nil }
    return GammaOperation(merged: gamma * other.gamma, space: space)
  }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    let e = Float(1 / gamma)
    if e == 1 { return }
    @inline(__always) func curve(_ c: Float) -> Float { c >= 0 ? powf(c, e) : -powf(-c, e) }
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

extension Image {
  /// The image with `c^(1/gamma)` applied to red, green and blue (γ clamped to 0.1…10) in `space`.
  public func adjustingGamma(_ gamma: Double, in space: WorkingSpace = .encoded) -> Image {
    applying(GammaOperation(gamma: gamma, space: space))
  }
}
