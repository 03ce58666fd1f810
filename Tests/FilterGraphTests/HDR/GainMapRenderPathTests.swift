// GainMapRenderPathTests.swift — the gain map goes through the renderer's machinery as the base does:
// the decode cache serves a second render of the same file from memory (the map's bytes are a
// source identified by their digest), shrink-on-load decodes the map reduced when the base is, and
// the map comes out the same however the render is cut into tiles. The outputs are read back by
// libultrahdr (imagecodecs) and libvips 8.18 through scripts/hdr-check.py: the HDR rendition against
// the input's resized in linear light.
import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class GainMapRenderPathTests: XCTestCase {
  /// A new folder, removed when the test ends.
  func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("render-path-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    return folder
  }

  /// The encoded sources `node`'s graph reads, with their scale denominators.
  static func sources(_ node: ImageNode) -> [EncodedSourceOperation] {
    var seen: Set<ObjectIdentifier> = [], found: [EncodedSourceOperation] = [], pending = [node]
    while let next = pending.popLast() {
      guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
      if let source = next.operation as? EncodedSourceOperation { found.append(source) }
      pending += next.inputs
    }
    return found
  }

  /// Two writes of the same file by one renderer: the second decodes nothing (base and map are
  /// both answered from the decode cache), writes the same bytes, and libultrahdr renders it 35 dB
  /// or better from the input's rendition resized (43.1 dB measured by the round-trip test; a map
  /// served with the base's pixels from a shared key: far below). With the map's source identified
  /// anew on every walk of the graph, the second write decodes the map again (seen failing: 1 ≠ 0).
  func testTheDecodeCacheServesTheMapAsItServesTheBase() throws {
    let folder = try temporaryFolder()
    let input = Fixtures.url("uhdr/vips.jpg")
    let renderer = Renderer(options: RendererOptions(threads: 2))
    var outputs: [Data] = []
    var counts: [DecodeStatistics] = [renderer.statistics]
    for i in 0..<2 {
      let output = folder.appendingPathComponent("half-\(i).jpg")
      try renderer.write(Image(contentsOf: input).scaled(by: 0.5), to: output)
      outputs.append(try Data(contentsOf: output))
      counts.append(renderer.statistics)
    }
    XCTAssertEqual(counts[1].decodes - counts[0].decodes, 2, "the first write decodes the base and the map")
    XCTAssertEqual(counts[2].decodes - counts[1].decodes, 0, "the second write decodes nothing")
    XCTAssertEqual(counts[2].hits - counts[1].hits, 2, "the base and the map both come from the cache")
    XCTAssertEqual(outputs[0], outputs[1])
    let result = try UltraHDRRoundTripTests.check(input, folder.appendingPathComponent("half-1.jpg"))
    let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
    print("decode cache: second write's HDR rendition \(psnr) dB from the input's resized")
    XCTAssertGreaterThanOrEqual(psnr, 35)
  }

  /// An Ultra HDR file 1024×768 whose gray 256×192 map is a smooth picture of its own (bright
  /// spots on a ramp: boosts 2^0…2^2, headroom 2^2), the base a colour ramp.
  static func largePhoto() throws -> Data {
    var base = PixelBuffer(width: 1024, height: 768, format: .rgb8), map = PixelBuffer(width: 256, height: 192, format: .gray8)
    base.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<768 {
        for x in 0..<1024 { (p[row: y][3 * x], p[row: y][3 * x + 1], p[row: y][3 * x + 2]) = (UInt8(40 + x / 5), UInt8(30 + y / 4), 110) }
      }
    }
    map.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<192 {
        for x in 0..<256 {
          let spots = exp(-(pow(Double(x) - 80, 2) + pow(Double(y) - 60, 2)) / 800) + exp(-(pow(Double(x) - 190, 2) + pow(Double(y) - 140, 2)) / 1500)
          p[row: y][x] = UInt8(min(255, 40 * Double(x) / 255 + 215 * spots))
        }
      }
    }
    let renderer = Renderer(options: RendererOptions(threads: 2))
    var options = WriteOptions(format: .jpeg, options: ["quality": 95])
    options.keptMetadata = []
    return try UltraHDRFile.assemble(
      primary: renderer.encode(Image(buffer: base), format: .jpeg, options: options), map: renderer.encode(Image(buffer: map), format: .jpeg, options: options),
      metadata: GainMapMetadata(gainMapMax: [2, 2, 2], hdrCapacityMax: 2))
  }

  /// A thumbnail an eighth of the size: the base is decoded at a quarter (JPEG's DCT scaling, twice
  /// the target kept) and so is the map (its 256×192 read as 64×48 for a 32×24 output), not in full.
  /// The map so made is within 40 dB of the map made from a full decode (stored samples), and the
  /// output's HDR rendition is 35 dB or better from the input's resized (libultrahdr). The same
  /// renderer then writes a half-size copy: the map is decoded again at its own reduction (a cache
  /// entry per scale), and the file is the one a fresh renderer writes. With the map's scale
  /// refusing shrink-on-load (`ScaleOperation.mapped` passing false), seen failing: denominator 1.
  func testShrinkOnLoadShrinksTheMapWithTheBase() throws {
    let folder = try temporaryFolder()
    let input = folder.appendingPathComponent("large.jpg")
    try Self.largePhoto().write(to: input)
    let renderer = Renderer(options: RendererOptions(threads: 2))
    let image = try Image(contentsOf: input).scaled(by: 0.125)
    let map = try XCTUnwrap(image.gainMapBranch().branch).map
    let baseSources = Self.sources(renderer.optimized(image)), mapSources = Self.sources(renderer.optimized(map))
    XCTAssertEqual(baseSources.map(\.scaleDenominator), [4], "the base is decoded at a quarter")
    XCTAssertEqual(mapSources.map(\.scaleDenominator), [4], "the map is decoded at a quarter too")

    let output = folder.appendingPathComponent("eighth.jpg")
    try renderer.write(image, to: output)
    let shrunk = try GainMapGeometryTests.decode(Data(contentsOf: output))
    XCTAssertEqual(shrunk.map.size, Size(width: 32, height: 24))
    let full = Renderer(options: RendererOptions(threads: 2, optimizer: OptimizerOptions(shrinkOnLoad: false)))
    let unshrunk = try GainMapGeometryTests.decode(full.encode(image, format: .jpeg))
    let agreement = Self.psnr(shrunk.map, unshrunk.map)
    print("shrink-on-load: the map decoded at a quarter is \(agreement) dB from the map decoded in full")
    XCTAssertGreaterThanOrEqual(agreement, 40)
    let result = try UltraHDRRoundTripTests.check(input, output)
    let psnr = try XCTUnwrap(result["psnr_ic"] as? Double)
    print("shrink-on-load: HDR rendition \(psnr) dB from the input's resized")
    XCTAssertGreaterThanOrEqual(psnr, 35)

    let half = try Image(contentsOf: input).scaled(by: 0.5)
    let before = renderer.statistics
    let again = try renderer.encode(half, format: .jpeg)
    XCTAssertEqual(renderer.statistics.decodes - before.decodes, 2, "base and map at another reduction: two more decodes")
    XCTAssertEqual(again, try Renderer(options: RendererOptions(threads: 2)).encode(half, format: .jpeg))
  }

  /// PSNR of two 8-bit buffers of one size and format (255 peak).
  static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    precondition(a.size == b.size && a.channelCount == b.channelCount)
    var se = 0.0
    a.withUnsafePixels(as: UInt8.self) { p in
      b.withUnsafePixels(as: UInt8.self) { q in
        for y in 0..<a.height {
          for x in 0..<(a.width * a.channelCount) {
            let d = Double(p[row: y][x]) - Double(q[row: y][x])
            se += d * d
          }
        }
      }
    }
    let mse = se / Double(a.width * a.height * a.channelCount)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
  }

  /// Every gain-map path through recipes — recomputed (exposure past white), transformed with new
  /// areas (rotate by an angle), resampled, rerendered (invert; a blur at the map's resolution),
  /// windowed (smartcrop), flattened (round corners) and overlaid (a logo off the map's pixel grid)
  /// — gives the same map, byte for byte, rendered as one tile or as 32×16 tiles, and the same base;
  /// each map varies (not a flat "no boost").
  func testTheMapIsTheSameHoweverTheRenderIsTiled() throws {
    let input = try Image(contentsOf: Fixtures.url("uhdr/vips.jpg"))
    let context = FilterContext(baseDirectory: URL(fileURLWithPath: "."))
    var images = try [
      "exposure ev=1\nrotate angle=10 background=black\nscale 0.5", "invert\nblur sigma=3", "smartcrop size=120x100\nroundcorners radius=12",
    ].map { try Recipe.parse($0, file: nil).compile(input: input, context: context) }
    let logo = Image(color: Color(red: 0.8, green: 0.7, blue: 0.6), size: Size(width: 37, height: 29))
    images.append(input.overlaid(with: logo, gravity: .northWest, offset: Point(x: 51, y: 22)))
    let whole = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 4096, height: 4096)))
    let tiled = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 32, height: 16)))
    for (i, image) in images.enumerated() {
      XCTAssertNotNil(image.gainMapBranch().branch, "\(i)")
      let one = try GainMapGeometryTests.decode(whole.encode(image, format: .jpeg))
      let many = try GainMapGeometryTests.decode(tiled.encode(image, format: .jpeg))
      XCTAssertTrue(one.map.hasSamePixels(as: many.map), "recipe \(i): the map differs between one tile and many (\(Self.psnr(one.map, many.map)) dB)")
      XCTAssertTrue(one.base.hasSamePixels(as: many.base), "recipe \(i): the base")
      XCTAssertEqual(one.gainMap.metadata, many.gainMap.metadata, "recipe \(i)")
      var (low, high) = (UInt8.max, UInt8.min)
      one.map.withUnsafePixels(as: UInt8.self) { p in
        for y in 0..<one.map.height { for x in 0..<(one.map.width * one.map.channelCount) { (low, high) = (min(low, p[row: y][x]), max(high, p[row: y][x])) } }
      }
      XCTAssertGreaterThan(Int(high) - Int(low), 8, "recipe \(i): the map is not flat")
    }
  }
}
