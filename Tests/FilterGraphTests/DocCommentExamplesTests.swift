// DocCommentExamplesTests.swift — every ```swift block in a doc comment under Sources/ (what DocC
// shows on a symbol's page), and every article block no other test runs, type-checked exactly as
// printed against the modules this test build made. A block is the body of a function whose
// parameters are the names the block takes from its surroundings (`photo`, `outputURL`…), so an
// example that calls a renamed method or passes a wrong type fails here.
//
// The articles' other blocks are checked where they are run: README.md and GettingStarted.md
// (ExampleTests, GettingStartedTests), Recipes.md (RecipesArticleTests), WritingAFilter.md
// (ArticleTests: its blocks are the real sources).

import Foundation
import TestSupport
import XCTest

final class DocCommentExamplesTests: XCTestCase {
  /// What a symbol's example may use without declaring it.
  private static let surroundings =
    "photo: Image, logo: Image, glyph: Image, renderer: Renderer, inputURL: URL, outputURL: URL, profileURL: URL,"
    + " photoURL: URL, recipeFolder: URL, url: URL, upload: Data, userInput: String"
  /// The codecs' examples work on encoded bytes and strips of rows.
  private static let codecSurroundings = "bytes: Data, size: Size, strips: [PixelBuffer], url: URL, consume: (PixelBuffer) -> Void"
  /// Files whose examples take other names.
  private static let surroundingsByFile: [String: String] = [
    "Sources/PixelBuffer/TransferFunction.swift": "bytes: UnsafeMutablePointer<UInt8>, linear: UnsafeMutablePointer<Float>, width: Int",
    "Sources/PixelBuffer/PixelBuffer.swift": "",
  ]
  /// Articles whose blocks no other test checks.
  private static let articles = ["Sources/FilterGraph/FilterGraph.docc/HowRenderingWorks.md"]

  struct Example {
    let place: String
    let code: String
    /// Declarations (an operation's table) go at the top level; statements into a function.
    var isDeclaration: Bool { code.hasPrefix("struct ") || code.hasPrefix("enum ") || code.hasPrefix("extension ") }
  }

  /// Every ```swift block of a `///` comment in the Swift files under Sources/, with its file and line.
  static func docCommentExamples() throws -> [Example] {
    let sources = Repository.url("Sources")
    let files = try XCTUnwrap(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
      .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    var examples: [Example] = []
    for file in files {
      let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
      let relative = "Sources/" + file.path.dropFirst(sources.path.count + 1)
      var index = 0
      while index < lines.count {
        defer { index += 1 }
        guard lines[index].trimmingCharacters(in: .whitespaces) == "/// ```swift" else { continue }
        let indent = lines[index].prefix { $0 == " " }.count
        var body: [String] = []
        index += 1
        while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "/// ```" {
          let line = lines[index].dropFirst(indent)
          XCTAssertTrue(line.hasPrefix("///"), "\(relative):\(index + 1): an example's fence is not closed")
          let text = line.dropFirst(3)
          body.append(String(text.hasPrefix(" ") ? text.dropFirst() : text))
          index += 1
        }
        examples.append(Example(place: "\(relative):\(index)", code: body.joined(separator: "\n")))
      }
    }
    return examples
  }

  /// The ```swift blocks of the articles no other test checks.
  static func articleExamples() throws -> [Example] {
    try articles.flatMap { path in
      let text = try String(contentsOf: Repository.url(path), encoding: .utf8)
      return ("\n" + text).components(separatedBy: "\n```swift\n").dropFirst().map {
        Example(place: path, code: $0.components(separatedBy: "\n```")[0])
      }
    }
  }

  /// One program holding every example; each statement block is the body of its own function.
  static func program(_ examples: [Example]) -> String {
    var text = "import FilterGraph\nimport Foundation\nimport ImageCodecs\nimport PixelBufferModule\n\n"
    for (number, example) in examples.enumerated() {
      text += "// \(example.place)\n"
      if example.isDeclaration {
        text += example.code + "\n\n"
        continue
      }
      let file = String(example.place.prefix { $0 != ":" })
      let parameters =
        surroundingsByFile[file] ?? (file.hasPrefix("Sources/ImageCodecs/") ? codecSurroundings : surroundings)
      // A block without `await` is synchronous code, where `renderer.write` is the synchronous overload.
      let effects = example.code.contains("await ") ? "async throws" : "throws"
      text += "func example\(number)(\(parameters)) \(effects) {\n\(example.code)\n}\n\n"
    }
    return text
  }

  func testEveryDocCommentExampleCompilesAsPrinted() throws {
    let examples = try Self.docCommentExamples() + Self.articleExamples()
    // Today's count; an extractor that found nothing would pass every check below.
    XCTAssertGreaterThanOrEqual(examples.count, 25)
    XCTAssertTrue(examples.contains { $0.place.hasPrefix("Sources/ImageCodecs/") })
    XCTAssertTrue(examples.contains { $0.place.hasPrefix("Sources/PixelBuffer/") })
    let check = try SwiftProgram.typecheck(Self.program(examples))
    let errors = check.stderr.components(separatedBy: "\n").filter { $0.contains("error:") }
    XCTAssertEqual(check.status, 0, "\n" + errors.joined(separator: "\n") + "\n\n" + Self.program(examples))
  }

  /// The check sees a broken example: one that calls a method no type has.
  func testABrokenExampleIsCaught() throws {
    let broken = Example(place: "Sources/FilterGraph/Image.swift:1", code: "let x = photo.sharpened(radius: 2, unknownArgument: 3)")
    let check = try SwiftProgram.typecheck(Self.program([broken]))
    XCTAssertNotEqual(check.status, 0)
    XCTAssertTrue(check.stderr.contains("unknownArgument") || check.stderr.contains("extra argument"), check.stderr)
  }
}
