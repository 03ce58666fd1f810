// Shadow.swift — an image laid over its own soft shadow (captions, logos, badges).
//
// Definition: for an image I of size w×h with alpha α, shadow colour C (straight RGBA) and
// offset (dx, dy), the output has size (w + 2m)×(h + 2m) with m = ⌈3σ⌉ + max(|dx|, |dy|), so
// neither the image nor its shadow is clipped. Its pixels are
//
//     S = G_σ ∗ (C·α shifted by (m + dx, m + dy))      the shadow: the image's alpha in colour C,
//                                                      Gaussian-blurred (σ in pixels, linear light)
//     out = I shifted by (m, m)  over  S               Porter-Duff "over", premultiplied, linear
//
// so the shadow's opacity is C's alpha times the blurred alpha of the image. Built from
// `masked(by:source:)`, `blurred(sigma:)` and `composited(over:at:)`: it tiles like they do.

import PixelBufferModule

/// `shadow sigma=2 x=2 y=2 color=#00000099`.
public struct ShadowParameters: FilterParameters {
  /// The shadow's softness.
  @Param("sigma", range: 0...100, help: "Blur of the shadow (Gaussian σ in pixels).")
  public var sigma = 2.0
  /// The shadow's offset to the right.
  @Param("x", range: -1000...1000, help: "Shadow offset to the right, in pixels.")
  public var x = 2
  /// The shadow's offset downwards.
  @Param("y", range: -1000...1000, help: "Shadow offset downwards, in pixels.")
  public var y = 2
  /// The shadow's colour and opacity.
  @Param("color", help: "Shadow colour; its alpha is the shadow's opacity.")
  public var color = Color(white: 0, alpha: 0.6)

  /// The defaults.
  public init() {}
}

extension CompositingFilters {
  /// `shadow [sigma=] [x=] [y=] [color=]`.
  public static let shadow = FilterDefinition(
    OperationDescriptor(
      name: "shadow", category: .compositing,
      summary: "Lays the image over a soft shadow of its alpha (blurred, offset, coloured); the canvas grows to hold both.",
      inputCount: 1, parameters: ShadowParameters.table, example: "badge = shadow caption sigma=3 x=2 y=2 color=#000000A0"),
    reading: ShadowParameters.self
  ) { inputs, p, _ in
    inputs[0].shadowed(sigma: p.sigma, offset: Point(x: p.x, y: p.y), color: p.color)
  }
}

extension Image {
  /// This image over a soft shadow of its alpha: `sigma` the blur, `offset` where the shadow
  /// falls, `color` its colour and opacity; the canvas grows by ⌈3σ⌉ + the offset on every side
  /// (see Shadow.swift).
  ///
  /// ```swift
  /// let badge = try Image(text: "SALE", size: 48, color: .white).shadowed(sigma: 3, offset: Point(x: 2, y: 2))
  /// ```
  public func shadowed(sigma: Double = 2, offset: Point = Point(x: 2, y: 2), color: Color = Color(white: 0, alpha: 0.6)) -> Image {
    var p = ShadowParameters()
    (p.sigma, p.x, p.y) = (sigma, offset.x, offset.y)
    let (s, dx, dy) = (p.sigma, p.x, p.y)
    let m = Int((3 * s).rounded(.up)) + max(abs(dx), abs(dy))
    let canvas = Image(color: .clear, size: Size(width: size.width + 2 * m, height: size.height + 2 * m))
    let silhouette = Image(color: color, size: size).masked(by: self, source: .alpha)
    let shadow = silhouette.composited(over: canvas, at: Point(x: m + dx, y: m + dy)).blurred(sigma: s)
    return composited(over: shadow, at: Point(x: m, y: m))
  }
}
