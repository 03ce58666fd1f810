// TextSettingsTests.swift — weight= and style= choose the face fontconfig's own fc-match chooses,
// and line-spacing= scales the pitch between baselines.

import Foundation
import TestSupport
import XCTest

@testable import FilterGraph

final class TextSettingsTests: XCTestCase {
  /// fc-match's file for a fontconfig pattern (Debian fontconfig).
  func fcMatch(_ pattern: String) throws -> String {
    let run = try ChildProcess.run("/usr/bin/fc-match", ["-f", "%{file}", pattern], in: FileManager.default.temporaryDirectory)
    XCTAssertEqual(run.status, 0, run.stderr)
    return String(decoding: run.stdout, as: UTF8.self)
  }

  func testWeightAndStyleChooseTheFaceFcMatchChooses() throws {
    let cases: [(String, FontWeight, Bool, String)] = [
      ("DejaVu Sans", .bold, false, "DejaVu Sans:weight=200"),
      ("DejaVu Sans", .regular, true, "DejaVu Sans:weight=80:slant=100"),
      ("DejaVu Serif", .bold, true, "DejaVu Serif:weight=200:slant=100"),
      ("DejaVu Sans", .light, false, "DejaVu Sans:weight=50"),
    ]
    for (family, weight, italic, pattern) in cases {
      let layout = try TextLayout(string: "Ag", style: TextStyle(font: family, size: 20, weight: weight, italic: italic))
      XCTAssertEqual(layout.glyphs.first?.fontFile, try fcMatch(pattern), pattern)
    }
    // Through a recipe too.
    let recipe = try Recipe.parse("text string=Ag font=\"DejaVu Sans\" size=20 weight=bold style=italic", file: nil)
    let image = try recipe.compile(context: FilterContext(baseDirectory: URL(fileURLWithPath: "/tmp")))
    let operation = try XCTUnwrap(image.node.operation as? TextSourceOperation)
    XCTAssertEqual(operation.layout.glyphs.first?.fontFile, try fcMatch("DejaVu Sans:weight=200:slant=100"))
  }

  func testLineSpacingScalesThePitchBetweenBaselines() throws {
    func baselines(_ spacing: Double) throws -> [Double] {
      let layout = try TextLayout(string: "A\nA\nA", style: TextStyle(font: "DejaVu Sans", size: 20, lineSpacing: spacing))
      return layout.glyphs.map(\.y)
    }
    let single = try baselines(1), double = try baselines(2), tight = try baselines(0.5)
    // DejaVu Sans at 20 px: ascent 0.928 em and descent 0.236 em, each rounded up: 19 + 5 = 24 px.
    XCTAssertEqual(single[1] - single[0], 24, accuracy: 1e-9)
    XCTAssertEqual(double[1] - double[0], 48, accuracy: 1e-9)
    XCTAssertEqual(double[2] - double[1], 48, accuracy: 1e-9)
    XCTAssertEqual(tight[1] - tight[0], 12, accuracy: 1e-9)
  }
}
