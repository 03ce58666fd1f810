// ColorFilters.swift — the recipe verbs of the colour family.
//
// Each verb reuses its operation's table (declared once, in the operation's file) and calls the
// same Swift methods users call.

import Foundation
import ImageCodecs
import PixelBufferModule

/// The colour family's recipe verbs (`all` lists them; `convert to=gray` is the grayscale verb).
public enum ColorFilters {
  /// `tint color=#FF8000 amount=0.3 mode=mix|multiply|template|monochrome`.
  public static let tint = FilterDefinition(TintOperation.table, reading: TintOperation.Parameters.self) { inputs, p, _ in
    inputs[0].tinted(p.color, amount: p.amount, mode: p.mode)
  }

  /// `convert to=gray|srgb|linear|p3`, or `convert profile=PATH intent=relative bpc=false`.
  public static let convert = FilterDefinition(ColorConversionOperation.table, reading: ColorConversionOperation.Parameters.self) {
    inputs, p, context in
    switch (p.to, p.profile) {
    case (let target?, nil):
      return inputs[0].converted(to: target)
    case (nil, let path?):
      // Like `load path=`, a profile file that is missing or unusable is an input error
      // (`CodecError`), reported at the path.
      let url = context.resolve(path)
      guard let data = try? Data(contentsOf: url) else {
        let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "does not exist"
        throw CodecError(.io, "The ICC profile \(url.path) \(reason).")
      }
      return inputs[0].applying(
        try ProfileConversionOperation(profile: data, intent: p.intent, blackPointCompensation: p.bpc, label: path))
    case (_?, _?):
      throw FilterError("convert takes to= or profile=, not both.")
    case (nil, nil):
      throw FilterError("convert needs to= (gray, srgb, linear, p3) or profile= (an ICC profile file).")
    }
  }

  /// `matrix values=<20 numbers> space=encoded|linear`.
  public static let matrix = FilterDefinition(ColorMatrixOperation.table, reading: ColorMatrixOperation.Parameters.self) { inputs, p, _ in
    guard let m = ColorMatrix(values: p.values) else {
      throw FilterError("matrix needs 20 finite numbers.")
    }
    return inputs[0].applyingColorMatrix(m, in: p.space)
  }

  /// `sepia intensity=1 space=encoded`.
  public static let sepia = FilterDefinition(ColorMatrixOperation.sepiaTable, reading: ColorMatrixOperation.SepiaParameters.self) { inputs, p, _ in
    inputs[0].sepiaToned(intensity: p.intensity, in: p.space)
  }

  /// `saturate amount=1.2 space=encoded`.
  public static let saturate = FilterDefinition(ColorMatrixOperation.saturationTable, reading: ColorMatrixOperation.SaturationParameters.self) {
    inputs, p, _ in inputs[0].adjustingSaturation(p.amount, in: p.space)
  }

  /// `brightness amount=0.1 space=encoded`.
  public static let brightness = FilterDefinition(ColorMatrixOperation.brightnessTable, reading: ColorMatrixOperation.BrightnessParameters.self) {
    inputs, p, _ in inputs[0].adjustingBrightness(p.amount, in: p.space)
  }

  /// `contrast amount=1.2 space=encoded`.
  public static let contrast = FilterDefinition(ColorMatrixOperation.contrastTable, reading: ColorMatrixOperation.ContrastParameters.self) {
    inputs, p, _ in inputs[0].adjustingContrast(p.amount, in: p.space)
  }

  /// `exposure ev=0.5 space=linear`.
  public static let exposure = FilterDefinition(ColorMatrixOperation.exposureTable, reading: ColorMatrixOperation.ExposureParameters.self) {
    inputs, p, _ in inputs[0].adjustingExposure(ev: p.ev, in: p.space)
  }

  /// `invert`.
  public static let invert = FilterDefinition(ColorMatrixOperation.invertTable, reading: ColorMatrixOperation.InversionParameters.self) {
    inputs, p, _ in inputs[0].inverted(in: p.space)
  }

  /// `gamma value=2.2`.
  public static let gamma = FilterDefinition(GammaOperation.table, reading: GammaOperation.Parameters.self) { inputs, p, _ in
    inputs[0].adjustingGamma(p.value, in: p.space)
  }

  /// `modulate brightness=1 saturation=1 hue=0 lightness=0`.
  public static let modulate = FilterDefinition(ModulateOperation.table, reading: ModulateOperation.Parameters.self) { inputs, p, _ in
    inputs[0].modulated(brightness: p.brightness, saturation: p.saturation, hue: p.hue, lightness: p.lightness)
  }

  /// `levels black=0 white=1 gamma=1 out-black=0 out-white=1 channel=all`.
  public static let levels = FilterDefinition(LevelsOperation.table, reading: LevelsOperation.Parameters.self) { inputs, p, _ in
    guard p.white > p.black else {
      throw FilterError("levels: white (\(ParameterValue.format(p.white))) must be above black (\(ParameterValue.format(p.black))).")
    }
    return inputs[0].leveled(
      black: p.black, white: p.white, gamma: p.gamma, outputBlack: p.outputBlack, outputWhite: p.outputWhite, channel: p.channel)
  }

  /// `curves points=0:0,0.5:0.6,1:1 channel=all`.
  public static let curves = FilterDefinition(CurvesOperation.table, reading: CurvesOperation.Parameters.self) { inputs, p, _ in
    inputs[0].applyingCurve(p.points, channel: p.channel)
  }

  /// `normalize low=1 high=99`.
  public static let normalize = FilterDefinition(NormalizeOperation.table, reading: NormalizeOperation.Parameters.self) { inputs, p, _ in
    inputs[0].normalized(low: p.low / 100, high: p.high / 100)
  }

  /// Every colour verb.
  public static var all: [FilterDefinition] {
    [tint, convert, matrix, sepia, saturate, brightness, contrast, exposure, gamma, invert, modulate, levels, curves, normalize, vignette, grain]
  }
}
