// GIFBuilder.swift — GIF files written byte by byte for tests: any screen, frame rectangles,
// disposal, delays, transparency and colour-table sizes, including ones no encoder would write.
// Pixels are LZW-coded "uncompressed" (a clear code before the code width would grow).

import Foundation

public struct GIFBuilder {
  public struct Frame {
    public var left, top, width, height: Int
    public var indices: [UInt8]
    public var disposal = 0, delay = 0
    public var transparent: UInt8?

    public init(left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8], disposal: Int = 0, delay: Int = 0, transparent: UInt8? = nil) {
      (self.left, self.top, self.width, self.height, self.indices) = (left, top, width, height, indices)
      (self.disposal, self.delay, self.transparent) = (disposal, delay, transparent)
    }
  }

  public var width, height: Int
  /// The global colour table (2^n entries, n ≥ 1, padded with black).
  public var palette: [(UInt8, UInt8, UInt8)]
  /// The NETSCAPE2.0 loop count, or nil for none.
  public var loop: Int?

  public init(width: Int, height: Int, palette: [(UInt8, UInt8, UInt8)], loop: Int? = nil) {
    (self.width, self.height, self.palette, self.loop) = (width, height, palette, loop)
  }

  /// The file's header, screen, colour table and loop extension.
  public func head() -> [UInt8] {
    var bits = 1
    while 1 << bits < palette.count { bits += 1 }
    var out = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x80 | 0x70 | UInt8(bits - 1), 0, 0]
    for i in 0..<(1 << bits) {
      let c = i < palette.count ? palette[i] : (0, 0, 0)
      out += [c.0, c.1, c.2]
    }
    if let loop { out += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [3, 1] + le16(loop) + [0] }
    return out
  }

  /// One frame's graphic control extension, descriptor and pixels (LZW with 8-bit literals).
  public static func frame(_ f: Frame) -> [UInt8] {
    var out: [UInt8] = [0x21, 0xF9, 4, UInt8(f.disposal << 2) | (f.transparent == nil ? 0 : 1)] + le16(f.delay) + [f.transparent ?? 0, 0]
    out += [0x2C] + le16(f.left) + le16(f.top) + le16(f.width) + le16(f.height) + [0]
    return out + lzw(f.indices)
  }

  /// The whole file.
  public func build(_ frames: [Frame]) -> Data { Data(head() + frames.flatMap(GIFBuilder.frame) + [0x3B]) }

  /// `indices` as image data: minimum code size 8, 9-bit codes, a clear code every 254 literals.
  public static func lzw(_ indices: [UInt8]) -> [UInt8] {
    var codes: [Int] = [256]
    for (n, i) in indices.enumerated() {
      if n > 0 && n % 254 == 0 { codes.append(256) }
      codes.append(Int(i))
    }
    codes.append(257)
    var packed: [UInt8] = [], bits = 0, count = 0
    for c in codes {
      bits |= c << count
      count += 9
      while count >= 8 {
        packed.append(UInt8(bits & 255))
        bits >>= 8
        count -= 8
      }
    }
    if count > 0 { packed.append(UInt8(bits & 255)) }
    var out: [UInt8] = [8]
    for start in stride(from: 0, to: packed.count, by: 255) {
      let chunk = packed[start..<min(start + 255, packed.count)]
      out += [UInt8(chunk.count)] + chunk
    }
    return out + [0]
  }
}

private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255)] }
