// PassThrough.swift — tiles of a bare source copied as bytes.
//
// When the optimized graph is nothing but a decoded source (a JPEG re-encoded at another quality,
// a PNG converted to JPEG without alpha changes, `fgrun -e input`), and the source's stored format
// is the output's, there is nothing to compute (nor in the tiles of a composite on such a source
// outside its overlay: `RegionalOperation`, TileWriter.swift): converting every pixel to float premultiplied
// RGBA and back returns the same bytes (8 → float → 8 and 16 → float → 16 are exact) at a cost
// of ~20 % of a JPEG → JPEG run. Such tiles copy their rows instead, like libvips's `copy`.
// Formats with alpha keep the float path: premultiplying clears the colour of fully transparent
// pixels, and a copy would keep it, so the two paths would disagree on those pixels.

import Foundation
import PixelBufferModule

/// Copies rows of a source straight into the output, for plans whose root is that source and whose
/// stored codes are on the output's curve (a linear PNG written as sRGB goes through the curve).
struct PassThrough {
  /// True when integer codes stored in `stored` are the codes `root` writes: both linear or both
  /// not. Float pixels are copied as they are (a float buffer holds what it is tagged with).
  private static func codesMatch(_ stored: ColorSpace, _ root: ColorSpace, _ format: PixelFormat) -> Bool {
    format.component == .float32 || stored.isLinear == root.isLinear
  }

  private let rows: (Int, Int) throws -> UnsafeRawPointer
  private let prepare: (Range<Int>) throws -> Void
  private let bytesPerPixel: Int

  /// The pass-through for `plan` written in `format`, or nil when the root computes anything or
  /// its stored pixels are in another format (then tiles are evaluated as usual).
  init?(plan: RenderPlan, format: PixelFormat) {
    self.init(plan: plan, source: plan.root, format: format)
  }

  /// Copies of `source`'s stored rows written in `format`, or nil when it is not a decoded or
  /// streamed source or its stored pixels are in another format. For the root's tiles where it
  /// equals `source` (itself, or outside what `RegionalOperation`s above it change).
  init?(plan: RenderPlan, source: ImageNode, format: PixelFormat) {
    guard source.operation.asSource != nil, !format.layout.hasAlpha else { return nil }
    let id = ObjectIdentifier(source)
    bytesPerPixel = format.bytesPerPixel
    if let stream = plan.streamed[id] {
      guard stream.format == format, Self.codesMatch(stream.colorSpace, source.info.colorSpace, format) else { return nil }
      prepare = { try stream.prepare($0) }
      rows = { y, x in stream.row(y, x: x) }
    } else if let pixels = plan.decoded[id] {
      guard pixels.format == format, Self.codesMatch(pixels.colorSpace, source.info.colorSpace, format) else { return nil }
      let (base, rowBytes) = pixels.withUnsafeBaseAddress { p, r in (UnsafeRawPointer(p), r) }
      prepare = { _ in withExtendedLifetime(pixels) {} }
      let bpp = format.bytesPerPixel, origin = plan.decodedOrigins[id] ?? Point(x: 0, y: 0)
      rows = { y, x in withExtendedLifetime(pixels) { base + (y - origin.y) * rowBytes + (x - origin.x) * bpp } }
    } else {
      return nil
    }
  }

  /// Copies `rect` of the source to `destination` (its first pixel), rows `rowBytes` apart.
  func copy(_ rect: Rect, to destination: UnsafeMutableRawPointer, rowBytes: Int) throws {
    try prepare(rect.y..<rect.maxY)
    let count = rect.width * bytesPerPixel
    for y in 0..<rect.height {
      (destination + y * rowBytes).copyMemory(from: try rows(rect.y + y, rect.x), byteCount: count)
    }
  }
}
