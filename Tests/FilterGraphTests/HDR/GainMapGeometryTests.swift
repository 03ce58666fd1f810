// GainMapGeometryTests.swift — the gain map follows every geometry filter that keeps it: a base and
// its quarter-size map painted with the same picture come out of each recipe still showing the same
// picture (the map compared with the output base sampled at the map's pixel centres); filters that
// cannot carry the map write SDR with a warning; colour filters carry it unchanged.
import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import XCTest

final class GainMapGeometryTests: XCTestCase {
  let renderer = Renderer(options: RendererOptions(threads: 2))

  /// The picture: a smooth ramp, asymmetric along both axes (a flip or turn changes it everywhere).
  static func paint(width: Int, height: Int, channels: Int) -> PixelBuffer {
    var buffer = PixelBuffer(width: width, height: height, format: channels == 1 ? .gray8 : .rgb8)
    buffer.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<height {
        for x in 0..<width {
          let u = (Double(x) + 0.5) / Double(width), v = (Double(y) + 0.5) / Double(height)
          let value = UInt8(30 + 140 * u + 80 * v * v)
          for c in 0..<channels { p[row: y][x * channels + c] = value }
        }
      }
    }
    return buffer
  }

  /// An Ultra HDR JPEG whose 256×192 base and 64×48 map both show the picture.
  func paintedFile(_ metadata: GainMapMetadata = GainMapMetadata(gainMapMax: [2, 2, 2], hdrCapacityMax: 2)) throws -> Data {
    var options = WriteOptions(format: .jpeg, options: ["quality": 98, "chroma": "444"])
    options.keptMetadata = []
    let base = try renderer.encode(Image(buffer: Self.paint(width: 256, height: 192, channels: 3)), format: .jpeg, options: options)
    let map = try renderer.encode(Image(buffer: Self.paint(width: 64, height: 48, channels: 1)), format: .jpeg, options: options)
    return try UltraHDRFile.assemble(primary: base, map: map, metadata: metadata)
  }

  static func decode(_ data: Data) throws -> (base: PixelBuffer, map: PixelBuffer, gainMap: GainMapImage) {
    let header = try JPEGCodec.readHeader(data, request: DecodeRequest())
    let gainMap = try XCTUnwrap(header.gainMap)
    let decoder = try JPEGDecoder(data: data)
    try decoder.start()
    var base = try decoder.makeBuffer()
    _ = try decoder.readRows(base.height, into: &base)
    return (base, try UltraHDR.decodeMap(gainMap, in: data), gainMap)
  }

  /// PSNR of the map against the base's first channel sampled bilinearly at each map pixel's centre.
  static func agreement(base: PixelBuffer, map: PixelBuffer) -> Double {
    var se = 0.0
    base.withUnsafePixels(as: UInt8.self) { b in
      map.withUnsafePixels(as: UInt8.self) { m in
        for j in 0..<map.height {
          for i in 0..<map.width {
            let x = min(max((Double(i) + 0.5) * Double(base.width) / Double(map.width) - 0.5, 0), Double(base.width - 1))
            let y = min(max((Double(j) + 0.5) * Double(base.height) / Double(map.height) - 0.5, 0), Double(base.height - 1))
            let x0 = Int(x), y0 = Int(y), x1 = min(x0 + 1, base.width - 1), y1 = min(y0 + 1, base.height - 1)
            let fx = x - Double(x0), fy = y - Double(y0)
            func at(_ xx: Int, _ yy: Int) -> Double { Double(b[row: yy][xx * base.channelCount]) }
            let expected = (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy
            let d = expected - Double(m[row: j][i * map.channelCount])
            se += d * d
          }
        }
      }
    }
    return 10 * log10(255 * 255 / (se / Double(map.width * map.height)))
  }

  func testEveryGeometryFilterMovesTheMapWithTheBase() throws {
    let file = try paintedFile()
    let source = try Self.decode(file)
    XCTAssertGreaterThan(Self.agreement(base: source.base, map: source.map), 38, "the painted file itself")
    let recipes = [
      "scale 0.5", "scale size=100x140", "scale fit=90x90", "scale fill=100x100", "crop size=120x80 x=32 y=20",
      "crop size=128x96 gravity=southeast", "rotate 90", "rotate 180", "rotate -90", "flip", "flip axis=vertical", "orient 5",
      "rotate 90\ncrop size=96x128 x=40\nscale 0.5", "extend top=8 right=4 bottom=12 left=16 mode=mirror",
      "extend top=8 left=16 mode=copy", "extend top=8 right=20 mode=color color=black", "pad size=304x200",
      "pad size=320x240 gravity=southeast", "pad square=true\nscale 0.5", "rotate 10 background=black",
      "rotate angle=-33 background=black\nscale 0.5", "affine matrix=0.8,0.3,-0.2,1.1 background=black",
      "affine matrix=1.2,0,0,0.8 translate=16,8 size=300x160 background=black",
    ]
    for line in recipes {
      let image = try Recipe.parse(line, file: nil).compile(input: Image(data: file), context: FilterContext(baseDirectory: URL(fileURLWithPath: ".")))
      let out = try Self.decode(renderer.encode(image, format: .jpeg))
      XCTAssertEqual(out.base.size, image.size, line)
      // The map keeps a quarter of the base's resolution (a side rounds to a whole map pixel).
      XCTAssertEqual(Double(out.map.width), Double(out.base.width) / 4, accuracy: 1.5, line)
      XCTAssertEqual(Double(out.map.height), Double(out.base.height) / 4, accuracy: 1.5, line)
      XCTAssertGreaterThan(Self.agreement(base: out.base, map: out.map), 30, line)
      XCTAssertEqual(out.gainMap.metadata, source.gainMap.metadata, line)
    }
  }

  /// Colour filters carry the map unchanged; filters the map cannot follow, and formats that cannot
  /// carry it, give an SDR file and a warning; `--hdr sdr` gives it without one.
  func testMapsCarriedDroppedAndWarned() throws {
    let file = try paintedFile()
    let source = try Self.decode(file)
    let heard = NSLock()
    nonisolated(unsafe) var warnings: [String] = []
    let listening = Renderer(options: RendererOptions(threads: 2)) { message in heard.withLock { warnings.append(message) } }
    func run(_ line: String, format: ImageFileFormat = .jpeg, hdr: HDROutput = .keep) throws -> Data {
      heard.withLock { warnings = [] }
      let image = try Recipe.parse(line, file: nil).compile(input: Image(data: file), context: FilterContext(baseDirectory: URL(fileURLWithPath: ".")))
      var options = WriteOptions(format: format)
      options.hdr = hdr
      return try listening.encode(image, format: format, options: options)
    }
    let tinted = try Self.decode(run("saturate amount=0.5\nbrightness amount=0.1"))
    XCTAssertTrue(tinted.map.hasSamePixels(as: try Self.decode(run("scale factor=1")).map))
    XCTAssertEqual(tinted.map.size, source.map.size)
    for line in ["convolve preset=edges"] {
      let out = try run(line)
      XCTAssertNil(try JPEGCodec.readHeader(out, request: DecodeRequest()).gainMap, line)
      XCTAssertEqual(heard.withLock { warnings.count }, 1, line)
      XCTAssertTrue(heard.withLock { warnings.first?.contains("the gain map (HDR) is not written") ?? false }, line)
      // The warning says why: an edge map is no picture of the scene's light.
      XCTAssertTrue(heard.withLock { warnings.first?.contains("draws where the picture changes, not the scene's light") ?? false }, line)
    }
    _ = try run("scale 0.5", format: .png)
    XCTAssertTrue(heard.withLock { warnings.first?.contains("png output cannot carry it") ?? false })
    let sdr = try run("scale 0.5", hdr: .sdr)
    XCTAssertNil(try JPEGCodec.readHeader(sdr, request: DecodeRequest()).gainMap)
    XCTAssertEqual(heard.withLock { warnings }, [])
  }

  /// New areas (pad, extend with a colour) are SDR content: their map is the value meaning no boost,
  /// ((0 − min) / (max − min))^gamma — here 0.5² of 255 = 64 for boosts 2^−1…2^1, gamma 2 —
  /// whatever colour the base gets there.
  func testNewAreasGetTheNeutralMapValue() throws {
    let file = try paintedFile(GainMapMetadata(gainMapMin: [-1, -1, -1], gainMapMax: [1, 1, 1], gamma: [2, 2, 2], hdrCapacityMax: 1))
    for line in ["pad size=320x192 gravity=east color=white", "extend left=64 mode=color color=red"] {
      let image = try Recipe.parse(line, file: nil).compile(input: Image(data: file), context: FilterContext(baseDirectory: URL(fileURLWithPath: ".")))
      let out = try Self.decode(renderer.encode(image, format: .jpeg, options: WriteOptions(format: .jpeg, options: ["quality": 98])))
      XCTAssertEqual(out.map.size, Size(width: 80, height: 48), line)
      out.map.withUnsafePixels(as: UInt8.self) { m in
        for y in [0, 20, 47] {
          for x in [0, 7, 14] { XCTAssertEqual(Double(m[row: y][x * out.map.channelCount]), 64, accuracy: 3, "\(line) at \(x),\(y)") }
        }
      }
    }
  }

  /// A graph 60,000 filters deep: the walk that finds the map does not recurse once per node; and
  /// crops repeated on the map land where the base's do.
  func testDeepGraphsAndRepeatedCrops() throws {
    var image = try Image(data: paintedFile())
    for _ in 0..<60_000 { image = image.applying(InvertOperationForTests()) }
    XCTAssertNotNil(image.gainMapBranch().branch)
    var shared = try Image(data: paintedFile())
    for _ in 0..<40 { shared = shared.applying(CropOperation(.setting { $0.size = Size(width: 64, height: 64) }), with: []) }
    XCTAssertEqual(shared.gainMapBranch().branch?.map.size, Size(width: 16, height: 16))
  }
}

/// A point operation that leaves pixels as they are (only its position in the graph matters).
private struct InvertOperationForTests: PointOperation, GainMapCarrying {
  var carriesGainMap: Bool { true }
  static let table = OperationDescriptor(name: "identity-for-tests", category: .color, summary: "Nothing.", parameters: [], example: "")
  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { Arguments([]) }
  var workingSpace: WorkingSpace? { nil }
  func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {}
}
