// GraphLimitsTests.swift — outputs and intermediate images over the renderer's pixel limit are
// refused before anything is decoded.
import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class GraphLimitsTests: XCTestCase {
  func testAnOutputOverTheLimitIsRefusedBeforeAnyDecode() throws {
    let renderer = Renderer(options: RendererOptions(threads: 1))
    let photo = try Image(contentsOf: Fixtures.url("pngsuite/basn2c08.png"))
    // 32×32 to 32000×32000: 1.02 Gpx.
    let huge = photo.scaled(toWidth: 32000)
    XCTAssertThrowsError(try renderer.render(huge)) { error in
      guard let error = error as? CodecError else { return XCTFail("\(error)") }
      XCTAssertEqual(error.kind, .tooLarge)
      XCTAssertTrue(error.message.contains("output would be 32000×32000 pixels"), error.message)
    }
    XCTAssertEqual(renderer.statistics.decodes, 0, "nothing may be decoded for a refused graph")
  }

  func testAnIntermediateImageOverTheLimitIsNamed() throws {
    let renderer = Renderer(options: RendererOptions(threads: 1))
    let giant = Image(color: Color(red: 1, green: 0, blue: 0), size: Size(width: 65535, height: 65535))
    XCTAssertThrowsError(try renderer.render(giant.scaled(by: 0.001))) { error in
      let message = (error as? CodecError)?.message ?? "\(error)"
      XCTAssertTrue(message.contains("image made by 'solid"), message)
      XCTAssertTrue(message.contains("65535×65535"), message)
    }
  }

  func testTheLimitIsTheRenderersOption() throws {
    var options = RendererOptions(threads: 1)
    options.maxPixels = 64 * 64
    let renderer = Renderer(options: options)
    let photo = try Image(contentsOf: Fixtures.url("pngsuite/basn2c08.png"))
    XCTAssertEqual(try renderer.render(photo.scaled(by: 2)).size, Size(width: 64, height: 64))
    XCTAssertThrowsError(try renderer.render(photo.scaled(toWidth: 65)))
  }
}
