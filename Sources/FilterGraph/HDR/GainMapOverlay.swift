// GainMapOverlay.swift — the gain map under an overlay without one (a logo, text, anything SDR
// composited over an HDR photo) and where a mask removes the photo: the overlay, or what the photo
// is flattened onto, shows at its SDR value on an HDR screen, not boosted.
//
// Definition: for an `OverlayingOperation` (composite) placing overlay S (w × h, alpha α_S) at
// (ox, oy) with opacity o on a base B of size S_B whose map M has size S_M, r = S_M / S_B per axis,
// the output's map is, on M's stored values,
//
//   M′(x, y) = (1 − a(x, y)) · M(x, y) + a(x, y) · N,    a = o · ᾱ_S(x − ⌊ox·r⌉, y − ⌊oy·r⌉)
//
// where N is the value meaning "no boost" (GainMapMetadata.neutralFill) and ᾱ_S is the overlay's
// alpha box-averaged to round(w·r) × round(h·r) map pixels (0 outside). So where the overlay covers
// fully, the HDR rendition is the SDR output (boost 1); where it does not, the photo keeps its
// boost; along antialiased edges and at partial opacity the log boost is blended by coverage (the
// exact rendition there, α·S + (1 − α)·B·G, is not a boost of the SDR output). Built from the
// ordinary operations: the overlay's colour set to N with its alpha kept (a colour matrix), gray
// when the map is, scaled to the map (box), and composited `over` on the map's stored values.
// The base's blend mode does not matter: whatever the mode mixed in, the covered part is SDR
// content the overlay brought.
//
// `mask` (MaskOperation) scales the image's opacity by a mask value m (its luminance or alpha):
// where the mask removes the image, the output shows what it is flattened onto, SDR content. The
// map gets the same mask, its m box-averaged to map pixels (the mask scaled to the map's size on
// its stored values, then its luminance or alpha taken: the luminance is linear in them), and its
// transparency is flattened onto N as any of the map's is: M′ = M where m = 1, N where m = 0.
//
// Every flatten of the map (what a mask, a round corner's antialiased edge, `flatten` or the
// output leaves transparent) blends its stored values with N by its alpha a, M′ = a·M + (1 − a)·N
// (`StoredValuesFlattenOperation`): for a map of gamma 1 (libultrahdr's, Android's, Adobe's
// default) the stored value is linear in the log boost, so this is L′ = a·L (+ (1 − a)·0), the
// boost blended geometrically, as the overlay's blend above. A flatten in linear light would blend
// the stored values through the sRGB curve, which has no meaning for a gain (a half mask over a
// boost of 2^2 gave 2^1.47 instead of 2^1). For a gamma other than 1 the blend is of L^(1/γ)-spaced
// values: between the two log boosts, not halfway.
import PixelBufferModule

extension CompositeOperation: OverlayingOperation {
  public func mapOverlay(of overlay: Image, baseSize: Size, mapSize: Size, fill: Color, mapIsGray: Bool) -> (operation: any ImageOperation, layer: Image) {
    let (origin, size) = mapPlacement(baseSize: baseSize, mapSize: mapSize)
    let (x0, y0) = (origin.x, origin.y)
    let neutral = ColorMatrix(
      red: .zero, green: .zero, blue: .zero, alpha: SIMD4(0, 0, 0, 1), bias: SIMD4(fill.red, fill.green, fill.blue, 0))
    var layer = overlay.applyingColorMatrix(neutral, in: .encoded)
    if mapIsGray { layer = layer.converted(to: .gray) }
    layer = layer.applying(ScaleOperation(targetSize: size, kernel: .box, linearLight: false, allowsShrinkOnLoad: false))
    let placed = CompositeOperation(mode: .over, opacity: Double(opacity), origin: Point(x: x0, y: y0), overlaySize: size, linearLight: false)
    return (placed, layer)
  }
}

extension CompositeOperation {
  /// This blend itself at the map's resolution: `over` in linear light is a weighted mean.
  public func mapBlend(baseSize: Size, mapSize: Size) -> (operation: any ImageOperation, overlaySize: Size, mean: Bool)? {
    let (origin, size) = mapPlacement(baseSize: baseSize, mapSize: mapSize)
    let blend = CompositeOperation(mode: mode, opacity: Double(opacity), origin: origin, overlaySize: size, linearLight: linearLight)
    return (blend, size, mode == .over && linearLight)
  }

  /// The overlay's rectangle at the map's resolution: its corners × mapSize/baseSize, rounded.
  func mapPlacement(baseSize: Size, mapSize: Size) -> (origin: Point, size: Size) {
    let (rx, ry) = ResolutionRatio.of(mapSize, baseSize)
    let x0 = Int((Double(origin.x) * rx).rounded()), y0 = Int((Double(origin.y) * ry).rounded())
    let x1 = Int((Double(origin.x + overlaySize.width) * rx).rounded()), y1 = Int((Double(origin.y + overlaySize.height) * ry).rounded())
    return (Point(x: x0, y: y0), Size(width: max(1, x1 - x0), height: max(1, y1 - y0)))
  }
}

extension MaskOperation: OverlayingOperation {
  /// nil: the mask's values are the image's opacity, its light is not shown, so a gain map of the
  /// mask's own does not matter (the map is masked as under a mask without one).
  public func mapBlend(baseSize: Size, mapSize: Size) -> (operation: any ImageOperation, overlaySize: Size, mean: Bool)? { nil }

  public func mapOverlay(of overlay: Image, baseSize: Size, mapSize: Size, fill: Color, mapIsGray: Bool) -> (operation: any ImageOperation, layer: Image) {
    (self, overlay.applying(ScaleOperation(targetSize: mapSize, kernel: .box, linearLight: false, allowsShrinkOnLoad: false)))
  }
}

/// Composites a gain map onto the value `fill` by its alpha, on its stored values (see
/// GainMapOverlay.swift), and drops alpha.
struct StoredValuesFlattenOperation: PointOperation {
  let fill: Color

  static let table = OperationDescriptor(
    name: "gain map flatten", category: .compositing,
    summary: "A gain map's transparency flattened onto a value, on its stored values (not a recipe filter).", parameters: [], example: "")
  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { Arguments([("fill", .color(fill))]) }
  var workingSpace: WorkingSpace? { .encoded }

  func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.layout = info.layout.withoutAlpha
    if info.layout.isGray && !fill.isGray { info.layout = .rgb }
    return info
  }

  func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    let under = SIMD4<Float>(fill.red, fill.green, fill.blue, 1)
    for i in 0..<count {
      let p = pixels[i]
      var out = p + (1 - p.w) * under
      out.w = 1
      pixels[i] = out
    }
  }
}
