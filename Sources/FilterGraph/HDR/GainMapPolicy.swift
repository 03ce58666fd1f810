// GainMapPolicy.swift — what each kind of operation does to a gain map following its input, and why.
//
// The map says how much brighter each part of the picture is on an HDR screen: with B the SDR
// base in linear light and G(m) the boost its map value m means, the HDR rendition is H = B · G(m).
// An operation f on the base is given one of these treatments (`GainMapTreatment`, declared by the
// operation's capabilities, never by its name):
//
// - **transformed** (`ResolutionMappable`): f moves or resamples pixels, or filters them over a
//   neighbourhood without mixing their light (scale, crop, orient, rotate, affine, extend, pad,
//   roundcorners, flatten, median; shadow, whose margin is SDR content); the same f at the map's
//   resolution (ResolutionMapping.swift), so the boost stays on the content it belonged to (an
//   operation whose `mapped` gives nil ends the map). A median keeps edges where they are and
//   removes detail smaller than its radius from both.
// - **windowed** (`WindowChoosingOperation`: trim, smartcrop): the window the base's analysis
//   chose, at the map's resolution (GainMapWindow.swift).
// - **carried** (`GainMapCarrying` with `carriesGainMap`): per-pixel colour and tone changes that
//   keep brighter brighter — the output's luminance does not fall where an input channel rises
//   (brightness, contrast, exposure, levels and curves that rise, saturate, hue, sepia, tint,
//   modulate, normalize, grayscale and profile conversion, vignette, grain) — and sharpen: the HDR
//   rendition of the edit is f(B)·G(m), the edit seen through the same highlights. That is the edit
//   applied to the HDR light itself, f(B·G) = f(B)·G, exactly when f scales with the light
//   (f(k·B) = k·f(B)): a matrix in linear light (exposure, linear-light saturate, sepia, tint,
//   grayscale, profile conversion) and vignette (a factor per position). For tone changes that do
//   not scale (brightness's offset, contrast around mid-grey, levels' black points, curves,
//   modulate's Oklab lightness) "f of HDR light" has no definition above SDR white (the filter is
//   defined on 0…1), so the edit is taken as the SDR look with the photo's highlights kept:
//   f(B)·G. Sharpen's detail is finer than the map resolves (a quarter of the base's); sharpening
//   the map's log boosts instead would overshoot them into halos around every highlight. So is a
//   `convolve` kernel with negative values, an offset or a gain (a sharpen, a laplacian, an
//   emboss): rerendered (below) with the kernel binned to the map's resolution it measured no
//   better against the convolved HDR rendition (GainMapRerenderingTests: a sharpen within 1.2 dB
//   either way, a laplacian 23.8 against 42.4 dB carried, its near-black ratios being coarse in
//   the widened range).
// - **recomputed** (`LightScalingOperation` whose instance can pass SDR white: exposure above 0,
//   linear-light matrices brightening a channel): carried, except where f(B) passes white and the
//   base clips: there the map's log boost is raised by what the clipping lost, the map's max boost
//   widened to hold it (GainMapClipping.swift), so the rendition is f(B)·G.
// - **rescaled** (`GainMapRescaling`: gamma, and levels whose black points are 0): a power of the
//   light, f(B) = B^p (c^(1/γ) in linear light, p = 1/γ; on sRGB-encoded values the same up to the
//   curve's linear toe, where boosts are about 1), is a tone change that does extend to HDR light:
//   f(B·G) = B^p · G^p. So the map's log boosts are multiplied by p — its metadata (GainMapMin/Max,
//   HDRCapacityMin/Max), not its samples — and the highlights are compressed (γ > 1) or expanded
//   as the mid-tones are; carried unchanged, a brightening gamma would leave the highlights' boost
//   whole over a lifted base (the HDR highlight brighter than the source's). Levels with both
//   black points 0 is k·c^(1/γ) on the encoded values c: with the encoding taken as a power of the
//   light (the same approximation as gamma's encoded default), a power of the light times a gain,
//   whose gain is carried and power rescales; black points are offsets of the light and keep the
//   SDR-look definition (carried).
// - **overlaid** (`OverlayingOperation`: composite, mask): an overlay without a map of its own (a
//   logo, text) is SDR content: the map is "no boost" under it, blended by its coverage; so is what
//   the image is flattened onto where a mask removes it. An overlay with a map of its own is HDR
//   content: the map is made again, at the base's resolution, from the same blend of the two HDR
//   renditions (GainMapBlending.swift); a mask's own map does not matter (its values are opacity).
// - **rerendered** (any other `PointOperation`: invert, a matrix, curve or levels that reverses or
//   reshapes the tones, a custom kernel; and a `ResolutionMappable` that `mixesLight`: blur,
//   boxblur, a convolution that is a weighted mean): the operation (at the map's resolution) is
//   applied to the HDR rendition over its headroom, H/h, and to the SDR base there, and the map
//   made again as their ratio (GainMapRerendering.swift defines it and says why over the
//   headroom). Carried, a reversal's new shadows would keep the old highlights' boost. For a blur
//   in linear light the ratio is blur(B·G)/blur(B), the B-weighted mean of G over the kernel;
//   blurring the map's own values gives its plain mean, equal only where B or G is flat across
//   the kernel; carried, the highlight's boost would stay sharp while the base's light spreads.
// - **dropped** (`GainMapEnding` saying why, and anything else, the default): the output is SDR,
//   with a warning. `convolve preset=edges` declares it: the gradient's magnitude is a drawing of
//   where the picture changes, not the scene's light, so no HDR rendition of it restores anything;
//   made again from the HDR picture it would outline the highlights brighter, an analysis of
//   another picture whose strength follows the display's headroom, and edges a base pixel wide are
//   below the map's resolution anyway.
import ImageCodecs
import PixelBufferModule

