// RecipesArticleTests.swift — the DocC article "Recipes" runs as written: every ```recipe block
// compiles and renders on the article's input and changes it; each Swift block is one region
// between ARTICLE markers below (same text, same order); the diagnostic the article prints is
// the real one.

import FilterGraph
import Foundation
import XCTest

final class RecipesArticleTests: XCTestCase {
  private static let articleURL = Repository.url("Sources/FilterGraph/FilterGraph.docc/Recipes.md")
  private let renderer = Renderer(options: RendererOptions(threads: 2))

  /// The article's input: samples/flower.jpg reduced to fit 400×400.
  private func input() throws -> Image {
    try Image(contentsOf: Repository.url("samples/flower.jpg")).scaled(toFit: Size(width: 400, height: 400))
  }

  func testEveryRecipeBlockRendersAndChangesTheInput() throws {
    let article = try String(contentsOf: Self.articleURL, encoding: .utf8)
    let recipes = fencedBlocks(article, language: "recipe")
    XCTAssertEqual(recipes.count, 4)
    let original = try renderer.render(try input())
    let photo = Image(buffer: original)
    for text in recipes {
      let recipe = try Recipe.parse(text, file: nil)
      let result = try recipe.compile(input: photo, context: FilterContext(baseDirectory: Repository.recipes))
      let rendered = try renderer.render(result)
      XCTAssertFalse(rendered.size == original.size && rendered.hasSamePixels(as: original), "unchanged by:\n\(text)")
    }
  }

  func testSwiftBlocksRunAndPrintTheArticlesDiagnostic() throws {
    let fm = FileManager.default
    let previous = fm.currentDirectoryPath
    XCTAssertTrue(fm.changeCurrentDirectoryPath(Repository.root.path))
    defer { _ = fm.changeCurrentDirectoryPath(previous) }
    try fm.createDirectory(atPath: "out", withIntermediateDirectories: true)
    defer { try? fm.removeItem(atPath: "out/flower-sepia.jpg") }
    let photo = try input()

    // ARTICLE-BEGIN
    let recipe = try Recipe.parse("scale fit=300x300\nsepia intensity=0.8", file: nil)
    let context = FilterContext(baseDirectory: URL(fileURLWithPath: "recipes"))
    let sepia = try recipe.compile(input: photo, context: context)
    try Renderer().write(sepia, to: URL(fileURLWithPath: "out/flower-sepia.jpg"))
    // ARTICLE-END
    XCTAssertEqual(try Image(contentsOf: URL(fileURLWithPath: "out/flower-sepia.jpg")).size, Size(width: 300, height: 200))

    var printed: [String] = []
    func print(_ error: RecipeError) { printed.append(error.description) }
    // ARTICLE-BEGIN
    do {
      _ = try Recipe.parse("scale fit=300x300\nblurr sigma=2", file: "soft.txt").compile(input: photo, context: context)
    } catch let error as RecipeError {
      print(error)
    }
    // ARTICLE-END
    let article = try String(contentsOf: Self.articleURL, encoding: .utf8)
    XCTAssertEqual(printed, fencedBlocks(article, language: "text"))
  }

  func testArticleShowsExactlyTheseSwiftBlocks() throws {
    let article = try String(contentsOf: Self.articleURL, encoding: .utf8)
    let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    XCTAssertEqual(articleSwiftBlocks(article), markedRegions(source))
  }
}
