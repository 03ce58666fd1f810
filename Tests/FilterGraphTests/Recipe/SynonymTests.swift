// SynonymTests.swift — names people bring from other tools: verbs get a hint that writes the
// real line, and every choice taking `center` or `centre` (or `gray`/`grey`) takes both spellings.

import Foundation
import XCTest

@testable import FilterGraph

final class SynonymTests: XCTestCase {
  private func message(_ text: String) -> String {
    do {
      try Recipe.parse(text, file: "r.txt").check()
      return "no error"
    } catch {
      return (error as? RecipeError)?.message ?? "\(error)"
    }
  }

  func testVerbsOfOtherToolsPointAtTheRealOnes() {
    XCTAssertEqual(
      message("resize 0.5"),
      "unknown filter 'resize'; did you mean 'scale'? (scale 0.5, scale width=1200, scale fit=800x800 or scale size=800x600)")
    XCTAssertEqual(
      message("thumbnail"),
      "unknown filter 'thumbnail'; did you mean 'scale fit=WxH'? (fits inside the box; scale fill=WxH covers the box and crops to it)")
    XCTAssertEqual(message("grayscale"), "unknown filter 'grayscale'; did you mean 'convert to=gray'?")
    XCTAssertEqual(message("greyscale"), "unknown filter 'greyscale'; did you mean 'convert to=gray'?")
    XCTAssertEqual(message("Greyscale"), "unknown filter 'Greyscale'; did you mean 'convert to=gray'?")
    XCTAssertTrue(message("crop aspect=16:9").hasPrefix("unknown parameter 'aspect' for crop; to crop to an aspect ratio, use 'scale fill=WxH'"))
    // Ordinary typos keep the edit-distance suggestion.
    XCTAssertEqual(message("blurr sigma=2"), "unknown filter 'blurr'; did you mean 'blur'?")
  }

  /// Every hint names a verb that exists (and its parameters, where it names one).
  func testEveryHintNamesARealVerb() throws {
    for (verb, hint) in RecipeSynonyms.verbHints {
      XCTAssertNil(FilterRegistry.definition(named: verb), "\(verb) is a real filter: no hint needed")
      let words = hint.line.split(separator: " ")
      let definition = try XCTUnwrap(FilterRegistry.definition(named: String(words[0])), "\(verb): \(hint.line)")
      for word in words.dropFirst() {
        let key = String(word.split(separator: "=")[0])
        XCTAssertNotNil(definition.descriptor.parameter(named: key), "\(verb): \(hint.line)")
      }
    }
  }

  func testCentreAndCenterAreOneWordInEveryChoice() throws {
    var checked = 0
    for definition in FilterRegistry.all {
      for spec in definition.descriptor.parameters {
        guard case .choice(let words) = spec.kind else { continue }
        for word in words {
          guard let other = RecipeSynonyms.spellings[word] else { continue }
          let token = RecipeToken(text: other, location: SourceLocation(line: 1, column: 1, length: other.count))
          XCTAssertEqual(try RecipeValues.parse(token, as: spec), .choice(word), "\(definition.descriptor.name) \(spec.name)=\(other)")
          checked += 1
        }
      }
    }
    XCTAssertGreaterThanOrEqual(checked, 5, "gravity of crop, pad, composite; smartcrop's strategy; convert's gray")
    let photo = Image(color: .white, size: Size(width: 40, height: 30))
    for (a, b) in [
      ("crop size=10x10 gravity=centre", "crop size=10x10 gravity=center"),
      ("smartcrop size=10x10 strategy=center", "smartcrop size=10x10 strategy=centre"),
      ("convert to=grey", "convert to=gray"),
    ] {
      XCTAssertEqual(try compileRecipe(a, photo).node.structuralKey, try compileRecipe(b, photo).node.structuralKey, a)
    }
  }
}
