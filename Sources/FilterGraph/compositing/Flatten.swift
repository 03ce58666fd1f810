// Flatten.swift — composite onto a colour and drop alpha.
//
// Definition: with the input pixel P = (r, g, b, α) premultiplied in linear light and the opaque
// colour C (its alpha ignored; sRGB curve removed), the output pixel is
//
//   out = P + (1 − α)·C,   alpha 1,
//
// which is P over C (BlendMode `over`), and the result has no alpha channel. An input without
// alpha is returned unchanged (no node).

import PixelBufferModule

/// Composites its input onto an opaque colour and drops alpha (see Flatten.swift).
public struct FlattenOperation: PointOperation {
  /// `flatten color=black`.
  public struct Parameters: FilterParameters {
    /// The colour under the image.
    @Param("color", help: "The colour under the image (opaque).")
    public var color = Color.black

    /// The defaults.
    public init() {}
  }

  /// The parameters, the colour made opaque.
  public let parameters: Parameters
  /// The colour as a linear premultiplied opaque pixel.
  private let under: SIMD4<Float>

  /// Creates the operation; the colour's alpha is ignored.
  public init(_ parameters: Parameters) {
    var opaque = parameters
    opaque.color.alpha = 1
    self.parameters = opaque
    under = opaque.color.premultiplied(in: .linear)
  }

  public static let table = OperationDescriptor(
    name: "flatten", category: .compositing,
    summary: "Composites the image onto a colour (in linear light) and drops alpha.",
    parameters: Parameters.table, example: "flatten color=white")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { .linear }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.layout = info.layout.withoutAlpha
    if info.layout.isGray && !parameters.color.isGray { info.layout = .rgb }
    return info
  }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    let c = under
    for i in 0..<count {
      let p = pixels[i]
      var out = p + (1 - p.w) * c
      out.w = 1
      pixels[i] = out
    }
  }
}

extension Image {
  /// The image composited onto `color` (opaque; black by default) in linear light, without
  /// alpha. An image without alpha is returned as it is.
  public func flattened(onto color: Color = .black) -> Image {
    guard info.layout.hasAlpha else { return self }
    var parameters = FlattenOperation.Parameters()
    parameters.color = color
    return applying(FlattenOperation(parameters))
  }
}
