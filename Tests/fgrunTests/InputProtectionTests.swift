// InputProtectionTests.swift — no output of a run replaces a file the run reads, whatever path
// reaches it (issue #28, finding 6): each case was exit 0 with the file replaced before.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class InputProtectionTests: XCTestCase {
  var folder: URL!
  var binary: String!

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-protect-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    binary = try XCTUnwrap(FGRunTests.binary?.path)
    for (name, seed) in [("a.png", 1), ("b.png", 2), ("mark.png", 3)] {
      try PNGEncoder.encode(PixelBuffer.random(width: 16, height: 12, format: .rgb8, seed: UInt64(seed))).write(to: file(name))
    }
    try Data("w = load mark.png\nblend w opacity=0.5\n".utf8).write(to: file("r.txt"))
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: folder)
  }

  func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

  func fgrun(_ arguments: [String]) throws -> ChildProcess.Outcome { try ChildProcess.run(binary, arguments, in: folder) }

  /// Runs `body` and checks that the files named kept their bytes.
  func assertUnchanged(_ names: [String], _ body: () throws -> Void, line: UInt = #line) throws {
    let before = try names.map { try Data(contentsOf: file($0)) }
    try body()
    for (name, bytes) in zip(names, before) {
      XCTAssertEqual(try Data(contentsOf: file(name)), bytes, "\(name) was replaced", line: line)
    }
  }

  /// The recipe's `load`ed file, the recipe itself and a regular file given as standard input are
  /// refused as outputs (exit 73, naming what the file is).
  func testFilesTheRecipeReadsAreNeverOutputs() throws {
    try assertUnchanged(["mark.png", "r.txt", "a.png"]) {
      let load = try fgrun(["r.txt", "a.png", "mark.png"])
      XCTAssertEqual(load.status, 73, load.stderr)
      XCTAssertTrue(load.stderr.contains("the recipe's file"), load.stderr)
      let recipe = try fgrun(["--format", "png", "r.txt", "a.png", "r.txt"])
      XCTAssertEqual(recipe.status, 73, recipe.stderr)
      XCTAssertTrue(recipe.stderr.contains("over the recipe r.txt"), recipe.stderr)
      let piped = try ChildProcess.run("/bin/sh", ["-c", "'\(binary!)' r.txt - a.png < a.png"], in: folder)
      XCTAssertEqual(piped.status, 73, piped.stderr)
      XCTAssertTrue(piped.stderr.contains("standard input"), piped.stderr)
    }
    XCTAssertEqual(try fgrun(["r.txt", "a.png", "out.png"]).status, 0)
  }

  /// `--report` naming an input or the recipe is refused before anything is written.
  func testTheReportIsNeverAnInput() throws {
    try assertUnchanged(["a.png", "r.txt"]) {
      for target in ["a.png", "r.txt", "mark.png"] {
        let run = try fgrun(["r.txt", "a.png", "b.png", "-o", "out", "--report", target])
        XCTAssertEqual(run.status, 73, run.stderr)
        XCTAssertTrue(run.stderr.contains("Refusing to write the report \(target)"), run.stderr)
      }
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("out/a.png").path))
  }

  /// A manifest line's output that is another line's input, or the manifest, fails that line
  /// (exit 1), whichever line comes first; the others are written.
  func testAManifestNeverWritesOverItsOwnInputsOrItself() throws {
    try Data("a.png\tb.png\nb.png\tc.png\nmark.png\tlist.txt\n".utf8).write(to: file("list.txt"))
    try assertUnchanged(["b.png", "list.txt"]) {
      let run = try fgrun(["-e", "blur sigma=1", "--manifest", "list.txt", "--jobs", "3"])
      XCTAssertEqual(run.status, 1, run.stderr)
      XCTAssertTrue(run.stderr.contains("over the input b.png"), run.stderr)
      XCTAssertTrue(run.stderr.contains("over the manifest list.txt"), run.stderr)
    }
    XCTAssertTrue(FileManager.default.fileExists(atPath: file("c.png").path))
  }

  /// A manifest on standard input (a pipe) is protected as a manifest file is: its first line's
  /// output, the second line's input, is refused (exit 1) and that input is intact, though the
  /// first line runs before the second would be read by a batch that reads as it goes.
  func testAManifestOnStandardInputNeverWritesOverALaterLinesInput() throws {
    try assertUnchanged(["b.png"]) {
      let list = "a.png\\tb.png\\nb.png\\tc.png\\n"
      let run = try ChildProcess.run(
        "/bin/sh", ["-c", "printf '\(list)' | '\(binary!)' -e 'blur sigma=1' --manifest - --jobs 1"], in: folder)
      XCTAssertEqual(run.status, 1, run.stderr)
      XCTAssertTrue(run.stderr.contains("over the input b.png"), run.stderr)
    }
    XCTAssertTrue(FileManager.default.fileExists(atPath: file("c.png").path))
  }

  /// Two outputs reached through a symbolic link to their folder are one file: the line listed
  /// first is written and the second refused, at any --jobs.
  func testOutputsThroughALinkedFolderAreOneFile() throws {
    try FileManager.default.createDirectory(at: file("out"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: file("outlink").path, withDestinationPath: "out")
    try Data("a.png\tout/x.png\nb.png\toutlink/x.png\n".utf8).write(to: file("list.txt"))
    XCTAssertEqual(try fgrun(["-e", "invert", "a.png", "expected.png"]).status, 0)
    let expected = try Data(contentsOf: file("expected.png"))
    for jobs in ["1", "4"] {
      try? FileManager.default.removeItem(at: file("out/x.png"))
      let run = try fgrun(["-e", "invert", "--manifest", "list.txt", "--jobs", jobs])
      XCTAssertEqual(run.status, 1, run.stderr)
      XCTAssertTrue(run.stderr.contains("same file as the output out/x.png"), run.stderr)
      XCTAssertEqual(try Data(contentsOf: file("out/x.png")), expected, "the first line's output")
    }
  }

  /// The input reached through a bind mount of its folder is still the input. Skipped where this
  /// process may not mount.
  func testAnInputThroughABindMountIsNeverOverwritten() throws {
    let bound = file("bound")
    try FileManager.default.createDirectory(at: bound, withIntermediateDirectories: true)
    guard try ChildProcess.run("/bin/mount", ["--bind", folder.path, bound.path], in: folder).status == 0 else {
      throw XCTSkip("cannot bind-mount here")
    }
    defer { _ = try? ChildProcess.run("/bin/umount", [bound.path], in: folder) }
    try assertUnchanged(["a.png"]) {
      let run = try fgrun(["-e", "blur sigma=1", "a.png", "bound/a.png"])
      XCTAssertEqual(run.status, 73, run.stderr)
      XCTAssertTrue(run.stderr.contains("Refusing"), run.stderr)
      let batch = try fgrun(["-e", "blur sigma=1", "a.png", "-o", "bound"])
      XCTAssertEqual(batch.status, 1, batch.stderr)
    }
  }
}
