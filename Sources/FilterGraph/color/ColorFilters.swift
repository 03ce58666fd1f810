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
  public static let tint = FilterDefinition(TintOperation.table) { inputs, args, _ in
    inputs[0].tinted(args[TintOperation.color], amount: args[TintOperation.amount], mode: args[TintOperation.mode])
  }

  /// `convert to=gray|srgb|linear|p3`, or `convert profile=PATH intent=relative bpc=false`.
  public static let convert = FilterDefinition(ColorConversionOperation.table) { inputs, args, context in
    typealias Profile = ProfileConversionOperation
    switch (args.given(ColorConversionOperation.to), args.given(Profile.profilePath)) {
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
        try Profile(profile: data, intent: args[Profile.intent], blackPointCompensation: args[Profile.bpc], label: path))
    case (_?, _?):
      throw FilterError("convert takes to= or profile=, not both.")
    case (nil, nil):
      throw FilterError("convert needs to= (gray, srgb, linear, p3) or profile= (an ICC profile file).")
    }
  }

  /// `matrix values=<20 numbers> space=encoded|linear`.
  public static let matrix = FilterDefinition(ColorMatrixOperation.table) { inputs, args, _ in
    guard let m = ColorMatrix(values: args[ColorMatrixOperation.values]) else {
      throw FilterError("matrix needs 20 finite numbers.")
    }
    return inputs[0].applyingColorMatrix(m, in: args[ColorMatrixOperation.space])
  }

  /// `sepia intensity=1 space=encoded`.
  public static let sepia = FilterDefinition(ColorMatrixOperation.sepiaTable) { inputs, args, _ in
    inputs[0].sepiaToned(intensity: args[ColorMatrixOperation.sepiaIntensity], in: args[ColorMatrixOperation.space])
  }

  /// `saturate amount=1.2 space=encoded`.
  public static let saturate = FilterDefinition(ColorMatrixOperation.saturationTable) { inputs, args, _ in
    inputs[0].adjustingSaturation(args[ColorMatrixOperation.saturationAmount], in: args[ColorMatrixOperation.space])
  }

  /// `brightness amount=0.1 space=encoded`.
  public static let brightness = FilterDefinition(ColorMatrixOperation.brightnessTable) { inputs, args, _ in
    inputs[0].adjustingBrightness(args[ColorMatrixOperation.brightnessAmount], in: args[ColorMatrixOperation.space])
  }

  /// `contrast amount=1.2 space=encoded`.
  public static let contrast = FilterDefinition(ColorMatrixOperation.contrastTable) { inputs, args, _ in
    inputs[0].adjustingContrast(args[ColorMatrixOperation.contrastAmount], in: args[ColorMatrixOperation.space])
  }

  /// `exposure ev=0.5 space=linear`.
  public static let exposure = FilterDefinition(ColorMatrixOperation.exposureTable) { inputs, args, _ in
    inputs[0].adjustingExposure(ev: args[ColorMatrixOperation.exposureStops], in: args[ColorMatrixOperation.exposureSpace])
  }

  /// `invert`.
  public static let invert = FilterDefinition(ColorMatrixOperation.invertTable) { inputs, args, _ in
    inputs[0].inverted(in: args[ColorMatrixOperation.space])
  }

  /// `gamma value=2.2`.
  public static let gamma = FilterDefinition(GammaOperation.table) { inputs, args, _ in
    inputs[0].adjustingGamma(args[GammaOperation.value], in: args[ColorMatrixOperation.space])
  }

  /// `modulate brightness=1 saturation=1 hue=0 lightness=0`.
  public static let modulate = FilterDefinition(ModulateOperation.table) { inputs, args, _ in
    typealias Modulate = ModulateOperation
    return inputs[0].modulated(
      brightness: args[Modulate.brightness], saturation: args[Modulate.saturation], hue: args[Modulate.hue],
      lightness: args[Modulate.lightness])
  }

  /// `levels black=0 white=1 gamma=1 out-black=0 out-white=1 channel=all`.
  public static let levels = FilterDefinition(LevelsOperation.table) { inputs, args, _ in
    typealias Levels = LevelsOperation
    let black = args[Levels.black], white = args[Levels.white]
    guard white > black else { throw FilterError("levels: white (\(ParameterValue.format(white))) must be above black (\(ParameterValue.format(black))).") }
    return inputs[0].leveled(
      black: black, white: white, gamma: args[Levels.gamma], outputBlack: args[Levels.outputBlack],
      outputWhite: args[Levels.outputWhite], channel: args[ToneChannel.parameter])
  }

  /// `curves points=0:0,0.5:0.6,1:1 channel=all`.
  public static let curves = FilterDefinition(CurvesOperation.table) { inputs, args, _ in
    inputs[0].applyingCurve(args[CurvesOperation.points], channel: args[ToneChannel.parameter])
  }

  /// `normalize low=1 high=99`.
  public static let normalize = FilterDefinition(NormalizeOperation.table) { inputs, args, _ in
    inputs[0].normalized(low: args[NormalizeOperation.low] / 100, high: args[NormalizeOperation.high] / 100)
  }

  /// Every colour verb.
  public static var all: [FilterDefinition] {
    [tint, convert, matrix, sepia, saturate, brightness, contrast, exposure, gamma, invert, modulate, levels, curves, normalize, vignette, grain]
  }
}
