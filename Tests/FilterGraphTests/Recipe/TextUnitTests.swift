// TextUnitTests.swift — the `text` verb's size= and width= are pixels or a percentage of the
// image `of=` names (the project's one length kind), never a number read two ways.

import Foundation
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class TextUnitTests: XCTestCase {
  let photo = Image(color: .white, size: Size(width: 1000, height: 500))
  let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/tmp"))

  func compile(_ recipe: String) throws -> Image {
    try Recipe.parse(recipe, file: nil).compile(input: photo, context: context)
  }

  /// The recipe's error, or nil when it compiled.
  func failure(_ recipe: String, input: Bool = true) -> RecipeError? {
    do {
      let parsed = try Recipe.parse(recipe, file: nil)
      _ = try input ? parsed.compile(input: photo, context: context) : parsed.compile(context: context)
      return nil
    } catch {
      return error as? RecipeError
    }
  }

  func testSizeInPixelsIsPixels() throws {
    let set = try compile("text string=Hamburg font=\"DejaVu Sans\" size=24")
    XCTAssertEqual(set.size, try Image(text: "Hamburg", font: "DejaVu Sans", size: 24).size)
  }

  func testPercentagesAreOfTheOfImage() throws {
    // 4 % of the 500-pixel height is 20 px; 40 % of the 1000-pixel width wraps at 400 px.
    let sized = try compile("text string=Hamburg font=\"DejaVu Sans\" size=4% of=input")
    XCTAssertEqual(sized.size, try Image(text: "Hamburg", font: "DejaVu Sans", size: 20).size)
    let words = "one two three four five six seven eight nine ten eleven twelve"
    let wrapped = try compile("text string=\"\(words)\" font=\"DejaVu Sans\" size=30 width=40% of=input")
    let reference = try Image(text: words, font: "DejaVu Sans", size: 30, width: 400)
    XCTAssertEqual(wrapped.size, reference.size)
    XCTAssertGreaterThan(reference.size.height, 3 * 30, "it wraps")
    // With dpi=, pixels are read as points: 18 pt at 144 dpi is 36 px.
    XCTAssertEqual(try compile("text string=Hamburg font=\"DejaVu Sans\" size=18 dpi=144").size,
                   try Image(text: "Hamburg", font: "DejaVu Sans", size: 36).size)
  }

  func testANumberBelowOneIsNotAFractionOfTheImage() throws {
    let error = try XCTUnwrap(failure("text string=Hamburg size=0.5 of=input"), "size=0.5 is refused, not read as 50 %")
    XCTAssertTrue(error.message.contains("size"), error.message)
    XCTAssertNotNil(failure("text string=Hamburg size=12 width=0.4 of=input"), "width=0.4 is refused")
  }

  func testAPercentageWithoutOfIsAnErrorAtItsLineAndColumn() throws {
    let recipe = "base = input\ncaption = text string=Hamburg size=3% color=white\noutput = composite caption over=base"
    let error = try XCTUnwrap(failure(recipe))
    XCTAssertEqual(error.location.line, 2)
    XCTAssertEqual(error.location.column, 36, "at the value 3%")
    XCTAssertTrue(error.message.contains("of="), error.message)
    XCTAssertNotNil(failure("text string=Hamburg size=12 width=50%"), "width= too")
    // Named, it is fine; with of=input and no input image, it is an error too.
    XCTAssertNil(failure("caption = text string=Hamburg size=3% of=input"))
    XCTAssertNotNil(failure("text string=Hamburg size=3% of=input", input: false))
  }
}
