// TileConversion+Linear8.swift — linear-light tiles straight to 8-bit sRGB codes, one table
// lookup per value instead of the float sRGB encode and a rounding.

import CKernels
import PixelBufferModule

extension TileConversion {
  /// Linear light → 8-bit sRGB codes without the float encode: `code(l)` is the number of the
  /// rounding thresholds `decode((k − ½)/255)`, k = 1…255, at or below `l`, the exact rounding of
  /// `255·encode(l)`. A table indexed by the value's bit pattern (`table`, segments 2⁻⁷ of an
  /// octave wide) gives the code at each segment's start; no segment holds two thresholds
  /// (checked when the table is built), so one compare with the next threshold finishes the
  /// lookup.
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
      // The code of `l`: the k with t[k] ≤ l < t[k + 1], searched upward from a code `k` known
      // not to exceed it (the segments' starts increase, so each search starts at the last code).
      func exact(_ l: Float, from k: Int) -> Int {
        var k = k
        while t[k + 1] <= l { k += 1 }
        return k
      }
      var codes: [UInt8] = []
      var code = 0
      for i in 0...((oneBits - lowBits) >> shift) {
        let start = Float(bitPattern: lowBits + i << shift)
        code = exact(start, from: code)
        codes.append(UInt8(code))
        if start < 1 {
          let last = Float(bitPattern: lowBits + (i + 1) << shift).nextDown
          precondition(exact(last, from: code) - code <= 1, "Linear8 segment holds two thresholds")
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
