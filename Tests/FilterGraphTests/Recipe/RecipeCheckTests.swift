// RecipeCheckTests.swift — what the recipe compiler refuses, and how it says so: required
// parameters (with line and column), the one number syntax, and short reports for huge tokens.

import Foundation
import XCTest

@testable import FilterGraph

final class RecipeCheckTests: XCTestCase {
  /// The diagnostic `text` produces with the registered filters, or a failure.
  private func diagnostic(_ text: String, line: UInt = #line) -> RecipeError? {
    do {
      try Recipe.parse(text, file: "r.txt").check()
      XCTFail("expected an error for: \(text.prefix(80))", line: line)
    } catch let error as RecipeError {
      return error
    } catch {
      XCTFail("expected a RecipeError, got \(error)", line: line)
    }
    return nil
  }

  func testRequiredParametersAreEnforcedWithLineAndColumn() throws {
    let blur = diagnostic("scale 0.5\n  blur")
    XCTAssertEqual(blur?.location, SourceLocation(line: 2, column: 3, length: 4))
    XCTAssertEqual(
      blur?.message,
      "blur needs sigma= (number 0…500): standard deviation in pixels; 0 leaves the image as is; for example 'blur sigma=2'")
    let tint = diagnostic("tint amount=0.5")
    XCTAssertEqual(tint?.location.description, "1:1")
    XCTAssertTrue(tint?.message.hasPrefix("tint needs color= (colour)") ?? false, tint?.message ?? "")
    // (`convert` takes to= or profile=, alternatives it checks when applied, as `scale` does.)
    for text in ["boxblur", "matrix", "rotate", "crop x=2", "solid", "load", "x = blur linear=false"] {
      XCTAssertNotNil(diagnostic(text), text)
    }
    // Given, positionally or by key, they pass.
    for text in ["blur 2", "blur sigma=2", "tint #FF8000", "tint color=orange amount=50%", "rotate 90", "solid size=2x2"] {
      XCTAssertNoThrow(try Recipe.parse(text, file: nil).check(), text)
    }
  }

  func testNumbersHaveOneDecimalSyntax() throws {
    for good in ["0.5", "+2", ".5", "1e2", "2.5E-1", "30%"] {
      XCTAssertNoThrow(try Recipe.parse("scale \(good)", file: nil).check(), good)
    }
    for bad in ["0x10", "0X1p4", "0x1.8p1", "inf", "nan", "5.", "1_000", "1e", "--1", "١٢", "1,5", "0x10%"] {
      let error = diagnostic("scale \(bad)")
      XCTAssertTrue(error?.message.contains("is not a number") ?? false, "\(bad): \(error?.message ?? "no error")")
    }
    XCTAssertNotNil(diagnostic("boxblur radius=0x3"))
    XCTAssertNotNil(diagnostic("matrix values=0x1,0,0,0,0,0,1,0,0,0,0,0,1,0,0,0,0,0,1,0"))
    XCTAssertTrue(RecipeValues.isDecimalNumber("12.75e+3"))
    XCTAssertFalse(RecipeValues.isDecimalNumber(""))
    XCTAssertFalse(RecipeValues.isDecimalNumber("."))
  }

  func testHugeTokenGivesAShortReport() throws {
    // 200,000 characters keep the debug-build test quick; the report's bound does not depend on it.
    let token = String(repeating: "z", count: 200_000)
    for text in ["scale \(token)", "\(token) 2", "blur sigma=2 \(token)=1", "tint color=\(token)", "x = blur 2 of=\(token)"] {
      guard let error = diagnostic(text) else { continue }
      let report = error.description
      XCTAssertLessThan(report.utf8.count, 2_000, String(report.prefix(300)))
      XCTAssertTrue(report.contains("zzzz…("), String(report.prefix(300)))
    }
  }

  func testLongLineIsEchoedAroundTheToken() throws {
    let text = String(repeating: "blur sigma=1 ", count: 100) + "blurr sigma=2"
    let error = try XCTUnwrap(diagnostic(text.replacingOccurrences(of: " blur", with: "; blur")))
    let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(lines.count, 3)
    XCTAssertTrue(lines[1].hasSuffix("blurr sigma=2"), String(lines[1]))
    XCTAssertTrue(lines[1].hasPrefix("    …"), String(lines[1]))
    // The caret is under the first letter of `blurr`.
    let caretColumn = lines[2].firstIndex(of: "^").map { lines[2].distance(from: lines[2].startIndex, to: $0) }
    let tokenColumn = lines[1].range(of: "blurr").map { lines[1].distance(from: lines[1].startIndex, to: $0.lowerBound) }
    XCTAssertEqual(caretColumn, tokenColumn)
    XCTAssertTrue(lines[2].hasSuffix("^~~~~"))
  }
}
