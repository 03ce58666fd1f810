// Tests of Renderer.statistics(of:) against direct sums over the pixels (ImageStatistics.swift).

import FilterGraph
import Foundation
import PixelBufferModule
import XCTest

final class ImageStatisticsTests: XCTestCase {
  typealias T = ResampleTestSupport

  /// Minimum, maximum, mean and population deviation of `values`, summed directly.
  func direct(_ values: [Double]) -> (Double, Double, Double, Double) {
    let mean = values.reduce(0, +) / Double(values.count)
    let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
    return (values.min()!, values.max()!, mean, variance.squareRoot())
  }

  func testChannelsMatchDirectSums() throws {
    for alpha in [false, true] {
      let image = T.randomImage(width: 173, height: 91, alpha: alpha, seed: alpha ? 41 : 40)
      let bytes = try T.bytes(image, format: alpha ? .rgba8 : .rgb8, renderer: T.single)
      let channels = alpha ? 4 : 3
      let stats = try T.tiled.statistics(of: image)
      XCTAssertEqual(stats.channels.map(\.name), alpha ? ["red", "green", "blue", "alpha"] : ["red", "green", "blue"])
      XCTAssertEqual(stats.size, Size(width: 173, height: 91))
      for c in 0..<channels {
        var values: [Double] = []
        for row in bytes {
          for x in 0..<173 {
            // Straight values; a fully transparent pixel's colour is 0.
            let a = alpha ? row[4 * x + 3] : 255
            values.append(a == 0 && c < 3 ? 0 : Double(row[channels * x + c]) / 255)
          }
        }
        let (lo, hi, mean, sd) = direct(values)
        let got = stats.channels[c]
        XCTAssertEqual(got.minimum, lo, accuracy: 1e-4, "\(got.name)")
        XCTAssertEqual(got.maximum, hi, accuracy: 1e-4, "\(got.name)")
        XCTAssertEqual(got.mean, mean, accuracy: 1e-4, "\(got.name)")
        XCTAssertEqual(got.standardDeviation, sd, accuracy: 1e-4, "\(got.name)")
      }
    }
  }

  func testGrayAndSixteenBit() throws {
    var buffer = PixelBuffer(width: 300, height: 7, format: PixelFormat(layout: .gray, component: .uint16))
    buffer.withUnsafeMutablePixels(as: UInt16.self) { px in
      for y in 0..<7 { for x in 0..<300 { px[row: y][x] = UInt16(x * 200 + y) } }
    }
    let stats = try T.single.statistics(of: Image(buffer: buffer))
    XCTAssertEqual(stats.channels.map(\.name), ["gray"])
    var values: [Double] = []
    for y in 0..<7 { for x in 0..<300 { values.append(Double(x * 200 + y) / 65535) } }
    let (lo, hi, mean, sd) = direct(values)
    XCTAssertEqual(stats.channels[0].minimum, lo, accuracy: 2e-5)
    XCTAssertEqual(stats.channels[0].maximum, hi, accuracy: 2e-5)
    XCTAssertEqual(stats.channels[0].mean, mean, accuracy: 2e-5)
    XCTAssertEqual(stats.channels[0].standardDeviation, sd, accuracy: 2e-5)
  }

  func testDominantColorIsTheFullestCellsMean() throws {
    // 60 % of the pixels near #3366CC (two shades in one cell), the rest random.
    let noise = T.randomImage(width: 100, height: 50, seed: 3)
    let noiseBytes = try T.bytes(noise, format: .rgb8)
    let image = T.image(width: 100, height: 50) { x, y in
      if x < 60 { return y % 2 == 0 ? [0x33, 0x66, 0xCC] : [0x35, 0x68, 0xCA] }
      return Array(noiseBytes[y][3 * x..<3 * x + 3])
    }
    let dominant = try XCTUnwrap(try T.tiled.statistics(of: image).dominantColor)
    XCTAssertEqual(dominant.hexString, "#3467CB")
    XCTAssertNil(try T.single.statistics(of: Image(color: .clear, size: Size(width: 4, height: 4))).dominantColor)
  }

  /// One thread with `T.fine`'s tiles.
  static let fineOneThread = Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 64, height: 16)))

  func testResultDoesNotDependOnThreadsOrTiling() throws {
    let image = T.randomImage(width: 211, height: 133, alpha: true, seed: 8).rotated(byDegrees: 20)
    // The same tiles on one or two threads: partials merged in tile order, the same bits.
    XCTAssertEqual(try Self.fineOneThread.statistics(of: image), try T.fine.statistics(of: image))
    // Other tiles: the sums are only regrouped (last-digit differences).
    let one = try T.single.statistics(of: image), many = try T.fine.statistics(of: image)
    XCTAssertEqual(one.dominantColor, many.dominantColor)
    for (a, b) in zip(one.channels, many.channels) {
      for (x, y) in [(a.minimum, b.minimum), (a.maximum, b.maximum), (a.mean, b.mean), (a.standardDeviation, b.standardDeviation)] {
        XCTAssertEqual(x, y, accuracy: 1e-12, a.name)
      }
    }
  }
}
