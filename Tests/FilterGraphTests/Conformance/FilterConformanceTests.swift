// FilterConformanceTests.swift — every registered filter keeps the renderer's promises.
//
// For each definition in `FilterRegistry.all`, its table's example line is compiled on a real
// photo (the IJG test image, 227×149) and, where the example names other images, a small RGBA
// PNG (PngSuite basn6a08, 32×32). Each filter must then render:
//   - the same bytes in one tile as in small odd tiles (13×7), so regions are declared right;
//   - the same bytes with 1 worker as with 2;
//   - the same bytes twice in a row from one renderer (caches change nothing);
//   - from a graph whose structural key (the cache key) is the same when the line is compiled twice;
// and reads only the parameters its table declares (its typed parameters struct, whose table the
// definition's must be, has no others).
// A new filter is covered by registering it: its table's example is what is run.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class FilterConformanceTests: XCTestCase {
  /// The second image examples name (`logo`, `shape`, `caption`, …), relative to the context's folder.
  static let secondImage = "basn6a08.png"

  /// Lines run instead of a table's example, with why: the example reads a file the tests lack.
  static let substitutedExamples: [String: (line: String, reason: String)] = [
    "load": ("logo = load path=\(secondImage)", "the example's logo.png is not a fixture; a PngSuite RGBA PNG is loaded instead")
  ]

  /// Filters whose tiled result may differ from the one-tile result within a float tolerance
  /// (compared as float RGBA), with why. Empty: every registered filter is tile-exact today.
  static let tolerances: [String: (tolerance: Float, reason: String)] = [:]

  let whole = Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096)))
  let tiled = Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 13, height: 7)))
  let tiledTwoWorkers = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 13, height: 7)))

  func testEveryRegisteredFilterRendersTheSameHoweverItIsTiled() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let context = FilterContext(baseDirectory: Fixtures.url("pngsuite"))
    var checked: [String] = []
    for definition in FilterRegistry.all {
      let name = definition.descriptor.name
      let text = try Self.recipe(for: definition)
      let first = try Recipe.parse(text, file: name).compile(input: photo, context: context)
      let second = try Recipe.parse(text, file: name).compile(input: photo, context: context)
      XCTAssertEqual(first.node.structuralKey, second.node.structuralKey, "\(name): the cache key of one recipe changed")

      let reference = try whole.render(first)
      XCTAssertTrue(try whole.render(first).hasSamePixels(as: reference), "\(name): a second render differs")
      let tiledBuffer = try tiled.render(first)
      XCTAssertEqual(tiledBuffer.size, reference.size, name)
      XCTAssertEqual(tiledBuffer.format, reference.format, name)
      if let allowance = Self.tolerances[name] {
        let float = PixelFormat(layout: .rgba, component: .float32)
        let want = Self.floats(try whole.render(first, format: float))
        let got = Self.floats(try tiled.render(first, format: float))
        let worst = zip(want, got).map { abs($0 - $1) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, allowance.tolerance, "\(name): 13×7 tiles against one tile")
      } else if !tiledBuffer.hasSamePixels(as: reference) {
        // Compared whole first (memcmp): counting byte by byte is slow in a debug build.
        let differing = zip(RecipeExamplesTests.packed(tiledBuffer), RecipeExamplesTests.packed(reference)).filter { $0 != $1 }.count
        XCTFail("\(name): \(differing) bytes differ between 13×7 tiles and one tile (\(text))")
      }
      XCTAssertTrue(try tiledTwoWorkers.render(first).hasSamePixels(as: tiledBuffer), "\(name): 2 workers differ from 1")
      checked.append(name)
    }
    XCTAssertEqual(checked.count, FilterRegistry.all.count)
  }

  /// The recipe run for `definition`: the example (or its substitute), after lines defining the
  /// images it names — the first as the PNG, the rest as the photo (`input`).
  static func recipe(for definition: FilterDefinition) throws -> String {
    let descriptor = definition.descriptor
    let line = substitutedExamples[descriptor.name]?.line ?? descriptor.example
    let statement = try XCTUnwrap(Recipe.parse(line, file: descriptor.name).statements.last)
    var names: [String] = []
    for argument in statement.arguments {
      switch argument {
      case .bare(let token) where !token.isQuoted && Recipe.isName(token.text):
        names.append(token.text)
      case .keyed(let key, let value) where key.text == "of" || descriptor.parameter(named: key.text)?.kind == .image:
        names.append(value.text)
      default: break
      }
    }
    names.removeAll { $0 == Recipe.inputName }
    let definitions = names.enumerated().map { index, name in
      index == 0 ? "\(name) = load path=\(secondImage)" : "\(name) = \(Recipe.inputName)"
    }
    return (definitions + [line]).joined(separator: "\n")
  }

  /// The buffer's values as floats, rows packed.
  static func floats(_ buffer: PixelBuffer) -> [Float] {
    RecipeExamplesTests.packed(buffer).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
  }
}
