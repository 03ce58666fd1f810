// GettingStartedTests.swift — the DocC article "Getting started" and the catalog's root page run
// as written: each Swift block of GettingStarted.md is one region between ARTICLE markers below
// (same text, same order), the root page's between OVERVIEW markers, and the tests check what the
// pages say each block does.

import FilterGraph
import Foundation
import XCTest

final class GettingStartedTests: XCTestCase {
  /// Runs `body` in the repository's root folder (the articles' paths are relative to it) and
  /// removes the files it names afterwards.
  private func inRepositoryRoot<R>(removing outputs: [String], _ body: () async throws -> R) async rethrows -> R {
    let fm = FileManager.default
    let previous = fm.currentDirectoryPath
    XCTAssertTrue(fm.changeCurrentDirectoryPath(Repository.root.path))
    defer { _ = fm.changeCurrentDirectoryPath(previous) }
    try? fm.createDirectory(atPath: "out", withIntermediateDirectories: true)
    defer { for name in outputs { try? fm.removeItem(atPath: name) } }
    return try await body()
  }

  /// The synchronous steps: open, describe, render, write.
  func testArticleStepsRunAndDoWhatTheArticleSays() async throws {
    try await inRepositoryRoot(removing: ["out/flower-300.jpg", "out/flower-signed.png"]) { try synchronousSteps() }
  }

  private func synchronousSteps() throws {

    // ARTICLE-BEGIN
    let photo = try Image(contentsOf: URL(fileURLWithPath: "samples/flower.jpg"))
    print(photo.size)  // 2268x1512: read from the header, no pixel decoded yet
    // ARTICLE-END
    XCTAssertEqual(photo.size, Size(width: 2268, height: 1512))

    // ARTICLE-BEGIN
    let thumbnail = photo
      .scaled(toFit: Size(width: 300, height: 300))
      .sharpened(sigma: 0.5, amount: 0.6)
    print(thumbnail.size)  // 300x200
    // ARTICLE-END
    XCTAssertEqual(thumbnail.size, Size(width: 300, height: 200))

    // ARTICLE-BEGIN
    let renderer = Renderer()
    let pixels = try renderer.render(thumbnail)
    print(pixels.width, pixels.height, pixels.format)
    // ARTICLE-END
    XCTAssertEqual(pixels.size, Size(width: 300, height: 200))
    XCTAssertEqual(pixels.channelCount, 3)

    // ARTICLE-BEGIN
    try renderer.write(
      thumbnail, to: URL(fileURLWithPath: "out/flower-300.jpg"),
      options: WriteOptions(options: ["quality": 85]))
    // ARTICLE-END
    let jpeg = try Data(contentsOf: URL(fileURLWithPath: "out/flower-300.jpg"))
    XCTAssertEqual(Array(jpeg.prefix(3)), [0xFF, 0xD8, 0xFF])
    XCTAssertEqual(try Image(contentsOf: URL(fileURLWithPath: "out/flower-300.jpg")).size, Size(width: 300, height: 200))

    // ARTICLE-BEGIN
    let logo = try Image(contentsOf: URL(fileURLWithPath: "recipes/assets/logo.png"))
    let signed = thumbnail.overlaid(with: logo.scaled(toWidth: 60), gravity: .southEast, margin: 8)
    let same = logo.scaled(toWidth: 60).composited(over: thumbnail, gravity: .southEast, margin: 8)
    try renderer.write(signed, to: URL(fileURLWithPath: "out/flower-signed.png"))
    // ARTICLE-END
    XCTAssertEqual(signed.node.structuralKey, same.node.structuralKey)
    let written = try renderer.render(try Image(contentsOf: URL(fileURLWithPath: "out/flower-signed.png")), format: .rgb8)
    XCTAssertEqual(written.size, thumbnail.size)
    // The logo covers the bottom-right corner (8 pixels in), nowhere else.
    let plain = try renderer.render(thumbnail, format: .rgb8)
    let logoSize = logo.scaled(toWidth: 60).size
    var changedInside = 0, changedOutside = 0
    written.withUnsafePixels(as: UInt8.self) { w in
      plain.withUnsafePixels(as: UInt8.self) { p in
        for y in 0..<written.height {
          for x in 0..<written.width where (0..<3).contains(where: { abs(Int(w[row: y][3 * x + $0]) - Int(p[row: y][3 * x + $0])) > 2 }) {
            let inside = x >= 300 - 8 - logoSize.width && x < 300 - 8 && y >= 200 - 8 - logoSize.height && y < 200 - 8
            if inside { changedInside += 1 } else { changedOutside += 1 }
          }
        }
      }
    }
    XCTAssertGreaterThan(changedInside, 100)
    XCTAssertEqual(changedOutside, 0)
  }

