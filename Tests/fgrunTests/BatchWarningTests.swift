// BatchWarningTests.swift — damaged inputs and warnings in batches and single runs (--fail-on,
// report lines, the summary), --resume's records of what made each output, the progress bar on a
// real terminal, Ctrl-C, and batch --stats.

import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

extension BatchTests {
  /// `cut.jpg` (the first 40 % of a JPEG: libjpeg patches the rest up in grey) and `good.png`.
  private func damagedAndGoodInputs() throws {
    let whole = try Data(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    try whole.prefix(whole.count * 2 / 5).write(to: file("cut.jpg"))
    try copyFixture("pngsuite/basn2c08.png", as: "good.png")
  }

  /// The report's lines, parsed, by input.
  private func reportByInput(_ name: String) throws -> [String: [String: Any]] {
    let text = try String(contentsOf: file(name), encoding: .utf8)
    var lines: [String: [String: Any]] = [:]
    for line in text.split(separator: "\n") {
      let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let input = try XCTUnwrap(object["input"] as? String)
      XCTAssertNil(lines[input], "one line per input: \(input) twice in\n\(text)")
      lines[input] = object
    }
    return lines
  }

  func testADamagedInputIsReportedAndCountedAndFailsOnlyWhenAsked() throws {
    try damagedAndGoodInputs()
    let run = try fgrun(["-e", "flip", "cut.jpg", "good.png", "-o", "out", "--report", "r.jsonl"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(run.text.contains("2 files: 2 ok (1 damaged), 0 failed"), run.text)
    XCTAssertTrue(run.text.contains("ok (damaged) cut.jpg -> out/cut.jpg"), run.text)
    let lines = try reportByInput("r.jsonl")
    XCTAssertEqual(lines["cut.jpg"]?["status"] as? String, "ok")
    XCTAssertEqual(lines["cut.jpg"]?["damaged"] as? Bool, true)
    let warnings = try XCTUnwrap(lines["cut.jpg"]?["warnings"] as? [String])
    XCTAssertTrue(warnings.contains { $0.contains("Premature end of JPEG file") }, "\(warnings)")
    XCTAssertEqual(lines["good.png"]?["warnings"] as? [String], [])
    XCTAssertEqual(lines["good.png"]?["damaged"] as? Bool, false)

    let refused = try fgrun(["-e", "flip", "cut.jpg", "good.png", "-o", "strict", "--report", "s.jsonl", "--fail-on", "damaged"])
    XCTAssertEqual(refused.status, 1, refused.stderr)
    XCTAssertTrue(refused.text.contains("2 files: 1 ok, 1 failed"), refused.text)
    XCTAssertTrue(refused.stderr.contains("cut.jpg: Not written, as --fail-on damaged asks: the input is damaged"), refused.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("strict/cut.jpg").path), "a refused file is not written")
    let line = try XCTUnwrap(try reportByInput("s.jsonl")["cut.jpg"])
    XCTAssertEqual(line["status"] as? String, "failed")
    XCTAssertEqual(line["class"] as? String, "input")
    XCTAssertEqual(line["damaged"] as? Bool, true)

    // One file: the default writes it with the warning; damaged refuses it with exit 65.
    XCTAssertEqual(try fgrun(["-e", "flip", "cut.jpg", "one.jpg"]).status, 0)
    let single = try fgrun(["--fail-on", "damaged", "-e", "flip", "cut.jpg", "two.jpg"])
    XCTAssertEqual(single.status, 65, single.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("two.jpg").path))
    XCTAssertEqual(try fgrun(["--fail-on", "damaged", "-e", "flip", "good.png", "three.png"]).status, 0, "no damage, no failure")
    XCTAssertEqual(try fgrun(["--fail-on", "broken", "-e", "flip", "good.png", "four.png"]).status, 64)
  }

  func testFailOnWarningRefusesAFileWithAnyWarning() throws {
    try copyFixture("pngsuite/basn2c08.png", as: "good.png")  // 32×32: the crop is larger
    let recipe = "smartcrop size=64x64"
    let lenient = try fgrun(["-e", recipe, "good.png", "-o", "out", "--report", "r.jsonl"])
    XCTAssertEqual(lenient.status, 0, lenient.stderr)
    XCTAssertTrue(lenient.text.contains("1 ok (1 with warnings)"), lenient.text)
    let line = try XCTUnwrap(try reportByInput("r.jsonl")["good.png"])
    XCTAssertEqual((line["warnings"] as? [String])?.count, 1, "\(line)")
    XCTAssertEqual(line["damaged"] as? Bool, false)
    XCTAssertEqual(try fgrun(["--fail-on", "damaged", "-e", recipe, "good.png", "d.png"]).status, 0, "a warning is not damage")
    let refused = try fgrun(["--fail-on", "warning", "-e", recipe, "good.png", "w.png"])
    XCTAssertEqual(refused.status, 65, refused.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("w.png").path))
  }

