// CompositeMarginTests.swift — `composite margin=N%`: a margin relative to the base (N % of its
// shorter side), so one recipe places a watermark alike on photos of any size.

import Foundation
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class CompositeMarginTests: XCTestCase {
  func testPercentMarginIsOfTheBaseShorterSide() throws {
    let logo = Image(color: .white, size: Size(width: 40, height: 20))
    for base in [Size(width: 600, height: 400), Size(width: 300, height: 1000)] {
      let photo = Image(color: .black, size: base)
      let recipe = try Recipe.parse(
        "base = solid color=black size=\(base)\noutput = composite input over=base gravity=southeast margin=5%", file: nil)
      let compiled = try recipe.compile(input: logo, context: FilterContext(baseDirectory: URL(fileURLWithPath: "/")))
      let shorter = min(base.width, base.height), margin = shorter * 5 / 100
      let swift = logo.composited(over: photo, gravity: .southEast, margin: margin)
      XCTAssertEqual(compiled.node.structuralKey, swift.node.structuralKey, "\(base)")
      let op = try XCTUnwrap(compiled.node.operation as? CompositeOperation)
      XCTAssertEqual(op.origin, Point(x: base.width - 40 - margin, y: base.height - 20 - margin))
    }
    // Pixels still work, and a percentage out of range is refused.
    XCTAssertThrowsError(try Recipe.parse("composite input over=input margin=150%", file: nil).check())
    XCTAssertNoThrow(try Recipe.parse("composite input over=input margin=24", file: nil).check())
    XCTAssertEqual(Length.percent(2).pixels(of: 1512), 30)
    XCTAssertEqual(Length.pixels(7).pixels(of: 1512), 7)
  }
}
