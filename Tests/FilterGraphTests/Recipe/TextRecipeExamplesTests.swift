// TextRecipeExamplesTests.swift — the recipes that set text (credit.txt, social-card.txt) run
// end to end and keep their promises (RecipeExamplesTests' helpers, run on real photos).

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

extension RecipeExamplesTests {
  func testCreditChangesOnlyTheSoutheastCornerWithWhiteTextAndADarkShadow() throws {
    // A 900×600 mid-gray "photo": the white text and the dark shadow both stand out on it.
    let input = Image(color: Color(white: 0.5), size: Size(width: 900, height: 600))
    let output = try run("credit", on: input)
    XCTAssertEqual(output.size, input.size)
    // The credit at 3 % of 600 = 18 px, shadowed (σ 1.5, offset 1: m = 5 px each side), 12 px in.
    let credit = try Image(text: "© 2026 A. Photographer", font: "DejaVu Sans", size: 18, color: .white)
    let box = Size(width: credit.size.width + 10, height: credit.size.height + 10)
    let region = Rect(x: 900 - 12 - box.width, y: 600 - 12 - box.height, width: box.width, height: box.height)
    let (marked, size) = try pixels(output, .rgb8)
    let (original, _) = try pixels(input, .rgb8)
    var white = 0, dark = 0
    for y in 0..<size.height {
      for x in 0..<size.width {
        let i = (y * size.width + x) * 3
        if !region.contains(Rect(x: x, y: y, width: 1, height: 1)) {
          if marked[i..<i + 3] != original[i..<i + 3] { return XCTFail("pixel (\(x), \(y)) outside the credit changed") }
          continue
        }
        if marked[i] > 240 { white += 1 }
        if Int(marked[i]) + 12 < Int(original[i]) { dark += 1 }
      }
    }
    XCTAssertGreaterThan(white, 150, "the credit's letters are white")
    XCTAssertGreaterThan(dark, 100, "the shadow darkens around them")
  }

  func testSocialCardIs1200x630WithCentredWhiteTextOnADarkerPhoto() throws {
    // Not under ThreadSanitizer (make test-tsan): a recipe's output measured, ~60 s instrumented; text rendering's threads run in the text tests.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] == "thread" { throw XCTSkip("not under ThreadSanitizer") }
    let input = try photo
    let output = try run("social-card", on: input)
    XCTAssertEqual(output.size, Size(width: 1200, height: 630))
    // Four 600 × 315 tiles on two threads (seams both ways, through the middle of the text): the
    // σ 12 blur recomputes its 36-row reach above and below every tile (1.2 times the rows; 128 ×
    // 128 tiles take 1.6, the class's 128 × 32 tiles 3.3), and the scale below it its halo.
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 600, height: 315)))
    let card = Self.packed(try renderer.render(output, format: .rgb8))
    var whiteCentre = 0, whiteEdge = 0
    for y in 0..<630 {
      for x in 0..<1200 {
        let i = (y * 1200 + x) * 3
        let isWhite = card[i] > 235 && card[i + 1] > 235 && card[i + 2] > 235
        if !isWhite { continue }
        if abs(x - 600) < 520 && abs(y - 315) < 200 { whiteCentre += 1 } else { whiteEdge += 1 }
      }
    }
    XCTAssertGreaterThan(whiteCentre, 10_000, "title and subtitle are set in the middle")
    XCTAssertEqual(whiteEdge, 0, "no text outside the 1040-pixel column")
    // Darkened: a corner (no text there) is darker than the same background chain without
    // `modulate brightness=0.55` (only its 100 × 100 corner rendered).
    let plain = try Recipe.parse("scale width=1200\nsmartcrop size=1200x630 strategy=attention\nblur sigma=12", file: nil)
      .compile(input: input, context: FilterContext(baseDirectory: Repository.recipes))
    let unshaded = Self.packed(try renderer.render(plain.cropped(to: Rect(x: 0, y: 0, width: 100, height: 100)), format: .rgb8))
    func cornerMean(_ p: [UInt8], width: Int) -> Double {
      var sum = 0
      for y in 0..<100 { for x in 0..<100 { sum += Int(p[(y * width + x) * 3 + 1]) } }
      return Double(sum) / 10_000
    }
    XCTAssertLessThan(cornerMean(card, width: 1200), 0.8 * cornerMean(unshaded, width: 100))
  }
}
