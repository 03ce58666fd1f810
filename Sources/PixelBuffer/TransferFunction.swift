// TransferFunction.swift — the sRGB transfer curve (IEC 61966-2-1), exact and table-driven.
//
// The renderer turns every source tile from encoded 8- or 16-bit values into linear-light floats
// and turns finished tiles back, so the row functions here are the hot path. They use:
//   • exact 256-entry (UInt8) and 65,536-entry (UInt16, 256 KB, built on first use) decode tables;
//   • a 4,097-entry uniform table with linear interpolation to decode encoded floats in [0, 1]
//     (measured maximum error 8.2e-8 against the exact curve, mostly float rounding);
//   • a 1,409-entry table indexed by the top bits of the float's bit pattern (128 segments per
//     octave over [2⁻⁹, 4)), with linear interpolation, to encode linear floats. Its measured
//     maximum absolute error against the exact curve is 2.72e-6 (every float in [2⁻¹², 4) checked),
//     under 1/(2 × 65535) ≈ 7.6e-6, so
//     encoding a decoded 8- or 16-bit value and rounding gives back exactly the same integer.
// Values outside the tables' ranges fall back to the exact formula; negative values are handled by
// odd symmetry (`f(-x) = -f(x)`), the usual "extended sRGB" convention.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The sRGB transfer curve: exact scalar functions and fast row functions.
///
/// *Decode* turns encoded (gamma-compressed) values into linear light; *encode* does the reverse.
/// All values are nominal: 0 is black and 1 is full intensity.
///
/// ```swift
/// SRGBTransfer.decodeRow(bytes, count: width * 3, into: linear)   // UInt8 → linear Float
/// SRGBTransfer.encodeRow(linear, count: width * 3, into: bytes)   // linear Float → UInt8
/// ```
public enum SRGBTransfer {
  // MARK: Exact scalar functions

  /// Encoded → linear with the exact IEC 61966-2-1 formula, in `Double`.
  ///
  /// `c ≤ 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055)^2.4`; negative values by odd symmetry.
  @inlinable
  public static func decode(_ c: Double) -> Double {
    if c < 0 { return -decode(-c) }
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
  }

  /// Linear → encoded with the exact IEC 61966-2-1 formula, in `Double`.
  ///
  /// `l ≤ 0.0031308 ? 12.92 l : 1.055 l^(1/2.4) − 0.055`; negative values by odd symmetry.
  @inlinable
  public static func encode(_ l: Double) -> Double {
    if l < 0 { return -encode(-l) }
    return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
  }

  /// Encoded → linear, exact (computed in `Double`, rounded once to `Float`).
  @inlinable
  public static func decode(_ c: Float) -> Float { Float(decode(Double(c))) }

  /// Linear → encoded, exact (computed in `Double`, rounded once to `Float`).
  @inlinable
  public static func encode(_ l: Float) -> Float { Float(encode(Double(l))) }

  // MARK: Tables

  /// Linear values of the 256 encoded 8-bit values: `decodeTable8[x] == decode(Float(x) / 255)`.
  public static let decodeTable8: [Float] = (0..<256).map { Float(decode(Double($0) / 255)) }

  /// Linear values of the 65,536 encoded 16-bit values (256 KB, built on first use).
  public static let decodeTable16: [Float] = (0..<65536).map { Float(decode(Double($0) / 65535)) }

  /// Segments of the uniform float-decode table over [0, 1].
  @usableFromInline static let decodeSegments = 4096  // also written as a literal in fastDecode

  /// `(value, slope)` pairs: entry `k` holds `decode(k / 4096)` and the step to entry `k + 1`.
  @usableFromInline static let floatDecodeTable: [SIMD2<Float>] = {
    let n = decodeSegments
    let v = (0...n + 1).map { decode(Double($0) / Double(n)) }
    return (0...n).map { SIMD2(Float(v[$0]), Float(v[$0 + 1] - v[$0])) }
  }()

  /// Bit pattern of the encode table's lowest input, 2⁻⁹ (below it the curve is exactly linear).
  @usableFromInline static let encodeLowBits: UInt32 = Float(0x1p-9).bitPattern
  /// The encode table's first input that is out of range, 4.
  @usableFromInline static let encodeHigh: Float = 4
  /// The encode table's lowest input, 2⁻⁹.
  @usableFromInline static let encodeLow: Float = 0x1p-9

