// BatchTests.swift — fgrun batches from a manifest: shards, --resume, --report, --jobs, --timeout.

import Foundation
import TestSupport
import XCTest

/// fgrun batches: several files in flight on one pool, shared caches, the report and the summary.
final class BatchTests: FGRunTestCase {}

extension BatchTests {
  /// Twenty small PngSuite pictures copied in as p00.png…p19.png.
  private func batchInputs(_ count: Int = 20) throws -> [String] {
    let sources = ["basn0g08", "basn2c08", "basn2c16", "basn3p08", "basn4a08", "basn6a08", "basn6a16", "basi0g08",
      "basi2c08", "basi6a08", "bgai4a08", "bgan6a08", "ccwn2c08", "cdfn2c08", "f00n2c08", "f01n2c08", "f02n2c08",
      "f03n2c08", "f04n2c08", "g03n0g16"]
    return try (0..<count).map { i in
      let name = String(format: "p%02d.png", i)
      try copyFixture("pngsuite/\(sources[i % sources.count]).png", as: name)
      return name
    }
  }

  /// The report's lines, each parsed as a JSON object.
  private func reportLines(_ name: String) throws -> [[String: Any]] {
    let text = try String(contentsOf: file(name), encoding: .utf8)
    XCTAssertTrue(text.hasSuffix("\n"), "every line ends in a newline")
    return try text.split(separator: "\n").map { line in
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
      return try XCTUnwrap(object as? [String: Any], String(line))
    }
  }

