// ArticleTests.swift — the DocC article "Writing a filter" shows the real code: every Swift block
// in it appears, line for line, in the files it walks through.

import Foundation
import XCTest

final class ArticleTests: XCTestCase {
  private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  func testWritingAFilterShowsTheRealVignetteCode() throws {
    let article = try String(contentsOf: root.appendingPathComponent("Sources/FilterGraph/FilterGraph.docc/WritingAFilter.md"), encoding: .utf8)
    let sources = try [
      "Sources/FilterGraph/color/Vignette.swift", "Sources/FilterGraph/color/ColorFilters.swift",
      "Tests/FilterGraphTests/color/VignetteTests.swift",
    ].map { try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }
    // Blocks open with a line "```swift" and close with a line "```" (doc comments inside may
    // show fences of their own, indented behind `///`).
    let blocks = ("\n" + article).components(separatedBy: "\n```swift\n").dropFirst().map { $0.components(separatedBy: "\n```\n")[0] + "\n" }
    XCTAssertGreaterThanOrEqual(blocks.count, 6)
    for block in blocks {
      XCTAssertTrue(sources.contains { $0.contains(block) }, "not in the sources:\n\(block)")
    }
  }
}
