// BatchThreadTests.swift — a batch when the system refuses threads: in a pids cgroup of 1 to 4
// tasks it still ends, with every output as a batch with all its threads writes it, and says so.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

extension BatchTests {
  /// Three files at `--jobs 2` with a `--timeout` (the batch's own threads: a thread per file, its
  /// timer, its Ctrl-C watcher, besides the renderer's workers) in pids cgroups of 1, 2, 3 and 4
  /// tasks, one after another: each batch exits 0 with the three outputs byte-identical to those
  /// of a batch run without the limit; with no room for any thread it says that the files ran one
  /// at a time and that the time limit is checked between bands only. Skipped where no pids
  /// cgroup can be made (not root, no pids controller).
  func testABatchEndsWithTheRightOutputsWhenTheSystemRefusesThreads() throws {
    let binary = try XCTUnwrap(Self.binary?.path)
    let inputs = try (1...3).map { i -> String in
      let name = "in\(i).png"
      try PNGEncoder.encode(PixelBuffer.random(width: 96, height: 64, format: .rgb8, seed: UInt64(i))).write(to: file(name))
      return name
    }
    let arguments = ["-e", "blur sigma=2", "--jobs", "2", "--timeout", "60", "--threads", "2", "-o"]
    let free = try fgrun(arguments + ["free"] + inputs)
    XCTAssertEqual(free.status, 0, free.stderr)
    for limit in 1...4 {
      guard let group = PidsGroup(limit: limit) else { throw XCTSkip("no pids cgroup to limit threads with (needs root and a pids controller)") }
      let run = try group.run(binary, arguments + ["out\(limit)"] + inputs, in: folder, killAfter: 60)
      XCTAssertEqual(run.status, 0, "pids.max \(limit): killed after 60 s, or failed: \(run.stderr)")
      for name in inputs {
        XCTAssertEqual(try? Data(contentsOf: file("out\(limit)/\(name)")), try Data(contentsOf: file("free/\(name)")), "pids.max \(limit): \(name)")
      }
      if limit == 1 {
        XCTAssertTrue(run.stderr.contains("only 0 of 2 worker threads could be started"), run.stderr)
        XCTAssertTrue(run.stderr.contains("the system refused a thread for a file (a limit on threads or memory); such files run one at a time."), run.stderr)
        XCTAssertTrue(run.stderr.contains("the system refused the batch a timer thread; --timeout 60 is checked before each tile only"), run.stderr)
      }
    }
  }
}
