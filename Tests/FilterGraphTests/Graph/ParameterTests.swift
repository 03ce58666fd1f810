// ParameterTests.swift — typed parameters: the one clamp and NaN rule, a parameters struct's table,
// arguments and decoding, checked arguments, and every registered filter applied through its struct.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class ParameterTests: XCTestCase {
  let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/"))

  func testClampAppliesRangeAndNaNRule() {
    let withDefault = Parameter<Double>("a", range: 0...4, default: 1.5, help: "A.")
    XCTAssertEqual(withDefault.clamped(-3), 0)
    XCTAssertEqual(withDefault.clamped(9), 4)
    XCTAssertEqual(withDefault.clamped(2.25), 2.25)
    XCTAssertEqual(withDefault.clamped(.infinity), 4)
    XCTAssertEqual(withDefault.clamped(.nan), 1.5, "NaN counts as not given: the default")
    let required = Parameter<Double>("b", range: 0.5...4, help: "B.")
    XCTAssertEqual(required.clamped(.nan), 0.5, "without a default, NaN is the lower end")
    let whole = Parameter<Int>("n", range: -3...3, default: 0, help: "N.")
    XCTAssertEqual(whole.clamped(Int.max), 3)
    XCTAssertEqual(whole.clamped(Int.min), -3)
    XCTAssertEqual(whole.spec.clamped(.number(2.5)), .number(3), "whole numbers round half away from zero")
    let size = Parameter<Size>("s", sides: 1...100, help: "S.")
    XCTAssertEqual(size.clamped(Size(width: 0, height: 500)), Size(width: 1, height: 100))
  }

  func testTypedValuesRoundTrip() {
    XCTAssertEqual(Int(parameterValue: .number(.nan)), nil)
    XCTAssertEqual(Int(parameterValue: .number(1e300)), nil)
    XCTAssertEqual(Int(parameterValue: .number(-2.5)), -3)
    XCTAssertEqual(TintMode(parameterValue: .choice("template")), .template)
    XCTAssertNil(TintMode(parameterValue: .choice("nope")))
    XCTAssertEqual(ColorTarget(parameterValue: .choice("p3")), .displayP3)
    XCTAssertEqual(ColorTarget.displayP3.parameterValue, .choice("p3"))
    XCTAssertEqual(GaussianBlurOperation.Parameters().$method.spec.kind, .choice(["auto", "exact", "box"]))
  }

  /// A parameters struct's table lists its properties in declaration order, initial values as
  /// defaults (none for a required property); setting a property clamps it; `arguments` spells
  /// the values given; a recipe line decodes into it, defaults filled in.
  func testParametersStructIsTableArgumentsAndRecipeValues() throws {
    let table = GaussianBlurOperation.Parameters.table
    XCTAssertEqual(table.map(\.name), ["sigma", "linear", "method"])
    XCTAssertEqual(table.map(\.defaultValue), [nil, .boolean(true), .choice("auto")])
    XCTAssertEqual(table.map(\.isRequired), [true, false, false])
    XCTAssertEqual(TrimOperation.Parameters.table.map(\.isOptional), [false, true])
    var p = GaussianBlurOperation.Parameters()
    p.sigma = 9000
    p.method = .box
    XCTAssertEqual(p.sigma, 500)
    XCTAssertEqual(p.arguments.description, "sigma=500 linear=true method=box")
    XCTAssertEqual(TrimOperation.Parameters().arguments.description, "threshold=0.04", "an absent optional value is left out")
    let checked = try FilterArguments(checking: Arguments([("sigma", .number(3)), ("linear", .boolean(false))]), against: GaussianBlurOperation.table)
    let decoded = try GaussianBlurOperation.Parameters(checking: checked)
    XCTAssertEqual([decoded.sigma], [3])
    XCTAssertEqual([decoded.linear], [false])
    XCTAssertEqual(decoded.method, .automatic)
  }

  func testArgumentsAreCheckedAgainstTheTable() throws {
    let image = Image(color: .white, size: Size(width: 4, height: 4))
    func apply(_ pairs: [(String, ParameterValue)]) throws -> Image {
      try ConvolutionFilters.blur.apply([image], Arguments(pairs), context)
    }
    XCTAssertThrowsError(try apply([])) { error in
      XCTAssertEqual((error as? FilterError)?.message, "blur needs sigma= (number 0…500).")
    }
    XCTAssertThrowsError(try apply([("sigma", .number(1)), ("sigmaa", .number(1))])) { error in
      XCTAssertEqual((error as? FilterError)?.message, "blur has no parameter 'sigmaa'.")
    }
    XCTAssertThrowsError(try apply([("sigma", .boolean(true))]))
    XCTAssertThrowsError(try apply([("sigma", .number(1)), ("method", .choice("fast"))]))
    XCTAssertThrowsError(try ConvolutionFilters.blur.apply([], Arguments([("sigma", .number(1))]), context))
    // Out of range from Swift: the one clamp; defaults filled in table order.
    let blurred = try apply([("sigma", .number(9000)), ("method", .choice("exact"))])
    // An exact blur this wide runs as a held row pass and a column pass over it (SplitBlur): the
    // image's last node is the column pass, spelled with the blur's arguments.
    XCTAssertEqual(blurred.node.label, "blur columns sigma=500 linear=true method=exact")
  }

  /// Applies every registered filter with only its required parameters, and then with each other
  /// parameter given once: each line decodes into the filter's parameters struct (a definition
  /// whose table is not its struct's, or a required property read before it is given, stops the
  /// test process here), and every declared parameter reads back.
  func testEveryFilterReadsOnlyDeclaredKeys() throws {
    let input = Image(color: Color(white: 0.5), size: Size(width: 8, height: 6))
    let logo = Image(color: .black, size: Size(width: 2, height: 2))
    for definition in FilterRegistry.all {
      let d = definition.descriptor
      let inputs = Array([input, logo].prefix(d.inputCount))
      let required = d.parameters.filter(\.isRequired).map { ($0.name, sample($0)) }
      var calls = [required]
      // `load`'s optional rows are the codecs' decode options, tested with the codecs.
      for spec in d.parameters where !spec.isRequired && d.name != "load" {
        calls.append(required + [(spec.name, sample(spec))])
      }
      // A filter with alternative parameters (scale's size modes, pad's size or square) refuses
      // the calls that give none; each must still build an image from some call.
      var built = 0
      for pairs in calls {
        guard let image = try? definition.apply(inputs, Arguments(pairs), context) else { continue }
        XCTAssertGreaterThan(image.size.width, 0, d.name)
        built += 1
      }
      XCTAssertGreaterThan(built, 0, "\(d.name) built no image from any call")
    }
  }

  /// A valid value of `spec`'s kind.
  private func sample(_ spec: ParameterSpec) -> ParameterValue {
    switch spec.kind {
    case .number(let r): return .number((r.lowerBound + r.upperBound) / 2)
    case .integer(let r): return .number(Double(r.lowerBound / 2 + r.upperBound / 2))
    case .size: return .size(Size(width: 3, height: 2))
    case .color: return .color(Color(hex: "#FF8000")!)
    case .choice(let words): return .choice(words.last!)
    case .boolean: return .boolean(false)
    case .path: return .path(Fixtures.url("jpeg/testorig.jpg").path)
    case .text: return .text("Text")
    case .image: return .image("logo")
    case .choiceOrPoint(let words): return .choice(words.last!)
    case .length: return .percent(2)
    case .point: return .point(Point(x: 1, y: 1))
    case .numbers(let n):  // an identity matrix for the 2×2 (affine) and 4×5 (matrix) tables
      let step = n == 4 ? 3 : 6
      return .numbers((0..<n).map { $0 % step == 0 ? 1 : 0 })
    case .numberList(let counts):
      return .numbers(Array(repeating: 1, count: counts.lowerBound))
    case .pairs(let n):  // points on the diagonal
      return .pairs((0..<n.lowerBound).map { SIMD2(repeating: Double($0) / Double(max(n.lowerBound - 1, 1))) })
    }
  }
}
