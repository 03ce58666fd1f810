// CapabilityTests.swift — an operation's capability accessors (`asSource`, `asPositionalPoint`…,
// Capabilities.swift) answer what a runtime cast to the protocol answers, for operations that
// adopt each protocol and for operations that adopt none.

import PixelBufferModule
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
}
