// TextFuzzRegressionTests.swift — replays the inputs fuzz-text reported (make fuzz), committed
// under Fixtures/fuzz-regressions/fuzz-text/, through the text source as that target drives it:
// a selector byte (size, alignment, wrapping, weight and slant, family), the string, and after
// the first NUL the font file's bytes. Each must be laid out or refused with a CodecError, and
// rendered when small, never crash; under `make test-asan` never a memory error either.
import FilterGraph
import Foundation
import ImageCodecs
import TestSupport
import XCTest

final class TextFuzzRegressionTests: XCTestCase {
  func testEveryCommittedTextFuzzInputIsSetOrRefused() throws {
    let folder = Fixtures.url("fuzz-regressions/fuzz-text")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    let fontPath = FileManager.default.temporaryDirectory.appendingPathComponent("text-fuzz-\(UUID().uuidString).ttf").path
    defer { try? FileManager.default.removeItem(atPath: fontPath) }
    let renderer = Renderer(options: RendererOptions(threads: 1))
    for name in names {
      let input = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
      guard input.count > 1 else { continue }
      let selector = Int(input[0]), bytes = input[1...]
      let nul = bytes.firstIndex(of: 0)
      var font = ["sans-serif", "serif", "DejaVu Sans", "Noto Sans Arabic"][selector & 3]
      if let nul, nul + 1 < bytes.endIndex {
        try Data(bytes[(nul + 1)...]).write(to: URL(fileURLWithPath: fontPath))
        font = fontPath
      }
      let style = TextStyle(
        font: font, size: Double(4 + (selector & 15) * 4), color: .white, width: selector & 64 != 0 ? 40 : nil,
        alignment: TextAlignment.allCases[(selector >> 4) & 3], weight: selector & 128 != 0 ? .bold : .regular,
        italic: selector & 128 != 0)
      let string = String(decoding: bytes[..<(nul ?? bytes.endIndex)], as: UTF8.self)
      let image: Image
      do {
        image = try Image(text: string, style: style)
      } catch {
        XCTAssertTrue(error is CodecError, "\(name): \(type(of: error)) \(error)")
        continue
      }
      if image.size.width * image.size.height <= 1 << 18 { _ = try? renderer.render(image) }
    }
    XCTAssertFalse(names.isEmpty, "the committed inputs were found")
  }
}