  func testResumeRedoesOutputsMadeDifferentlyAndReportsEachInputOnce() throws {
    try damagedAndGoodInputs()
    try copyFixture("pngsuite/basn6a08.png", as: "mark.png")
    try write("scale 2\nmark = load path=mark.png\ncomposite mark input\n", to: "r.txt")
    func batch(_ extra: [String]) throws -> Outcome {
      let run = try fgrun(["r.txt", "cut.jpg", "good.png", "-o", "out", "--format", "jpeg", "--resume", "--report", "r.jsonl"] + extra)
      XCTAssertEqual(run.status, 0, run.stderr)
      return run
    }
    XCTAssertTrue(try batch(["--quality", "90"]).text.contains("2 ok (1 damaged), 0 skipped"))
    let first = try Data(contentsOf: file("out/good.jpg"))
    XCTAssertTrue(try batch(["--quality", "90"]).text.contains("0 ok (1 damaged), 2 skipped"), "same run: both skipped")
    // A skipped file's line keeps the warnings recorded with its output, and there is one line an input.
    let skipped = try reportByInput("r.jsonl")
    XCTAssertEqual(skipped.count, 2)
    XCTAssertEqual(skipped["cut.jpg"]?["status"] as? String, "skipped")
    XCTAssertEqual(skipped["cut.jpg"]?["damaged"] as? Bool, true)
    XCTAssertFalse((skipped["cut.jpg"]?["warnings"] as? [String] ?? []).isEmpty)

    XCTAssertTrue(try batch(["--quality", "50"]).text.contains("2 ok (1 damaged), 0 skipped"), "another quality")
    XCTAssertNotEqual(try Data(contentsOf: file("out/good.jpg")), first)
    XCTAssertTrue(try batch(["--quality", "50"]).text.contains("2 skipped"))
    try write("scale 3\nmark = load path=mark.png\ncomposite mark input\n", to: "r.txt")
    XCTAssertTrue(try batch(["--quality", "50"]).text.contains("0 skipped"), "another recipe")
    try copyFixture("pngsuite/basn6a16.png", as: "mark2.png")
    try FileManager.default.removeItem(at: file("mark.png"))
    try FileManager.default.moveItem(at: file("mark2.png"), to: file("mark.png"))
    XCTAssertTrue(try batch(["--quality", "50"]).text.contains("0 skipped"), "another watermark file")
    XCTAssertTrue(try batch(["--quality", "50", "--background", "red"]).text.contains("0 skipped"), "another option")
    XCTAssertTrue(try batch(["--quality", "50", "--background", "red", "--jobs", "1"]).text.contains("2 skipped"), "--jobs changes no byte")
    XCTAssertEqual(try reportByInput("r.jsonl").count, 2, "still one line per input after six runs")
  }

  func testBatchStatsReportsTheFilesStageTimes() throws {
    try damagedAndGoodInputs()
    let run = try fgrun(["--stats", "-e", "blur 2", "good.png", "cut.jpg", "-o", "out"])
    XCTAssertEqual(run.status, 0, run.stderr)
    func milliseconds(after label: String) throws -> Double {
      let range = try XCTUnwrap(run.stderr.range(of: label), run.stderr)
      return try XCTUnwrap(Double(run.stderr[range.upperBound...].prefix { $0 != " " }), run.stderr)
    }
    XCTAssertGreaterThan(try milliseconds(after: "header+compile "), 0)
    XCTAssertGreaterThan(try milliseconds(after: "decode+render+encode+write "), 0)
  }

