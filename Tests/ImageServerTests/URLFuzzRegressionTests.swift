// URLFuzzRegressionTests.swift — replays the inputs committed under
// Fixtures/fuzz-regressions/fuzz-server-url/ (those fuzz-server-url reports, and two of its seeds:
// imgproxy's signed example and a URL with most options) as that target drives the server:
// a selector byte (bit 0 clear: signatures checked with its key), the request path, and after a
// line feed an Accept header; the graph the URL asks for is planned on a small image and rendered
// when small. Each must be planned or refused with a ServerError (the response the client gets),
// never crash.
import FilterGraph
import Foundation
import ImageServer
import TestSupport
import XCTest

final class URLFuzzRegressionTests: XCTestCase {
  func testEveryCommittedURLFuzzInputIsPlannedOrRefused() throws {
    func server(signed: Bool) throws -> ImageServer {
      var configuration = ServerConfiguration()
      configuration.threads = 1
      if signed {
        configuration.signingKeys = [try XCTUnwrap(SigningKey(hexKey: "736563726574", hexSalt: "68656C6C6F"))]
      } else {
        configuration.allowsUnsigned = true
      }
      return try ImageServer(configuration: configuration)
    }
    let servers = [try server(signed: true), try server(signed: false)]
    let renderer = Renderer(options: RendererOptions(threads: 1))
    let source = Image(color: Color(red: 0.8, green: 0.4, blue: 0.1, alpha: 0.9), size: Size(width: 24, height: 16))
    let folder = Fixtures.url("fuzz-regressions/fuzz-server-url")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    for name in names {
      let input = try Data(contentsOf: folder.appendingPathComponent(name))
      guard input.count > 1 else { continue }
      let text = String(decoding: input.dropFirst(), as: UTF8.self)
      let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
      let image: Image
      do {
        image = try servers[Int(input[input.startIndex] & 1)].plan(
          path: String(lines[0]), accept: lines.count > 1 ? String(lines[1]) : nil, on: source)
      } catch {
        XCTAssertTrue(error is ServerError, "\(name): \(type(of: error)) \(error)")
        continue
      }
      if image.size.width * image.size.height <= 1 << 16 { _ = try? renderer.render(image) }
    }
    XCTAssertFalse(names.isEmpty, "the committed inputs were found")
  }
}
