// HostileInputTests.swift — recipes and arguments made to exhaust fgrun (issue #28's findings):
// each ends in a clear error or a correct result, quickly and within bounded memory.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class HostileInputTests: XCTestCase {
  var folder: URL!

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-hostile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: folder)
  }

  /// `explain` refuses what `run` refuses, with the same sentence, before it walks the graph: a
  /// 10,000-statement chain (which a debug build's recursive printer overflowed its stack on).
  func testExplainRefusesTheGraphsRunRefuses() throws {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    let recipe = Array(repeating: "blur sigma=0.5", count: 10_000).joined(separator: "\n")
    try Data(recipe.utf8).write(to: file("deep.txt"))
    try PNGEncoder.encode(PixelBuffer.random(width: 8, height: 8, format: .rgb8, seed: 1)).write(to: file("in.png"))
    for statements in [10_000, 600] {
      try Data(recipe.split(separator: "\n").prefix(statements).joined(separator: "\n").utf8).write(to: file("deep.txt"))
      let explain = try ChildProcess.run(binary, ["explain", "deep.txt", "in.png"], in: folder)
      let run = try ChildProcess.run(binary, ["deep.txt", "in.png", "out.png"], in: folder)
      XCTAssertEqual(explain.status, 64, explain.stderr)
      XCTAssertEqual(run.status, 64, run.stderr)
      XCTAssertEqual(explain.stderr, run.stderr)
      XCTAssertTrue(run.stderr.contains(statements == 600 ? "more than 512 steps" : "more than 10000 images"), run.stderr)
    }
  }

  /// `nK = blend nK-1 nK-2` for K up to 40 (1.7 kB of recipe, about 10⁸ paths through the graph)
  /// explains and renders: the planning is linear in the graph's nodes and edges.
  func testARecipeThatReusesItsImagesRendersAndExplains() throws {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    var lines = ["n0 = input", "n1 = blur sigma=0.5 of=n0"]
    for k in 2...40 { lines.append("n\(k) = blend mode=screen n\(k - 1) n\(k - 2) opacity=0.5") }
    try Data(lines.joined(separator: "\n").utf8).write(to: file("shared.txt"))
    let explain = try ChildProcess.run(binary, ["explain", "shared.txt"], in: folder)
    XCTAssertEqual(explain.status, 0, explain.stderr)
    XCTAssertTrue(explain.text.contains("computed once"), explain.text)
    try PNGEncoder.encode(PixelBuffer.random(width: 32, height: 24, format: .rgb8, seed: 2)).write(to: file("in.png"))
    let run = try ChildProcess.run(binary, ["shared.txt", "in.png", "out.png"], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(try Image(contentsOf: file("out.png")).size, Size(width: 32, height: 24))
  }

  /// Standard output on a full device or a closed pipe, and a report on a full device: exit 73
  /// saying what was lost, not exit 0.
  func testLostOutputOfEveryCommandIsExit73() throws {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    try PNGEncoder.encode(PixelBuffer.random(width: 16, height: 16, format: .rgb8, seed: 3)).write(to: file("in.png"))
    for command in ["filters", "formats", "info --json in.png", "explain -e orient in.png"] {
      let full = try ChildProcess.run("/bin/bash", ["-c", "exec \"$0\" \(command) > /dev/full", binary], in: folder)
      XCTAssertEqual(full.status, 73, "\(command): \(full.stderr)")
      XCTAssertTrue(full.stderr.contains("Cannot write standard output: No space left on device."), full.stderr)
      // The reader has gone before the first write: EPIPE (SIGPIPE is ignored).
      let pipe = try ChildProcess.run(
        "/bin/bash", ["-c", "set -o pipefail; (sleep 0.2; exec \"$0\" \(command)) | true", binary], in: folder)
      XCTAssertEqual(pipe.status, 73, "\(command): \(pipe.stderr)")
      XCTAssertTrue(pipe.stderr.contains("Cannot write standard output: Broken pipe."), pipe.stderr)
    }
    let report = try ChildProcess.run(binary, ["-e", "orient", "-o", "out", "--report", "/dev/full", "in.png"], in: folder)
    XCTAssertEqual(report.status, 73, report.stderr)
    XCTAssertTrue(report.stderr.contains("Cannot write the report /dev/full: No space left on device."), report.stderr)
    XCTAssertTrue(FileManager.default.fileExists(atPath: file("out/in.png").path), "the image itself was written")
  }

  private func file(_ name: String) -> URL { folder.appendingPathComponent(name) }
}
