// ExampleTests.swift — the Swift example of README.md, compiled and run.
//
// `readmeExample()` holds the README's code block verbatim (between the markers);
// `testREADMEShowsThisExampleVerbatim` fails when the two drift apart.

import FilterGraph
import Foundation
import XCTest

/// The README's example, run from the repository root (its paths are relative to it).
func readmeExample() throws {
  // README-EXAMPLE-BEGIN
  let photo = try Image(contentsOf: URL(fileURLWithPath: "samples/flower.jpg"))  // reads the header only
  let logo = try Image(contentsOf: URL(fileURLWithPath: "recipes/assets/logo.png"))
  let look = photo
    .scaled(toFit: Size(width: 400, height: 400))
    .tinted(try Color(string: "#FF8000"), amount: 0.3)
    .blurred(sigma: 2)
    .overlaid(with: logo.scaled(toWidth: 80), gravity: .southEast, margin: 8)  // the logo, bottom right
    .converted(to: .gray)
  print(look.size)                                                // 400x267, known before any pixel is decoded
  try Renderer().write(look, to: URL(fileURLWithPath: "out/flower-soft.png"))
  // README-EXAMPLE-END
}

final class ExampleTests: XCTestCase {
  func testREADMEExampleRunsAndWritesAGrayThumbnail() throws {
    let fm = FileManager.default
    let previous = fm.currentDirectoryPath
    XCTAssertTrue(fm.changeCurrentDirectoryPath(Repository.root.path))
    defer { _ = fm.changeCurrentDirectoryPath(previous) }
    try fm.createDirectory(atPath: "out", withIntermediateDirectories: true)
    try? fm.removeItem(atPath: "out/flower-soft.png")

    try readmeExample()

    let written = try Image(contentsOf: URL(fileURLWithPath: "out/flower-soft.png"))
    XCTAssertEqual(written.size, Size(width: 400, height: 267))
    XCTAssertEqual(written.info.layout, .gray)
    try? fm.removeItem(atPath: "out/flower-soft.png")
  }

  /// The README's block exactly as printed, imports included, compiles as a program without a
  /// warning.
  func testREADMEBlockCompilesAsPrinted() throws {
    let readme = try String(contentsOf: Repository.url("README.md"), encoding: .utf8)
    let block = try XCTUnwrap(fencedBlocks(readme, language: "swift").first)
    XCTAssertTrue(block.hasPrefix("import FilterGraph\nimport Foundation\n"))
    let check = try SwiftProgram.typecheck(block)
    XCTAssertEqual(check.status, 0, check.stderr)
    XCTAssertEqual(check.stderr, "")
    // The check sees what a reader would: without Foundation, URL is unknown.
    let bare = try SwiftProgram.typecheck(block.replacingOccurrences(of: "import Foundation\n", with: ""))
    XCTAssertNotEqual(bare.status, 0)
    XCTAssertTrue(bare.stderr.contains("URL"), bare.stderr)
  }

  func testREADMEShowsThisExampleVerbatim() throws {
    let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    let lines = source.components(separatedBy: "\n")
    guard let begin = lines.firstIndex(where: { $0.contains("// README-EXAMPLE-" + "BEGIN") }),
      let end = lines.firstIndex(where: { $0.contains("// README-EXAMPLE-" + "END") })
    else { return XCTFail("markers missing") }
    let example = lines[(begin + 1)..<end].map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : $0 }.joined(separator: "\n")
    let readme = try String(contentsOf: Repository.url("README.md"), encoding: .utf8)
    XCTAssertTrue(
      readme.contains("```swift\nimport FilterGraph\nimport Foundation\n\n" + example + "\n```"),
      "README.md's Swift example differs from ExampleTests.readmeExample(); copy it over:\n\n" + example)
  }
}
