// PixelBuffer+Depth.swift — changing the component type (uint8 ↔ uint16 ↔ float32).
//
// Rules (each is exact where the destination can hold the value):
//   8 → 16     x × 257                         (0 → 0, 255 → 65535; exact, invertible)
//   16 → 8     (v × 255 + 32767) / 65535       (round to nearest; there are no ties)
//   8 → float  x / 255
//   16 → float v / 65535
//   float → 8  clamp to [0, 1], then ⌊f × 255 + 0.5⌋   (NaN → 0)
//   float → 16 clamp to [0, 1], then ⌊f × 65535 + 0.5⌋ (NaN → 0)
// So 8 → 16 → 8, 8 → float → 8 and 16 → float → 16 give back every value exactly.

/// Row kernels for component conversion. Rows are `count` values long (channels × pixels).
enum DepthKernels {
  /// Clamps to [0, 1] and rounds to the nearest of 0…255 (NaN → 0).
  @inline(__always)
  static func quantize8(_ f: Float) -> UInt8 {
    var v = f * 255 + 0.5
    v = v >= 0 ? v : 0  // also NaN
    v = v < 255 ? v : 255
    return UInt8(truncatingIfNeeded: Int32(v))
  }

  /// Clamps to [0, 1] and rounds to the nearest of 0…65535 (NaN → 0).
  @inline(__always)
  static func quantize16(_ f: Float) -> UInt16 {
    var v = f * 65535 + 0.5
    v = v >= 0 ? v : 0
    v = v < 65535 ? v : 65535
    return UInt16(truncatingIfNeeded: Int32(v))
  }

  static func u8ToU16(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt16>, _ count: Int) {
    for i in 0..<count { d[i] = UInt16(s[i]) &* 257 }
  }

  static func u16ToU8(_ s: UnsafePointer<UInt16>, _ d: UnsafeMutablePointer<UInt8>, _ count: Int) {
    for i in 0..<count {
      d[i] = UInt8(truncatingIfNeeded: (UInt32(s[i]) &* 255 &+ 32767) / 65535)
    }
  }

  static func u8ToFloat(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<Float>, _ count: Int) {
    for i in 0..<count { d[i] = Float(s[i]) / 255 }
  }

  static func u16ToFloat(_ s: UnsafePointer<UInt16>, _ d: UnsafeMutablePointer<Float>, _ count: Int) {
    for i in 0..<count { d[i] = Float(s[i]) / 65535 }
  }

  static func floatToU8(_ s: UnsafePointer<Float>, _ d: UnsafeMutablePointer<UInt8>, _ count: Int) {
    for i in 0..<count { d[i] = quantize8(s[i]) }
  }

  static func floatToU16(_ s: UnsafePointer<Float>, _ d: UnsafeMutablePointer<UInt16>, _ count: Int) {
    for i in 0..<count { d[i] = quantize16(s[i]) }
  }

  /// Reads `count` values of `component` at `src` as nominal floats.
  static func load(
    _ src: UnsafeRawPointer, _ component: ComponentType, _ dst: UnsafeMutablePointer<Float>,
    _ count: Int
  ) {
    switch component {
    case .uint8: u8ToFloat(src.assumingMemoryBound(to: UInt8.self), dst, count)
    case .uint16: u16ToFloat(src.assumingMemoryBound(to: UInt16.self), dst, count)
    case .float32: dst.update(from: src.assumingMemoryBound(to: Float.self), count: count)
    }
  }

  /// Writes `count` nominal floats as `component` values at `dst` (clamping and rounding integers).
  static func store(
    _ src: UnsafePointer<Float>, _ component: ComponentType, _ dst: UnsafeMutableRawPointer,
    _ count: Int
  ) {
    switch component {
    case .uint8: floatToU8(src, dst.assumingMemoryBound(to: UInt8.self), count)
    case .uint16: floatToU16(src, dst.assumingMemoryBound(to: UInt16.self), count)
    case .float32:
      let d = dst.assumingMemoryBound(to: Float.self)
      if UnsafeMutablePointer(mutating: src) != d { d.update(from: src, count: count) }
    }
  }

  /// Converts `count` values between any two component types.
  static func convert(
    _ src: UnsafeRawPointer, _ from: ComponentType, _ dst: UnsafeMutableRawPointer,
    _ to: ComponentType, _ count: Int
  ) {
    switch (from, to) {
    case (.uint8, .uint16):
      u8ToU16(src.assumingMemoryBound(to: UInt8.self), dst.assumingMemoryBound(to: UInt16.self), count)
    case (.uint16, .uint8):
      u16ToU8(src.assumingMemoryBound(to: UInt16.self), dst.assumingMemoryBound(to: UInt8.self), count)
    case (_, .float32):
      load(src, from, dst.assumingMemoryBound(to: Float.self), count)
    case (.float32, _):
      store(src.assumingMemoryBound(to: Float.self), to, dst, count)
    default:  // same integer type
      dst.copyMemory(from: src, byteCount: count * from.byteCount)
    }
  }
}

extension PixelBuffer {
  /// The same pixels with another component type; layout, alpha mode, colour space and
  /// metadata are kept.
  ///
  /// Integer ↔ integer conversions use exact integer arithmetic (`x × 257`,
  /// `(v × 255 + 32767) / 65535`); integer → float divides by 255 or 65535; float → integer clamps
  /// to [0, 1] and rounds to nearest (NaN becomes 0). 8 → 16 → 8, 8 → float → 8 and
  /// 16 → float → 16 give back every value exactly. Returns `self` when nothing changes.
  public func converted(to component: ComponentType) -> PixelBuffer {
    if component == format.component { return self }
    var newFormat = format
    newFormat.component = component
    var out = PixelBuffer(
      width: width, height: height, format: newFormat, colorSpace: colorSpace, metadata: metadata)
    let count = width * format.channelCount
    let from = format.component
    withUnsafeBaseAddress { src, srcStride in
      out.withUnsafeMutableBaseAddress { dst, dstStride in
        for y in 0..<height {
          DepthKernels.convert(src + y * srcStride, from, dst + y * dstStride, component, count)
        }
      }
    }
    return out
  }
}