  func testCtrlCPrintsTheSummaryAndTheWayToFinish() throws {
    let names = try (0..<4).map { i -> String in
      try copyFixture("pngsuite/basn2c08.png", as: "in\(i).png")
      return "in\(i).png"
    }
    // The manifest is a pipe this test holds open: after two files fgrun waits for more lines,
    // and is interrupted there.
    XCTAssertEqual(mkfifo(file("list").path, 0o600), 0)
    let binary = try XCTUnwrap(Self.binary)
    let child = try ChildProcess(binary.path, ["-e", "flip", "--manifest", "list", "-o", "out", "--report", "r.jsonl"], in: folder)
    let pipe = try FileHandle(forWritingTo: file("list"))
    pipe.write(Data("in0.png\nin1.png\n".utf8))
    while (try? String(contentsOf: file("r.jsonl"), encoding: .utf8))?.split(separator: "\n").count ?? 0 < 2 { usleep(10_000) }
    child.kill(SIGINT)
    let run = try child.wait()
    try pipe.close()
    XCTAssertEqual(run.status, 130, run.stderr)
    XCTAssertTrue(run.stderr.contains("interrupted after 2 files; rerun with --resume to finish"), run.stderr)
    XCTAssertTrue(run.text.contains("2 files: 2 ok, 0 failed in "), "the summary: \(run.text)")
    try FileManager.default.removeItem(at: file("list"))
    try write(names.joined(separator: "\n") + "\n", to: "list")
    let resumed = try fgrun(["-e", "flip", "--manifest", "list", "-o", "out", "--report", "r.jsonl", "--resume"])
    XCTAssertEqual(resumed.status, 0, resumed.stderr)
    XCTAssertTrue(resumed.text.contains("4 files: 2 ok, 2 skipped, 0 failed"), resumed.text)
    XCTAssertEqual(try reportByInput("r.jsonl").count, 4)
  }

  func testTheBarFitsANarrowTerminalAndWarningsPrintAboveIt() throws {
    let python = "/usr/bin/python3"
    guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("no python3") }
    try damagedAndGoodInputs()
    try copyFixture("pngsuite/basn2c08.png", as: "a-file-with-a-rather-long-name-for-the-bar.png")
    // Runs fgrun on a pseudo-terminal 40 columns wide and prints everything it wrote there.
    let script = """
      import os, pty, sys, struct, fcntl, termios
      pid, fd = pty.fork()
      if pid == 0:
          fcntl.ioctl(2, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 40, 0, 0))
          os.execv(sys.argv[1], sys.argv[1:])
      out = b''
      while True:
          try:
              chunk = os.read(fd, 65536)
          except OSError:
              break
          if not chunk:
              break
          out += chunk
      os.waitpid(pid, 0)
      sys.stdout.buffer.write(out)
      """
    let binary = try XCTUnwrap(Self.binary)
    let run = try ChildProcess.run(
      python, ["-c", script, binary.path, "-e", "flip", "--jobs", "1", "good.png", "cut.jpg", "a-file-with-a-rather-long-name-for-the-bar.png", "-o", "out"],
      in: folder)
    let text = run.text.replacingOccurrences(of: "\u{1B}[K", with: "")
    let pieces = text.split(omittingEmptySubsequences: true) { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }.map(String.init)
    let bars = pieces.filter { $0.contains("files/s") }
    XCTAssertFalse(bars.isEmpty, text)
    for bar in bars { XCTAssertLessThan(bar.count, 40, "the bar wraps a 40-column terminal: '\(bar)'") }
    let warnings = pieces.filter { $0.contains("fgrun: warning:") }
    XCTAssertFalse(warnings.isEmpty, text)
    for warning in warnings { XCTAssertTrue(warning.hasPrefix("fgrun: warning:"), "glued to the bar: '\(warning)'") }
    XCTAssertTrue(text.contains("3 files: 3 ok (1 damaged), 0 failed"), text)
  }
}
