// Levels.swift — input black and white points, a mid-tone gamma, output black and white points.
//
// Definition, on straight (not premultiplied) colour values c in the sRGB encoding (values as
// stored, as Photoshop's and ImageMagick's levels use them), for each channel `channel` selects
// (r, g and b, or one of them; the others and alpha unchanged):
//
//   t  = (c − black) / (white − black)
//   c' = outBlack + t^(1/γ) · (outWhite − outBlack)
//
// with white > black. Nothing is clamped: values beyond the input points map beyond the output
// points (and clip when stored); for γ ≠ 1 the power follows the odd extension −(−t)^(1/γ), as
// `gamma` does. The defaults (0, 1, 1, 0, 1) are the identity: t = c, c' = t.
// `normalize` resolves to this operation once its histogram is known.

import Foundation
import PixelBufferModule

/// Which colour channels a per-channel tone operation changes.
public enum ToneChannel: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Red, green and blue alike.
  case all
  /// Red only.
  case r
  /// Green only.
  case g
  /// Blue only.
  case b

  /// The lanes of a pixel it changes (1) and keeps (0), alpha always kept.
  var lanes: SIMD4<Float> {
    switch self {
    case .all: return SIMD4(1, 1, 1, 0)
    case .r: return SIMD4(1, 0, 0, 0)
    case .g: return SIMD4(0, 1, 0, 0)
    case .b: return SIMD4(0, 0, 1, 0)
    }
  }

  /// The help of the parameter `channel=all|r|g|b` (levels, curves).
  static let parameterHelp = "The channel changed: all (r, g and b alike), r, g or b."
}

/// Maps input black/white points through a gamma to output black/white points; see the file's definition.
public struct LevelsOperation: PointOperation {
  /// `levels black=0 white=1 gamma=1 out-black=0 out-white=1 channel=all`. The black and white
  /// points range over the values as stored (0…1), with room for the extended range of float and
  /// wide-gamut sources.
  public struct Parameters: FilterParameters {
    /// The input value mapped to `outputBlack`.
    @Param("black", range: -1...2, percent: .fraction, help: "Input value that becomes out-black (0…1, as stored).")
    public var black = 0.0
    /// The input value mapped to `outputWhite`.
    @Param("white", range: -1...2, percent: .fraction, help: "Input value that becomes out-white; above black.")
    public var white = 1.0
    /// γ of the mid-tones.
    @Param("gamma", range: 0.1...10, help: "Mid-tone gamma: t^(1/gamma), > 1 brightens.")
    public var gamma = 1.0
    /// The output value of `black`.
    @Param("out-black", range: -1...2, percent: .fraction, help: "Output value of black.")
    public var outputBlack = 0.0
    /// The output value of `white`.
    @Param("out-white", range: -1...2, percent: .fraction, help: "Output value of white.")
    public var outputWhite = 1.0
    /// The channels changed.
    @Param("channel", help: ToneChannel.parameterHelp)
    public var channel = ToneChannel.all

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters
  /// The input value mapped to `outputWhite`: `parameters.white`, raised to `black + 1/65535`
  /// when not above `black` (which may leave the row's range, so it is not a parameter).
  let white: Double

  /// Creates the operation; `white` is raised to `black + 1/65535` when not above `black`.
  public init(_ parameters: Parameters) {
    self.parameters = parameters
    white = max(parameters.white, parameters.black + 1 / 65535)
  }

  public static let table = OperationDescriptor(
    name: "levels", category: .color,
    summary: "Maps input black and white points through a mid-tone gamma to output black and white points.",
    parameters: Parameters.table, example: "levels black=0.05 white=0.9 gamma=1.2")

  public var descriptor: OperationDescriptor { Self.table }
  /// The raised `white` may leave its row's range: it is spelt as it is, not clamped.
  public var arguments: Arguments {
    Arguments(parameters.arguments.values.map { $0.0 == parameters.$white.name ? parameters.$white.argument(white) : $0 })
  }
  public var workingSpace: WorkingSpace? { .encoded }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    let (black, gamma, outputBlack, outputWhite) = (parameters.black, parameters.gamma, parameters.outputBlack, parameters.outputWhite)
    let lanes = parameters.channel.lanes, keep = 1 - lanes
    let b = Float(black), scale = Float(1 / (white - black))
    let ob = Float(outputBlack), span = Float(outputWhite - outputBlack)
    let e = Float(1 / gamma)
    if e == 1 {
      // c' = c·m + q on the chosen lanes: t·span + ob with t = (c − b)·scale.
      let m = keep + lanes * (scale * span)
      let q = lanes * (ob - b * scale * span)
      for i in 0..<count {
        let p = pixels[i]
        let a = p.w
        if a <= 0 { continue }
        pixels[i] = p * m + q * a  // premultiplied: a·(c·m + q)
      }
      return
    }
    let table = GammaTable.shared(for: e)
    table.mantissa.withUnsafeBufferPointer { mt in
      table.scale.withUnsafeBufferPointer { st in
        let mp = mt.baseAddress!, sp = st.baseAddress!
        for i in 0..<count {
          let p = pixels[i]
          let a = p.w
          if a <= 0 { continue }
          let t = (p / a - b) * scale
          let curved = SIMD4(GammaTable.power(t.x, e, mp, sp), GammaTable.power(t.y, e, mp, sp), GammaTable.power(t.z, e, mp, sp), 0)
          pixels[i] = p * keep + lanes * (curved * span + ob) * a
        }
      }
    }
  }
}

extension Image {
  /// The image with `channel`'s values mapped from `black`…`white` through `t^(1/gamma)` to
  /// `outputBlack`…`outputWhite` (see Levels.swift); the defaults change nothing. Values are
  /// clamped to the table's ranges (NaN: the default), and `white` is raised to `black + 1/65535`
  /// when not above `black`.
  public func leveled(
    black: Double = 0, white: Double = 1, gamma: Double = 1, outputBlack: Double = 0, outputWhite: Double = 1,
    channel: ToneChannel = .all
  ) -> Image {
    var parameters = LevelsOperation.Parameters()
    (parameters.black, parameters.white, parameters.gamma) = (black, white, gamma)
    (parameters.outputBlack, parameters.outputWhite, parameters.channel) = (outputBlack, outputWhite, channel)
    return applying(LevelsOperation(parameters))
  }
}
