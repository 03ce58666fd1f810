// BenchmarkInputs.swift — the deterministic pictures every benchmark of this package renders.
//
// A 3000 × 2000 RGB, 8-bit, sRGB photo-like image (FILTERBENCH_SIZE=WIDTHxHEIGHT changes the size):
// a gradient with a smooth pattern and per-pixel noise, so the codecs see photo-like entropy; and
// a 600 × 400 RGBA half-transparent gradient for compositing. Made once per process.

import FilterGraph
import Foundation
import PixelBufferModule

/// The benchmarks' inputs.
public enum BenchmarkInputs {
  /// Input size, from FILTERBENCH_SIZE (WIDTHxHEIGHT) or 3000 × 2000.
  public static let size: Size = {
    if let text = ProcessInfo.processInfo.environment["FILTERBENCH_SIZE"] {
      let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
      if parts.count == 2, parts[0] > 0, parts[1] > 0 { return Size(width: parts[0], height: parts[1]) }
    }
    return Size(width: 3000, height: 2000)
  }()

  /// The deterministic test picture (see the file's header).
  public static let photo: PixelBuffer = {
    var buffer = PixelBuffer(width: size.width, height: size.height, format: .rgb8)
    let (w, h) = (size.width, size.height)
    buffer.withUnsafeMutableBaseAddress { base, stride in
      var state: UInt64 = 0x9E37_79B9_7F4A_7C15
      for y in 0..<h {
        let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
        let fy = Double(y) / Double(h)
        for x in 0..<w {
          state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          let noise = Double(Int(truncatingIfNeeded: (state >> 56) & 0x1F) - 16)  // −16…15
          let fx = Double(x) / Double(w)
          let wave = 40 * sin(Double(x) * 0.013 + 3 * fy) * cos(Double(y) * 0.021 - 2 * fx)
          let r = 60 + 150 * fx + wave + noise
          let g = 40 + 120 * fy + 0.7 * wave + noise
          let b = 200 - 120 * fx * fy - wave + noise
          row[3 * x] = UInt8(max(0, min(255, r.rounded())))
          row[3 * x + 1] = UInt8(max(0, min(255, g.rounded())))
          row[3 * x + 2] = UInt8(max(0, min(255, b.rounded())))
        }
      }
    }
    return buffer
  }()

  /// A 600 × 400 RGBA overlay (half-transparent gradient) for the composite row.
  public static let logo: PixelBuffer = {
    var buffer = PixelBuffer(width: 600, height: 400, format: .rgba8)
    buffer.withUnsafeMutableBaseAddress { base, stride in
      for y in 0..<400 {
        let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
        for x in 0..<600 {
          row[4 * x] = 255
          row[4 * x + 1] = UInt8(x * 255 / 599)
          row[4 * x + 2] = UInt8(y * 255 / 399)
          row[4 * x + 3] = UInt8(64 + (x + y) % 128)
        }
      }
    }
    return buffer
  }()
}
