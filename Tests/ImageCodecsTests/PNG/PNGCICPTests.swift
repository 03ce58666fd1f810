// PNGCICPTests.swift — a PNG whose cICP chunk says PQ or HLG is read as HDR (its header names the
// transfer, the decoder tone-maps it, the `gain-map` option reads its map), an SDR cICP is not; the
// files are built by scripts/png-cicp.py (Python's standard library, chunk by chunk). The pixels are
// checked against an independent computation in HDRSourceTests.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class PNGCICPTests: XCTestCase {
  func png(primaries: Int, transfer: Int) throws -> Data {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cicp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try ChildProcess.run(
      "python3", [root.appendingPathComponent("scripts/png-cicp.py").path, "out.png", String(primaries), String(transfer)], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    return try Data(contentsOf: folder.appendingPathComponent("out.png"))
  }

  func testHDRTransfersAreToneMapped() throws {
    for (code, transfer) in [(16, HDRTransfer.pq), (18, .hlg)] {
      let data = try png(primaries: 9, transfer: code)
      let header = try PNGCodec.readHeader(data, request: DecodeRequest())
      XCTAssertEqual(header.size.width, 32)
      XCTAssertEqual(header.hdrTransfer, transfer)
      XCTAssertEqual(header.warnings, [])
      let decoded = try PNGCodec.makeDecoder(data, request: DecodeRequest()).decodeAll()
      // The brightest white (signal 1: 10000 cd/m² in PQ, 1000 in HLG) is SDR white after tone mapping.
      decoded.withUnsafePixels(as: UInt16.self) { p in XCTAssertEqual((93..<96).map { p[row: 0][$0] }, [65535, 65535, 65535], "\(transfer)") }
    }
    let sdr = try PNGCodec.readHeader(png(primaries: 1, transfer: 13), request: DecodeRequest())
    XCTAssertNil(sdr.hdrTransfer)
  }

  func testGainMapIsReadOnlyFromHDR() throws {
    let request = DecodeRequest(options: ["gain-map": .boolean(true)])
    let header = try PNGCodec.readHeader(png(primaries: 9, transfer: 16), request: request)
    XCTAssertEqual(header.layout, .rgb)
    XCTAssertEqual(header.component, .uint8)
    XCTAssertNil(header.hdrTransfer)
    let map = try PNGCodec.makeDecoder(png(primaries: 9, transfer: 16), request: request).decodeAll()
    XCTAssertEqual(map.format, PixelFormat(layout: .rgb, component: .uint8))
    XCTAssertThrowsError(try PNGCodec.makeDecoder(png(primaries: 1, transfer: 13), request: request)) {
      XCTAssertTrue("\($0)".contains("not HDR"), "\($0)")
    }
  }
}
