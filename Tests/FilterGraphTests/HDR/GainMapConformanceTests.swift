// GainMapConformanceTests.swift — every registered geometry and resample filter moves the gain map
// with its base. The filters come from the registry by category (a new one is tested as soon as it
// is registered), each run as its own example line with every colour parameter set to black and
// every size to 120x96 (so windows are smaller than the picture); the base (256×192) and its map
// (64×48) show the same picture: a ramp inside a black frame, which `trim` cuts away and whose
// black is the map's value for "no boost" (min 0), so new areas agree too.
import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import XCTest

final class GainMapConformanceTests: XCTestCase {
  let renderer = Renderer(options: RendererOptions(threads: 2))

  /// The ramp of GainMapGeometryTests inside a black frame of `frame` (left, top, right, bottom).
  static func framed(width: Int, height: Int, channels: Int, frame: (Int, Int, Int, Int)) -> PixelBuffer {
    var buffer = GainMapGeometryTests.paint(width: width, height: height, channels: channels)
    buffer.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<height {
        for x in 0..<width where x < frame.0 || y < frame.1 || x >= width - frame.2 || y >= height - frame.3 {
          for c in 0..<channels { p[row: y][x * channels + c] = 0 }
        }
      }
    }
    return buffer
  }

  func framedFile() throws -> Data {
    var options = WriteOptions(format: .jpeg, options: ["quality": 98, "chroma": "444"])
    options.keptMetadata = []
    let base = Self.framed(width: 256, height: 192, channels: 3, frame: (24, 16, 40, 8))
    let map = Self.framed(width: 64, height: 48, channels: 1, frame: (6, 4, 10, 2))
    return try UltraHDRFile.assemble(
      primary: renderer.encode(Image(buffer: base), format: .jpeg, options: options),
      map: renderer.encode(Image(buffer: map), format: .jpeg, options: options),
      metadata: GainMapMetadata(gainMapMax: [2, 2, 2], hdrCapacityMax: 2))
  }

  /// The definition's example with its colours black and its sizes 120x96.
  static func line(for definition: FilterDefinition) -> String {
    let kinds = Dictionary(uniqueKeysWithValues: definition.descriptor.parameters.map { ($0.name, $0.kind) })
    return definition.descriptor.example.split(separator: " ").map { word -> String in
      let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, let kind = kinds[parts[0]] else { return String(word) }
      switch kind {
      case .color: return "\(parts[0])=black"
      case .size: return "\(parts[0])=120x96"
      default: return String(word)
      }
    }.joined(separator: " ")
  }

  func testEveryRegisteredGeometryAndResampleFilterMovesTheMap() throws {
    let file = try framedFile()
    let source = try GainMapGeometryTests.decode(file)
    XCTAssertGreaterThan(GainMapGeometryTests.agreement(base: source.base, map: source.map), 35, "the painted file itself")
    let filters = FilterRegistry.all.filter { [.geometry, .resample].contains($0.descriptor.category) }
    XCTAssertTrue(Set(["trim", "smartcrop", "scale", "crop", "rotate", "roundcorners"]).isSubset(of: filters.map(\.descriptor.name)))
    var options = WriteOptions(format: .jpeg, options: ["quality": 98, "chroma": "444"])
    options.background = .black
    for definition in filters {
      let line = Self.line(for: definition)
      let image = try Recipe.parse(line, file: nil).compile(
        input: Image(data: file), context: FilterContext(baseDirectory: URL(fileURLWithPath: ".")))
      XCTAssertNotNil(image.gainMapBranch().branch, line)
      let out = try GainMapGeometryTests.decode(renderer.encode(image, format: .jpeg, options: options))
      XCTAssertEqual(Double(out.map.width), Double(out.base.width) / 4, accuracy: 1.5, line)
      XCTAssertEqual(Double(out.map.height), Double(out.base.height) / 4, accuracy: 1.5, line)
      XCTAssertGreaterThan(GainMapGeometryTests.agreement(base: out.base, map: out.map), 30, line)
    }
  }

  /// `trim` cuts the frame from the base, and the map loses exactly its own frame (the window the
  /// base's analysis chose, in map pixels); the analysis runs once for both.
  func testTrimTakesTheBasesWindow() throws {
    let file = try framedFile()
    let image = try Image(data: file).trimmed(background: .black)
    let counting = Renderer(options: RendererOptions(threads: 2))
    let out = try GainMapGeometryTests.decode(counting.encode(image, format: .jpeg))
    XCTAssertEqual(out.base.size, Size(width: 192, height: 168))
    XCTAssertEqual(out.map.size, Size(width: 48, height: 42))
    XCTAssertEqual(counting.analysisStatistics.computed, 1)
  }
}
