// UltraHDRBombTests.swift — gain-map structures that lie: each is a bounded, clear error (or, for a
// whole file, a warning and an SDR read), never a crash; and the metadata encodings read back
// what they write, per channel.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class UltraHDRBombTests: XCTestCase {
  /// The vips fixture cut into its 192×128 base and 48×32 map JPEGs.
  func parts() throws -> (base: Data, map: Data) {
    let data = try Fixtures.data("uhdr/vips.jpg")
    let range = try XCTUnwrap(try JPEGCodec.readHeader(data, request: DecodeRequest()).gainMap).range
    return (data.subdata(in: 0..<range.lowerBound), data.subdata(in: range))
  }

  func gainMapError(_ data: Data, _ base: Size = Size(width: 192, height: 128)) -> String {
    do {
      _ = try UltraHDR.gainMap(in: data, baseSize: base)
      return "no error"
    } catch {
      return "\(error)"
    }
  }

  func replacing(_ data: Data, _ old: String, _ new: String) throws -> Data {
    precondition(old.utf8.count == new.utf8.count)
    let bytes = [UInt8](data), o = Array(old.utf8)
    let at = try XCTUnwrap((0...(bytes.count - o.count)).first { bytes[$0..<($0 + o.count)].elementsEqual(o) }, old)
    var out = bytes
    out.replaceSubrange(at..<(at + o.count), with: Array(new.utf8))
    return Data(out)
  }

  let metadata = GainMapMetadata(gainMapMax: [2.5, 2.5, 2.5], hdrCapacityMax: 2.5)

  func testAssembledFileReadsBack() throws {
    let (base, map) = try parts()
    let file = try UltraHDRFile.assemble(primary: base, map: map, metadata: metadata)
    let found = try XCTUnwrap(try UltraHDR.gainMap(in: file, baseSize: Size(width: 192, height: 128)))
    XCTAssertEqual(found.metadata, metadata)
    XCTAssertEqual(found.metadataSource, "ISO 21496-1")
    XCTAssertEqual(found.size, Size(width: 48, height: 32))
  }

  func testMapLargerThanBase() throws {
    let (base, map) = try parts()
    let file = try UltraHDRFile.assemble(primary: map, map: base, metadata: metadata)
    XCTAssertTrue(gainMapError(file, Size(width: 48, height: 32)).contains("192×128, larger than its 48×32 image"), gainMapError(file, Size(width: 48, height: 32)))
    // A whole file: a warning, and the image is the SDR base.
    let header = try JPEGCodec.readHeader(file, request: DecodeRequest())
    XCTAssertNil(header.gainMap)
    XCTAssertTrue(header.warnings.contains { $0.contains("larger than") && $0.contains("without its gain map") }, "\(header.warnings)")
  }

  func testMPFOffsetsOutsideTheFile() throws {
    let (base, map) = try parts()
    let file = try UltraHDRFile.assemble(primary: base, map: map, metadata: metadata)
    let cut = file.prefix(file.count - 200)
    XCTAssertTrue(gainMapError(cut).contains("outside the \(cut.count)-byte file"), gainMapError(cut))
    let index = MultiPictureIndex.payload(primaryLength: 100, gainMapLength: 1 << 30, tiffStart: 40)
    XCTAssertThrowsError(try MultiPictureIndex(payload: Array(index.dropFirst(4)), tiffStart: 40, fileLength: 5000))
    XCTAssertThrowsError(try MultiPictureIndex(payload: Array(index.dropFirst(4).prefix(30)), tiffStart: 40, fileLength: 5000))
  }

  func testMapChainedToAMap() throws {
    let (base, map) = try parts()
    let file = try UltraHDRFile.assemble(primary: base, map: map, metadata: metadata)
    let mapStart = try XCTUnwrap(try UltraHDR.gainMap(in: file, baseSize: Size(width: 192, height: 128))).range.lowerBound
    // Where the map was, a whole Ultra HDR file (its own MPF index lists its own map).
    let chained = file.prefix(mapStart) + (try Fixtures.data("uhdr/vips.jpg"))
    XCTAssertTrue(gainMapError(chained).contains("chained"), gainMapError(chained))
  }

  func testNaNAndInfiniteMetadata() throws {
    let (base, map) = try parts()
    let file = try UltraHDRFile.assemble(primary: base, map: map, metadata: metadata)
    XCTAssertTrue(gainMapError(try replacing(file, "GainMapMax=\"2.5\"", "GainMapMax=\"nan\"")).contains("GainMapMax is nan"))
    XCTAssertTrue(gainMapError(try replacing(file, "GainMapMax=\"2.5\"", "GainMapMax=\"inf\"")).contains("GainMapMax is inf"))
    for bad in ["nan", "inf", "-1", "0"] {
      let packet = "<x:xmpmeta><rdf:RDF><rdf:Description xmlns:hdrgm=\"\(GainMapXMP.namespace)\" hdrgm:Version=\"1.0\" hdrgm:Gamma=\"\(bad)\"/></rdf:RDF></x:xmpmeta>"
      XCTAssertThrowsError(try GainMapXMP.metadata(Data(packet.utf8)), bad)
    }
    var iso = GainMapISO.block(metadata)
    iso.replaceSubrange(9..<13, with: [0, 0, 0, 0])  // the base headroom's denominator
    XCTAssertThrowsError(try GainMapISO.metadata(ArraySlice(iso))) { XCTAssertTrue("\($0)".contains("zero denominator"), "\($0)") }
    XCTAssertThrowsError(try GainMapISO.metadata(ArraySlice(GainMapISO.block(metadata).dropLast(3))))
    XCTAssertThrowsError(try UltraHDRFile.assemble(primary: base, map: map, metadata: GainMapMetadata(gamma: [.nan, 1, 1])))
  }

  /// The ISO block wins over XMP that disagrees, and the source says so.
  func testISOWinsOverDisagreeingXMP() throws {
    let (base, map) = try parts()
    let file = try replacing(try UltraHDRFile.assemble(primary: base, map: map, metadata: metadata), "GainMapMax=\"2.5\"", "GainMapMax=\"3.5\"")
    let found = try XCTUnwrap(try UltraHDR.gainMap(in: file, baseSize: Size(width: 192, height: 128)))
    XCTAssertEqual(found.metadata.gainMapMax, [2.5, 2.5, 2.5])
    XCTAssertEqual(found.metadataSource, "ISO 21496-1 (its XMP disagrees and is ignored)")
  }

  /// Per-channel values, an HDR base, and fractions: written and read back exactly, both ways.
  func testEncodingsRoundTripPerChannel() throws {
    let m = GainMapMetadata(
      gainMapMin: [-0.5, 0, 0.25], gainMapMax: [2, 3.25, 1.5], gamma: [1, 2.2, 0.5], offsetSDR: [1.0 / 64, 0, 0.001], offsetHDR: [0.02, 1.0 / 64, 0],
      hdrCapacityMin: 0.5, hdrCapacityMax: 3.25, baseRenditionIsHDR: true, usesBaseColorSpace: false)
    let block = GainMapISO.block(m)
    XCTAssertEqual(block[4], 0x80, "multichannel, not the base colour space")
    XCTAssertEqual(try GainMapISO.metadata(ArraySlice(block)), m)
    var fromXMP = try XCTUnwrap(try GainMapXMP.metadata(GainMapXMP.gainMapPacket(m)))
    fromXMP.usesBaseColorSpace = false  // XMP has no such field
    XCTAssertEqual(fromXMP, m)
    XCTAssertNil(try GainMapISO.metadata(ArraySlice(GainMapISO.versionBlock)))
    XCTAssertEqual(GainMapISO.block(GainMapMetadata())[4], 0x40, "single channel, base colour space")
  }
}
