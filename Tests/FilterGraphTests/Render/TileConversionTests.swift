// TileConversionTests.swift — 8-bit codes loaded into working tiles and stored from them, the
// resample kernel's sums, and edges repeated in place.

import CKernels
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class TileConversionTests: XCTestCase {
  /// Loads `count` pixels of `format` from `bytes` (encoded working space, no curve) into a row
  /// with one guard pixel after it, which must stay untouched.
  private func loadRow(_ bytes: [UInt8], count: Int, format: PixelFormat) -> [SIMD4<Float>] {
    var tile = Tile(rect: Rect(x: 0, y: 0, width: count + 1, height: 1))
    let guardPixel = SIMD4<Float>(-7, -7, -7, -7)
    tile.withMutablePixels { px in
      px[row: 0][count] = guardPixel
      bytes.withUnsafeBytes { raw in
        TileConversion.load(
          rows: { _ in raw.baseAddress! }, format: format, colorSpace: .sRGB,
          into: px.cropped(to: Rect(x: 0, y: 0, width: count, height: 1)), space: .encoded)
      }
    }
    return tile.withPixels { px in (0...count).map { px[row: 0][$0] } }
  }

  func testEightBitCodesLoadAsCodeOver255ForEveryLayoutAndTail() {
    // Every code in every channel position, rows of every length up to 40 (the AVX2 kernel's
    // groups of four and the Swift loop's tail), each layout: the floats are exactly code / 255
    // (what Swift's division gives), gray spread to R, G and B, a missing alpha 1.
    let formats: [(PixelFormat, Int)] = [
      (.gray8, 1), (PixelFormat(layout: .grayAlpha, component: .uint8, alphaMode: .premultiplied), 2), (.rgb8, 3),
      (PixelFormat(layout: .rgba, component: .uint8, alphaMode: .premultiplied), 4),
    ]
    var rng = SeededGenerator(seed: 3)
    for (format, channels) in formats {
      var lengths = Array(0...40)
      lengths.append(256 / channels + 5)
      for count in lengths {
        var bytes = (0..<(count * channels)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(rng.next() % 3)) }
        if count * channels >= 256 { for i in 0..<256 { bytes[i] = UInt8(i) } }
        let row = loadRow(bytes, count: count, format: format)
        for x in 0..<count {
          let c = bytes[(x * channels)..<(x * channels + channels)].map { Float($0) / 255 }
          let expected: SIMD4<Float>
          switch channels {
          case 1: expected = SIMD4(c[0], c[0], c[0], 1)
          case 2: expected = SIMD4(c[0], c[0], c[0], c[1])
          case 3: expected = SIMD4(c[0], c[1], c[2], 1)
          default: expected = SIMD4(c[0], c[1], c[2], c[3])
          }
          XCTAssertEqual(row[x], expected, "\(format) count \(count) pixel \(x)")
        }
        XCTAssertEqual(row[count], SIMD4<Float>(-7, -7, -7, -7), "\(format) count \(count): wrote past the row")
      }
    }
  }

  func testEightBitStoreRoundsEachValueAndWritesNothingPastTheRow() {
    // Random premultiplied pixels with awkward values, stored as RGB and RGBA, straight and
    // premultiplied, rows of every length up to 40 (the AVX2 kernel's groups of eight and the
    // Swift tail): each code is round-half-even(clamp(255·v, 0, 255)) of the (unpremultiplied)
    // value, NaN giving 0, and the guard bytes after each row stay untouched.
    var rng = SeededGenerator(seed: 6)
    let specials: [Float] = [.nan, .infinity, -.infinity, -0.0, 0, -1, 1, 1.0000001, 2, 1e-30, 0.5 / 255, 1.5 / 255, 0.5]
    func value() -> Float {
      rng.next() % 6 == 0 ? specials[Int(rng.next() % UInt64(specials.count))] : Float(rng.next() % 1_000_001) / 1_000_000
    }
    func code(_ v: Float) -> UInt8 {
      let s = v * 255
      if !(s > 0) { return 0 }
      return s > 255 ? 255 : UInt8(s.rounded(.toNearestOrEven))
    }
    for channels in [3, 4] {
      for straight in [true, false] {
        let format = PixelFormat(
          layout: channels == 3 ? .rgb : .rgba, component: .uint8, alphaMode: straight ? .straight : .premultiplied)
        for count in 1...40 {
          var tile = Tile(rect: Rect(x: 0, y: 0, width: count, height: 2))
          var pixels: [SIMD4<Float>] = []
          tile.withMutablePixels { px in
            for y in 0..<2 {
              for x in 0..<count {
                let a: Float = rng.next() % 3 == 0 ? 1 : value()
                let p = SIMD4(value(), value(), value(), a)
                px[row: y][x] = p
                pixels.append(p)
              }
            }
          }
          let rowBytes = count * channels + 5
          var out = [UInt8](repeating: 0xA5, count: 2 * rowBytes)
          out.withUnsafeMutableBytes { TileConversion.store(tile, into: $0.baseAddress!, rowBytes: rowBytes, format: format) }
          for y in 0..<2 {
            for x in 0..<count {
              var p = pixels[y * count + x]
              // Unpremultiplied unless the format keeps premultiplied alpha (RGB never does).
              if format.alphaMode != .premultiplied && p.w != 1 {
                let inv: Float = p.w > 0 ? 1 / p.w : 0
                p = SIMD4(p.x * inv, p.y * inv, p.z * inv, p.w)
              }
              let expected = [code(p.x), code(p.y), code(p.z), code(p.w)].prefix(channels)
              let got = out[(y * rowBytes + x * channels)..<(y * rowBytes + x * channels + channels)]
              XCTAssertEqual(Array(got), Array(expected), "channels \(channels) straight \(straight) count \(count) pixel \(x) \(p)")
            }
            XCTAssertEqual(Array(out[(y * rowBytes + count * channels)..<((y + 1) * rowBytes)]), [UInt8](repeating: 0xA5, count: 5))
          }
        }
      }
    }
  }

  func testResampleKernelSumsInItsDefinedOrder() {
    // fg_resample_rows against the header's sum evaluated in Swift Float (products rounded, then
    // added in tap order): equal bit for bit, for lengths that use the AVX2 blocks of 32 and 8
    // floats and the portable tail, stored as rows and transposed.
    var rng = SeededGenerator(seed: 8)
    func value() -> Float { Float(rng.next() % 2_000_001) / 1_000_000 - 1 }
    let rowsIn = 24
    for count in [4, 8, 12, 32, 36, 44, 64, 68, 260, 1028] {
      let src = (0..<(rowsIn * count)).map { _ in value() }
      let outputs = 5
      let taps = (0..<outputs).map { $0 == 3 ? 0 : 1 + Int(rng.next() % 19) }
      let starts = taps.map { Int(rng.next() % UInt64(rowsIn - $0 + 1)) }
      let stride = 19
      let weights = (0..<(outputs * stride)).map { _ in value() }
      for transposed in [false, true] {
        let pixels = count / 4
        let (rowFloats, pixelFloats) = transposed ? (4, 4 * outputs) : (count, 4)
        var dst = [Float](repeating: .nan, count: outputs * count)
        fg_resample_rows(src, count, count, starts, taps, weights, stride, outputs, &dst, rowFloats, pixelFloats)
        for y in 0..<outputs {
          for p in 0..<pixels {
            for c in 0..<4 {
              let i = 4 * p + c
              var acc: Float = 0
              for j in 0..<taps[y] {
                let term = src[(starts[y] + j) * count + i] * weights[y * stride + j]
                acc = j == 0 ? term : acc + term
              }
              let got = dst[y * rowFloats + p * pixelFloats + c]
              XCTAssertEqual(got.bitPattern, acc.bitPattern, "count \(count) transposed \(transposed) row \(y) float \(i)")
            }
          }
        }
      }
    }
  }

  func testEdgesRepeatedInPlaceEqualTheCopyingExtension() throws {
    // A block inside a larger tile, its surroundings filled by extendEdges(in:around:), against
    // extendEdges(_:to:) of the block alone, for blocks touching each side or none.
    var rng = SeededGenerator(seed: 4)
    let outer = Rect(x: 10, y: 20, width: 9, height: 7)
    for inner in [
      Rect(x: 0, y: 0, width: 9, height: 7), Rect(x: 2, y: 1, width: 4, height: 3), Rect(x: 0, y: 3, width: 1, height: 4),
      Rect(x: 8, y: 0, width: 1, height: 1), Rect(x: 3, y: 6, width: 6, height: 1),
    ] {
      var block = Tile(rect: inner.offsetBy(dx: outer.x, dy: outer.y))
      block.withMutablePixels { px in
        for y in 0..<px.height {
          for x in 0..<px.width { px[row: y][x] = SIMD4(Float(rng.next() % 1000), Float(x), Float(y), 1) }
        }
      }
      let copied = try TileConversion.extendEdges(block, to: outer)
      var inPlace = Tile(rect: outer)
      inPlace.withMutablePixels { px in
        block.withPixels { b in
          for y in 0..<inner.height { (px[row: inner.y + y] + inner.x).update(from: b[row: y], count: inner.width) }
        }
        TileConversion.extendEdges(in: px, around: inner)
      }
      XCTAssertTrue(inPlace.buffer.hasSamePixels(as: copied.buffer), "inner \(inner)")
    }
  }
}
