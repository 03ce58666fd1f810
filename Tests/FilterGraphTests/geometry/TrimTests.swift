// TrimTests.swift — `trim` against its definition (Trim.swift): a padded photo gives back the
// photo, a flat image is kept whole, the threshold and transparent borders behave as defined,
// any tiling finds the same box, and the recipe verb builds the Swift method's graph.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class TrimTests: XCTestCase {
  let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 40, height: 24)))

  /// The photo (IJG test image, 227×149) rendered to 8-bit RGBA.
  func photoBuffer() throws -> PixelBuffer {
    try renderer.render(try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg")), format: .rgba8)
  }

  /// `image` rendered into memory and used as a source, so trim sees exactly those pixels.
  func materialised(_ image: Image) throws -> Image { Image(buffer: try renderer.render(image, format: .rgba8)) }

  /// The crop `trim` resolves to.
  func box(_ image: Image, renderer: Renderer? = nil) throws -> Rect {
    let resolved = try (renderer ?? self.renderer).resolved(image)
    let crop = try XCTUnwrap(resolved.node.operation as? CropOperation, "trim resolves to a crop")
    return crop.region
  }

  func testPaddedPhotoGivesBackThePhoto() throws {
    let photo = try photoBuffer()
    let insets = EdgeInsets(top: 13, right: 40, bottom: 27, left: 9)
    for (border, threshold, background) in [
      (Color(red: 1, green: 0, blue: 1), 0.04, nil),  // magenta, the top-left pixel as background
      (Color.white, 0, Color.white),  // white, exact
      (Color(white: 0.2), 0.1, Color(white: 0.2)),
    ] {
      let padded = try materialised(Image(buffer: photo).extended(by: insets, mode: .color(border)))
      let trimmed = padded.trimmed(threshold: threshold, background: background)
      XCTAssertEqual(try box(trimmed), Rect(x: 9, y: 13, width: photo.width, height: photo.height), "\(border)")
      let out = try renderer.render(trimmed, format: .rgba8)
      XCTAssertTrue(out.hasSamePixels(as: photo), "\(border): the photo's pixels")
    }
  }

  func testFlatImageIsNotTrimmedToNothing() throws {
    for image in [Image(color: Color(white: 0.4), size: Size(width: 31, height: 17)), Image(color: .clear, size: Size(width: 5, height: 3))] {
      let trimmed = image.trimmed()
      XCTAssertEqual(try box(trimmed), Rect(size: image.size))
      XCTAssertEqual(try renderer.render(trimmed, format: .rgba8).size, image.size)
    }
    // A 1 × 1 image is its own background.
    XCTAssertEqual(try box(Image(color: .black, size: Size(width: 1, height: 1)).trimmed()), Rect(x: 0, y: 0, width: 1, height: 1))
  }

  /// d(p) > t is content, d(p) ≤ t border: a border of 0.5 ± 0.03 trims at t = 0.04, not at 0.02.
  func testThresholdIsTheLargestChannelDifference() throws {
    let size = Size(width: 40, height: 30)
    let content = Rect(x: 11, y: 7, width: 9, height: 14)
    let image = ConvolutionTestHelpers.floatImage(width: size.width, height: size.height) { x, y in
      if content.contains(Rect(x: x, y: y, width: 1, height: 1)) { return SIMD4(0.9, 0.1, 0.5, 1) }
      // Only blue varies in the border, by up to 0.03.
      return SIMD4(0.5, 0.5, 0.5 + 0.03 * Float((x * 7 + y * 3) % 3 - 1), 1)
    }
    let gray = Color(white: 0.5)
    XCTAssertEqual(try box(image.trimmed(threshold: 0.04, background: gray)), content)
    XCTAssertEqual(try box(image.trimmed(threshold: 0.02, background: gray)), Rect(size: size))
  }

  /// Premultiplied comparison: transparent pixels of any stored colour are a transparent border.
  func testTransparentBorder() throws {
    var buffer = PixelBuffer(width: 20, height: 12, format: .rgba8)
    buffer.withUnsafeMutablePixels(as: UInt8.self) { px in
      for y in 0..<12 {
        for x in 0..<20 {
          let inside = (4..<9).contains(x) && (3..<10).contains(y)
          for c in 0..<3 { px[row: y][x * 4 + c] = UInt8((x * 37 + y * 11 + c * 50) % 256) }
          px[row: y][x * 4 + 3] = inside ? 255 : 0
        }
      }
    }
    XCTAssertEqual(try box(Image(buffer: buffer).trimmed()), Rect(x: 4, y: 3, width: 5, height: 7))
  }

  func testTileParallelEqualsOneTile() throws {
    let photo = try photoBuffer()
    let padded = try materialised(
      Image(buffer: photo).extended(by: EdgeInsets(top: 50, right: 3, bottom: 61, left: 77), mode: .color(.white))
        .blurred(sigma: 2))
    let image = padded.trimmed(threshold: 0.02).modulated(saturation: 1.3)
    let one = Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096)))
    let many = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 16, height: 8)))
    XCTAssertEqual(try box(padded.trimmed(threshold: 0.02), renderer: one), try box(padded.trimmed(threshold: 0.02), renderer: many))
    XCTAssertTrue(try one.render(image, format: .rgba16).hasSamePixels(as: many.render(image, format: .rgba16)))
  }

  func testRecipeVerbBuildsTheSwiftGraph() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    for (line, image) in [
      ("trim", photo.trimmed()),
      ("trim threshold=0.1 background=white", photo.trimmed(threshold: 0.1, background: .white)),
      ("trim threshold=5% background=#102030", photo.trimmed(threshold: 0.05, background: Color(hex: "#102030"))),
    ] {
      XCTAssertEqual(try GeometryTestSupport.compile(line, input: photo).node.structuralKey, image.node.structuralKey, line)
    }
    XCTAssertThrowsError(try GeometryTestSupport.compile("trim threshold=2", input: photo))
  }

  func testExplainShowsTheAnalysisAndStatisticsCountIt() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))
    XCTAssertTrue(
      try renderer.explain(photo.trimmed(background: .white)).contains(
        "analysis before the tiles: bounding box of pixels beyond 0.04 of #FFFFFF (full size)"), (try? renderer.explain(photo.trimmed())) ?? "")
    _ = try renderer.render(photo.trimmed())
    _ = try renderer.render(photo.trimmed().blurred(sigma: 1))
    XCTAssertEqual(renderer.analysisStatistics.computed, 1)
    XCTAssertEqual(renderer.analysisStatistics.reused, 1)
    XCTAssertEqual(renderer.analysisStatistics.timings.count, 1)
  }
}
