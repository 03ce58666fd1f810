// GainMapPolicyTests.swift — which filters carry, transform or drop a gain map: the table in
// docs/HDR.md is the code's (every registered filter's example line, its treatment as its
// capabilities declare it), and spatial filters transform the map as they transform the base.
import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import XCTest

final class GainMapPolicyTests: XCTestCase {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// Each registered filter (sources aside: they start images, maps come with files) with the
  /// treatment its example line's operation declares.
  static func treatments() throws -> [(name: String, treatment: String)] {
    // The names the examples read, all standing for the input.
    let preamble = ["shape", "caption", "logo", "photo", "soft", "base"].map { "\($0) = input\n" }.joined()
    return try FilterRegistry.all.filter { $0.descriptor.category != .source }.map { definition in
      let recipe = try Recipe.parse(preamble + definition.descriptor.example, file: nil)
      let image = try recipe.compile(
        input: Image(color: Color(red: 1, green: 1, blue: 1, alpha: 0.5), size: Size(width: 4000, height: 3000)), context: FilterContext(baseDirectory: URL(fileURLWithPath: ".")))
      return (definition.descriptor.name, GainMapTreatment.of(image.node.operation).rawValue)
    }
  }

  /// The rows between the policy markers of docs/HDR.md: `| \`name\` | treatment | why |`.
  static func documentedRows() throws -> [(name: String, treatment: String, why: String)] {
    let text = try String(contentsOf: root.appendingPathComponent("docs/HDR.md"), encoding: .utf8)
    let start = try XCTUnwrap(text.range(of: "<!-- gain-map policy: checked by GainMapPolicyTests -->"))
    let end = try XCTUnwrap(text.range(of: "<!-- end of gain-map policy -->"))
    return text[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
      guard cells.count == 5, cells[1].hasPrefix("`") else { return nil }
      return (cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[2], cells[3])
    }
  }

  func testTheDocumentedTableIsTheCodes() throws {
    let code = try Self.treatments()
    let documented = try Self.documentedRows()
    let expected = code.map { "| `\($0.name)` | \($0.treatment) |" }.joined(separator: "\n")
    XCTAssertEqual(documented.map(\.name), code.map(\.name), "docs/HDR.md's rows should be, in this order:\n\(expected)")
    XCTAssertEqual(documented.map(\.treatment), code.map(\.treatment), "docs/HDR.md's rows should be:\n\(expected)")
    for row in documented { XCTAssertFalse(row.why.isEmpty, "\(row.name) says why") }
    // No example ends the map: `dropped` is for `convolve preset=edges`
    // (GainMapGeometryTests.testMapsCarriedDroppedAndWarned).
    XCTAssertEqual(Set(code.map(\.treatment)), Set(GainMapTreatment.allCases.map(\.rawValue)).subtracting(["dropped"]), "every treatment is used")
  }

  /// Bright vertical lines a 64th of the width wide (4 base pixels, 1 map pixel) every 16th: a blur
  /// spreads them and a median wider than them removes them, on the base and on the map alike (a
  /// map carried unchanged keeps them sharp).
  static func lines(width: Int, height: Int, channels: Int) -> PixelBuffer {
    var buffer = PixelBuffer(width: width, height: height, format: channels == 1 ? .gray8 : .rgb8)
    buffer.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<height {
        for x in 0..<width {
          let value: UInt8 = (x * 64 / width) % 4 == 0 ? 200 : 40
          for c in 0..<channels { p[row: y][x * channels + c] = value }
        }
      }
    }
    return buffer
  }

  func testSpatialFiltersTransformTheMapAsTheBase() throws {
    let renderer = Renderer(options: RendererOptions(threads: 2))
    var options = WriteOptions(format: .jpeg, options: ["quality": 98, "chroma": "444"])
    options.keptMetadata = []
    let file = try UltraHDRFile.assemble(
      primary: renderer.encode(Image(buffer: Self.lines(width: 256, height: 192, channels: 3)), format: .jpeg, options: options),
      map: renderer.encode(Image(buffer: Self.lines(width: 64, height: 48, channels: 1)), format: .jpeg, options: options),
      metadata: GainMapMetadata(gainMapMax: [2, 2, 2], hdrCapacityMax: 2))
    let lines = [
      "blur sigma=6 linear=false", "blur sigma=40 linear=false", "boxblur radius=8 linear=false", "median radius=6",
      "convolve size=9x1 values=1,1,1,1,1,1,1,1,1", "convolve size=3x3 values=1,2,1,2,4,2,1,2,1",
    ]
    for line in lines {
      let image = try Recipe.parse(line, file: nil).compile(input: Image(data: file), context: FilterContext(baseDirectory: URL(fileURLWithPath: ".")))
      let out = try GainMapGeometryTests.decode(renderer.encode(image, format: .jpeg, options: options))
      XCTAssertEqual(out.map.size, Size(width: 64, height: 48), line)
      // A blur's map is made again from the blurred renditions (GainMapRerenderingTests), not a
      // picture of the base: only its size is checked here.
      guard line.hasPrefix("median") else { continue }
      let agreement = GainMapGeometryTests.agreement(base: out.base, map: out.map)
      print("\(line): the map \(agreement) dB from the base's picture")
      XCTAssertGreaterThan(agreement, 25, line)
    }
  }
}
