// PNGShrinkTests.swift — PNG shrink-on-load against its mathematical definition.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class PNGShrinkTests: XCTestCase {
  /// The definition: the (alpha-weighted, for alpha layouts) box average of light of each d×d
  /// block, clipped at the edges (colours through the sRGB curve and back unless the buffer is
  /// linear), rounded to nearest — computed here in plain Swift from the full decode.
  private func reference(_ full: PixelBuffer, _ d: Int) -> [[Int]] {
    let channels = full.format.channelCount, alpha = full.format.layout.hasAlpha
    let maxValue = full.format.component == .uint16 ? 65535 : 255
    let w = (full.width + d - 1) / d, h = (full.height + d - 1) / d
    var rows: [[Int]] = []
    for oy in 0..<h {
      var row: [Int] = []
      for ox in 0..<w {
        var plain = [Double](repeating: 0, count: channels), weighted = [Double](repeating: 0, count: channels)
        var coverage = 0, n = 0
        let light = !full.colorSpace.isLinear, top = Double(maxValue)
        for y in oy * d..<min(oy * d + d, full.height) {
          for x in ox * d..<min(ox * d + d, full.width) {
            let px = (0..<channels).map { full.sample(x: x, y: y, channel: $0) }
            let a = alpha ? px[channels - 1] : 1
            coverage += a
            n += 1
            for c in 0..<channels {
              let v = light ? SRGBTransfer.decode(Double(px[c]) / top) : Double(px[c]) / top
              plain[c] += v
              weighted[c] += v * Double(a)
            }
          }
        }
        let colours = alpha ? channels - 1 : channels
        let opaque = !alpha || coverage == n * maxValue
        for c in 0..<colours {
          let mean = opaque || coverage == 0 ? plain[c] / Double(n) : weighted[c] / Double(coverage)
          row.append(Int(((light ? SRGBTransfer.encode(mean) : mean) * top).rounded()))
        }
        if alpha { row.append((coverage + n / 2) / n) }
      }
      rows.append(row)
    }
    return rows
  }

  func testReducedDecodeIsTheBoxAverage() throws {
    // Odd sizes (partial edge blocks), palettes with alpha, 16-bit alpha, interlaced.
    for path in ["pngsuite/s09n3p02.png", "pngsuite/basn6a08.png", "pngsuite/basn6a16.png", "pngsuite/basi4a08.png", "pngsuite/tbrn2c08.png"] {
      let data = try Data(contentsOf: Fixtures.url(path))
      let full = try PNGDecoder.decode(data)
      for d in [2, 4, 8] {
        let reduced = try PNGCodec.makeDecoder(data, request: DecodeRequest(scaleDenominator: d)).decodeAll()
        XCTAssertEqual(reduced.size, Size(width: (full.width + d - 1) / d, height: (full.height + d - 1) / d))
        let expected = reference(full, d)
        for y in 0..<reduced.height {
          let got = (0..<reduced.width).flatMap { x in (0..<reduced.format.channelCount).map { reduced.sample(x: x, y: y, channel: $0) } }
          XCTAssertLessThanOrEqual(zip(got, expected[y]).map { abs($0 - $1) }.max() ?? 0, 1, "\(path) 1/\(d) row \(y)")
        }
      }
    }
  }

  /// Translucent 2×2 blocks of every alpha coverage from 1 to 1020, with the largest colour values
  /// (the top of the 8-bit weighted sums) and seeded random ones, against the definition.
  func testTranslucentBlocksOfEveryCoverage() throws {
    let width = 2 * 1020, height = 8
    var image = PixelBuffer(width: width, height: height, format: .rgba8)
    var rng = SeededGenerator(seed: 3)
    image.withUnsafeMutablePixels(as: UInt8.self) { p in
      for block in 0..<1020 {
        // Four alphas summing to block + 1, as even as possible.
        let coverage = block + 1
        let alphas = (0..<4).map { (coverage + $0) / 4 }
        for (i, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].enumerated() {
          let x = 2 * block + dx
          for y in [dy, 2 + dy, 4 + dy, 6 + dy] {
            let color: [UInt8] =
              y < 2 ? [255, 255, 255] : y < 4 ? [255, 0, 254] : (0..<3).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let alpha = y < 6 ? UInt8(alphas[i]) : UInt8(truncatingIfNeeded: rng.next())
            for c in 0..<3 { p[row: y][4 * x + c] = color[c] }
            p[row: y][4 * x + 3] = alpha
          }
        }
      }
    }
    let png = try PNGStreamEncoderTests.encode(image, options: PNGEncodeOptions(compressionLevel: 1, filter: .none), executor: nil)
    let reduced = try PNGCodec.makeDecoder(png, request: DecodeRequest(scaleDenominator: 2)).decodeAll()
    let expected = reference(try PNGDecoder.decode(png), 2)
    for y in 0..<reduced.height {
      let got = (0..<reduced.width).flatMap { x in (0..<4).map { reduced.sample(x: x, y: y, channel: $0) } }
      XCTAssertLessThanOrEqual(zip(got, expected[y]).map { abs($0 - $1) }.max() ?? 0, 1, "row \(y)")
    }
  }
}

extension PixelBuffer {
  /// Sample `channel` of pixel (x, y) as an integer (8- or 16-bit buffers).
  fileprivate func sample(x: Int, y: Int, channel: Int) -> Int {
    withUnsafeBaseAddress { base, rowBytes in
      let p = base + y * rowBytes
      let i = x * format.channelCount + channel
      return format.component == .uint16
        ? Int(p.assumingMemoryBound(to: UInt16.self)[i]) : Int(p.assumingMemoryBound(to: UInt8.self)[i])
    }
  }
}
