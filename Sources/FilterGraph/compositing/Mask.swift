// Mask.swift — opacity from another image: its luminance or its alpha.
//
// Definition: input 0 is the image I, input 1 the mask K, of the same size (the Swift method
// scales K to I's size with the default kernel when they differ, which keeps its edges
// antialiased). The mask value at (x, y) is
//
//   luminance   m = 0.2126·R′ + 0.7152·G′ + 0.0722·B′ of K's premultiplied sRGB-encoded pixel
//               (Rec. 709 luma of the stored values, times K's alpha: a transparent mask pixel is 0),
//   alpha       m = K's alpha,
//
// clamped to 0…1, and the output pixel is I's pixel with all four premultiplied components
// multiplied by m: I's colour is kept, its opacity scaled. The result has I's colours and alpha.

import PixelBufferModule

/// Which part of the mask image gives the opacity.
public enum MaskSource: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Rec. 709 luma of the mask's sRGB-encoded values (white keeps, black removes).
  case luminance
  /// The mask's alpha.
  case alpha
}

/// Multiplies its input's opacity by a mask image's luminance or alpha (see Mask.swift).
public struct MaskOperation: ImageOperation {
  /// Where the mask value comes from.
  public let source: MaskSource

  /// Creates the operation.
  public init(source: MaskSource) { self.source = source }

  /// `mask with=NAME source=luminance`: the verb's parameters (the operation holds the source).
  public struct Parameters: FilterParameters {
    /// The mask image (the recipe compiler passes it as input 1).
    @Param(image: "with", help: "The mask image (white or opaque keeps, black or transparent removes).")
    public var with: String
    /// Luminance or alpha.
    @Param("source", help: "Use the mask's luminance or its alpha.")
    public var source = MaskSource.luminance

    /// The defaults; `with` must be given.
    public init() {}
  }

  public static let table = OperationDescriptor(
    name: "mask", category: .compositing,
    summary: "Scales the image's opacity by another image's luminance or alpha (scaled to the image's size).",
    inputCount: 2, parameters: Parameters.table, example: "output = mask input with=shape source=alpha")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { Arguments([Parameters().$source.argument(source)]) }
  /// Luminance is defined on encoded values; alpha is the same in either space.
  public var workingSpace: WorkingSpace? { source == .luminance ? .encoded : nil }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.layout = info.layout.withAlpha
    return info
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    output.buffer = inputs[0].buffer
    let luminance = source == .luminance
    inputs[1].withPixels { mask in
      output.withMutablePixels { px in
        for y in 0..<px.height {
          let row = px[row: y], k = mask[row: y]
          for x in 0..<px.width {
            let v = k[x]
            let m = luminance ? 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z : v.w
            row[x] *= min(max(m, 0), 1)
          }
        }
      }
    }
  }
}

extension Image {
  /// The image with its opacity multiplied by `mask`'s luminance (default) or alpha; `mask` is
  /// first scaled to this image's size when it differs. See Mask.swift.
  public func masked(by mask: Image, source: MaskSource = .luminance) -> Image {
    let fitted = mask.size == size ? mask : mask.scaled(to: size)
    return applying(MaskOperation(source: source), with: [fitted])
  }
}