  /// The async step: the PNG it writes holds exactly the pixels the synchronous render gives.
  func testArticleAsyncStepWritesTheRenderedPixels() async throws {
    try await inRepositoryRoot(removing: ["out/flower-300.png"]) {
      let thumbnail = try Image(contentsOf: URL(fileURLWithPath: "samples/flower.jpg"))
        .scaled(toFit: Size(width: 300, height: 300)).sharpened(sigma: 0.5, amount: 0.6)
      let renderer = Renderer()
      // ARTICLE-BEGIN
      try await renderer.write(thumbnail, to: URL(fileURLWithPath: "out/flower-300.png"))
      // ARTICLE-END
      let png = try await renderer.render(try Image(contentsOf: URL(fileURLWithPath: "out/flower-300.png")))
      let rendered = try await renderer.render(thumbnail)
      XCTAssertTrue(png.hasSamePixels(as: rendered), "the PNG holds exactly the rendered pixels")
    }
  }

  /// The whole program: type-checked exactly as printed (no warning), and its body run here (the
  /// same text without the imports).
  func testArticleProgramCompilesAsPrintedAndRuns() async throws {
    let article = try String(
      contentsOf: Repository.url("Sources/FilterGraph/FilterGraph.docc/GettingStarted.md"), encoding: .utf8)
    let program = try XCTUnwrap(articleSwiftBlocks(article).first { $0.hasPrefix("import ") })
    let check = try SwiftProgram.typecheck(program)
    XCTAssertEqual(check.status, 0, check.stderr)
    XCTAssertEqual(check.stderr, "")
    try await inRepositoryRoot(removing: ["out/flower-300.png"]) {
      // PROGRAM-BEGIN
      func makeThumbnail(of input: String, to output: String, using renderer: Renderer) async throws {
        let photo = try Image(contentsOf: URL(fileURLWithPath: input))
        try await renderer.write(photo.scaled(toFit: Size(width: 300, height: 300)), to: URL(fileURLWithPath: output))
      }

      try await makeThumbnail(of: "samples/flower.jpg", to: "out/flower-300.png", using: Renderer())
      // PROGRAM-END
      XCTAssertEqual(try Image(contentsOf: URL(fileURLWithPath: "out/flower-300.png")).size, Size(width: 300, height: 200))
    }
    let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    XCTAssertEqual(["import FilterGraph\nimport Foundation\n\n" + markedRegions(source, tag: "PROGRAM")[0]], [program])
  }

  /// Top-level `try await renderer.write(…)`: Swift 6.3 resolves it to the synchronous overload
  /// and warns, as the article says. When a compiler stops doing so, this fails and the article's
  /// paragraph can go.
  func testTopLevelAwaitStillPicksTheSynchronousWrite() throws {
    let program = """
      import FilterGraph
      import Foundation

      let renderer = Renderer()
      let photo = try Image(contentsOf: URL(fileURLWithPath: "samples/flower.jpg"))
      try await renderer.write(photo, to: URL(fileURLWithPath: "out/flower.png"))
      """
    let check = try SwiftProgram.typecheck(program)
    XCTAssertEqual(check.status, 0, check.stderr)
    XCTAssertTrue(check.stderr.contains("no 'async' operations occur within 'await' expression"), check.stderr)
  }

