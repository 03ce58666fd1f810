// EdgeCaseTests.swift — the small cases of issue #28's finding 11 (and the limits of finding 4):
// each was a signal, a hang, a wrong exit status or a misleading sentence.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class EdgeCaseTests: XCTestCase {
  var folder: URL!
  var binary: String!

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-edge-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    binary = try XCTUnwrap(FGRunTests.binary?.path)
    try PNGEncoder.encode(PixelBuffer.random(width: 12, height: 10, format: .rgb8, seed: 5)).write(to: file("in.png"))
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: folder)
  }

  func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

  /// A bash command line in the folder, fgrun as `$F`; `timeout 120` only guards the suite
  /// against a hang (a hang is the failure some of these cases check for).
  func bash(_ line: String) throws -> ChildProcess.Outcome {
    try ChildProcess.run("/bin/bash", ["-c", "F='\(binary!)'; \(line)"], in: folder)
  }

  /// `-` as input with standard input closed is exit 65 with a sentence (it was SIGILL).
  func testClosedStandardInputIsAnInputError() throws {
    let run = try bash("timeout 120 \"$F\" -e flip - out.png <&-")
    XCTAssertEqual(run.status, 65, run.stderr)
    XCTAssertTrue(run.stderr.contains("Cannot read standard input"), run.stderr)
  }

  /// A named pipe no process reads is refused as an output at once (it blocked forever).
  func testAFIFOWithoutAReaderIsRefused() throws {
    XCTAssertEqual(mkfifo(file("pipe.png").path, 0o644), 0)
    let run = try bash("timeout 120 \"$F\" -e flip in.png pipe.png")
    XCTAssertEqual(run.status, 73, run.stderr)
    XCTAssertTrue(run.stderr.contains("named pipe (FIFO) that no process is reading"), run.stderr)
    // With a reader it is written.
    let read = try bash("(cat pipe.png > got.png &) ; timeout 120 \"$F\" -e flip in.png pipe.png; wait")
    XCTAssertEqual(read.status, 0, read.stderr)
  }

  /// A batch output that is a named pipe whose reader never reads (the pipe's 64 KB fill, then the
  /// write waits) is ended by `--timeout`: the file is reported as timed out and the batch exits
  /// (it reported the timeout, then waited for the write forever).
  func testABatchWriteToAStalledPipeEndsAtItsTimeout() throws {
    try FileManager.default.createDirectory(at: file("out"), withIntermediateDirectories: true)
    XCTAssertEqual(mkfifo(file("out/in.png").path, 0o644), 0)
    let started = Date()
    // `sleep` holds the pipe open (read and write, so opening it does not wait) and never reads.
    let run = try bash(
      "sleep 100 <>out/in.png & r=$!; timeout 60 \"$F\" -e 'scale size=300x300; grain amount=0.5' -o out --timeout 0.5 in.png; s=$?; kill $r; exit $s")
    XCTAssertEqual(run.status, 1, run.stderr)
    XCTAssertTrue(run.stderr.contains("Took longer than --timeout 0.5 s"), run.stderr)
    XCTAssertLessThan(Date().timeIntervalSince(started), 20)
  }

  /// A recipe from a named pipe or `<(…)` is read like a file; one over 4 MiB is refused, exit 64.
  func testRecipesFromPipesAndTheirSizeLimit() throws {
    let substituted = try bash("\"$F\" <(echo flip) in.png out.png")
    XCTAssertEqual(substituted.status, 0, substituted.stderr)
    var big = Data("# ".utf8)
    big.append(Data(repeating: 0x61, count: 5 << 20))
    big.append(Data("\nflip\n".utf8))
    try big.write(to: file("big.txt"))
    let refused = try bash("\"$F\" big.txt in.png out.png")
    XCTAssertEqual(refused.status, 64, refused.stderr)
    XCTAssertTrue(refused.stderr.contains("longer than 4194304 bytes"), refused.stderr)
  }

  /// Negative and absurd numbers are refused by the option's own rule, exit 64.
  func testNumericOptionsAreCheckedWhenParsed() throws {
    let memory = try bash("\"$F\" -e flip in.png -o out --memory -1")
    XCTAssertEqual(memory.status, 64, memory.stderr)
    XCTAssertTrue(memory.stderr.contains("--memory must be"), memory.stderr)
    let pixels = try bash("\"$F\" --max-pixels 9223372036854775807 -e 'solid size=65535x65535; scale fit=100x100' in.png out.png")
    XCTAssertEqual(pixels.status, 64, pixels.stderr)
    XCTAssertTrue(pixels.stderr.contains("--max-pixels must be between 1 and 4294967296"), pixels.stderr)
  }

  /// An output or intermediate over the pixel limit is the recipe's doing: exit 64 (usage), as a
  /// graph too deep is (HostileInputTests); an input over it stays exit 65.
  func testAComputedImageOverThePixelLimitIsAUsageError() throws {
    let output = try bash("\"$F\" --max-pixels 100000 -e 'scale 100' in.png out.png")
    XCTAssertEqual(output.status, 64, output.stderr)
    XCTAssertTrue(output.stderr.contains("The recipe's output would be 1200×1000 pixels, more than the limit of 100000 pixels"), output.stderr)
    let between = try bash("\"$F\" --max-pixels 100000 -e 'scale 100; scale 0.01' in.png out.png")
    XCTAssertEqual(between.status, 64, between.stderr)
    XCTAssertTrue(between.stderr.contains("image made by 'scale"), between.stderr)
    let input = try bash("\"$F\" --max-pixels 100 -e 'scale 0.5' in.png out.png")
    XCTAssertEqual(input.status, 65, input.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.png").path))
  }

  /// `--max-pixels 1` on a PNG says the image is over the limit, not that the file is corrupt.
  func testAPixelLimitBelowThePNGIsNotCalledCorrupt() throws {
    let run = try bash("\"$F\" --max-pixels 1 -e flip in.png out.png")
    XCTAssertEqual(run.status, 65, run.stderr)
    XCTAssertTrue(run.stderr.contains("12×10 pixels, more than the limit of 1 pixels"), run.stderr)
    XCTAssertFalse(run.stderr.contains("corrupt"), run.stderr)
  }

  /// Of two inputs that `-o DIR` names alike, the one listed first is written, at any --jobs.
  func testTheFirstOfTwoInputsWithOneOutputNameWins() throws {
    for name in ["a", "b"] { try FileManager.default.createDirectory(at: file(name), withIntermediateDirectories: true) }
    try Data(contentsOf: file("in.png")).write(to: file("a/x.png"))
    try PNGEncoder.encode(PixelBuffer.random(width: 12, height: 10, format: .rgb8, seed: 6)).write(to: file("b/x.png"))
    XCTAssertEqual(try bash("\"$F\" -e invert a/x.png expected.png").status, 0)
    for jobs in [1, 4, 4, 4] {
      try? FileManager.default.removeItem(at: file("out"))
      let run = try bash("\"$F\" -e invert a/x.png b/x.png -o out --jobs \(jobs)")
      XCTAssertEqual(run.status, 1, run.stderr)
      XCTAssertEqual(try Data(contentsOf: file("out/x.png")), try Data(contentsOf: file("expected.png")))
    }
  }
}
