// TileConversion+ICC.swift — loading and storing tiles through lcms2 transforms, for sources
// and outputs with an ICC profile other than sRGB.

import PixelBufferModule

extension TileConversion {
  /// `load` through an lcms2 transform: each stored row becomes linear sRGB (extended range) in
  /// the tile's row directly, then gets its alpha, is premultiplied, and is encoded with the sRGB
  /// curve when `space` is `.encoded` (the curve extends to values outside 0…1 as `SRGBCurve`'s).
  static func loadConverting(
    rows: (Int) -> UnsafeRawPointer, format: PixelFormat, into dst: UnsafeMutablePixels<SIMD4<Float>>, space: WorkingSpace,
    transform: ColorTransform
  ) {
    let layout = format.layout
    let channels = layout.channelCount
    for y in 0..<dst.height {
      let s = rows(y), d = dst[row: y]
      transform.run(s, UnsafeMutableRawPointer(d), count: dst.width)
      if layout.hasAlpha {
        if format.component == .uint8 {
          let a = s.assumingMemoryBound(to: UInt8.self)
          for x in 0..<dst.width {
            let w = Float(a[x * channels + channels - 1]) / 255
            d[x] = SIMD4(d[x].x * w, d[x].y * w, d[x].z * w, w)
          }
        } else {
          let a = s.assumingMemoryBound(to: UInt16.self)
          for x in 0..<dst.width {
            let w = Float(a[x * channels + channels - 1]) / 65535
            d[x] = SIMD4(d[x].x * w, d[x].y * w, d[x].z * w, w)
          }
        }
      } else {
        for x in 0..<dst.width { d[x].w = 1 }
      }
      if space == .encoded { SRGBCurve.encodeRow(d, count: dst.width) }
    }
  }
}

extension TileConversion {
  /// `store` of a LINEAR-light tile through an lcms2 transform into an output ICC profile: each
  /// row is unpremultiplied into a scratch row, converted there into the profile's encoded values
  /// (the alpha lane kept), then clipped, rounded and packed as `store` does.
  static func storeConverting(
    _ tile: Tile, into base: UnsafeMutableRawPointer, rowBytes: Int, format: PixelFormat, transform: ColorTransform
  ) {
    let layout = format.layout
    tile.withPixels { src in
      let scratch = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: src.width)
      defer { scratch.deallocate() }
      for y in 0..<src.height {
        let s = src[row: y], row = base + y * rowBytes
        for x in 0..<src.width { scratch[x] = straightened(s[x]) }
        transform.run(UnsafeRawPointer(scratch), UnsafeMutableRawPointer(scratch), count: src.width)
        switch format.component {
        case .uint8 where layout == .rgb || layout == .rgba:
          pack8(scratch, count: src.width, channels: layout.channelCount, straight: false, into: row)
        case .uint8:
          pack(scratch, count: src.width, layout: layout, straight: false, scale: 255, into: row.assumingMemoryBound(to: UInt8.self))
        case .uint16:
          pack(scratch, count: src.width, layout: layout, straight: false, scale: 65535, into: row.assumingMemoryBound(to: UInt16.self))
        case .float32:
          packFloat(scratch, count: src.width, layout: layout, straight: false, into: row.assumingMemoryBound(to: Float.self))
        }
      }
    }
  }
}