  /// The error example: the message names the file.
  func testArticleErrorStepNamesTheFile() throws {
    // ARTICLE-BEGIN
    do {
      _ = try Image(contentsOf: URL(fileURLWithPath: "samples/no-such-photo.jpg"))
    } catch {
      print(error)  // says which file and what went wrong
    }
    // ARTICLE-END
    XCTAssertThrowsError(try Image(contentsOf: URL(fileURLWithPath: "samples/no-such-photo.jpg"))) { error in
      XCTAssertTrue("\(error)".contains("no-such-photo.jpg"), "\(error)")
    }
  }

  /// The example on the catalog's root page (FilterGraph.md).
  func testOverviewExampleWritesAThumbnail() throws {
    let fm = FileManager.default
    let previous = fm.currentDirectoryPath
    XCTAssertTrue(fm.changeCurrentDirectoryPath(Repository.root.path))
    defer { _ = fm.changeCurrentDirectoryPath(previous) }
    try fm.createDirectory(atPath: "out", withIntermediateDirectories: true)
    defer { try? fm.removeItem(atPath: "out/flower-300.jpg") }

    // OVERVIEW-BEGIN
    let photo = try Image(contentsOf: URL(fileURLWithPath: "samples/flower.jpg"))
    let thumbnail = photo.scaled(toFit: Size(width: 300, height: 300)).sharpened(sigma: 0.5, amount: 0.6)
    try Renderer().write(thumbnail, to: URL(fileURLWithPath: "out/flower-300.jpg"))
    // OVERVIEW-END
    XCTAssertEqual(try Image(contentsOf: URL(fileURLWithPath: "out/flower-300.jpg")).size, Size(width: 300, height: 200))

    let root = try String(contentsOf: Repository.url("Sources/FilterGraph/FilterGraph.docc/FilterGraph.md"), encoding: .utf8)
    let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    XCTAssertEqual(articleSwiftBlocks(root), markedRegions(source, tag: "OVERVIEW"))
  }

  func testArticleShowsExactlyTheseExamples() throws {
    let article = try String(
      contentsOf: Repository.url("Sources/FilterGraph/FilterGraph.docc/GettingStarted.md"), encoding: .utf8)
    let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    XCTAssertEqual(articleSwiftBlocks(article).filter { !$0.hasPrefix("import ") }, markedRegions(source))
  }
}

/// The Swift code blocks of a Markdown article: lines between a line "```swift" and a line "```".
func articleSwiftBlocks(_ article: String) -> [String] {
  fencedBlocks(article, language: "swift")
}

/// The code blocks of a Markdown article fenced with "```LANGUAGE".
func fencedBlocks(_ article: String, language: String) -> [String] {
  var blocks: [String] = [], current: [String]?
  for line in article.components(separatedBy: "\n") {
    if current == nil, line == "```" + language {
      current = []
    } else if let lines = current, line == "```" {
      blocks.append(lines.joined(separator: "\n"))
      current = nil
    } else {
      current?.append(line)
    }
  }
  return blocks
}

/// The regions of a Swift file between `// TAG-BEGIN` and `// TAG-END` lines, each with the
/// markers' indentation removed.
func markedRegions(_ source: String, tag: String = "ARTICLE") -> [String] {
  var regions: [String] = [], current: [String]?, indent = 0
  for line in source.components(separatedBy: "\n") {
    let trimmed = line.drop { $0 == " " }
    if trimmed == "// \(tag)-BEGIN" {
      current = []
      indent = line.count - trimmed.count
    } else if trimmed == "// \(tag)-END", let lines = current {
      regions.append(lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }.joined(separator: "\n"))
      current = nil
    } else {
      current?.append(line)
    }
  }
  return regions
}
