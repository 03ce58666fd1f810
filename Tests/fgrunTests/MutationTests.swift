// MutationTests.swift — a few hundred seeded mutants of real files in every format fgrun reads
// (bit flips, overwritten runs, truncations, duplicated and inserted spans), run as one fgrun
// batch: each file either renders or fails as an input error (exit class 65) with a message;
// never a signal, a hang, an internal error, or a file left behind.

import Foundation
import TestSupport
import XCTest

final class MutationTests: XCTestCase {
  /// One real file per format and feature; every mutant starts from one of these.
  static let seeds = [
    "jpeg/testorig.jpg", "jpeg/testprog.jpg", "jpeg/cmyk-adobe.jpg",
    "pngsuite/basn2c08.png", "pngsuite/basi6a16.png", "pngsuite/basn3p04.png",
    "webp/lossy.webp", "webp/lossless-alpha.webp", "webp/animated.webp", "webp/metadata.webp",
    "gif/transparent.gif", "gif/interlaced.gif",
    "tiff/rgb16-lzw.tif", "tiff/rgb8-deflate-tiled.tif", "tiff/rgb8-jpeg.tif", "tiff/multipage.tif", "tiff/palette8.tif",
  ]

  /// Each seed's mutants: `count` variants, the same on every run (seeded).
  static func mutants(of data: Data, count: Int, generator: inout SeededGenerator) -> [Data] {
    (0..<count).map { _ in
      var bytes = [UInt8](data)
      func position() -> Int { Int(generator.next() % UInt64(max(bytes.count, 1))) }
      switch generator.next() % 5 {
      case 0:  // flip 1–8 bits
        for _ in 0...(generator.next() % 8) { bytes[position()] ^= 1 << UInt8(generator.next() % 8) }
      case 1:  // overwrite a run with 0x00, 0xFF or noise
        let start = position(), length = min(Int(1 + generator.next() % 16), bytes.count - start)
        let fill = generator.next() % 3
        for i in start..<(start + length) {
          bytes[i] = fill == 0 ? 0 : fill == 1 ? 0xFF : UInt8(truncatingIfNeeded: generator.next())
        }
      case 2:  // truncate
        bytes.removeLast(bytes.count - position())
      case 3:  // duplicate a span at another place
        let start = position(), length = min(Int(1 + generator.next() % 64), bytes.count - start)
        bytes.insert(contentsOf: bytes[start..<(start + length)], at: position())
      default:  // insert noise
        let noise = (0..<(1 + generator.next() % 8)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        bytes.insert(contentsOf: noise, at: position())
      }
      return Data(bytes)
    }
  }

  func testMutatedFilesRenderOrFailAsInputErrorsAndLeaveNothingBehind() throws {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-mutants-\(UUID().uuidString)")
    let inputs = folder.appendingPathComponent("in"), outputs = folder.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }

    var generator = SeededGenerator(seed: 0x5EED)
    var names: [String] = []
    for seed in Self.seeds {
      let original = try Fixtures.data(seed)
      let stem = seed.replacingOccurrences(of: "/", with: "-")
      for (i, mutant) in Self.mutants(of: original, count: 18, generator: &generator).enumerated() {
        let name = "\(i)-\(stem)"
        try mutant.write(to: inputs.appendingPathComponent(name))
        names.append(name)
      }
    }
    XCTAssertGreaterThanOrEqual(names.count, 300)
    try names.map { "in/\($0)" }.joined(separator: "\n").write(
      to: folder.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)

    // One batch: fit into 64×64 and write PNG. A hang would hit the per-file timeout (a failure
    // of class `timeout`) or the outer `timeout`.
    let run = try ChildProcess.run(
      "/usr/bin/timeout",
      ["600", binary, "-e", "scale fit=64x64", "--manifest", "list.txt", "-o", "out", "--format", "png",
       "--report", "report.jsonl", "--timeout", "60", "--jobs", "2"],
      in: folder)
    XCTAssertTrue([0, 1].contains(run.status), "exit \(run.status): \(run.stderr.suffix(2000))")

    let lines = try String(contentsOf: folder.appendingPathComponent("report.jsonl"), encoding: .utf8)
      .split(separator: "\n")
    XCTAssertEqual(lines.count, names.count, "one report line per mutant")
    var ok = Set<String>(), failed = 0
    for line in lines {
      let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let input = object["input"] as? String ?? "?"
      switch object["status"] as? String {
      case "ok":
        ok.insert(try XCTUnwrap(object["output"] as? String))
      case "failed":
        failed += 1
        XCTAssertEqual(object["class"] as? String, "input", "\(input): \(object["error"] ?? "")")
        XCTAssertEqual(object["exit"] as? Int, 65, input)
        XCTAssertFalse((object["error"] as? String ?? "").isEmpty, input)
      default:
        XCTFail("\(input): \(line)")
      }
    }
    // Mutants that still decode are written; the rest leave nothing, and no temporary remains.
    let written = try FileManager.default.contentsOfDirectory(atPath: outputs.path)
    XCTAssertEqual(Set(written.map { "out/\($0)" }), ok)
    XCTAssertGreaterThan(failed, names.count / 4, "most mutants should be broken")
    XCTAssertGreaterThan(ok.count, 0, "some mutants (in ancillary bytes) should still render")
  }
}
