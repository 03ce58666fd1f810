// PNGCICPTests.swift — a PNG whose cICP chunk says PQ or HLG is read with a warning (not tone-mapped
// yet), an SDR cICP without one; the files are built by scripts/png-cicp.py (Python's standard
// library, chunk by chunk).
import Foundation
import ImageCodecs
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

  func testHDRTransfersAreWarned() throws {
    for (transfer, name) in [(16, "PQ"), (18, "HLG")] {
      let header = try PNGCodec.readHeader(png(primaries: 9, transfer: transfer), request: DecodeRequest())
      XCTAssertEqual(header.size.width, 4)
      XCTAssertTrue(header.warnings.contains { $0.contains("cICP chunk says its signal is \(name)") }, "\(header.warnings)")
    }
    let sdr = try PNGCodec.readHeader(png(primaries: 1, transfer: 13), request: DecodeRequest())
    XCTAssertFalse(sdr.warnings.contains { $0.contains("cICP") })
  }
}
