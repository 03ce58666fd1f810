// Vignette.swift — darkens the image towards its corners, as a lens does.
//
// Definition. For an image of W × H pixels, pixel (x, y) (its centre at (x + ½, y + ½)) lies at
// the normalised distance from the image's centre
//
//   d = √((x + ½ − W/2)² + (y + ½ − H/2)²) / √((W/2)² + (H/2)²)      (0 at the centre, 1 at a corner),
//
// and, with t = clamp((d − radius) / softness, 0, 1) and the smoothstep s = t²·(3 − 2t),
//
//   r' = r·(1 − amount·s),  g' = g·(1 − amount·s),  b' = b·(1 − amount·s),  a' = a,
//
// in linear light (the darkening is a loss of light, as a lens's is). Pixels closer to the centre
// than `radius` are unchanged; beyond `radius + softness` they keep 1 − amount of their light.
// The factor multiplies premultiplied colour as it would straight colour, so alpha is kept. It
// depends on the pixel's position, so this is a `PositionalPointOperation`: it fuses with the
// per-pixel filters around it into one pass.

import Foundation
import PixelBufferModule

/// Darkens towards the corners; see the definition at the top of Vignette.swift.
public struct VignetteOperation: PositionalPointOperation {
  /// `vignette amount=0.5 radius=0.5 softness=0.5`.
  public struct Parameters: FilterParameters {
    /// How much light the far corners lose, 0…1.
    @Param("amount", range: 0...1, percent: .fraction, help: "Light the corners lose (1: they go black).")
    public var amount = 0.5
    /// The normalised distance where darkening starts, 0…1.5.
    @Param("radius", range: 0...1.5, percent: .fraction, help: "Where darkening starts: 0 the centre, 1 a corner.")
    public var radius = 0.5
    /// The distance over which it reaches `amount`, 0.01…2.
    @Param("softness", range: 0.01...2, percent: .fraction, help: "How far beyond the radius it reaches full strength.")
    public var softness = 0.5

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  public static let table = OperationDescriptor(
    name: "vignette", category: .color, summary: "Darkens the image towards its corners, as a lens does.",
    parameters: Parameters.table, example: "vignette amount=0.4 radius=0.6")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { .linear }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int, at position: PixelRowPosition) {
    let (amount, radius, softness) = (parameters.amount, parameters.radius, parameters.softness)
    let cx = Double(position.imageSize.width) / 2, cy = Double(position.imageSize.height) / 2
    let half = max((cx * cx + cy * cy).squareRoot(), .leastNonzeroMagnitude)
    let dy = Double(position.y) + 0.5 - cy
    for i in 0..<count {
      let dx = Double(position.x + i) + 0.5 - cx
      let t = min(max(((dx * dx + dy * dy).squareRoot() / half - radius) / softness, 0), 1)
      let f = Float(1 - amount * t * t * (3 - 2 * t))
      let p = pixels[i]
      pixels[i] = SIMD4(p.x * f, p.y * f, p.z * f, p.w)
    }
  }
}

extension Image {
  /// The image darkened towards its corners (see `VignetteOperation`): `amount` (0…1) of the
  /// light is lost beyond `radius + softness`, none inside `radius` (distances are 0 at the
  /// centre and 1 at a corner). Arguments are clamped into their ranges.
  ///
  /// ```swift
  /// let framed = photo.vignetted(amount: 0.4, radius: 0.6)
  /// ```
  public func vignetted(amount: Double = 0.5, radius: Double = 0.5, softness: Double = 0.5) -> Image {
    var parameters = VignetteOperation.Parameters()
    (parameters.amount, parameters.radius, parameters.softness) = (amount, radius, softness)
    return applying(VignetteOperation(parameters))
  }
}

extension ColorFilters {
  /// `vignette amount=0.5 radius=0.5 softness=0.5`.
  public static let vignette = FilterDefinition(VignetteOperation.table, reading: VignetteOperation.Parameters.self) { inputs, p, _ in
    inputs[0].vignetted(amount: p.amount, radius: p.radius, softness: p.softness)
  }
}
