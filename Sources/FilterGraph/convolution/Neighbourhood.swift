// Neighbourhood.swift — the input tile of a filter that reads a fixed window around each pixel
// (median, convolve).
//
// Such a filter asks for its output rectangle widened by the window's reach (`inputRegion`); the
// renderer fills the parts outside the image by repeating its edge pixels, so the operation sees
// every window whole and never clamps a coordinate itself.

import PixelBufferModule

extension Tile {
  /// `output` widened by `dx` columns on the left and right and `dy` rows above and below.
  static func window(around output: Rect, dx: Int, dy: Int) -> Rect { output.insetBy(dx: -dx, dy: -dy) }

  /// This tile when it is exactly `rect`; otherwise a copy of `rect` with coordinates outside this
  /// tile clamped to its edges (the renderer's edge extension).
  func covering(_ rect: Rect) throws(PixelAllocationError) -> Tile {
    self.rect == rect ? self : try TileConversion.extendEdges(self, to: rect)
  }
}
