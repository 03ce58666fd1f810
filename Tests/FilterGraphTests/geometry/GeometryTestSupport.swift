// Helpers shared by the geometry tests: recipe compilation, graph signatures, straight pixels.

import FilterGraph
import Foundation
import PixelBufferModule
import XCTest

enum GeometryTestSupport {
  /// The operation names and arguments of a graph, inputs in brackets: equal for equal graphs.
  static func signature(_ node: ImageNode) -> String {
    let args = node.operation.arguments.description
    let head = node.operation.descriptor.name + (args.isEmpty ? "" : "(\(args))")
    return node.inputs.isEmpty ? head : head + "[" + node.inputs.map(signature).joined(separator: ", ") + "]"
  }

  /// `text` compiled as a recipe applied to `input` with every registered filter.
  static func compile(_ text: String, input: Image) throws -> Image {
    try Recipe.parse(text, file: "test.txt").compile(
      input: input, context: FilterContext(baseDirectory: URL(fileURLWithPath: NSTemporaryDirectory())))
  }

  /// Asserts that two images render to the same 8-bit RGBA bytes.
  static func assertSamePixels(
    _ a: Image, _ b: Image, renderer: Renderer = ResampleTestSupport.single, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    XCTAssertEqual(a.size, b.size, file: file, line: line)
    let x = try renderer.render(a, format: .rgba8), y = try renderer.render(b, format: .rgba8)
    XCTAssertTrue(x.hasSamePixels(as: y), "pixels differ", file: file, line: line)
  }

  /// Asserts that a render with many small tiles on two threads equals a one-tile render, in
  /// 16-bit RGBA (so differences below an 8-bit step still show).
  static func assertTilingInvariant(_ image: Image, file: StaticString = #filePath, line: UInt = #line) throws {
    let one = try ResampleTestSupport.single.render(image, format: .rgba16)
    let many = try ResampleTestSupport.fine.render(image, format: .rgba16)
    XCTAssertTrue(one.hasSamePixels(as: many), "tiled render differs from the one-tile render", file: file, line: line)
  }
}
