// OrientRenderTests.swift — orient, rotate and flip move pixels exactly; the optimizer folds them.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class OrientRenderTests: XCTestCase {
  private let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 8, height: 3)))

  /// A `w`×`h` 8-bit RGBA image whose pixel (x, y) has red = y·w + x + 1 (a label) and other
  /// channels derived from it, so every pixel is distinct.
  private func labelled(_ w: Int, _ h: Int) -> PixelBuffer {
    var b = PixelBuffer(width: w, height: h, format: .rgba8)
    b.withUnsafeMutablePixels(as: UInt8.self) { px in
      for y in 0..<h {
        for x in 0..<w {
          let label = y * w + x + 1
          px[row: y][4 * x] = UInt8(label & 255)
          px[row: y][4 * x + 1] = UInt8((label * 7) & 255)
          px[row: y][4 * x + 2] = UInt8((255 - label) & 255)
          px[row: y][4 * x + 3] = 255
        }
      }
    }
    return b
  }

  /// The labels (red channel) of a rendered RGBA image, row by row.
  private func labels(_ b: PixelBuffer) -> [[Int]] {
    b.withUnsafePixels(as: UInt8.self) { px in
      (0..<b.height).map { y in (0..<b.width).map { Int(px[row: y][4 * $0]) } }
    }
  }

  private func rendered(_ img: Image) throws -> PixelBuffer { try renderer.render(img, format: .rgba8) }

  func testAllEightExifOrientationsOnThreeByTwo() throws {
    // Stored:  1 2 3      (a b c)
    //          4 5 6      (d e f)
    // Each orientation's upright picture, worked out by hand from the EXIF definitions
    // ("the 0th row is the visual …, the 0th column is the visual …").
    let expected: [Orientation: [[Int]]] = [
      .up: [[1, 2, 3], [4, 5, 6]],
      .upMirrored: [[3, 2, 1], [6, 5, 4]],
      .down: [[6, 5, 4], [3, 2, 1]],
      .downMirrored: [[4, 5, 6], [1, 2, 3]],
      .leftMirrored: [[1, 4], [2, 5], [3, 6]],  // 5: transpose
      .right: [[4, 1], [5, 2], [6, 3]],  // 6: rotate 90° clockwise
      .rightMirrored: [[6, 3], [5, 2], [4, 1]],  // 7: transverse
      .left: [[3, 6], [2, 5], [1, 4]],  // 8: rotate 90° counter-clockwise
    ]
    let img = Image(buffer: labelled(3, 2))
    for o in Orientation.allCases {
      let out = try rendered(img.oriented(o))
      XCTAssertEqual(labels(out), expected[o], "orientation \(o.rawValue)")
      XCTAssertEqual(img.oriented(o).info.metadata.orientation, .up)
    }
  }

  func testRotationsAndFlipsMatchTheirOrientations() throws {
    let img = Image(buffer: labelled(3, 2))
    XCTAssertEqual(labels(try rendered(img.rotated(byDegrees: 90))), [[4, 1], [5, 2], [6, 3]])
    XCTAssertEqual(labels(try rendered(img.rotated(byDegrees: 180))), [[6, 5, 4], [3, 2, 1]])
    XCTAssertEqual(labels(try rendered(img.rotated(byDegrees: 270))), [[3, 6], [2, 5], [1, 4]])
    XCTAssertEqual(labels(try rendered(img.rotated(byDegrees: -90))), [[3, 6], [2, 5], [1, 4]])
    XCTAssertEqual(labels(try rendered(img.flippedHorizontally())), [[3, 2, 1], [6, 5, 4]])
    XCTAssertEqual(labels(try rendered(img.flippedVertically())), [[4, 5, 6], [1, 2, 3]])
  }

  func testRoundTripsAreTheIdentityBitForBit() throws {
    // An odd-sized image over several tiles, with the optimizer off so the orient ops really run.
    let raw = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 8, height: 3), optimizer: .none))
    let buffer = labelled(13, 7)
    let img = Image(buffer: buffer)
    let original = try raw.render(img, format: .rgba8)
    XCTAssertTrue(original.hasSamePixels(as: buffer))
    let trips: [(String, Image)] = [
      ("rotate 90 ×4", img.rotated(byDegrees: 90).rotated(byDegrees: 90).rotated(byDegrees: 90).rotated(byDegrees: 90)),
      ("rotate 90, 270", img.rotated(byDegrees: 90).rotated(byDegrees: 270)),
      ("flip h ×2", img.flippedHorizontally().flippedHorizontally()),
      ("flip v ×2", img.flippedVertically().flippedVertically()),
      ("orient 6, 8", img.oriented(.right).oriented(.left)),
    ]
    for (name, trip) in trips {
      XCTAssertEqual(nodes(raw.optimized(trip)).count, nodes(trip.node).count, "\(name): every orient runs unoptimized")
      XCTAssertTrue(try raw.render(trip, format: .rgba8).hasSamePixels(as: buffer), "\(name) (unoptimized)")
      XCTAssertTrue(try renderer.render(trip, format: .rgba8).hasSamePixels(as: buffer), "\(name) (optimized)")
    }
    // Rendered step by step too: rotate, render, rotate the rendered buffer, … four times.
    var step = buffer
    for _ in 0..<4 { step = try raw.render(Image(buffer: step).rotated(byDegrees: 90), format: .rgba8) }
    XCTAssertTrue(step.hasSamePixels(as: buffer))
  }

  /// All nodes of a graph, each once.
  private func nodes(_ root: ImageNode) -> [ImageNode] {
    var seen: Set<ObjectIdentifier> = [], out: [ImageNode] = []
    func visit(_ n: ImageNode) {
      guard seen.insert(ObjectIdentifier(n)).inserted else { return }
      out.append(n)
      n.inputs.forEach(visit)
    }
    visit(root)
    return out
  }

  func testOptimizerCombinesOrientations() throws {
    let img = Image(buffer: labelled(3, 2))
    let identity = renderer.optimized(img.rotated(byDegrees: 90).rotated(byDegrees: 270))
    XCTAssertFalse(nodes(identity).contains { $0.operation is OrientOperation })
    XCTAssertTrue(identity.operation is BufferSourceOperation)
    XCTAssertFalse(GraphPrinter.describe(identity).contains("orient"))
    // rotate 90 then flip horizontally is one transpose (orientation 5).
    let one = renderer.optimized(img.rotated(byDegrees: 90).flippedHorizontally())
    let orients = nodes(one).compactMap { $0.operation as? OrientOperation }
    XCTAssertEqual(orients.map(\.transform.orientation), [.leftMirrored])
    XCTAssertEqual(labels(try rendered(img.rotated(byDegrees: 90).flippedHorizontally())), [[1, 4], [2, 5], [3, 6]])
  }

  func testOrientedPngFromFileEqualsRotatedBuffer() throws {
    // A real decoded photo: rotate 90 from the file equals the pixels rotated by hand.
    let img = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    let upright = try renderer.render(img, format: .rgba8)
    let turned = try renderer.render(img.rotated(byDegrees: 90), format: .rgba8)
    XCTAssertEqual(turned.size, Size(width: 32, height: 32))
    upright.withUnsafePixels(as: UInt32.self) { u in
      turned.withUnsafePixels(as: UInt32.self) { t in
        for y in 0..<32 {
          for x in 0..<32 {
            // Clockwise: output (x, y) shows input (y, H − 1 − x).
            XCTAssertEqual(t[row: y][x], u[row: 31 - x][y], "(\(x), \(y))")
          }
        }
      }
    }
  }
}
