// TileConversion.swift — between stored pixels (any PixelBuffer format) and working tiles.
//
// Sources stay in their compact decoded form (8- or 16-bit, 1–4 channels); each tile converts
// just its region to float premultiplied RGBA when it is read, and back to the output format when
// it is written. These two loops are the only places the renderer changes pixel formats.

import CKernels
import PixelBufferModule

enum TileConversion {
  /// `x / 255` for each 8-bit code.
  static let unitTable8: [Float] = (0..<256).map { Float($0) / 255 }

  /// Fills `tile` (same size as `source`) from `source`, in `space`.
  static func load(_ source: PixelBuffer, into tile: inout Tile, space: WorkingSpace, transform: ColourTransform? = nil) {
    source.withUnsafeBaseAddress { base, rowBytes in
      load(
        rows: { UnsafeRawPointer(base) + $0 * rowBytes }, format: source.format, colorSpace: source.colorSpace, into: &tile,
        space: space, transform: transform)
    }
  }

  /// Fills `tile` from stored rows: `rows(y)` is the first byte of the tile's row `y` (its first
  /// column), in `format` and `colorSpace`. Decoded sources and streamed strips both load here.
  /// With a `transform` (a source with an ICC profile other than sRGB), each row goes through it
  /// into linear sRGB instead (`loadConverting`).
  static func load(
    rows: (Int) -> UnsafeRawPointer, format: PixelFormat, colorSpace: ColorSpace, into tile: inout Tile, space: WorkingSpace,
    transform: ColourTransform? = nil
  ) {
    if let transform, format.component != .float32 {
      loadConverting(rows: rows, format: format, into: &tile, space: space, transform: transform)
      return
    }
    let layout = format.layout
    let channels = layout.channelCount
    let straight = format.alphaMode == .straight
    let sourceIsLinear = colorSpace.isLinear
    let toLinear = space == .linear && !sourceIsLinear
    let toEncoded = space == .encoded && sourceIsLinear
    tile.withMutablePixels { dst in
      switch format.component {
      case .uint8:
        let table: [Float] = toLinear ? SRGBTransfer.decodeTable8 : unitTable8
        table.withUnsafeBufferPointer { lut in
          for y in 0..<dst.height {
            let s = rows(y).assumingMemoryBound(to: UInt8.self)
            expand(s, count: dst.width, channels: channels, layout: layout, into: dst[row: y]) { lut[Int($0)] }
            if layout.hasAlpha && toLinear {
              // Alpha is never curved: undo the table on the alpha lane.
              let d = dst[row: y]
              for x in 0..<dst.width { d[x].w = Float(s[x * channels + channels - 1]) / 255 }
            }
          }
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
        if format.alphaMode == .premultiplied {
          for y in 0..<dst.height {
            if toLinear { SRGBCurve.decodeRow(dst[row: y], count: dst.width) }
            if toEncoded { SRGBCurve.encodeRow(dst[row: y], count: dst.width) }
          }
          return
        }
        if toLinear || toEncoded {
          for y in 0..<dst.height {
            let d = dst[row: y]
            for x in 0..<dst.width {
              let v = d[x]
              d[x] = toLinear
                ? SIMD4(SRGBCurve.decode(v.x), SRGBCurve.decode(v.y), SRGBCurve.decode(v.z), v.w)
                : SIMD4(SRGBCurve.encode(v.x), SRGBCurve.encode(v.y), SRGBCurve.encode(v.z), v.w)
            }
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

  /// Writes an encoded-space tile into `output` (same size): unpremultiplies, clamps to 0…1,
  /// rounds to the output's component type and keeps the output layout's channels.
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
  private static func pack<T: FixedWidthInteger>(
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
  private static func pack8(
    _ s: UnsafePointer<SIMD4<Float>>, count: Int, channels: Int, straight: Bool, into d: UnsafeMutableRawPointer
  ) {
    guard count > 0 else { return }
    @inline(__always) func px(_ x: Int) -> SIMD4<UInt8> {
      let v = s[x]
      let q = quantized(straight && v.w != 1 ? straightened(v) : v, scale: 255)
      return SIMD4<UInt8>(truncatingIfNeeded: q)
    }
    if channels == 4 {
      for x in 0..<count { d.storeBytes(of: px(x), toByteOffset: 4 * x, as: SIMD4<UInt8>.self) }
      return
    }
    for x in 0..<(count - 1) { d.storeBytes(of: px(x), toByteOffset: 3 * x, as: SIMD4<UInt8>.self) }
    let last = px(count - 1), o = 3 * (count - 1)
    d.storeBytes(of: last.x, toByteOffset: o, as: UInt8.self)
    d.storeBytes(of: last.y, toByteOffset: o + 1, as: UInt8.self)
    d.storeBytes(of: last.z, toByteOffset: o + 2, as: UInt8.self)
  }

  private static func packFloat(
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

  /// Copies `tile` into `big` at the tile's position relative to `origin` (same working format).
  static func extendEdges(_ inner: Tile, to rect: Rect) -> Tile {
    var out = Tile(rect: rect)
    let ir = inner.rect
    inner.withPixels { src in
      out.withMutablePixels { dst in
        for y in 0..<rect.height {
          let sy = min(max(rect.y + y, ir.y), ir.maxY - 1) - ir.y
          let s = src[row: sy], d = dst[row: y]
          for x in 0..<rect.width {
            let sx = min(max(rect.x + x, ir.x), ir.maxX - 1) - ir.x
            d[x] = s[sx]
          }
        }
      }
    }
    return out
  }
}

// MARK: Linear tiles straight to 8-bit sRGB codes

extension TileConversion {
  /// Linear light → 8-bit sRGB codes without the float encode: `code(l)` is the number of the
  /// rounding thresholds `decode((k − ½)/255)`, k = 1…255, at or below `l`, the exact rounding of
  /// `255·encode(l)`. A 4096-segment table gives the code at each segment's start; the thresholds
  /// are at least 1/(255·12.92) ≈ 3.0e-4 apart, wider than a segment (2.4e-4), so at most one lies
  /// inside a segment and one compare finishes the lookup.
  enum Linear8 {
    /// `thresholds[k]` = the least linear value whose code is `k` (k = 1…255); [0] = 0, [256] = ∞.
    static let thresholds: [Float] = {
      var t: [Float] = [0]
      for k in 1...255 {
        // The float nearest the exact boundary, then nudged so `code(l)` agrees with rounding the
        // exact encode of every float `l` (ties, at measure zero, go up as `quantized` does).
        var b = Float(SRGBTransfer.decode((Double(k) - 0.5) / 255))
        while b > 0 && SRGBTransfer.encode(Double(b.nextDown)) * 255 >= Double(k) - 0.5 { b = b.nextDown }
        while SRGBTransfer.encode(Double(b)) * 255 < Double(k) - 0.5 { b = b.nextUp }
        t.append(b)
      }
      t.append(.infinity)
      return t
    }()

    /// The table is indexed by the float's bit pattern, not by `l · 4096`: a clamped value's bits
    /// minus `lowBits`, shifted right by `shift`, keep its exponent and top 7 mantissa bits, so the
    /// segments are 2⁻⁷ of an octave wide (no float → int conversion, and four lanes at once in
    /// `linear8Row`). Below 2⁻¹³ (under the first threshold, ≈ 1.5e-4) everything is segment 0.
    /// Segments are narrower than the threshold spacing (checked when the table is built), so at
    /// most one threshold lies inside a segment and one compare finishes the lookup.
    static let lowBits: UInt32 = 0x3900_0000  // bits(2⁻¹³)
    static let oneBits: UInt32 = 0x3F80_0000  // bits(1)
    static let shift: UInt32 = 16

    /// `table[i]` = the code of the float with bits `lowBits + i << shift` (i = 0…1664, the last is 1).
    static let table: [UInt8] = {
      let t = thresholds
      func exact(_ l: Float) -> Int { (1...256).first { t[$0] > l }! - 1 }
      var codes: [UInt8] = []
      for i in 0...((oneBits - lowBits) >> shift) {
        let start = Float(bitPattern: lowBits + i << shift)
        codes.append(UInt8(exact(start)))
        if start < 1 {
          let last = Float(bitPattern: lowBits + (i + 1) << shift).nextDown
          precondition(exact(last) - exact(start) <= 1, "Linear8 segment holds two thresholds")
        }
      }
      return codes
    }()

    /// `table` with each segment's next threshold beside its code, in one 64-bit entry: bits
    /// 8…39 hold `thresholds[code + 1]`'s bit pattern, bits 0…7 the code. One load then gives
    /// both, instead of a second load that depends on the first (25–30 % faster per pixel,
    /// measured). Non-negative floats order as their bit patterns do, so the compare is on bits.
    static let entries: [UInt64] = table.map { c in UInt64(thresholds[Int(c) + 1].bitPattern) << 8 | UInt64(c) }

    /// `entries` in 32 bits, for the AVX2 kernel (`fg_linear8_row`, one 8-lane gather per
    /// channel): code << 17 | t. Within a segment every float shares its bits above the low 16, so
    /// the next threshold, when it lies inside the segment, is told by its low 16 bits `t`; when it
    /// lies beyond, t = 0x10000 exceeds every low half and the compare never adds 1.
    static let packed: [UInt32] = table.indices.map { i in
      let start = lowBits + UInt32(i) << shift
      let next = thresholds[Int(table[i]) + 1].bitPattern
      let t: UInt32 = next >> shift == start >> shift ? next & 0xFFFF : 0x10000
      return UInt32(table[i]) << 17 | t
    }

    /// Whether `storeLinear8` runs the AVX2 kernel for whole groups of eight pixels.
    static let useKernel = fg_kernels_have_avx2() != 0

    /// The code of one linear value (clamped to 0…1; NaN → 0).
    @inline(__always)
    static func code(_ l: Float, _ entries: UnsafePointer<UInt64>) -> UInt8 {
      var x = l > 0 ? l : 0
      x = x < 1 ? x : 1
      let bits = x.bitPattern
      let e = entries[Int((max(bits, lowBits) &- lowBits) &>> shift)]
      return UInt8(truncatingIfNeeded: e) &+ (bits >= UInt32(truncatingIfNeeded: e &>> 8) ? 1 : 0)
    }

    /// `code` of the first three lanes, written to `d[0...2]`: the clamp and the table index are
    /// computed as vectors, the lookups and compares per lane (a SIMD4<UInt8> result went through
    /// the stack and stalled on store forwarding).
    @inline(__always)
    static func store3(_ l: SIMD4<Float>, _ d: UnsafeMutablePointer<UInt8>, _ entries: UnsafePointer<UInt64>) {
      var x = l.replacing(with: 0, where: .!(l .> 0))
      x.replace(with: 1, where: x .> 1)
      let bits = unsafeBitCast(x, to: SIMD4<UInt32>.self)
      var b = bits
      b.replace(with: lowBits, where: b .< lowBits)
      let i = (b &- lowBits) &>> shift
      let e0 = entries[Int(i.x)], e1 = entries[Int(i.y)], e2 = entries[Int(i.z)]
      d[0] = UInt8(truncatingIfNeeded: e0) &+ (bits.x >= UInt32(truncatingIfNeeded: e0 &>> 8) ? 1 : 0)
      d[1] = UInt8(truncatingIfNeeded: e1) &+ (bits.y >= UInt32(truncatingIfNeeded: e1 &>> 8) ? 1 : 0)
      d[2] = UInt8(truncatingIfNeeded: e2) &+ (bits.z >= UInt32(truncatingIfNeeded: e2 &>> 8) ? 1 : 0)
    }
  }

  /// Whether `storeLinear8` can write `format`: 8-bit, straight (or no) alpha.
  static func storesLinear8(_ format: PixelFormat) -> Bool {
    format.component == .uint8 && format.alphaMode != .premultiplied
  }

  /// `store` for a LINEAR-light tile into an 8-bit sRGB-encoded output (see `storesLinear8`):
  /// each value goes to its code in one table lookup, instead of `SRGBCurve.encodeRow` and then
  /// quantising. The codes are the exact encode's, rounded (the two-step path's float encode is
  /// within 3e-6 of it, so they differ at most by one, next to a rounding boundary). With AVX2,
  /// each row's whole groups of eight pixels go through the C kernel `fg_linear8_row` (three
  /// 8-lane gathers per eight pixels instead of 24 scalar lookups, about twice as fast per pixel).
  static func storeLinear8(_ tile: Tile, into base: UnsafeMutableRawPointer, rowBytes: Int, format: PixelFormat) {
    storeLinear8(tile, into: base, rowBytes: rowBytes, format: format, kernel: Linear8.useKernel)
  }

  /// `storeLinear8`, with the AVX2 kernel (`kernel`, when the CPU has it) or the Swift loop only;
  /// both write the same bytes (tests compare them).
  static func storeLinear8(_ tile: Tile, into base: UnsafeMutableRawPointer, rowBytes: Int, format: PixelFormat, kernel: Bool) {
    let layout = format.layout
    let n = layout.channelCount
    Linear8.entries.withUnsafeBufferPointer { eb in
      Linear8.packed.withUnsafeBufferPointer { pb in
        let entries = eb.baseAddress!, packed = pb.baseAddress!
        tile.withPixels { src in
          for y in 0..<src.height {
            var s = src[row: y], d = (base + y * rowBytes).assumingMemoryBound(to: UInt8.self)
            var count = src.width
            if kernel {
              let done = UnsafeRawPointer(s).withMemoryRebound(to: Float.self, capacity: 4 * count) {
                fg_linear8_row($0, count, d, Int32(n), packed)
              }
              s += done
              d += done * n
              count -= done
            }
            switch layout {
            case .gray: linear8Row(s, count, d, 1, false, entries)
            case .grayAlpha: linear8Row(s, count, d, 2, true, entries)
            case .rgb: linear8Row(s, count, d, 3, false, entries)
            case .rgba: linear8Row(s, count, d, 4, true, entries)
            }
          }
        }
      }
    }
  }

  @inline(__always)
  private static func linear8Row(
    _ s: UnsafePointer<SIMD4<Float>>, _ count: Int, _ d: UnsafeMutablePointer<UInt8>, _ n: Int, _ alpha: Bool,
    _ entries: UnsafePointer<UInt64>
  ) {
    for x in 0..<count {
      var v = s[x]
      let a = v.w
      if a != 1 {
        let inv: Float = a > 0 ? 1 / a : 0
        v *= inv
      }
      let o = x &* n
      if n >= 3 {
        Linear8.store3(v, d + o, entries)
      } else {
        d[o] = Linear8.code(v.x, entries)
      }
      if alpha {
        let q = quantized(SIMD4(repeating: a), scale: 255)
        d[o &+ n &- 1] = UInt8(truncatingIfNeeded: q.x)
      }
    }
  }
}

// MARK: Sources with an ICC profile

extension TileConversion {
  /// `load` through an lcms2 transform: each stored row becomes linear sRGB (extended range) in
  /// the tile's row directly, then gets its alpha, is premultiplied, and is encoded with the sRGB
  /// curve when `space` is `.encoded` (the curve extends to values outside 0…1 as `SRGBCurve`'s).
  static func loadConverting(
    rows: (Int) -> UnsafeRawPointer, format: PixelFormat, into tile: inout Tile, space: WorkingSpace,
    transform: ColourTransform
  ) {
    let layout = format.layout
    let channels = layout.channelCount
    tile.withMutablePixels { dst in
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
}

extension TileConversion {
  /// `store` of a LINEAR-light tile through an lcms2 transform into an output ICC profile: each
  /// row is unpremultiplied into a scratch row, converted there into the profile's encoded values
  /// (the alpha lane kept), then clipped, rounded and packed as `store` does.
  static func storeConverting(
    _ tile: Tile, into base: UnsafeMutableRawPointer, rowBytes: Int, format: PixelFormat, transform: ColourTransform
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