  /// `(value, slope)` pairs over [2⁻⁹, 4): entry `k` is at the float whose bit pattern is
  /// `bits(2⁻⁹) + k << 16`, i.e. 128 equal segments per octave.
  @usableFromInline static let floatEncodeTable: [SIMD2<Float>] = {
    let count = Int((encodeHigh.bitPattern - encodeLowBits) >> 16)  // 11 octaves × 128 = 1408
    let x = (0...count).map { Double(Float(bitPattern: encodeLowBits + UInt32($0) << 16)) }
    let v = x.map { encode($0) }
    return (0...count).map {
      SIMD2(Float(v[$0]), $0 < count ? Float(v[$0 + 1] - v[$0]) : 0)
    }
  }()

  // MARK: Fast scalar functions (table driven)

  /// Encoded → linear from the interpolated table (error < 1e-7 on [0, 1]; exact formula elsewhere).
  @inlinable
  public static func fastDecode(_ c: Float) -> Float {
    floatDecodeTable.withUnsafeBufferPointer { fastDecode(c, table: $0.baseAddress!) }
  }

  /// Linear → encoded from the interpolated table (error < 2.8e-6; exact formula outside [0, 4)).
  @inlinable
  public static func fastEncode(_ l: Float) -> Float {
    floatEncodeTable.withUnsafeBufferPointer { fastEncode(l, table: $0.baseAddress!) }
  }

  /// Calls `body` with the float-decode table for `fastDecode(_:table:)`: loops fetch it once,
  /// not once per value.
  @inlinable
  public static func withDecodeTable<R>(_ body: (UnsafePointer<SIMD2<Float>>) throws -> R) rethrows -> R {
    try floatDecodeTable.withUnsafeBufferPointer { try body($0.baseAddress!) }
  }

  /// Calls `body` with the float-encode table for `fastEncode(_:table:)`.
  @inlinable
  public static func withEncodeTable<R>(_ body: (UnsafePointer<SIMD2<Float>>) throws -> R) rethrows -> R {
    try floatEncodeTable.withUnsafeBufferPointer { try body($0.baseAddress!) }
  }

  /// `fastDecode` with the table passed in (see `withDecodeTable`).
  @inlinable @inline(__always)
  public static func fastDecode(_ c: Float, table: UnsafePointer<SIMD2<Float>>) -> Float {
    if c >= 0 && c <= 1 {
      let t = c * 4096  // decodeSegments, as a literal: no global accessor per value
      let i = Int(t)
      let e = table[i]
      return e.x + e.y * (t - Float(i))
    }
    return decode(c)
  }

  /// `fastEncode` with the table passed in (see `withEncodeTable`).
  @inlinable @inline(__always)
  public static func fastEncode(_ l: Float, table: UnsafePointer<SIMD2<Float>>) -> Float {
    let a = abs(l)
    var r: Float
    if a < 0x1p-9 {  // encodeLow (literals: the statics cost an accessor call per value)
      r = 12.92 * a
    } else if a < 4 {  // encodeHigh
      let bits = a.bitPattern &- 0x3B00_0000  // encodeLowBits, 2⁻⁹
      let e = table[Int(bits >> 16)]
      r = e.x + e.y * (Float(bits & 0xFFFF) * 0x1p-16)
    } else {
      return encode(l)  // also NaN
    }
    return l < 0 ? -r : r
  }

  /// `fastEncode` for outputs that will be clamped to [0, 1] anyway: clamps the input first
  /// (NaN → 0), so there is no slow path and no branch LLVM cannot turn into a select.
  @inline(__always)
  static func encodeUnit(_ l: Float, table: UnsafePointer<SIMD2<Float>>) -> Float {
    var x = l > 0 ? l : 0
    x = x < 1 ? x : 1
    let lowIndexed = x > encodeLow ? x : encodeLow
    let bits = lowIndexed.bitPattern &- encodeLowBits
    let e = table[Int(bits >> 16)]
    let curve = e.x + e.y * (Float(bits & 0xFFFF) * 0x1p-16)
    return x < encodeLow ? 12.92 * x : curve
  }

  // MARK: Row functions

  /// Decodes `count` encoded 8-bit values to linear floats through the exact table.
  public static func decodeRow(
    _ src: UnsafePointer<UInt8>, count: Int, into dst: UnsafeMutablePointer<Float>
  ) {
    decodeTable8.withUnsafeBufferPointer { t in
      let t = t.baseAddress!
      for i in 0..<count { dst[i] = t[Int(src[i])] }
    }
  }

  /// Decodes `count` encoded 16-bit values to linear floats through the exact table.
  public static func decodeRow(
    _ src: UnsafePointer<UInt16>, count: Int, into dst: UnsafeMutablePointer<Float>
  ) {
    decodeTable16.withUnsafeBufferPointer { t in
      let t = t.baseAddress!
      for i in 0..<count { dst[i] = t[Int(src[i])] }
    }
  }

