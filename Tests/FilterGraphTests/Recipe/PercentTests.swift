// PercentTests.swift — what `%` means, parameter by parameter: every number parameter of every
// filter is classified here (a new one fails the audit until it is), each reading is checked on
// the parameter's own table row, and normalize's percentiles are checked on a real photo.

import Foundation
import XCTest

@testable import FilterGraph

final class PercentTests: XCTestCase {
  /// Every number parameter that takes `%`, by `filter.parameter`: `.fraction` reads 30% as 0.3,
  /// `.percent` reads 99% as 99. Every other number parameter refuses `%`.
  private let reading: [String: PercentReading] = [
    "scale.factor": .fraction,
    "sharpen.amount": .fraction, "sharpen.threshold": .fraction,
    "convolve.offset": .fraction,
    "tint.amount": .fraction,
    "sepia.intensity": .fraction, "saturate.amount": .fraction, "brightness.amount": .fraction, "contrast.amount": .fraction,
    "modulate.brightness": .fraction, "modulate.saturation": .fraction, "modulate.lightness": .fraction,
    "levels.black": .fraction, "levels.white": .fraction, "levels.out-black": .fraction, "levels.out-white": .fraction,
    "normalize.low": .percent, "normalize.high": .percent,
    "vignette.amount": .fraction, "vignette.radius": .fraction, "vignette.softness": .fraction,
    "trim.threshold": .fraction, "grain.amount": .fraction,
    "composite.opacity": .fraction, "blend.opacity": .fraction,
  ]

  /// Every (filter, number parameter) pair of the registry.
  private var numberParameters: [(filter: String, spec: ParameterSpec)] {
    FilterRegistry.all.flatMap { definition in
      definition.descriptor.parameters.compactMap { spec -> (String, ParameterSpec)? in
        guard case .number = spec.kind else { return nil }
        return (definition.descriptor.name, spec)
      }
    }
  }

  func testEveryNumberParameterIsAudited() {
    let table = Dictionary(uniqueKeysWithValues: numberParameters.map { ("\($0.filter).\($0.spec.name)", $0.spec.percent) })
    for (key, percent) in table.sorted(by: { $0.key < $1.key }) {
      XCTAssertEqual(percent, reading[key] ?? .refused, "\(key): decide what % means and record it in this test")
    }
    for key in reading.keys where table[key] == nil {
      XCTFail("\(key) is audited here but is not a number parameter of the registry")
    }
  }

  /// Each parameter's row, through the recipe reader: fractions divide by 100, percents read as
  /// written, the rest refuse `%` with a message naming the parameter's own unit.
  func testEachParameterReadsPercentAsItsTableSays() throws {
    for (filter, spec) in numberParameters {
      guard case .number(let range) = spec.kind else { continue }
      let value = range.lowerBound + (range.upperBound - range.lowerBound) * 0.25
      let key = "\(filter).\(spec.name)"
      switch spec.percent {
      case .fraction:
        let read = try RecipeValues.parse(token("\(value * 100)%"), as: spec)
        guard case .number(let v) = read else { return XCTFail(key) }
        XCTAssertEqual(v, value, accuracy: 1e-9 * max(1, abs(value)), key)
      case .percent:
        let read = try RecipeValues.parse(token("\(value)%"), as: spec)
        XCTAssertEqual(read, .number(value), key)
      case .refused:
        XCTAssertThrowsError(try RecipeValues.parse(token("\(value)%"), as: spec), key) { error in
          let message = (error as? ValueProblem)?.message ?? ""
          XCTAssertTrue(message.contains("\(spec.name) takes no '%'"), "\(key): \(message)")
        }
      }
    }
  }

  func testFilterListingSaysHowPercentReads() {
    let normalize = FilterRegistry.definition(named: "normalize")!.descriptor.parameters
    XCTAssertEqual(normalize.first { $0.name == "high" }?.typeName, "percent 0…100")
    let tint = FilterRegistry.definition(named: "tint")!.descriptor.parameters
    XCTAssertEqual(tint.first { $0.name == "amount" }?.typeName, "number 0…1 or %")
    let blur = FilterRegistry.definition(named: "blur")!.descriptor.parameters
    XCTAssertEqual(blur.first { $0.name == "sigma" }?.typeName, "number 0…500")
  }

  /// `normalize low=1% high=99%` is the 1st and 99th percentiles, exactly as `low=1 high=99`, on
  /// a real photo (read as fractions they would be the 0.01st and 0.99th: a nearly white image).
  func testNormalizePercentilesWrittenWithPercentSigns() throws {
    let photo = try Image(contentsOf: photoURL)
    let signs = try compileRecipe("normalize low=1% high=99%", photo)
    let plain = try compileRecipe("normalize low=1 high=99", photo)
    XCTAssertEqual(signs.node.structuralKey, plain.node.structuralKey)
    XCTAssertEqual(try renderFloat(signs), try renderFloat(plain))
    let pixels = try renderFloat(signs)
    let mean = pixels.reduce(Float(0)) { $0 + ($1.x + $1.y + $1.z) / 3 } / Float(pixels.count)
    XCTAssertLessThan(mean, 0.8, "a 1…99 % stretch keeps the photo's tones")
  }

  func testRecipeRefusesPercentWhereTheUnitIsPixels() {
    XCTAssertThrowsError(try Recipe.parse("blur sigma=30%", file: "r.txt").check()) { error in
      XCTAssertEqual(
        (error as? RecipeError)?.message,
        "sigma=30%: sigma takes no '%' (standard deviation in pixels; 0 leaves the image as is); write a number 0…500")
    }
    XCTAssertThrowsError(try Recipe.parse("rotate 12%", file: "r.txt").check())
    XCTAssertNoThrow(try Recipe.parse("tint orange amount=30%\nscale 50%\nnormalize high=99.5%", file: "r.txt").check())
  }

  private func token(_ text: String) -> RecipeToken {
    RecipeToken(text: text, location: SourceLocation(line: 1, column: 1, length: text.count))
  }
}
