// ColorFiltersTests.swift — the colour recipe verbs reuse the operations' tables and Swift API.
import Foundation
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class ColorFiltersTests: XCTestCase {
  let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/"))
  let base = floatImage(samplePixels(24), width: 6)

  func testVerbNamesAreUniqueAndComplete() {
    let names = ColorFilters.all.map(\.descriptor.name)
    XCTAssertEqual(Set(names).count, names.count)
    // Every verb of the family is listed (a new filter adds itself to `all` without editing this).
    XCTAssertTrue(Set(names).isSuperset(of: [
      "tint", "convert", "matrix", "sepia", "saturate", "brightness", "contrast", "exposure", "gamma", "invert", "modulate", "levels",
      "normalize",
    ]))
    XCTAssertTrue(ColorFilters.all.allSatisfy { $0.descriptor.category == .color })
  }

  func testVerbsBuildTheSameNodesAsTheSwiftAPI() throws {
    func verb(_ d: FilterDefinition, _ overrides: [String: ParameterValue] = [:]) throws -> String {
      try d.apply([base], arguments(d.descriptor, overrides), context).node.structuralKey
    }
    XCTAssertEqual(try verb(ColorFilters.saturate), base.adjustingSaturation(1.2).node.structuralKey)
    XCTAssertEqual(try verb(ColorFilters.contrast, ["amount": .number(1.5)]), base.adjustingContrast(1.5).node.structuralKey)
    XCTAssertEqual(try verb(ColorFilters.brightness), base.adjustingBrightness(0.1).node.structuralKey)
    XCTAssertEqual(try verb(ColorFilters.exposure), base.adjustingExposure(ev: 0.5).node.structuralKey)
    XCTAssertEqual(try verb(ColorFilters.sepia), base.sepiaToned().node.structuralKey)
    XCTAssertEqual(try verb(ColorFilters.invert), base.inverted().node.structuralKey)
    XCTAssertEqual(try verb(ColorFilters.gamma), base.adjustingGamma(2.2).node.structuralKey)
    XCTAssertEqual(try verb(ColorFilters.convert, ["to": .choice("p3")]), base.converted(to: .displayP3).node.structuralKey)
    XCTAssertEqual(try verb(ColorFilters.convert, ["to": .choice("linear")]), base.converted(to: .linearSRGB).node.structuralKey)
    let m = ColorMatrix.sepia(intensity: 0.5)
    XCTAssertEqual(try verb(ColorFilters.matrix, ["values": .numbers(m.values)]), base.applyingColorMatrix(m).node.structuralKey)
  }

  func testNumbersParameterSpelling() {
    XCTAssertEqual(ParameterValue.numbers([1, 0.5, -2]).description, "1,0.5,-2")
    XCTAssertEqual(ParameterKind.numbers(count: 20).typeName, "20 numbers N,N,…")
    XCTAssertEqual(Arguments([("values", .numbers([1, 2]))])["values"], .numbers([1, 2]))
  }
}