  /// Decodes `count` encoded floats to linear floats (`src` may equal `dst`).
  public static func decodeRow(
    _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutablePointer<Float>
  ) {
    floatDecodeTable.withUnsafeBufferPointer { t in
      let t = t.baseAddress!
      for i in 0..<count { dst[i] = fastDecode(src[i], table: t) }
    }
  }

  /// Encodes `count` linear floats to encoded floats (`src` may equal `dst`).
  public static func encodeRow(
    _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutablePointer<Float>
  ) {
    floatEncodeTable.withUnsafeBufferPointer { t in
      let t = t.baseAddress!
      for i in 0..<count { dst[i] = fastEncode(src[i], table: t) }
    }
  }

  /// Encodes `count` linear floats to 8-bit values, clamped to [0, 1] and rounded to nearest.
  public static func encodeRow(
    _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutablePointer<UInt8>
  ) {
    floatEncodeTable.withUnsafeBufferPointer { t in
      let t = t.baseAddress!
      for i in 0..<count { dst[i] = DepthKernels.quantize8(encodeUnit(src[i], table: t)) }
    }
  }

  /// Encodes `count` linear floats to 16-bit values, clamped to [0, 1] and rounded to nearest.
  public static func encodeRow(
    _ src: UnsafePointer<Float>, count: Int, into dst: UnsafeMutablePointer<UInt16>
  ) {
    floatEncodeTable.withUnsafeBufferPointer { t in
      let t = t.baseAddress!
      for i in 0..<count { dst[i] = DepthKernels.quantize16(encodeUnit(src[i], table: t)) }
    }
  }

  /// Decodes the colour channels of `pixelCount` interleaved 8-bit pixels of `layout` to linear
  /// floats; an alpha channel is scaled linearly (`a / 255`), never curve-mapped.
  public static func decodePixels(
    _ src: UnsafePointer<UInt8>, pixelCount: Int, layout: ChannelLayout,
    into dst: UnsafeMutablePointer<Float>
  ) {
    guard layout.hasAlpha else { return decodeRow(src, count: pixelCount * layout.channelCount, into: dst) }
    decodeIntegerPixels(
      src, pixelCount: pixelCount, channels: layout.channelCount, table: decodeTable8, into: dst)
  }

  /// Decodes the colour channels of `pixelCount` interleaved 16-bit pixels of `layout` to linear
  /// floats; an alpha channel is scaled linearly (`a / 65535`).
  public static func decodePixels(
    _ src: UnsafePointer<UInt16>, pixelCount: Int, layout: ChannelLayout,
    into dst: UnsafeMutablePointer<Float>
  ) {
    guard layout.hasAlpha else { return decodeRow(src, count: pixelCount * layout.channelCount, into: dst) }
    decodeIntegerPixels(
      src, pixelCount: pixelCount, channels: layout.channelCount, table: decodeTable16, into: dst)
  }

  /// The body of the 8- and 16-bit `decodePixels` with alpha: colour channels through `table`,
  /// the last channel scaled by 1 / max (255 or 65535). Inlined into each, so it stays typed.
  @inline(__always)
  private static func decodeIntegerPixels<T: FixedWidthInteger & UnsignedInteger>(
    _ src: UnsafePointer<T>, pixelCount: Int, channels n: Int, table: [Float],
    into dst: UnsafeMutablePointer<Float>
  ) {
    let maxValue = Float(T.max)
    table.withUnsafeBufferPointer { t in
      let t = t.baseAddress!
      for p in 0..<pixelCount {
        let s = src + p * n, d = dst + p * n
        for c in 0..<n - 1 { d[c] = t[Int(s[c])] }
        d[n - 1] = Float(s[n - 1]) / maxValue
      }
    }
  }

  /// Applies the curve in place to the colour channels of `pixelCount` interleaved float pixels
  /// of `layout`, leaving alpha alone: decoding when `decode` is true, encoding otherwise.
  public static func transformPixels(
    _ row: UnsafeMutablePointer<Float>, pixelCount: Int, layout: ChannelLayout, decode: Bool
  ) {
    let n = layout.channelCount
    guard layout.hasAlpha else {
      if decode {
        decodeRow(row, count: pixelCount * n, into: row)
      } else {
        encodeRow(row, count: pixelCount * n, into: row)
      }
      return
    }
    let table = decode ? floatDecodeTable : floatEncodeTable
    table.withUnsafeBufferPointer { t in
      let t = t.baseAddress!
      for p in 0..<pixelCount {
        let d = row + p * n
        for c in 0..<n - 1 {
          d[c] = decode ? fastDecode(d[c], table: t) : fastEncode(d[c], table: t)
        }
      }
    }
  }
}