/// What an operation does to a gain map following its input (see GainMapPolicy.swift).
public enum GainMapTreatment: String, Hashable, Sendable, CaseIterable {
  /// Repeated on the map at the map's resolution.
  case transformed
  /// The map cropped to the window an analysis of the base chose.
  case windowed
  /// The map unchanged, except where the edit takes the base past SDR white (GainMapClipping.swift).
  case recomputed
  /// The map unchanged.
  case carried
  /// The map's samples unchanged, its log boosts scaled (a power of the light: gamma).
  case rescaled
  /// Made again from the edit applied to the HDR and the SDR rendition (GainMapRerendering.swift).
  case rerendered
  /// "No boost" where an overlay covers (GainMapOverlay.swift).
  case overlaid
  /// The map ends: the output is SDR, with a warning.
  case dropped

  /// The treatment `operation` declares by the capabilities it adopts.
  public static func of(_ operation: any ImageOperation) -> GainMapTreatment {
    if let ending = operation as? any GainMapEnding, ending.gainMapEndsBecause != nil { return .dropped }
    if operation is any WindowChoosingOperation { return .windowed }
    if operation is any OverlayingOperation { return .overlaid }
    if let geometry = operation as? any ResolutionMappable {
      if geometry.mixesLight { return .rerendered }
      if geometry.repeatsAtOtherResolutions { return .transformed }
    }
    if let scaling = operation as? any LightScalingOperation, scaling.passesSDRWhite { return .recomputed }
    if let power = operation as? any GainMapRescaling, power.carriesGainMap, power.gainMapLogScale != nil { return .rescaled }
    if let carrier = operation as? any GainMapCarrying, carrier.carriesGainMap { return .carried }
    if operation is any PointOperation { return .rerendered }
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

extension LevelsOperation: GainMapRescaling {
  /// When the output range is not reversed.
  public var carriesGainMap: Bool { parameters.outputBlack <= parameters.outputWhite }
  /// 1/γ when both black points are 0 on every channel and γ ≠ 1: c' = k·c^(1/γ) on the encoded
  /// values (k = out-white / white^(1/γ)), which for a power-law encoding c = B^(1/g) is the light
  /// k^g·B^(1/γ): a power of the light times a gain, so its HDR extension is f(B)·G^(1/γ) as gamma's
  /// (the gain k^g is carried). Black points offset the light (no power), and a single channel's
  /// power would change the map's colour: nil (carried).
  public var gainMapLogScale: Double? {
    let p = parameters
    guard p.black == 0, p.outputBlack == 0, p.outputWhite > 0, p.channel == .all, p.gamma != 1, p.gamma.isFinite else { return nil }
    return 1 / p.gamma
  }
}

/// A carried operation that is a power of the light, after which the map's log boosts are scaled
/// (see GainMapPolicy.swift).
public protocol GainMapRescaling: GainMapCarrying {
  /// The power p of the light (the map's log boosts are multiplied by it), or nil when this instance
  /// is no power (the map is then carried).
  var gainMapLogScale: Double? { get }
}

extension GammaOperation: GainMapRescaling {
  public var carriesGainMap: Bool { true }
  /// 1/γ: c^(1/γ) on the light (on sRGB-encoded values, approximately).
  public var gainMapLogScale: Double? { gamma > 0 && gamma.isFinite ? 1 / gamma : nil }
}

extension GainMapMetadata {
  /// The metadata of the same map after the light is raised to the power `p` (> 0): every log2
  /// boost and headroom times p.
  func scalingLogBoosts(by p: Double) -> GainMapMetadata {
    var m = self
    m.gainMapMin = gainMapMin.map { $0 * p }
    m.gainMapMax = gainMapMax.map { $0 * p }
    m.hdrCapacityMin = hdrCapacityMin * p
    m.hdrCapacityMax = hdrCapacityMax * p
    return m
  }
}

extension TintOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension ModulateOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension NormalizeOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension ColorConversionOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension VignetteOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension GrainOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
extension SharpenOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }

extension ConvolveOperation: GainMapCarrying, GainMapEnding {
  /// A linear kernel that is no weighted mean (a sharpen, a laplacian, an emboss: values below 0,
  /// an offset or a gain); the `edges` preset's gradient magnitude is not carried.
  public var carriesGainMap: Bool { !gradientMagnitude && !repeatsAtOtherResolutions }

  /// The `edges` preset: its output is the gradient's magnitude, a drawing of where the picture
  /// changes, not light from the scene (see GainMapPolicy.swift, dropped).
  public var gainMapEndsBecause: String? {
    gradientMagnitude ? "convolve preset=edges draws where the picture changes, not the scene's light, so it has no HDR rendition" : nil
  }
}
extension UnchangedStepOperation: GainMapCarrying { public var carriesGainMap: Bool { true } }
