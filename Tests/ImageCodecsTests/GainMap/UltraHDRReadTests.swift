// UltraHDRReadTests.swift — Ultra HDR JPEGs made by libultrahdr and by libvips 8.18 (the fixtures
// and references of scripts/hdr-references.py) read as those libraries read them: the base and the
// map pixel for pixel as libvips's uhdrload decodes them, the metadata as libvips reports it, and
// the HDR rendition against imagecodecs' libultrahdr decoder and libvips's uhdr2scRGB.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class UltraHDRReadTests: XCTestCase {
  /// The fixture's bytes, header and decoded base.
  func load(_ name: String) throws -> (Data, ImageHeader, PixelBuffer) {
    let data = try Fixtures.data("uhdr/\(name).jpg")
    let header = try JPEGCodec.readHeader(data, request: DecodeRequest())
    let decoder = try JPEGDecoder(data: data)
    try decoder.start()
    var base = try decoder.makeBuffer()
    _ = try decoder.readRows(base.height, into: &base)
    return (data, header, base)
  }

  /// A reference rendition: float16 little-endian RGB rows.
  func rendition(_ file: String) throws -> [Float] {
    let data = try Fixtures.data("uhdr/\(file).f16")
    return data.withUnsafeBytes { raw in (0..<data.count / 2).map { Float(Float16(bitPattern: raw.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self))) } }
  }

  func testMetadataEqualsLibvips() throws {
    for name in ["libultrahdr", "vips"] {
      let (_, header, _) = try load(name)
      let map = try XCTUnwrap(header.gainMap, name)
      let fields = try XCTUnwrap(JSONSerialization.jsonObject(with: Fixtures.data("uhdr/\(name).json")) as? [String: Any])
      func list(_ key: String) -> [Double] { fields[key] as? [Double] ?? [] }
      func near(_ a: [Double], _ b: [Double], _ what: String) {
        XCTAssertEqual(a.count, b.count, "\(name) \(what)")
        for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: 1e-6 * max(1, abs(y)), "\(name) \(what)") }
      }
      let m = map.metadata
      near(m.gainMapMax.map(exp2), list("gainmap-max-content-boost"), "max boost")
      near(m.gainMapMin.map(exp2), list("gainmap-min-content-boost"), "min boost")
      near(m.gamma, list("gainmap-gamma"), "gamma")
      near(m.offsetSDR, list("gainmap-offset-sdr"), "offset SDR")
      near(m.offsetHDR, list("gainmap-offset-hdr"), "offset HDR")
      near([exp2(m.hdrCapacityMin), exp2(m.hdrCapacityMax)], [fields["gainmap-hdr-capacity-min"] as? Double ?? 0, fields["gainmap-hdr-capacity-max"] as? Double ?? 0], "capacity")
      XCTAssertEqual(m.usesBaseColorSpace, (fields["gainmap-use-base-cg"] as? Int) == 1, name)
      XCTAssertEqual(map.metadataSource, "ISO 21496-1", name)
      XCTAssertFalse(m.baseRenditionIsHDR)
    }
  }

  func testBaseAndMapPixelsEqualLibvips() throws {
    for name in ["libultrahdr", "vips"] {
      let (data, header, base) = try load(name)
      let expectedBase = try PNGDecoder.decode(Fixtures.data("uhdr/\(name).base.png"))
      XCTAssertTrue(base.hasSamePixels(as: expectedBase), "\(name): base")
      let map = try UltraHDR.decodeMap(XCTUnwrap(header.gainMap), in: data)
      let expectedMap = try PNGDecoder.decode(Fixtures.data("uhdr/\(name).map.png"))
      XCTAssertEqual(map.size, expectedMap.size, name)
      XCTAssertTrue(map.hasSamePixels(as: expectedMap), "\(name): map")
    }
    XCTAssertEqual(try load("vips").1.gainMap?.size, Size(width: 48, height: 32))
  }

  /// Full headroom, linear light, PSNR over the reference's peak. libvips upsamples the quarter-size
  /// map with its own `resize` (a pixel-centre convention an eighth of a pixel apart, rounded to
  /// 8 bits), hence 50 dB rather than more; libultrahdr converts to its output primaries, ≈ 2 % per
  /// channel, hence 40.
  func testHDRRenditionMatchesLibultrahdrAndLibvips() throws {
    for (name, reference, floor) in [("libultrahdr", "libultrahdr.ic", 40.0), ("vips", "vips.ic", 40.0), ("vips", "vips.vips", 50.0)] {
      let (data, header, base) = try load(name)
      let gainMap = try XCTUnwrap(header.gainMap)
      let map = try UltraHDR.decodeMap(gainMap, in: data)
      let ours = floats(try GainMapRendition.render(base: base, map: map, metadata: gainMap.metadata))
      let theirs = try rendition(reference)
      let db = psnr(ours, theirs)
      print("UltraHDR rendition PSNR \(name) vs \(reference): \(db) dB")
      XCTAssertGreaterThanOrEqual(db, floor, "\(name) against \(reference)")
      // The SDR base alone is far from it: the map matters.
      let sdr = floats(try GainMapRendition.render(base: base, map: map, metadata: gainMap.metadata, displayHeadroom: 0))
      XCTAssertLessThan(psnr(sdr, theirs), 30, "\(name): the SDR rendition")
    }
  }

  /// libvips's uhdr2scRGB renders the libultrahdr file (RGB map) at a display headroom of 2
  /// (log2 1), not at the map's full 49×: our rendition at that headroom is its.
  func testLibvipsRendersTheLibultrahdrFileAtHeadroomTwo() throws {
    let (data, header, base) = try load("libultrahdr")
    let gainMap = try XCTUnwrap(header.gainMap)
    let map = try UltraHDR.decodeMap(gainMap, in: data)
    let ours = floats(try GainMapRendition.render(base: base, map: map, metadata: gainMap.metadata, displayHeadroom: 1))
    XCTAssertGreaterThanOrEqual(psnr(ours, try rendition("libultrahdr.vips")), 40)
  }

  /// A rendition the system cannot give (a base of 2²² × 2²² pixels: 192 TB of floats) throws
  /// `PixelAllocationError`, which fgrun reports, instead of stopping the process. The base claims
  /// rows it does not have: the refusal comes before any pixel is read.
  func testARenditionTheSystemRefusesThrows() throws {
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    let metadata = try XCTUnwrap(try load("vips").1.gainMap).metadata
    let side = 1 << 22
    let block = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)
    let storage = PixelStorage(adopting: block, byteCount: side * side) { $0.deallocate() }
    let base = PixelBuffer(storage: storage, width: side, height: side, rowBytes: side, format: .gray8)
    let map = PixelBuffer(width: 1, height: 1, format: .gray8)
    XCTAssertThrowsError(try GainMapRendition.render(base: base, map: map, metadata: metadata)) { error in
      XCTAssertNotNil(error as? PixelAllocationError, "\(error)")
    }
  }

  /// The rendition's floats, rows of RGB packed.
  func floats(_ rendition: PixelBuffer) -> [Float] {
    rendition.withUnsafePixels(as: Float.self) { p in (0..<rendition.height).flatMap { Array(UnsafeBufferPointer(start: p[row: $0], count: rendition.width * 3)) } }
  }

  func psnr(_ a: [Float], _ b: [Float]) -> Double {
    precondition(a.count == b.count)
    var se = 0.0
    var peak = 0.0
    for i in a.indices {
      let d = Double(a[i]) - Double(b[i])
      se += d * d
      peak = max(peak, Double(b[i]))
    }
    return 10 * log10(peak * peak / (se / Double(a.count)))
  }

  /// A Pixel 6 Pro's packets (XMP only, no ISO 21496-1): the values libvips reads from that photo
  /// (max content boost 6.305955, offsets 0), and a primary packet that keeps its other properties
  /// when its gain-map declaration is replaced.
  func testPixelPackets() throws {
    let map = try XCTUnwrap(try GainMapXMP.metadata(Fixtures.data("uhdr/pixel6pro-map.xmp")))
    XCTAssertEqual(exp2(map.gainMapMax[0]), 6.305955410003662, accuracy: 1e-5)
    XCTAssertEqual(exp2(map.hdrCapacityMax), 6.305955410003662, accuracy: 1e-5)
    XCTAssertEqual(map.offsetSDR, [0, 0, 0])
    XCTAssertEqual(map.gamma, [1, 1, 1])
    let primary = try Fixtures.data("uhdr/pixel6pro-primary.xmp")
    XCTAssertEqual(GainMapXMP.gainMapItemLength(primary), 62570)
    XCTAssertNil(try GainMapXMP.metadata(Data(GainMapXMP.removingGainMapDescriptions(String(decoding: primary, as: UTF8.self)).utf8)))
    let rewritten = String(decoding: GainMapXMP.primaryPacket(gainMapLength: 1234, merging: primary), as: UTF8.self)
    XCTAssertTrue(rewritten.contains("xmpNote:HasExtendedXMP=\"BA3F34D72C675C9BB1B76C15723D23E5\""), rewritten)
    XCTAssertEqual(GainMapXMP.gainMapItemLength(Data(rewritten.utf8)), 1234)
    XCTAssertEqual(rewritten.components(separatedBy: "Container:Directory>").count, 3, "one directory: " + rewritten)
    XCTAssertEqual(GainMapXMP.version(Data(rewritten.utf8)), "1.0")
  }
}
