// RelativeSizeTests.swift — sizes measured against another image: `scale logo width=15% of=photo`
// makes a watermark 15 % as wide as each photo it marks, through the recipe and the Swift API
// alike, while `of=` alone keeps meaning the input.

import Foundation
import XCTest

@testable import FilterGraph

final class RelativeSizeTests: XCTestCase {
  private let logo = """
    mark = solid size=200x100 color=red
    small = scale mark width=15% of=input
    """

  /// The watermark's width follows the photo's: 15 % of 2000 and of 640 pixels, rounded, the
  /// height keeping the logo's 2:1 shape.
  func testWatermarkWidthIsAPercentageOfEachPhoto() throws {
    for (photoWidth, want) in [(2000, Size(width: 300, height: 150)), (640, Size(width: 96, height: 48)), (333, Size(width: 50, height: 25))] {
      let photo = Image(color: .white, size: Size(width: photoWidth, height: 400))
      XCTAssertEqual(try compileRecipe(logo, photo).size, want, "photo \(photoWidth) wide")
    }
  }

  func testHeightIsAPercentageOfTheReferenceHeight() throws {
    let photo = Image(color: .white, size: Size(width: 900, height: 1200))
    let small = try compileRecipe("mark = solid size=200x100 color=red\nsmall = scale mark height=10% of=input", photo)
    XCTAssertEqual(small.size, Size(width: 240, height: 120))
  }

  /// The recipe builds exactly the graph the Swift API builds, and the same pixels.
  func testRecipeEqualsSwiftAPI() throws {
    let photo = try Image(contentsOf: photoURL)
    let mark = Image(color: try Color(string: "red"), size: Size(width: 200, height: 100))
    let api = mark.scaled(toWidth: .percent(15), of: photo)
    let recipe = try compileRecipe(logo, photo)
    XCTAssertEqual(recipe.node.structuralKey, api.node.structuralKey)
    XCTAssertTrue(try renderFloat(recipe) == renderFloat(api), "the recipe's pixels differ from the API's")
    XCTAssertEqual(api.size.width, Int((Double(photo.size.width) * 0.15).rounded()))
  }

  /// Without a reference a percentage is of the input's own side, and `of=` alone still names the
  /// input (what every recipe written before reference sizes means).
  func testOfAloneIsStillTheInput() throws {
    let photo = Image(color: .white, size: Size(width: 800, height: 600))
    XCTAssertEqual(try compileRecipe("scale width=25%", photo).size, Size(width: 200, height: 150))
    XCTAssertEqual(try compileRecipe("scale width=25% of=input", photo).size, Size(width: 200, height: 150))
    XCTAssertEqual(
      try compileRecipe("mark = solid size=200x100 color=red\nbig = scale of=input width=400", photo).size,
      Size(width: 400, height: 300))
  }

  /// `of=` alone after another line, with a percentage, is ambiguous (which image was meant to be
  /// scaled?) and refused with its line and column.
  func testAmbiguousOfIsRefusedWithItsPlace() {
    let text = "mark = solid size=200x100 color=red\nsmall = scale width=15% of=input"
    XCTAssertThrowsError(try Recipe.parse(text, file: "r.txt").check()) { error in
      let message = "\(error)"
      XCTAssertTrue(message.contains("r.txt:2:28: error: of=input alone makes input the input"), message)
      XCTAssertTrue(message.contains("scale IMAGE … of=input"), message)
    }
  }

  /// A percentage is 0…100 (a larger factor is `scale FACTOR`), and other verbs still take one
  /// input only.
  func testLimits() {
    XCTAssertThrowsError(try Recipe.parse("mark = solid size=2x2\nscale mark width=150% of=input", file: "r.txt").check()) { error in
      XCTAssertTrue("\(error)".contains("width=150% is not a percentage 0…100"), "\(error)")
    }
    XCTAssertThrowsError(try Recipe.parse("mark = solid size=2x2\nblur mark sigma=2 of=input", file: "r.txt").check()) { error in
      XCTAssertTrue("\(error)".contains("blur takes one input image; 'mark' is one too many"), "\(error)")
    }
  }
}
