// LinearStoreTests.swift — linear tiles written straight to 8-bit codes, and narrowed tiles.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class LinearStoreTests: XCTestCase {
  /// The exact code of a linear value: 255·encode(l) rounded, halves up.
  private func exactCode(_ l: Float) -> Int {
    Int((SRGBTransfer.encode(Double(min(max(l, 0), 1))) * 255).rounded())
  }

  func testLinear8CodesAreTheExactRounding() {
    let entries = TileConversion.Linear8.entries, thresholds = TileConversion.Linear8.thresholds
    entries.withUnsafeBufferPointer { eb in
      do {
        let e = eb.baseAddress!
        func code(_ l: Float) -> Int { Int(TileConversion.Linear8.code(l, e)) }
        // A dense sweep, every threshold and its neighbours, the table's own points, out of range.
        var values: [Float] = (0...200_000).map { Float($0) / 200_000 }
        for k in 1...255 { let t = thresholds[k]; values += [t, t.nextDown, t.nextUp] }
        values += (0...4096).map { Float($0) / 4096 } + [-1, -0, 1.5, .infinity, -.infinity, 1e-30]
        for l in values { XCTAssertEqual(code(l), exactCode(l), "l = \(l)") }
        XCTAssertEqual(code(.nan), 0)
        // The three-lane vector path gives the same codes.
        var out = [UInt8](repeating: 0, count: 3)
        for i in stride(from: 0, to: values.count - 2, by: 3) {
          let v = SIMD4(values[i], values[i + 1], values[i + 2], 1)
          TileConversion.Linear8.store3(v, &out, e)
          XCTAssertEqual(out.map(Int.init), [exactCode(v.x), exactCode(v.y), exactCode(v.z)], "\(v)")
        }
      }
    }
  }

  func testPackedKernelTableGivesTheSameCodes() {
    // The AVX2 kernel's 32-bit entries (code << 17 | low 16 bits of an in-segment threshold),
    // read as the kernel reads them, against `code` for every threshold's neighbourhood, every
    // segment start and end, and a random sample of the whole 0…1 bit range.
    let packed = TileConversion.Linear8.packed, thresholds = TileConversion.Linear8.thresholds
    XCTAssertEqual(packed.count, TileConversion.Linear8.entries.count)
    let low = TileConversion.Linear8.lowBits, one = TileConversion.Linear8.oneBits
    func packedCode(_ bits: UInt32) -> Int {
      let b = max(bits, low)
      let e = packed[Int((b - low) >> 16)]
      return Int(e >> 17) + ((b & 0xFFFF) >= (e & 0x1FFFF) ? 1 : 0)
    }
    var bits: [UInt32] = []
    for k in 1...255 { let t = thresholds[k].bitPattern; bits += (t - 3)...(t + 3) }
    for i in UInt32(0)...((one - low) >> 16) { let s = low + i << 16; bits += [s, s &- 1, s + 1, s + 0xFFFF] }
    var rng = SeededGenerator(seed: 11)
    for _ in 0..<100_000 { bits.append(UInt32(truncatingIfNeeded: rng.next()) % (one + 1)) }
    TileConversion.Linear8.entries.withUnsafeBufferPointer { eb in
      for b in bits where b <= one {
        XCTAssertEqual(packedCode(b), Int(TileConversion.Linear8.code(Float(bitPattern: b), eb.baseAddress!)), "bits \(b)")
      }
    }
  }

  func testKernelStoreMatchesTheSwiftStore() {
    // Random tiles with opaque, translucent and transparent pixels and awkward values, every
    // layout and widths that leave every tail length: the AVX2 kernel (when the CPU has it) and
    // the Swift loop write the same bytes, and nothing past each row's end.
    var rng = SeededGenerator(seed: 5)
    let specials: [Float] = [.nan, .infinity, -.infinity, -0.0, 0, -1, 1, 1.0000001, 2, 1e-30, 1.5e-4, 0.0031308, 0.5]
    func value() -> Float {
      switch rng.next() % 8 {
      case 0: return specials[Int(rng.next() % UInt64(specials.count))]
      case 1: return Float(rng.next() % 1_000_000) / 1_000_000 * 1.4 - 0.2
      default: return Float(rng.next() % 16_777_216) / 16_777_216
      }
    }
    func alpha() -> Float {
      switch rng.next() % 8 {
      case 0: return specials[Int(rng.next() % UInt64(specials.count))]
      case 1: return Float(rng.next() % 1000) / 1000
      case 2: return 0
      default: return 1
      }
    }
    let layouts: [ChannelLayout] = [.gray, .grayAlpha, .rgb, .rgba]
    for width in Array(1...33) + [64, 517] {
      let height = 3
      var tile = Tile(rect: Rect(x: 0, y: 0, width: width, height: height))
      tile.withMutablePixels { p in
        for y in 0..<height {
          // One row all opaque (the kernel's fast path), the others mixed.
          for x in 0..<width { p[row: y][x] = SIMD4(value(), value(), value(), y == 0 ? 1 : alpha()) }
        }
      }
      for layout in layouts {
        let format = PixelFormat(layout: layout, component: .uint8, alphaMode: layout.hasAlpha ? .straight : nil)
        let rowBytes = width * layout.channelCount + 5
        var fast = [UInt8](repeating: 0xA5, count: rowBytes * height), slow = fast
        fast.withUnsafeMutableBytes { TileConversion.storeLinear8(tile, into: $0.baseAddress!, rowBytes: rowBytes, format: format, kernel: true) }
        slow.withUnsafeMutableBytes { TileConversion.storeLinear8(tile, into: $0.baseAddress!, rowBytes: rowBytes, format: format, kernel: false) }
        XCTAssertEqual(fast, slow, "width \(width), \(layout)")
        for y in 0..<height {
          XCTAssertEqual(Array(fast[(y * rowBytes + rowBytes - 5)..<((y + 1) * rowBytes)]), [UInt8](repeating: 0xA5, count: 5))
        }
      }
    }
  }

  func testLinearChainToEightBitsMatchesTheFloatRenderWithinOneCode() throws {
    // A linear-light blur of a partly transparent picture: the 8-bit render takes the direct
    // linear → code path; the float render encodes, and rounding it here must agree within 1.
    let picture = Image(buffer: PixelBuffer.random(width: 97, height: 61, format: .rgba8, seed: 7)).blurred(sigma: 1.5)
    XCTAssertEqual(Renderer.outputSpace(of: picture.node), .linear)
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 32, height: 16)))
    let bytes = try renderer.render(picture, format: .rgba8)
    let floats = try renderer.render(picture, format: .rgbaFloatPremultiplied)
    var worst = 0
    bytes.withUnsafePixels(as: UInt8.self) { b in
      floats.withUnsafePixels(as: Float.self) { f in
        for y in 0..<bytes.height {
          for x in 0..<bytes.width {
            let a = f[row: y][4 * x + 3]
            for c in 0..<3 {
              let straight = a > 0 ? f[row: y][4 * x + c] / a : 0
              let expected = Int((min(max(straight, 0), 1) * 255).rounded())
              worst = max(worst, abs(Int(b[row: y][4 * x + c]) - expected))
            }
            worst = max(worst, abs(Int(b[row: y][4 * x + 3]) - Int((a * 255).rounded())))
          }
        }
      }
    }
    XCTAssertLessThanOrEqual(worst, 1)
  }

  func testStrongDownscaleNarrowsTilesAndKeepsEveryPixel() throws {
    // 2400 × 400 to a fifth: a 512 × 64 tile would read ~2.6k × 340 input pixels (14 MB).
    let small = Image(buffer: PixelBuffer.random(width: 2400, height: 400, format: .rgb8, seed: 3)).scaled(by: 0.2)
    let renderer = Renderer(options: RendererOptions(threads: 2))
    let tiles = renderer.tileSize(for: small.node)
    XCTAssertLessThan(tiles.width, 512)
    XCTAssertGreaterThanOrEqual(tiles.width, 64)
    XCTAssertEqual(tiles.height, 64)
    XCTAssertLessThan(
      Renderer.largestInputBytes(small.node, Rect(x: 0, y: 0, width: tiles.width, height: tiles.height)),
      Renderer.largestInputBytes(small.node, Rect(x: 0, y: 0, width: 480, height: 64)) / 3)
    let reference = try Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 37, height: 5))).render(small)
    XCTAssertTrue(try renderer.render(small).hasSamePixels(as: reference))
    // A light filter keeps the configured tiles.
    let photo = Image(buffer: PixelBuffer.random(width: 2400, height: 400, format: .rgb8, seed: 3))
    XCTAssertEqual(renderer.tileSize(for: photo.blurred(sigma: 1).node), Size(width: 512, height: 64))
  }
}