  func testShardsAreDisjointAndCoverAShuffledList() throws {
    let inputs = try batchInputs()
    var generator = SystemRandomNumberGenerator()
    var seen: [String] = []
    for k in 1...3 {
      // Each shard reads the list in another order: membership depends on the path alone.
      try write(inputs.shuffled(using: &generator).joined(separator: "\n") + "\n", to: "list\(k).txt")
      let run = try fgrun(["-e", "flip", "--manifest", "list\(k).txt", "--shard", "\(k)/3", "-o", "out", "--report", "r\(k).jsonl"])
      XCTAssertEqual(run.status, 0, run.stderr)
      let shard = try reportLines("r\(k).jsonl").map { $0["input"] as! String }
      XCTAssertFalse(shard.isEmpty, "shard \(k) of 3 over 20 files is empty")
      XCTAssertTrue(Set(shard).isDisjoint(with: seen), "shard \(k) overlaps the earlier ones")
      seen += shard
    }
    XCTAssertEqual(seen.sorted(), inputs.sorted())
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file("out").path).sorted(), inputs.sorted())
    XCTAssertEqual(try fgrun(["-e", "flip", "--manifest", "list1.txt", "--shard", "4/3", "-o", "out"]).status, 64)
  }

  func testResumeSkipsExactlyTheFinishedFilesAndLeavesThemUntouched() throws {
    let inputs = try batchInputs(8)
    try write(inputs.joined(separator: "\n") + "\n", to: "list.txt")
    try write("rotate 90\n", to: "r.txt")
    XCTAssertEqual(try fgrun(["r.txt", "--manifest", "list.txt", "-o", "out"]).status, 0)
    // Two outputs lost, one input changed since: those three are done again, the rest skipped.
    try FileManager.default.removeItem(at: file("out/p02.png"))
    try FileManager.default.removeItem(at: file("out/p05.png"))
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: file("p07.png").path)
    var before: [String: (Data, Date)] = [:]
    for name in ["p00", "p01", "p03", "p04", "p06"] {
      let path = file("out/\(name).png").path
      before[name] = (try Data(contentsOf: file("out/\(name).png")),
        try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date)
    }
    let run = try fgrun(["r.txt", "--manifest", "list.txt", "-o", "out", "--resume", "--report", "r.jsonl"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(run.text.contains("8 files: 3 ok, 5 skipped, 0 failed"), run.text)
    var status: [String: String] = [:]
    for line in try reportLines("r.jsonl") { status[line["input"] as! String] = line["status"] as? String }
    XCTAssertEqual(status, [
      "p00.png": "skipped", "p01.png": "skipped", "p02.png": "ok", "p03.png": "skipped", "p04.png": "skipped",
      "p05.png": "ok", "p06.png": "skipped", "p07.png": "ok",
    ])
    for (name, (bytes, date)) in before {
      let path = file("out/\(name).png").path
      XCTAssertEqual(try Data(contentsOf: file("out/\(name).png")), bytes, name)
      XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date, date, name)
    }
    // Touching the recipe changes nothing; editing it makes every file stale.
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(120)], ofItemAtPath: file("r.txt").path)
    let touched = try fgrun(["r.txt", "--manifest", "list.txt", "-o", "out", "--resume"])
    XCTAssertTrue(touched.text.contains("8 files: 0 ok, 8 skipped, 0 failed"), touched.text)
    try write("rotate 270\n", to: "r.txt")
    let again = try fgrun(["r.txt", "--manifest", "list.txt", "-o", "out", "--resume"])
    XCTAssertTrue(again.text.contains("8 files: 8 ok, 0 skipped, 0 failed"), again.text)
  }

  func testReportHasOneParsedLinePerInputWithPairsFromStandardInput() throws {
    let inputs = try batchInputs(5)
    var list = inputs.enumerated().map { "\($0.element)\tdeep/\($0.offset)/out.jpg" }
    list.insert("missing.png\tdeep/missing.jpg", at: 2)
    list.insert("", at: 4)
    let run = try fgrun(["-e", "scale 2", "--manifest", "-", "--report", "r.jsonl"], stdin: Data((list.joined(separator: "\r\n") + "\n").utf8))
    XCTAssertEqual(run.status, 1, "a file failed")
    XCTAssertTrue(run.stderr.contains("fgrun: error: missing.png: "), run.stderr)
    let lines = try reportLines("r.jsonl")
    XCTAssertEqual(lines.map { $0["input"] as! String }.sorted(), (inputs + ["missing.png"]).sorted())
    for line in lines {
      let input = line["input"] as! String
      if input == "missing.png" {
        XCTAssertEqual(line["status"] as? String, "failed")
        XCTAssertEqual(line["class"] as? String, "input")
        XCTAssertEqual(line["exit"] as? Int, 65)
        XCTAssertFalse((line["error"] as? String ?? "").isEmpty)
        continue
      }
      let index = inputs.firstIndex(of: input)!
      XCTAssertEqual(line["status"] as? String, "ok")
      XCTAssertEqual(line["output"] as? String, "deep/\(index)/out.jpg")
      let bytes = try Data(contentsOf: file("deep/\(index)/out.jpg"))
      XCTAssertEqual(line["output_bytes"] as? Int, bytes.count)
      XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xD8])
      XCTAssertEqual(line["input_bytes"] as? Int, try Data(contentsOf: file(input)).count)
      XCTAssertEqual(line["input_width"] as? Int, 32)
      XCTAssertEqual(line["output_width"] as? Int, 64)
      XCTAssertEqual(line["output_height"] as? Int, 64)
      XCTAssertNotNil(line["ms"] as? Double)
    }
  }

  func testTwoJobsWriteTheSameBytesAsOne() throws {
    let inputs = try batchInputs(12)
    try write(inputs.joined(separator: "\n") + "\n", to: "list.txt")
    for jobs in ["1", "2", "3"] {
      let run = try fgrun(["-e", "scale 3; blur sigma=1.5", "--manifest", "list.txt", "-o", "j\(jobs)", "--format", "jpg", "--jobs", jobs])
      XCTAssertEqual(run.status, 0, run.stderr)
    }
    for name in inputs.map({ $0.replacingOccurrences(of: ".png", with: ".jpg") }) {
      let one = try Data(contentsOf: file("j1/\(name)"))
      XCTAssertEqual(try Data(contentsOf: file("j2/\(name)")), one, name)
      XCTAssertEqual(try Data(contentsOf: file("j3/\(name)")), one, name)
    }
  }

  func testTimeoutFailsOnlyTheSlowFile() throws {
    let inputs = try batchInputs(6)
    // A 640×640 input under a wide exact blur (361 taps a pixel each way) takes about 80 s of
    // CPU in a debug build; abandoned at its limit, it stops at its next tile (of the held row
    // pass, computed first). The 32×32 ones take milliseconds, with room to spare under a sanitizer.
    XCTAssertEqual(try fgrun(["-e", "scale 20", "p00.png", "slow.png"]).status, 0)
    let list = ["p01.png", "slow.png"] + inputs.dropFirst(2)
    try write(list.joined(separator: "\n") + "\n", to: "list.txt")
    let run = try fgrun(
      ["-e", "blur sigma=60 method=exact", "--manifest", "list.txt", "-o", "out", "--timeout", "5", "--jobs", "1", "--report", "r.jsonl"])
    XCTAssertEqual(run.status, 1, run.stderr)
    let lines = try reportLines("r.jsonl")
    XCTAssertEqual(lines.count, list.count)
    for line in lines {
      let slow = line["input"] as? String == "slow.png"
      XCTAssertEqual(line["status"] as? String, slow ? "failed" : "ok", "\(line)")
      if slow { XCTAssertEqual(line["class"] as? String, "timeout") }
    }
    let written = try FileManager.default.contentsOfDirectory(atPath: file("out").path).sorted()
    XCTAssertEqual(written, list.filter { $0 != "slow.png" }.sorted(), "nothing is written for the file past its limit")
  }

  func testBatchCachesOnlyWhatEveryFileShares() throws {
    // Six 320×320 PNG photos (decoded whole, through the cache) under a 160×160 logo.
    let inputs = try batchInputs(6).map { name in
      XCTAssertEqual(try fgrun(["-e", "scale 10", name, "big-" + name]).status, 0)
      return "big-" + name
    }
    XCTAssertEqual(try fgrun(["-e", "scale 5", "p00.png", "logo.png"]).status, 0)
    try write(inputs.joined(separator: "\n") + "\n", to: "list.txt")
    try write("logo = load path=logo.png\noutput = composite logo over=input gravity=southeast\n", to: "r.txt")
    func held(_ run: Outcome) throws -> String {
      let range = try XCTUnwrap(run.stderr.range(of: #"cache holds [0-9.]+ MB"#, options: .regularExpression), run.stderr)
      return String(run.stderr[range])
    }
    let logoAlone = try fgrun(["--stats", "-e", "flip", "logo.png", "flipped.png"])
    let batch = try fgrun(["--stats", "r.txt", "--manifest", "list.txt", "-o", "out", "--jobs", "2"])
    XCTAssertEqual(batch.status, 0, batch.stderr)
    XCTAssertTrue(batch.stderr.contains("decodes 7, cache hits 5,"), "each photo once, the logo once: \(batch.stderr)")
    XCTAssertEqual(try held(batch), try held(logoAlone), "the photos left the cache, the logo stayed")
  }

  /// The files in flight hold together at most `--memory` by their estimates, or one file runs
  /// alone; counted by the batch's `--stats` line, not timed.
  func testFilesInFlightStayWithinTheMemoryBudget() throws {
    // Six 320×320 PNG photos of 1 to 6 bytes a pixel: each estimated at its decoded size plus 4
    // bands of 64 float rows and, per thread, a tile's evaluation (its input, its output and
    // scratch), 3.2 to 3.8 MiB; any two exceed 4 MiB.
    let inputs = try batchInputs(6).map { name in
      XCTAssertEqual(try fgrun(["-e", "scale 10", name, "big-" + name]).status, 0)
      return "big-" + name
    }
    try write(inputs.joined(separator: "\n") + "\n", to: "list.txt")
    func budget(_ run: Outcome) throws -> (files: Int, megabytes: Double) {
      let pattern = #"at most ([0-9]+) files in flight, holding ([0-9.]+) MB by estimate"#
      let range = try XCTUnwrap(run.stderr.range(of: pattern, options: .regularExpression), run.stderr)
      let numbers = run.stderr[range].split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
      return (Int(numbers[0]), numbers[1])
    }
    for (memory, jobs) in [(4, 3), (1, 3), (1024, 3)] {
      let run = try fgrun(
        ["--stats", "-e", "flip", "--manifest", "list.txt", "-o", "out\(memory)", "--jobs", "\(jobs)", "--memory", "\(memory)", "--threads", "2"])
      XCTAssertEqual(run.status, 0, run.stderr)
      let used = try budget(run)
      XCTAssertGreaterThanOrEqual(used.files, 1)
      XCTAssertLessThanOrEqual(used.files, jobs)
      if memory < 6 {
        // Two files' estimates exceed the budget: one file at a time.
        XCTAssertEqual(used.files, 1, "--memory \(memory): \(run.stderr)")
        XCTAssertLessThanOrEqual(used.megabytes, 3.8)
      }
      // Over the budget only when one file alone exceeds it.
      XCTAssertLessThanOrEqual(used.megabytes, max(Double(memory), 3.8))
      XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file("out\(memory)").path).count, 6)
    }
    XCTAssertEqual(try fgrun(["-e", "flip", "big-p00.png", "-o", "x", "--memory", "0"]).status, 64)
  }

  /// A σ 500 blur's files are admitted by their estimate (held copies, the reduction's tiles and
  /// streamed rows, the output's tiles and bands; MemoryEstimateTests checks it against what the
  /// renderer counts): a budget of 1.5 files' estimates runs them one at a time, one of 2.5
  /// files' at most two at a time.
  func testLargeBlursAreAdmittedByTheirEstimate() throws {
    // Three 1600 × 1600 JPEGs (7.3 MiB decoded: streamed).
    let inputs = try (0..<3).map { i in
      try copyFixture("pngsuite/basn2c08.png", as: "small\(i).png")
      XCTAssertEqual(try fgrun(["-e", "scale 50; rotate \(90 * i)", "small\(i).png", "blur\(i).jpg"]).status, 0)
      return "blur\(i).jpg"
    }
    try write(inputs.joined(separator: "\n") + "\n", to: "list.txt")
    func budget(_ run: Outcome) throws -> (files: Int, mebibytes: Double, waited: Int) {
      let pattern = #"at most ([0-9]+) files in flight, holding ([0-9.]+) MB by estimate; ([0-9]+) files waited"#
      let range = try XCTUnwrap(run.stderr.range(of: pattern, options: .regularExpression), run.stderr)
      let numbers = run.stderr[range].split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
      return (Int(numbers[0]), numbers[1], Int(numbers[2]))
    }
    let alone = try fgrun(["--stats", "-e", "blur sigma=500", "--manifest", "list.txt", "-o", "out1", "--jobs", "1", "--threads", "2"])
    XCTAssertEqual(alone.status, 0, alone.stderr)
    let one = try budget(alone).mebibytes
    XCTAssertGreaterThan(one, 1)
    for (factor, most) in [(1.5, 1), (2.5, 2)] {
      let memory = Int((one * factor).rounded(.up))
      let run = try fgrun(
        ["--stats", "-e", "blur sigma=500", "--manifest", "list.txt", "-o", "out\(memory)", "--jobs", "3", "--memory", "\(memory)", "--threads", "2"])
      XCTAssertEqual(run.status, 0, run.stderr)
      let used = try budget(run)
      XCTAssertLessThanOrEqual(used.files, most, "--memory \(memory): \(run.stderr)")
      XCTAssertLessThanOrEqual(used.mebibytes, Double(memory))
      if most == 1 { XCTAssertGreaterThanOrEqual(used.waited, 1, "a later file waited: \(run.stderr)") }
      XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file("out\(memory)").path).count, 3)
    }
  }

  func testBatchGoesOnAfterAFailureAndSummarises() throws {
    try copyFixture("pngsuite/basn2c08.png", as: "b.png")
    try write("rotate 90\n", to: "r.txt")
    let run = try fgrun(["r.txt", "in.png", "missing.png", "b.png", "-o", "out"])
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(run.text.contains("ok in.png -> out/in.png"), run.text)
    XCTAssertTrue(run.text.contains("3 files: 2 ok, 1 failed in "), run.text)
    XCTAssertTrue(run.stderr.contains("fgrun: error: missing.png: "), run.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file("out").path).sorted(), ["b.png", "in.png"])
  }

  func testBatchSharesOneDecodeCacheAndExitsZeroWhenAllSucceed() throws {
    try copyFixture("pngsuite/basn2c08.png", as: "b.png")
    try copyFixture("pngsuite/basn0g08.png", as: "logo.png")
    // Every output is the same loaded file: decoded once for the whole batch.
    try write("logo = load path=logo.png\noutput = rotate 90 of=logo\n", to: "r.txt")
    let run = try fgrun(["--stats", "r.txt", "in.png", "b.png", "-o", "out", "--format", "png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(run.text.contains("2 files: 2 ok, 0 failed"), run.text)
    XCTAssertTrue(run.stderr.contains("decodes 1, cache hits 1"), run.stderr)
    XCTAssertTrue(run.stderr.contains("peak memory"), run.stderr)
  }

  func testBatchRejectsABadRecipeBeforeTouchingAnyFile() throws {
    let run = try fgrun(["-e", "rotate 5000", "in.png", "-o", "out"])
    XCTAssertEqual(run.status, 64)
    XCTAssertTrue(run.stderr.contains("-e:1:8: error: angle=5000 is out of range"), run.stderr)
    XCTAssertFalse(exists("out"))
  }
}
