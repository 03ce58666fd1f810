// TIFFBuilder.swift — a minimal TIFF writer of its own (classic, little-endian, 8-bit,
// uncompressed, one strip per image) for tests that need directory structures no encoder at
// hand writes: pyramid levels painted unlike their page, several pages each with levels, levels
// of another layout, thousands of directories.

import Foundation

/// Writes TIFF files from a description of their directories.
public enum TIFFBuilder {
  /// One image file directory: an 8-bit gray (1 channel) or RGB (3 channels) image.
  public struct Directory {
    /// Width and height in pixels.
    public var width: Int, height: Int
    /// 1 (gray, MinIsBlack) or 3 (RGB).
    public var channels: Int
    /// `width · height · channels` samples, row by row.
    public var pixels: [UInt8]
    /// NewSubfileType (tag 254): 1 marks a reduced-resolution image; nil leaves the tag out.
    public var subfileType: Int?
    /// Directories written as this one's SubIFDs (tag 330).
    public var subIFDs: [Directory]

    /// A directory of `width` × `height` pixels whose samples are `sample(x, y, c)`.
    public init(
      width: Int, height: Int, channels: Int = 3, subfileType: Int? = nil, subIFDs: [Directory] = [],
      _ sample: (Int, Int, Int) -> UInt8
    ) {
      self.width = width
      self.height = height
      self.channels = channels
      self.subfileType = subfileType
      self.subIFDs = subIFDs
      var pixels: [UInt8] = []
      pixels.reserveCapacity(width * height * channels)
      for y in 0..<height {
        for x in 0..<width {
          for c in 0..<channels { pixels.append(sample(x, y, c)) }
        }
      }
      self.pixels = pixels
    }
  }

  /// The bytes of a file whose main chain is `chain`. Directories that share their pixels with
  /// the previous one (same size, layout and samples) share its strip, so a file of thousands of
  /// directories stays small.
  public static func file(_ chain: [Directory]) -> Data {
    var out: [UInt8] = [0x49, 0x49, 42, 0, 0, 0, 0, 0]
    var previous: (pixels: [UInt8], offset: Int)?
    func put32(_ v: Int, at i: Int) { for k in 0..<4 { out[i + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) } }
    func append16(_ v: Int) { out += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
    func append32(_ v: Int) { for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * k))) } }
    func align() { if out.count % 2 == 1 { out.append(0) } }

    /// Writes `d` (its SubIFDs first) and returns its offset; its next-directory field is 0.
    func write(_ d: Directory) -> (offset: Int, nextField: Int) {
      let subOffsets = d.subIFDs.map { write($0).offset }
      let strip: Int
      if let previous, previous.pixels == d.pixels {
        strip = previous.offset
      } else {
        align()
        strip = out.count
        out += d.pixels
        previous = (d.pixels, strip)
      }
      align()
      let bits = out.count
      for _ in 0..<d.channels { append16(8) }
      align()
      let subs = out.count
      for s in subOffsets { append32(s) }
      align()
      // (tag, type, count, value or offset); types: 3 SHORT, 4 LONG.
      var entries: [(Int, Int, Int, Int)] = []
      if let t = d.subfileType { entries.append((254, 4, 1, t)) }
      entries += [
        (256, 4, 1, d.width), (257, 4, 1, d.height), (258, 3, d.channels, d.channels == 1 ? 8 : bits), (259, 3, 1, 1),
        (262, 3, 1, d.channels == 1 ? 1 : 2), (273, 4, 1, strip), (277, 3, 1, d.channels), (278, 4, 1, d.height),
        (279, 4, 1, d.pixels.count), (284, 3, 1, 1),
      ]
      if !subOffsets.isEmpty { entries.append((330, 4, subOffsets.count, subOffsets.count == 1 ? subOffsets[0] : subs)) }
      let offset = out.count
      append16(entries.count)
      for (tag, type, count, value) in entries {
        append16(tag)
        append16(type)
        append32(count)
        if type == 3 && count == 1 {
          append16(value)
          append16(0)
        } else {
          append32(value)
        }
      }
      let nextField = out.count
      append32(0)
      return (offset, nextField)
    }

    var link = 4
    for d in chain {
      let (offset, nextField) = write(d)
      put32(offset, at: link)
      link = nextField
    }
    return Data(out)
  }
}
