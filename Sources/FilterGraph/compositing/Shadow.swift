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
// so the shadow's opacity is C's alpha times the blurred alpha of the image, and outside the
// image's w×h the image and its alpha are 0.
//
// Method: one operation. The blur runs on the alpha channel alone, with the sampled kernel of
// `GaussianKernel` (radius r = ⌈3σ⌉, rows then columns, as `SeparableFilter.convolve` sums them),
// and the shadow is its colour times that: S = C·(G_σ ∗ α), which equals blurring the four
// premultiplied channels of C·α (to float rounding) at a quarter of the work. r ≤ m − max(|dx|, |dy|),
// so the blur never reaches the canvas's edge: zeros beyond the image are exact. Each tile reads
// the image over its own rectangle and the alpha over it widened by r: no intermediate image.

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
  public static let shadow = FilterDefinition(ShadowOperation.table, reading: ShadowParameters.self) { inputs, p, _ in
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
    (p.sigma, p.x, p.y, p.color) = (sigma, offset.x, offset.y, color)
    return applying(ShadowOperation(p))
  }
}

/// An image over the blurred, offset, coloured shadow of its alpha; see the file comment.
struct ShadowOperation: ImageOperation {
  /// σ, the offset and the colour, in their ranges.
  let parameters: ShadowParameters
  /// How far the canvas grows on every side: ⌈3σ⌉ + max(|dx|, |dy|).
  let margin: Int
  /// The blur's taps (`[0]` the centre, `[i]` the weight at ±i; `[1]` when σ = 0).
  let weights: [Float]
  /// The shadow colour, premultiplied, in linear light.
  let color: SIMD4<Float>

  init(_ parameters: ShadowParameters) {
    self.parameters = parameters
    let kernel = GaussianKernel(sigma: parameters.sigma)
    weights = kernel.floatWeights
    margin = weights.count - 1 + max(abs(parameters.x), abs(parameters.y))
    let c = parameters.color.simd
    let linear = SIMD4(SRGBCurve.decode(c.x), SRGBCurve.decode(c.y), SRGBCurve.decode(c.z), 1)
    color = linear * c.w
  }

  static let table = OperationDescriptor(
    name: "shadow", category: .compositing,
    summary: "Lays the image over a soft shadow of its alpha (blurred, offset, coloured); the canvas grows to hold both.",
    inputCount: 1, parameters: ShadowParameters.table, example: "badge = shadow caption sigma=3 x=2 y=2 color=#000000A0")

  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { parameters.arguments }
  var workingSpace: WorkingSpace? { .linear }

  /// The input grown by the margin, with alpha, in sRGB (the shadow's colour is sRGB).
  func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    let input = inputs[0]
    return ImageInfo(
      size: Size(width: input.size.width + 2 * margin, height: input.size.height + 2 * margin), layout: .rgba,
      component: input.component.byteCount > ComponentType.uint8.byteCount ? input.component : .uint8, colorSpace: .sRGB)
  }

  /// The image under `output` and its alpha under `output` widened by the blur's radius, both
  /// moved back by where they sit on the canvas (one pixel at the origin when the tile misses both).
  func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    let r = weights.count - 1
    let image = output.offsetBy(dx: -margin, dy: -margin)
    let alpha = output.offsetBy(dx: -margin - parameters.x, dy: -margin - parameters.y).insetBy(dx: -r, dy: -r)
    let needed = image.union(alpha).intersection(inputs[0].extent)
    return needed.isEmpty ? Rect(x: 0, y: 0, width: 1, height: 1) : needed
  }

  func render(into output: inout Tile, inputs: [Tile]) throws {
    let r = weights.count - 1
    let o = output.rect, src = inputs[0].rect
    let w = o.width, h = o.height
    // Alpha row j (of h + 2r) and column t (of w + 2r) is the input's at (ax + t, ay + j).
    let ax = o.x - margin - parameters.x - r, ay = o.y - margin - parameters.y - r
    let (midStorage, mid) = try TileMemoryPool.scratch(Float.self, count: (h + 2 * r) * w)
    let (lineStorage, line) = try TileMemoryPool.scratch(Float.self, count: w + 2 * r)
    let (shadeStorage, shade) = try TileMemoryPool.scratch(Float.self, count: w)
    defer { withExtendedLifetime((midStorage, lineStorage, shadeStorage)) {} }
    // The columns of the input that fall under the alpha rows, and under the output's image.
    func overlap(_ from: Int, _ to: Int) -> Range<Int> { max(from, src.x)..<max(min(to, src.maxX), from, src.x) }
    let columns = overlap(ax, ax + w + 2 * r)
    let imageColumns = overlap(o.x - margin, o.maxX - margin)
    let (color, k0) = (color, weights)
    k0.withUnsafeBufferPointer { k in
      inputs[0].withPixels { pixels in
        // Rows: the alpha of every row the columns read, blurred along the row, at output width.
        let alphaStart = columns.lowerBound - ax, alphaCount = columns.count
        for j in 0..<(h + 2 * r) {
          let y = ay + j
          if alphaCount > 0, y >= src.y, y < src.maxY {
            line.update(repeating: 0, count: alphaStart)
            let row = pixels[row: y - src.y] + (columns.lowerBound - src.x), to = line + alphaStart
            for t in 0..<alphaCount { to[t] = min(max(row[t].w, 0), 1) }
            (to + alphaCount).update(repeating: 0, count: w + 2 * r - alphaStart - alphaCount)
          } else {
            line.update(repeating: 0, count: w + 2 * r)
          }
          let centre = UnsafePointer(line + r)
          SeparableFilter.symmetricChannelTaps(into: mid + j * w, count: w, weights: k) { i in (centre - i, centre + i) }
        }
        // Columns, then the image over its shadow, one output row at a time.
        let imageStart = imageColumns.lowerBound + margin - o.x, imageCount = imageColumns.count
        output.withMutablePixels { dst in
          for y in 0..<h {
            SeparableFilter.symmetricChannelTaps(into: shade, count: w, weights: k) { i in
              (UnsafePointer(mid + (y + r - i) * w), UnsafePointer(mid + (y + r + i) * w))
            }
            let out = dst[row: y]
            for x in 0..<w { out[x] = shade[x] * color }
            let iy = o.y + y - margin
            guard iy >= src.y, iy < src.maxY else { continue }
            let row = pixels[row: iy - src.y] + (imageColumns.lowerBound - src.x), under = out + imageStart
            for t in 0..<imageCount { under[t] = row[t] + under[t] * (1 - row[t].w) }
          }
        }
      }
    }
  }
}
