// GainMapPolicy.swift — what each kind of operation does to a gain map following its input, and why.
//
// The map says how much brighter each part of the picture is on an HDR screen: with B the SDR
// base in linear light and G(m) the boost its map value m means, the HDR rendition is H = B · G(m).
// An operation f on the base is given one of these treatments (`GainMapTreatment`, declared by the
// operation's capabilities, never by its name):
//
// - **transformed** (`ResolutionMappable`): f moves or resamples pixels, or filters them over a
//   neighbourhood (scale, crop, orient, rotate, affine, extend, pad, roundcorners, flatten; blur,
//   boxblur, median); the same f at the map's resolution (ResolutionMapping.swift), so the boost
//   stays on the content it belonged to (an operation whose `mapped` gives nil ends the map). For a blur this is the HDR rendition's own blur up to the
//   weighting by B: blur(B·G)/blur(B) is the B-weighted mean of G over the kernel, blur(G) its plain
//   mean — equal where B or G is flat across the kernel, and far closer than G unchanged, whose
//   highlight would stay sharp while the base's spreads (a halo boosted on one side of its old edge
//   only). A median keeps edges where they are and removes detail smaller than its radius from both.
// - **windowed** (`WindowChoosingOperation`: trim, smartcrop): the window the base's analysis
//   chose, at the map's resolution (GainMapWindow.swift).
// - **carried** (`GainMapCarrying` with `carriesGainMap`): per-pixel colour and tone changes that
//   keep brighter brighter — the output's luminance does not fall where an input channel rises
//   (brightness, contrast, exposure, gamma, levels and curves that rise, saturate, hue, sepia,
//   tint, modulate, normalize, grayscale and profile conversion, vignette, grain) — and sharpen: the
//   HDR rendition of the edit is f(B)·G(m), the edit seen through the same highlights. Sharpen's
//   detail is finer than the map resolves (a quarter of the base's); sharpening the map's log
//   boosts instead would overshoot them into halos around every highlight.
// - **overlaid** (`OverlayingOperation`: composite): an overlay without a map of its own (a logo,
//   text) is SDR content: the map is "no boost" under it, blended by its coverage.
// - **dropped** (anything else, the default): the output is SDR, with a warning. Tone reversals
//   (invert, a matrix or curve that falls: the bright sky turns dark, and its boost would light up
//   a shadow), `convolve` (an arbitrary kernel: an edge map or an emboss is a new picture whose
//   brightness no longer follows the photo's light), user kernels (unknown), blends of two images.
import PixelBufferModule

/// What an operation does to a gain map following its input (see GainMapPolicy.swift).
public enum GainMapTreatment: String, Hashable, Sendable, CaseIterable {
  /// Repeated on the map at the map's resolution.
  case transformed
  /// The map cropped to the window an analysis of the base chose.
  case windowed
  /// The map unchanged.
  case carried
  /// "No boost" where an overlay covers (GainMapOverlay.swift).
  case overlaid
  /// The map ends: the output is SDR, with a warning.
  case dropped

  /// The treatment `operation` declares by the capabilities it adopts.
  public static func of(_ operation: any ImageOperation) -> GainMapTreatment {
    if operation is any WindowChoosingOperation { return .windowed }
    if operation is any OverlayingOperation { return .overlaid }
    if operation is any ResolutionMappable { return .transformed }
    if let carrier = operation as? any GainMapCarrying, carrier.carriesGainMap { return .carried }
    return .dropped
  }
}

extension ColorMatrixOperation: GainMapCarrying {
  /// When the luminance of the output (BT.709 weights of the RGB rows) rises with every input
  /// channel: no tone reversal.
  public var carriesGainMap: Bool {
    let w = SIMD4<Float>(0.2126, 0.7152, 0.0722, 0)
    let m = matrix
    return (0..<3).allSatisfy { c in w[0] * m.red[c] + w[1] * m.green[c] + w[2] * m.blue[c] >= 0 }
  }
}

extension CurvesOperation: GainMapCarrying {
  /// When the curve never falls (its points' outputs rise with their inputs).
  public var carriesGainMap: Bool {
    let points = parameters.points
    return zip(points, points.dropFirst()).allSatisfy { $0.output <= $1.output }
  }
}

extension LevelsOperation: GainMapCarrying {
  /// When the output range is not reversed.
  public var carriesGainMap: Bool { parameters.outputBlack <= parameters.outputWhite }
}

extension TintOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension GammaOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension ModulateOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension NormalizeOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension ColorConversionOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension VignetteOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension GrainOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension SharpenOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension UnchangedStepOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
