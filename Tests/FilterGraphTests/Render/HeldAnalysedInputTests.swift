// HeldAnalysedInputTests.swift — an analysed operation's small computed input is computed once,
// held, and read by both the analysis and the tiles, with the pixels the tiles would have
// computed (Renderer.heldInputSpace); and the tiles of a composite on a stored source outside
// the overlay are the source's rows, the bytes the float path gives (RegionalOperation).

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class HeldAnalysedInputTests: XCTestCase {
  let heldLabel = "the whole input held in memory (linear)"

  func testASmallComputedInputIsHeldAndGivesTheTilesPixels() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    // A computed input (a scale, in linear light) read by smartcrop's analysis and by its crop;
    // a blur above reads the crop's halo.
    let scaled = photo.scaled(toWidth: 200)
    let image = scaled.smartCropped(to: Size(width: 120, height: 80)).blurred(sigma: 2)
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 40, height: 24)))
    let held = try renderer.render(image, format: .rgbaFloatPremultiplied)
    XCTAssertTrue(renderer.analysisStatistics.timings.contains { $0.hasPrefix(heldLabel) }, "\(renderer.analysisStatistics.timings)")
    // The same crop written out, with no analysis and so nothing held: the same floats.
    let window = try XCTUnwrap(try renderer.resolved(image).node.inputs.first?.operation as? CropOperation).region
    let direct = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 40, height: 24)))
    let tiled = try direct.render(scaled.cropped(to: window).blurred(sigma: 2), format: .rgbaFloatPremultiplied)
    XCTAssertFalse(direct.analysisStatistics.timings.contains { $0.hasPrefix(heldLabel) })
    XCTAssertEqual(RecipeExamplesTests.packed(held), RecipeExamplesTests.packed(tiled))
  }

  func testASourceOrALargeInputIsNotHeld() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let renderer = Renderer(options: RendererOptions(threads: 2))
    _ = try renderer.render(photo.smartCropped(to: Size(width: 100, height: 100)), format: .rgba8)
    let large = Image(color: .white, size: Size(width: 2100, height: 2000)).tinted(.black, amount: 0.5)
    _ = try renderer.render(large.smartCropped(to: Size(width: 100, height: 100)), format: .rgba8)
    XCTAssertFalse(renderer.analysisStatistics.timings.contains { $0.hasPrefix(heldLabel) }, "\(renderer.analysisStatistics.timings)")
  }

  func testCompositeTilesOutsideTheOverlayAreTheSourcesRows() throws {
    // An 8-bit RGB JPEG written as RGB: tiles outside the overlay copy the decoded rows. One
    // tile covering everything takes the float path for every pixel; the two must agree.
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let badge = Image(color: Color(red: 1, green: 0.5, blue: 0, alpha: 0.6), size: Size(width: 30, height: 20))
    let image = badge.composited(over: photo, gravity: .southEast, margin: 7)
    func render(_ tile: Size) throws -> [UInt8] {
      RecipeExamplesTests.packed(try Renderer(options: RendererOptions(threads: 2, tileSize: tile)).render(image, format: .rgb8))
    }
    let whole = try render(Size(width: 4096, height: 4096))
    XCTAssertEqual(try render(Size(width: 16, height: 8)), whole)
    XCTAssertEqual(try render(Size(width: 64, height: 16)), whole)
    // The badge is there, and the rest is the photo's bytes.
    let plain = RecipeExamplesTests.packed(try Renderer().render(photo, format: .rgb8))
    let w = photo.size.width, h = photo.size.height
    var changed = 0
    for i in 0..<(w * h) where whole[i * 3..<i * 3 + 3] != plain[i * 3..<i * 3 + 3] {
      let x = i % w, y = i / w
      XCTAssertTrue(x >= w - 37 && x < w - 7 && y >= h - 27 && y < h - 7, "(\(x), \(y)) changed outside the badge")
      changed += 1
    }
    XCTAssertEqual(changed, 30 * 20)
  }
}
