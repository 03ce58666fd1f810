// TileEvaluatorTests.swift — regions are delivered exactly, edges extended outside the extent;
// point operations run in their working space, fused or not.

import Foundation
import PixelBufferModule
import XCTest

@testable import FilterGraph

/// Test operation: output (x, y) = input (x + dx, y + dy), coordinates clamped into the input
/// (so it reads the evaluator's edge extension directly).
private struct ShiftOperation: ImageOperation {
  let dx: Int, dy: Int
  static let table = OperationDescriptor(name: "testshift", category: .geometry, summary: "", parameters: [], example: "")
  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { Arguments([("dx", .number(Double(dx))), ("dy", .number(Double(dy)))]) }
  var workingSpace: WorkingSpace? { nil }
  func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect { output.offsetBy(dx: dx, dy: dy) }
  func render(into output: inout Tile, inputs: [Tile]) throws {
    precondition(inputs[0].rect == output.rect.offsetBy(dx: dx, dy: dy), "the evaluator must deliver exactly the region asked for")
    output.buffer = inputs[0].buffer
  }
}

/// Test point operation: 1 − value on colour lanes (premultiplied: α − c), in `space`.
private struct InvertOperation: PointOperation {
  let space: WorkingSpace
  static let table = OperationDescriptor(name: "testinvert", category: .color, summary: "", parameters: [], example: "")
  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { Arguments([("space", .choice(space.rawValue))]) }
  var workingSpace: WorkingSpace? { space }
  func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
      let p = pixels[i]
      pixels[i] = SIMD4(p.w - p.x, p.w - p.y, p.w - p.z, p.w)
    }
  }
}

/// Test operation reaching `reach` pixels beyond its output on every side: its input tile is that
/// large, mostly the evaluator's edge extension.
private struct ReachOperation: ImageOperation {
  let reach: Int
  static let table = OperationDescriptor(name: "testreach", category: .geometry, summary: "", parameters: [], example: "")
  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { Arguments([("reach", .number(Double(reach)))]) }
  var workingSpace: WorkingSpace? { nil }
  func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    Rect(x: output.x - reach, y: output.y - reach, width: output.width + 2 * reach, height: output.height + 2 * reach)
  }
  func render(into output: inout Tile, inputs: [Tile]) throws {}
}

final class TileEvaluatorTests: XCTestCase {
  private func gradient(_ w: Int, _ h: Int) -> PixelBuffer {
    var b = PixelBuffer(width: w, height: h, format: .gray8)
    b.withUnsafeMutablePixels(as: UInt8.self) { px in
      for y in 0..<h { for x in 0..<w { px[row: y][x] = UInt8(x * 10 + y) } }
    }
    return b
  }

  func testRegionsOutsideTheExtentRepeatEdges() throws {
    let b = gradient(7, 5)
    let img = Image(buffer: b)
    for (dx, dy) in [(2, 1), (-3, -2), (40, 0), (0, -30), (-50, 60), (6, 4)] {
      for tile in [Size(width: 8, height: 1), Size(width: 8, height: 3), Size(width: 64, height: 64)] {
        let r = Renderer(options: RendererOptions(threads: 2, tileSize: tile))
        let out = try r.render(img.applying(ShiftOperation(dx: dx, dy: dy)))
        out.withUnsafePixels(as: UInt8.self) { px in
          for y in 0..<5 {
            for x in 0..<7 {
              let sx = min(max(x + dx, 0), 6), sy = min(max(y + dy, 0), 4)
              XCTAssertEqual(px[row: y][x], UInt8(sx * 10 + sy), "shift (\(dx), \(dy)) tile \(tile) at (\(x), \(y))")
            }
          }
        }
      }
    }
  }

  func testPointOperationsFusedAndUnfusedAgreeWithTheirDefinition() throws {
    var b = PixelBuffer(width: 11, height: 3, format: .rgba8)
    b.withUnsafeMutablePixels(as: UInt8.self) { px in
      for y in 0..<3 { for i in 0..<44 { px[row: y][i] = UInt8((i * 23 + y * 5) % 256 | (i % 4 == 3 ? 255 : 0)) } }
    }
    // invert(linear) → invert(encoded): out = 1 − encode(1 − decode(v)) per colour channel.
    let img = Image(buffer: b).applying(InvertOperation(space: .linear)).applying(InvertOperation(space: .encoded))
    let fused = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 8, height: 2)))
    let plain = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 8, height: 2), optimizer: OptimizerOptions(fusePointOperations: false)))
    XCTAssertTrue(GraphPrinter.describe(fused.optimized(img)).contains("fused pass"))
    let a = try fused.render(img, format: .rgbaFloatPremultiplied), c = try plain.render(img, format: .rgbaFloatPremultiplied)
    func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    func encode(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
    b.withUnsafePixels(as: UInt8.self) { src in
      a.withUnsafePixels(as: SIMD4<Float>.self) { fa in
        c.withUnsafePixels(as: SIMD4<Float>.self) { fc in
          for y in 0..<3 {
            for x in 0..<11 {
              for ch in 0..<3 {
                let v = Double(src[row: y][4 * x + ch]) / 255
                let e = 1 - encode(1 - decode(v))
                XCTAssertEqual(Double(fa[row: y][x][ch]), e, accuracy: 1e-4, "fused (\(x), \(y))")
                XCTAssertEqual(Double(fc[row: y][x][ch]), e, accuracy: 1e-4, "unfused (\(x), \(y))")
              }
            }
          }
        }
      }
    }
  }

  /// A tile the system cannot give (here 4.2 million pixels on a side, 280 TB) fails the render
  /// with `PixelAllocationError`, which fgrun reports (exit 65), instead of stopping the process.
  func testATileTheSystemRefusesFailsTheRender() throws {
    // A sanitizer's allocator stops the process on a request this size by design.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    let image = Image(size: Size(width: 16, height: 16)).applying(ReachOperation(reach: 1 << 21))
    let renderer = Renderer(options: RendererOptions(threads: 2))
    XCTAssertThrowsError(try renderer.render(image)) { error in
      XCTAssertNotNil(error as? PixelAllocationError, "\(error)")
    }
  }

  /// A filter's scratch rows the system cannot give (here 256 TB) throw `PixelAllocationError`,
  /// which fails the render as a refused tile does, and leave the pool's count as it was.
  func testScratchRowsTheSystemRefusesThrow() throws {
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    let inUse = TileMemoryPool.bytesInUse
    XCTAssertThrowsError(try TileMemoryPool.scratch(SIMD4<Float>.self, count: 1 << 44)) { error in
      XCTAssertNotNil(error as? PixelAllocationError, "\(error)")
    }
    XCTAssertThrowsError(try TileMemoryPool.scratch(SIMD4<Float>.self, count: Int.max / 8))
    XCTAssertEqual(TileMemoryPool.bytesInUse, inUse)
  }
}
