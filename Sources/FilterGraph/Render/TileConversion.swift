// TileConversion.swift — between stored pixels (any PixelBuffer format) and working tiles.
//
// Sources stay in their compact decoded form (8- or 16-bit, 1–4 channels); each tile converts
// just its region to float premultiplied RGBA when it is read (`load`), and back to the output
// format when it is written (`store`). These, with their variants for linear light to 8-bit
// codes (TileConversion+Linear8.swift) and for ICC profiles (TileConversion+ICC.swift), are the
// only places the renderer changes pixel formats.

import CKernels
import PixelBufferModule

enum TileConversion {
  /// `x / 255` for each 8-bit code.
  static let unitTable8: [Float] = (0..<256).map { Float($0) / 255 }

  /// Fills `dst` (same size as `source`) from `source`, in `space`.
  static func load(
    _ source: PixelBuffer, into dst: UnsafeMutablePixels<SIMD4<Float>>, space: WorkingSpace, transform: ColorTransform? = nil
  ) {
    source.withUnsafeBaseAddress { base, rowBytes in
      load(
        rows: { UnsafeRawPointer(base) + $0 * rowBytes }, format: source.format, colorSpace: source.colorSpace, into: dst,
        space: space, transform: transform)
    }
  }

  /// Fills `dst` from stored rows: `rows(y)` is the first byte of `dst`'s row `y` (its first
  /// column), in `format` and `colorSpace`. Decoded sources and streamed strips both load here.
  /// With a `transform` (a source with an ICC profile other than sRGB), each row goes through it
  /// into linear sRGB instead (`loadConverting`).
  static func load(
    rows: (Int) -> UnsafeRawPointer, format: PixelFormat, colorSpace: ColorSpace, into dst: UnsafeMutablePixels<SIMD4<Float>>,
    space: WorkingSpace, transform: ColorTransform? = nil
  ) {
    if let transform, format.component != .float32 {
      loadConverting(rows: rows, format: format, into: dst, space: space, transform: transform)
      return
    }
    let layout = format.layout
    let channels = layout.channelCount
    let straight = format.alphaMode == .straight
    let sourceIsLinear = colorSpace.isLinear
    let toLinear = space == .linear && !sourceIsLinear
    let toEncoded = space == .encoded && sourceIsLinear
    switch format.component {
    case .uint8:
      // The one 8-bit converter, shared with the scale that reads stored rows itself
      // (`fg_codes8_block`: code / 255 exactly, or the sRGB decoding table with alpha uncurved).
      let rowPointers: [UnsafePointer<UInt8>?] = (0..<dst.height).map { rows($0).assumingMemoryBound(to: UInt8.self) }
      (toLinear ? SRGBTransfer.decodeTable8 : []).withUnsafeBufferPointer { lut in
        fg_codes8_block(
          rowPointers, dst.height, 0, dst.width, Int32(channels), toLinear ? lut.baseAddress : nil,
          dst.base.assumingMemoryBound(to: Float.self), dst.rowBytes / MemoryLayout<Float>.stride)
      }
    case .uint16:
      let scale: Float = 1 / 65535
      (toLinear ? SRGBTransfer.decodeTable16 : []).withUnsafeBufferPointer { lut in
        for y in 0..<dst.height {
          let s = rows(y).assumingMemoryBound(to: UInt16.self)
          if toLinear {
            expand(s, count: dst.width, channels: channels, layout: layout, into: dst[row: y]) { lut[Int($0)] }
            if layout.hasAlpha {
              let d = dst[row: y]
              for x in 0..<dst.width { d[x].w = Float(s[x * channels + channels - 1]) * scale }
            }
          } else {
            expand(s, count: dst.width, channels: channels, layout: layout, into: dst[row: y]) { Float($0) * scale }
          }
        }
      }
    case .float32:
      for y in 0..<dst.height {
        expand(rows(y).assumingMemoryBound(to: Float.self), count: dst.width, channels: channels, layout: layout, into: dst[row: y]) { $0 }
      }
    }
    // The curve still owed: float pixels, stored on either curve, take it here both ways; integer
    // codes went into linear tiles through the decoding tables above, and those of a linear-tagged
    // source (a PNG with gAMA 1.0) read into encoded tiles take the sRGB curve here.
    let decodes = toLinear && format.component == .float32
    if decodes || toEncoded {
      for y in 0..<dst.height {
        let d = dst[row: y]
        if format.alphaMode == .premultiplied {
          if decodes { SRGBCurve.decodeRow(d, count: dst.width) } else { SRGBCurve.encodeRow(d, count: dst.width) }
          continue
        }
        for x in 0..<dst.width {
          let v = d[x]
          d[x] = decodes
            ? SIMD4(SRGBCurve.decode(v.x), SRGBCurve.decode(v.y), SRGBCurve.decode(v.z), v.w)
            : SIMD4(SRGBCurve.encode(v.x), SRGBCurve.encode(v.y), SRGBCurve.encode(v.z), v.w)
        }
      }
    }
    if straight && layout.hasAlpha {
      for y in 0..<dst.height {
        let d = dst[row: y]
        for x in 0..<dst.width {
          let v = d[x]
          d[x] = SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w)
        }
      }
    }
  }

  @inline(__always)
  private static func expand<T>(
    _ s: UnsafePointer<T>, count: Int, channels: Int, layout: ChannelLayout,
    into d: UnsafeMutablePointer<SIMD4<Float>>, _ f: (T) -> Float
  ) {
    switch layout {
    case .gray:
      for x in 0..<count { let g = f(s[x]); d[x] = SIMD4(g, g, g, 1) }
    case .grayAlpha:
      for x in 0..<count { let g = f(s[2 * x]); d[x] = SIMD4(g, g, g, f(s[2 * x + 1])) }
    case .rgb:
      for x in 0..<count { d[x] = SIMD4(f(s[3 * x]), f(s[3 * x + 1]), f(s[3 * x + 2]), 1) }
    case .rgba:
      for x in 0..<count { d[x] = SIMD4(f(s[4 * x]), f(s[4 * x + 1]), f(s[4 * x + 2]), f(s[4 * x + 3])) }
    }
  }

  /// Writes `tile`, already in the output's encoding, to `base`: unpremultiplies (unless the
  /// format is premultiplied), clamps to 0…1, rounds to the output's component type and keeps the
  /// output layout's channels.
  ///
  /// `base` is the first byte of the destination rectangle: the renderer's bands are written by
  /// several workers at once, each into its own columns, so this takes raw memory, not a buffer.
  static func store(_ tile: Tile, into base: UnsafeMutableRawPointer, rowBytes: Int, format: PixelFormat) {
    let layout = format.layout
    let straight = format.alphaMode != .premultiplied
    tile.withPixels { src in
      for y in 0..<src.height {
        let row = base + y * rowBytes
        switch format.component {
        case .uint8 where layout == .rgb || layout == .rgba:
          pack8(src[row: y], count: src.width, channels: layout.channelCount, straight: straight, into: row)
        case .uint8:
          pack(src[row: y], count: src.width, layout: layout, straight: straight, scale: 255, into: row.assumingMemoryBound(to: UInt8.self))
        case .uint16:
          pack(src[row: y], count: src.width, layout: layout, straight: straight, scale: 65535, into: row.assumingMemoryBound(to: UInt16.self))
        case .float32:
          packFloat(src[row: y], count: src.width, layout: layout, straight: straight, into: row.assumingMemoryBound(to: Float.self))
        }
      }
    }
  }

  /// Unpremultiplies one pixel (alpha 0 gives colour 0).
  @inline(__always)
  static func straightened(_ v: SIMD4<Float>) -> SIMD4<Float> {
    if v.w == 1 { return v }
    let inv: Float = v.w > 0 ? 1 / v.w : 0
    return SIMD4(v.x * inv, v.y * inv, v.z * inv, v.w)
  }

  /// Clamped, rounded integer codes of one pixel for `scale` (255 or 65535).
  @inline(__always)
  static func quantized(_ v: SIMD4<Float>, scale: Float) -> SIMD4<UInt32> {
    // Adding 1.5·2²³ leaves the value rounded to nearest in the low mantissa bits: branch-free and
    // vectorised, where Swift's generic SIMD float→int conversion is neither.
    var s = v * scale
    s.replace(with: 0, where: .!(s .> 0))  // also NaN → 0
    s.replace(with: scale, where: s .> scale)
    return unsafeBitCast(s + 12_582_912, to: SIMD4<UInt32>.self) & 0xFFFF
  }

  @inline(__always)
  static func pack<T: FixedWidthInteger>(
    _ s: UnsafePointer<SIMD4<Float>>, count: Int, layout: ChannelLayout, straight: Bool, scale: Float,
    into d: UnsafeMutablePointer<T>
  ) {
    @inline(__always) func px(_ x: Int) -> SIMD4<UInt32> {
      quantized(straight ? straightened(s[x]) : s[x], scale: scale)
    }
    switch layout {
    case .gray:
      for x in 0..<count { d[x] = T(truncatingIfNeeded: px(x).x) }
    case .grayAlpha:
      for x in 0..<count {
        let q = px(x)
        d[2 * x] = T(truncatingIfNeeded: q.x)
        d[2 * x + 1] = T(truncatingIfNeeded: q.w)
      }
    case .rgb:
      for x in 0..<count {
        let q = px(x)
        d[3 * x] = T(truncatingIfNeeded: q.x)
        d[3 * x + 1] = T(truncatingIfNeeded: q.y)
        d[3 * x + 2] = T(truncatingIfNeeded: q.z)
      }
    case .rgba:
      for x in 0..<count {
        let q = px(x)
        d[4 * x] = T(truncatingIfNeeded: q.x)
        d[4 * x + 1] = T(truncatingIfNeeded: q.y)
        d[4 * x + 2] = T(truncatingIfNeeded: q.z)
        d[4 * x + 3] = T(truncatingIfNeeded: q.w)
      }
    }
  }

  /// 8-bit RGB(A): each pixel's four codes go out as one 4-byte store (for RGB the fourth byte
  /// lands on the next pixel's first and is overwritten by it; the last pixel is written bytewise).
  @inline(__always)
  static func pack8(
    _ s: UnsafePointer<SIMD4<Float>>, count: Int, channels: Int, straight: Bool, into d: UnsafeMutableRawPointer
  ) {
    // The AVX2 kernel writes the same bytes for whole groups of eight; this loop finishes.
    let done = UnsafeRawPointer(s).withMemoryRebound(to: Float.self, capacity: 4 * count) {
      fg_encoded8_row($0, count, d.assumingMemoryBound(to: UInt8.self), Int32(channels), straight ? 1 : 0)
    }
    guard count > done else { return }
    @inline(__always) func px(_ x: Int) -> SIMD4<UInt8> {
      let v = s[x]
      let q = quantized(straight && v.w != 1 ? straightened(v) : v, scale: 255)
      return SIMD4<UInt8>(truncatingIfNeeded: q)
    }
    if channels == 4 {
      for x in done..<count { d.storeBytes(of: px(x), toByteOffset: 4 * x, as: SIMD4<UInt8>.self) }
      return
    }
    for x in done..<(count - 1) { d.storeBytes(of: px(x), toByteOffset: 3 * x, as: SIMD4<UInt8>.self) }
    let last = px(count - 1), o = 3 * (count - 1)
    d.storeBytes(of: last.x, toByteOffset: o, as: UInt8.self)
    d.storeBytes(of: last.y, toByteOffset: o + 1, as: UInt8.self)
    d.storeBytes(of: last.z, toByteOffset: o + 2, as: UInt8.self)
  }

  static func packFloat(
    _ s: UnsafePointer<SIMD4<Float>>, count: Int, layout: ChannelLayout, straight: Bool,
    into d: UnsafeMutablePointer<Float>
  ) {
    let n = layout.channelCount
    for x in 0..<count {
      let v = straight ? straightened(s[x]) : s[x]
      switch layout {
      case .gray: d[x] = v.x
      case .grayAlpha: d[2 * x] = v.x; d[2 * x + 1] = v.w
      case .rgb, .rgba: for c in 0..<n { d[n * x + c] = v[c] }
      }
    }
  }

  /// Fills `pixels` outside `inner` (a block of them, already filled) with the nearest pixel of
  /// `inner`: its first and last columns repeat to the left and right, then its first and last
  /// rows, so widened, repeat above and below.
  static func extendEdges(in pixels: UnsafeMutablePixels<SIMD4<Float>>, around inner: Rect) {
    for y in inner.y..<inner.maxY {
      let d = pixels[row: y]
      if inner.x > 0 { d.update(repeating: d[inner.x], count: inner.x) }
      if inner.maxX < pixels.width { (d + inner.maxX).update(repeating: d[inner.maxX - 1], count: pixels.width - inner.maxX) }
    }
    for y in 0..<inner.y { pixels[row: y].update(from: pixels[row: inner.y], count: pixels.width) }
    for y in inner.maxY..<pixels.height { pixels[row: y].update(from: pixels[row: inner.maxY - 1], count: pixels.width) }
  }

  /// `inner` extended to `rect`: each pixel of `rect` is the pixel of `inner` nearest to it
  /// (coordinates clamped into `inner.rect`), so `rect`'s pixels inside `inner` are a copy.
  ///
  /// - Throws: `PixelAllocationError` when the system refuses the tile's memory.
  static func extendEdges(_ inner: Tile, to rect: Rect) throws(PixelAllocationError) -> Tile {
    var out = try Tile(allocating: rect)
    let ir = inner.rect
    inner.withPixels { src in
      out.withMutablePixels { dst in
        for y in 0..<rect.height {
          let sy = min(max(rect.y + y, ir.y), ir.maxY - 1) - ir.y
          let s = src[row: sy], d = dst[row: y]
          // Columns left of `inner` repeat its first pixel, those right of it its last; the
          // columns inside are one contiguous copy.
          let lo = min(max(ir.x - rect.x, 0), rect.width), hi = max(min(ir.maxX - rect.x, rect.width), lo)
          if lo > 0 { d.update(repeating: s[0], count: lo) }
          if hi > lo { d.advanced(by: lo).update(from: s.advanced(by: rect.x + lo - ir.x), count: hi - lo) }
          if hi < rect.width { d.advanced(by: hi).update(repeating: s[ir.width - 1], count: rect.width - hi) }
        }
      }
    }
    return out
  }
}
