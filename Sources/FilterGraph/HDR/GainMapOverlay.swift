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
// transparency is flattened onto N as any of the map's is (GainMapBranch.swift): M′ = M where m = 1,
// N where m = 0, and between them a blend in linear light of the stored values (as a round
// corner's antialiased edge).
import PixelBufferModule

extension CompositeOperation: OverlayingOperation {
  public func mapOverlay(of overlay: Image, baseSize: Size, mapSize: Size, fill: Color, mapIsGray: Bool) -> (operation: any ImageOperation, layer: Image) {
    let (rx, ry) = ResolutionRatio.of(mapSize, baseSize)
    let x0 = Int((Double(origin.x) * rx).rounded()), y0 = Int((Double(origin.y) * ry).rounded())
    let x1 = Int((Double(origin.x + overlaySize.width) * rx).rounded()), y1 = Int((Double(origin.y + overlaySize.height) * ry).rounded())
    let size = Size(width: max(1, x1 - x0), height: max(1, y1 - y0))
    let neutral = ColorMatrix(
      red: .zero, green: .zero, blue: .zero, alpha: SIMD4(0, 0, 0, 1), bias: SIMD4(fill.red, fill.green, fill.blue, 0))
    var layer = overlay.applyingColorMatrix(neutral, in: .encoded)
    if mapIsGray { layer = layer.converted(to: .gray) }
    layer = layer.applying(ScaleOperation(targetSize: size, kernel: .box, linearLight: false, allowsShrinkOnLoad: false))
    let placed = CompositeOperation(mode: .over, opacity: Double(opacity), origin: Point(x: x0, y: y0), overlaySize: size, linearLight: false)
    return (placed, layer)
  }
}

extension MaskOperation: OverlayingOperation {
  public func mapOverlay(of overlay: Image, baseSize: Size, mapSize: Size, fill: Color, mapIsGray: Bool) -> (operation: any ImageOperation, layer: Image) {
    (self, overlay.applying(ScaleOperation(targetSize: mapSize, kernel: .box, linearLight: false, allowsShrinkOnLoad: false)))
  }
}
