// SmartCropTests.swift — `smartcrop` against its definition (SmartCrop.swift): a photo pasted on a
// flat canvas is found by attention and entropy, centre is a centred crop, the window scores equal
// direct sums and entropies, results do not depend on tiling, and the recipe verb builds the
// Swift method's graph.

import Foundation
import Locking
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class SmartCropTests: XCTestCase {
  let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 40, height: 24)))

  /// The photo (IJG test image, 227×149) at `origin` on a flat 600 × 400 canvas of `canvas`.
  func pasted(at origin: Point, on canvas: Color) throws -> (image: Image, photo: Rect) {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let insets = EdgeInsets(
      top: origin.y, right: 600 - origin.x - photo.size.width, bottom: 400 - origin.y - photo.size.height, left: origin.x)
    let image = Image(buffer: try renderer.render(photo.extended(by: insets, mode: .color(canvas)), format: .rgba8))
    return (image, Rect(origin: origin, size: photo.size))
  }

  /// The window `smartcrop` resolves to.
  func window(_ image: Image, renderer: Renderer? = nil) throws -> Rect {
    let resolved = try (renderer ?? self.renderer).resolved(image)
    return try XCTUnwrap(resolved.node.operation as? CropOperation, "smartcrop resolves to a crop").region
  }

  func testPhotoOnAFlatCanvasIsChosen() throws {
    // The 600 × 400 canvas is viewed at 313 × 209: a view pixel is under 2 image pixels.
    let slack = 2
    for (origin, canvas) in [(Point(x: 330, y: 210), Color.white), (Point(x: 20, y: 15), Color(white: 0.45)), (Point(x: 190, y: 240), .black)] {
      let (image, photo) = try pasted(at: origin, on: canvas)
      for strategy in [SmartCropStrategy.attention, .entropy] {
        // A window larger than the photo holds all of it …
        let large = try window(image.smartCropped(to: Size(width: 300, height: 200), strategy: strategy))
        XCTAssertEqual(large.size, Size(width: 300, height: 200))
        XCTAssertTrue(large.insetBy(dx: -slack, dy: -slack).contains(photo), "\(strategy) \(canvas): \(large) misses \(photo)")
        // … and a smaller one lies within it.
        let small = try window(image.smartCropped(to: Size(width: 120, height: 90), strategy: strategy))
        XCTAssertTrue(photo.insetBy(dx: -slack, dy: -slack).contains(small), "\(strategy) \(canvas): \(small) leaves \(photo)")
      }
    }
  }

  func testCentreIsACentredCrop() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let size = Size(width: 100, height: 60)
    let centre = photo.smartCropped(to: size, strategy: .centre)
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 40, height: 24)))
    XCTAssertEqual(centre.size, size)
    XCTAssertTrue(
      try renderer.render(centre, format: .rgba8).hasSamePixels(
        as: renderer.render(photo.cropped(to: Rect(x: 63, y: 44, width: 100, height: 60)), format: .rgba8)))
    XCTAssertEqual(
      centre.node.structuralKey, try GeometryTestSupport.compile("crop size=100x60 gravity=center", input: photo).node.structuralKey)
    // A window as large as the image (or larger: clamped) keeps it whole, for every strategy: the
    // step stays in the graph as written and the optimizer drops it.
    for strategy in SmartCropStrategy.allCases {
      let whole = photo.smartCropped(to: Size(width: 500, height: 149), strategy: strategy)
      XCTAssertTrue(whole.node.operation is UnchangedStepOperation)
      XCTAssertTrue(whole.node.inputs[0] === photo.node)
      XCTAssertTrue(renderer.optimized(whole) === photo.node)
    }
    XCTAssertEqual(photo.smartCropped(to: Size(width: 500, height: 100)).size, Size(width: 227, height: 100))
  }

  /// `scale width=1080; smartcrop size=1080x1080` on a landscape gives 1080×720: every render
  /// warns through the renderer's handler, `explain` shows the step as written with its warning,
  /// and the pixels are those of the scale alone. A window that fits warns nothing.
  func testClampedWindowWarnsAndExplainShowsTheStep() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))  // 227×149
    let warnings = Locked<[String]>([])
    let warned = Renderer(options: RendererOptions(threads: 2)) { message in warnings.withLock { $0.append(message) } }
    let scaled = photo.scaled(toWidth: 108)  // 108×71
    for (strategy, size) in [(SmartCropStrategy.attention, Size(width: 108, height: 108)), (.entropy, Size(width: 200, height: 50)), (.centre, Size(width: 60, height: 90))] {
      warnings.withLock { $0 = [] }
      let image = scaled.smartCropped(to: size, strategy: strategy)
      let expected = Size(width: min(size.width, 108), height: min(size.height, 71))
      XCTAssertEqual(image.size, expected)
      let pixels = try warned.render(image, format: .rgba8)
      XCTAssertEqual(pixels.width, expected.width)
      let message = "smartcrop size=\(size) gives \(expected): the image is smaller than the window asked for, which is clamped to it"
      XCTAssertEqual(warnings.withLock { $0 }, [message], "\(strategy)")
      let text = try warned.explain(image)
      let asWritten = text.components(separatedBy: "as optimized:")[0]
      XCTAssertTrue(asWritten.contains("smartcrop size=\(size) strategy=\(strategy.rawValue)"), text)
      XCTAssertTrue(asWritten.contains("[warning: \(message)]"), text)
    }
    // The whole-image case renders the scale's pixels exactly.
    warnings.withLock { $0 = [] }
    let whole = scaled.smartCropped(to: Size(width: 108, height: 108))
    XCTAssertTrue(try warned.render(whole, format: .rgba8).hasSamePixels(as: warned.render(scaled, format: .rgba8)))
    XCTAssertEqual(warnings.withLock { $0 }.count, 1)
    // A window that fits: no warning.
    warnings.withLock { $0 = [] }
    _ = try warned.render(scaled.smartCropped(to: Size(width: 60, height: 60)), format: .rgba8)
    XCTAssertEqual(warnings.withLock { $0 }, [])
  }

  /// Window scores equal their definitions computed directly: the interest summed over the window,
  /// and −Σ p log₂ p of the window's histogram.
  func testScoresMatchTheirDefinitions() {
    let (vw, vh, ww, wh) = (13, 9, 5, 4)
    var state: UInt64 = 3
    func next() -> Float {
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return Float(state >> 40) / Float(1 << 24)
    }
    let map = (0..<(vw * vh)).map { _ in SIMD2(Float(Int(next() * 6) * 40), next() * 50) }
    let attention = SmartCropAnalysis.attentionScores(map, vw, vh, ww, wh)
    let entropy = SmartCropAnalysis.entropyScores(map, vw, vh, ww, wh)
    func l(_ x: Int, _ y: Int) -> Float { map[min(max(y, 0), vh - 1) * vw + min(max(x, 0), vw - 1)].x }
    for y0 in 0...(vh - wh) {
      for x0 in 0...(vw - ww) {
        var interest = 0.0
        var counts: [Int: Int] = [:]
        for y in y0..<(y0 + wh) {
          for x in x0..<(x0 + ww) {
            interest += Double(abs(4 * l(x, y) - l(x - 1, y) - l(x + 1, y) - l(x, y - 1) - l(x, y + 1)) + map[y * vw + x].y)
            counts[Int(map[y * vw + x].x), default: 0] += 1
          }
        }
        let h = -counts.values.reduce(0.0) { let p = Double($1) / Double(ww * wh); return $0 + p * log2(p) }
        let i = y0 * (vw - ww + 1) + x0
        XCTAssertEqual(attention[i], interest, accuracy: 1e-6 * interest)
        XCTAssertEqual(entropy[i], h, accuracy: 1e-9)
      }
    }
  }

  func testTieGoesToTheWindowNearestTheCentre() {
    // Equal scores everywhere: the centred position (rounded to the top-left) wins.
    XCTAssertTrue(SmartCropAnalysis.best([Double](repeating: 1, count: 5 * 3), across: 5, down: 3, window: (4, 2), view: (8, 4)) == (2, 1))
    // Of the two best, (1, 1)'s centre (1.5, 1.5) is nearer the view's (1.5, 1) than (2, 0)'s.
    XCTAssertTrue(SmartCropAnalysis.best([0, 0, 3, 0, 3, 0], across: 3, down: 2, window: (1, 1), view: (3, 2)) == (1, 1))
    XCTAssertTrue(SmartCropAnalysis.best([0, 0, 3, 0, 2.9, 0], across: 3, down: 2, window: (1, 1), view: (3, 2)) == (2, 0))
  }

  func testDeterministicWhateverTheTiling() throws {
    let (image, _) = try pasted(at: Point(x: 100, y: 120), on: Color(white: 0.8))
    let one = Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096)))
    let many = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 16, height: 8)))
    for strategy in [SmartCropStrategy.attention, .entropy] {
      let crop = image.smartCropped(to: Size(width: 160, height: 160), strategy: strategy)
      let a = try window(crop, renderer: one), b = try window(crop, renderer: many)
      XCTAssertEqual(a, b, "\(strategy)")
      XCTAssertEqual(try window(crop, renderer: Renderer()), a, "\(strategy)")
      XCTAssertTrue(try one.render(crop, format: .rgba8).hasSamePixels(as: many.render(crop, format: .rgba8)))
    }
  }

  func testRecipeVerbBuildsTheSwiftGraph() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    for (line, image) in [
      ("smartcrop size=100x100", photo.smartCropped(to: Size(width: 100, height: 100))),
      ("smartcrop size=120x80 strategy=entropy", photo.smartCropped(to: Size(width: 120, height: 80), strategy: .entropy)),
      ("smartcrop size=120x80 strategy=centre", photo.smartCropped(to: Size(width: 120, height: 80), strategy: .centre)),
    ] {
      XCTAssertEqual(try GeometryTestSupport.compile(line, input: photo).node.structuralKey, image.node.structuralKey, line)
    }
    XCTAssertThrowsError(try GeometryTestSupport.compile("smartcrop size=100x100 strategy=faces", input: photo))
    XCTAssertThrowsError(try GeometryTestSupport.compile("smartcrop", input: photo))
  }

  func testExplainShowsTheAnalysis() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let text = try renderer.explain(photo.smartCropped(to: Size(width: 100, height: 100)))
    XCTAssertTrue(text.contains("analysis before the tiles: attention of 100x100 windows (≤ 0.065536 MP view)"), text)
  }
}
