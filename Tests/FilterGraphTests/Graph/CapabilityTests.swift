// CapabilityTests.swift — an operation's capability accessors (`asSource`, `asPositionalPoint`…,
// Capabilities.swift) answer what a runtime cast to the protocol answers, for operations that
// adopt each protocol and for operations that adopt none, and for every operation type in every
// registered filter's example graph.

import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class CapabilityTests: XCTestCase {
  func testEveryAccessorAgreesWithTheRuntimeCast() throws {
    let photo = Image(color: Color(red: 0.8, green: 0.4, blue: 0.2), size: Size(width: 40, height: 30))
    let images: [(String, Image)] = [
      ("solid", photo),
      ("text", try Image(text: "Ab", font: "DejaVu Sans", size: 12, color: .white)),
      ("sepia", photo.sepiaToned()),
      ("modulate", photo.modulated(saturation: 1.2)),
      ("scale", photo.scaled(by: 0.5)),
      ("flip", photo.flippedHorizontally()),
      ("smartcrop", photo.smartCropped(to: Size(width: 20, height: 20))),
      ("trim", photo.trimmed()),
      ("shadow", photo.shadowed()),
      ("composite", photo.shadowed().composited(over: photo)),
      ("blur", photo.blurred(sigma: 2)),
      ("unchanged step", photo.applying(UnchangedStepOperation(ShadowOperation.table, arguments: Arguments([]), explanation: { _ in nil }))),
    ]
    var adopted: [String: Int] = [:]
    for (name, image) in images {
      let op = image.node.operation
      let answers: [(String, Bool, Bool)] = [
        ("source", op.asSource != nil, op is any SourceOperation),
        ("point", op.asPositionalPoint != nil, op is any PositionalPointOperation),
        ("analysed", op.asAnalysed != nil, op is any AnalysedOperation),
        ("folding", op.asFolding != nil, op is any FoldingOperation),
        ("resample", op.asResample != nil, op is any ResampleOperation),
        ("warning", op.asWarning != nil, op is any WarningOperation),
      ]
      for (capability, accessor, cast) in answers {
        XCTAssertEqual(accessor, cast, "\(name) as \(capability)")
        if cast { adopted[capability, default: 0] += 1 }
      }
    }
    // Each protocol is adopted by at least one of the operations, so each accessor's "itself" is checked.
    XCTAssertEqual(Set(adopted.keys), ["source", "point", "analysed", "folding", "resample", "warning"])
  }

  /// The same over every operation of every registered filter's example graph, as compiled and as
  /// the optimizer rewrites it (held, fused and folded steps included).
  func testEveryRegisteredFiltersOperationsAnswerAsTheirCasts() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let context = FilterContext(baseDirectory: Fixtures.url("pngsuite"))
    let renderer = Renderer()
    var seen = Set<String>()
    for definition in FilterRegistry.all {
      let name = definition.descriptor.name
      let image = try Recipe.parse(try FilterConformanceTests.recipe(for: definition), file: name).compile(input: photo, context: context)
      var pending = [image.node, renderer.optimized(image)]
      while let node = pending.popLast() {
        pending += node.inputs
        let op = node.operation
        let type = String(describing: Swift.type(of: op))
        guard seen.insert(type).inserted else { continue }
        XCTAssertEqual(op.asSource != nil, op is any SourceOperation, "\(type) (in \(name)) as source")
        XCTAssertEqual(op.asPositionalPoint != nil, op is any PositionalPointOperation, "\(type) (in \(name)) as point")
        XCTAssertEqual(op.asAnalysed != nil, op is any AnalysedOperation, "\(type) (in \(name)) as analysed")
        XCTAssertEqual(op.asFolding != nil, op is any FoldingOperation, "\(type) (in \(name)) as folding")
        XCTAssertEqual(op.asResample != nil, op is any ResampleOperation, "\(type) (in \(name)) as resample")
        XCTAssertEqual(op.asWarning != nil, op is any WarningOperation, "\(type) (in \(name)) as warning")
      }
    }
    XCTAssertGreaterThan(seen.count, FilterRegistry.all.count / 2)
  }
}
