// RandomPixels.swift — reproducible random pixel buffers for tests.
import PixelBufferModule

/// A small, fast, seeded random number generator (SplitMix64), so failures reproduce.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator; equal seeds give equal sequences.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

extension PixelBuffer {
  /// A buffer of random values: any bit pattern for integer formats, uniform in [0, 1] for
  /// float32. Premultiplied formats get colour ≤ alpha so the pixels are valid.
  public static func random(
    width: Int, height: Int, format: PixelFormat, seed: UInt64 = 1, colorSpace: ColorSpace = .sRGB
  ) -> PixelBuffer {
    var rng = SeededGenerator(seed: seed)
    var buffer = PixelBuffer(width: width, height: height, format: format, colorSpace: colorSpace)
    let n = format.channelCount
    let premultiplied = format.alphaMode == .premultiplied
    func fill<T>(_ type: T.Type, _ make: (inout SeededGenerator, T?) -> T) {
      buffer.withUnsafeMutablePixels(as: T.self) { p in
        for y in 0..<p.height {
          let row = p[row: y]
          for x in 0..<p.width {
            let alpha = make(&rng, nil)
            if format.layout.hasAlpha { row[x * n + n - 1] = alpha }
            for c in 0..<(format.layout.hasAlpha ? n - 1 : n) {
              row[x * n + c] = make(&rng, premultiplied ? alpha : nil)
            }
          }
        }
      }
    }
    switch format.component {
    case .uint8: fill(UInt8.self) { g, max in UInt8.random(in: 0...(max ?? 255), using: &g) }
    case .uint16: fill(UInt16.self) { g, max in UInt16.random(in: 0...(max ?? 65535), using: &g) }
    case .float32: fill(Float.self) { g, max in Float.random(in: 0...(max ?? 1), using: &g) }
    }
    return buffer
  }

  /// Channel `c` of pixel `(x, y)` as a nominal float (integers divided by 255 or 65535).
  public func value(x: Int, y: Int, channel c: Int) -> Float {
    let i = x * format.channelCount + c
    switch format.component {
    case .uint8: return withUnsafePixels(as: UInt8.self) { Float($0[row: y][i]) / 255 }
    case .uint16: return withUnsafePixels(as: UInt16.self) { Float($0[row: y][i]) / 65535 }
    case .float32: return withUnsafePixels(as: Float.self) { $0[row: y][i] }
    }
  }

  /// Every channel of every pixel as `value(x:y:channel:)` gives it, in row order (pixel
  /// `(x, y)`'s channel `c` at `(y · width + x) · channelCount + c`): one pass over the rows, for
  /// loops over whole images, where a `value` call per channel costs a buffer access each.
  public func nominalValues() -> [Float] {
    switch format.component {
    case .uint8: return storedValues(UInt8.self) { Float($0) / 255 }
    case .uint16: return storedValues(UInt16.self) { Float($0) / 65535 }
    case .float32: return storedValues(Float.self) { $0 }
    }
  }

  /// All channel values of the buffer in row order, as integers of the stored type widened to
  /// `Int` (integer formats) — handy for exact comparisons.
  public func integerValues() -> [Int] {
    switch format.component {
    case .uint8: return storedValues(UInt8.self) { Int($0) }
    case .uint16: return storedValues(UInt16.self) { Int($0) }
    case .float32: preconditionFailure("integerValues() on a float buffer")
    }
  }

  /// Every stored value (of type `T`) in row order, each through `convert`.
  private func storedValues<T, Result>(_ type: T.Type, _ convert: (T) -> Result) -> [Result] {
    var out: [Result] = []
    out.reserveCapacity(width * height * format.channelCount)
    let count = width * format.channelCount
    withUnsafePixels(as: T.self) { p in
      for y in 0..<height { for i in 0..<count { out.append(convert(p[row: y][i])) } }
    }
    return out
  }

  /// All channel values of a float32 buffer in row order.
  public func floatValues() -> [Float] {
    precondition(format.component == .float32)
    var out: [Float] = []
    let count = width * format.channelCount
    withUnsafePixels(as: Float.self) { p in
      for y in 0..<height { for i in 0..<count { out.append(p[row: y][i]) } }
    }
    return out
  }

  /// A one-row buffer holding `values` (interleaved channels of `format`), for table-style tests.
  public static func row<T>(_ values: [T], format: PixelFormat, colorSpace: ColorSpace = .sRGB) -> PixelBuffer {
    precondition(MemoryLayout<T>.stride == format.component.byteCount)
    precondition(values.count % format.channelCount == 0)
    var b = PixelBuffer(
      width: values.count / format.channelCount, height: 1, format: format, colorSpace: colorSpace)
    b.withUnsafeMutablePixels(as: T.self) { p in
      for (i, v) in values.enumerated() { p[row: 0][i] = v }
    }
    return b
  }
}
