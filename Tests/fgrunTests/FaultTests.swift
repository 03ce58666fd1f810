// FaultTests.swift — fgrun killed or starved while it writes: the output is the old file or the
// new one, complete, and the folder holds nothing else; every write failure is exit 73 with a
// message that says why.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

final class FaultTests: XCTestCase {
  var folder: URL!

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-faults-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: folder)
  }

  /// 50 rounds of SIGKILL (and a few SIGTERM, SIGINT, SIGHUP) at random moments while fgrun
  /// replaces a 1536×1536 noise PNG (about 7 MB) with another: after each round the output is
  /// byte for byte one of the two complete files, and the folder holds nothing else — except when
  /// the signal lands in the microseconds between linking the finished file under its hidden
  /// name and renaming it into place (Linux cannot link over a name): then that hidden file is a
  /// complete copy, and the next write into the folder removes it.
  func testKilledAtAnyMomentLeavesTheOldOrTheNewOutputAndNothingElse() throws {
    // Not under ThreadSanitizer (make test-tsan): files left by SIGKILL at any moment, not threads; ~120 s of instrumented children.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] == "thread" { throw XCTSkip("not under ThreadSanitizer") }
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    for (name, seed) in [("a.png", UInt64(1)), ("b.png", UInt64(2))] {
      let noise = PixelBuffer.random(width: 1536, height: 1536, format: .rgb8, seed: seed)
      try PNGEncoder.encode(noise, options: PNGEncodeOptions(compressionLevel: 1)).write(to: file(name))
    }
    // The two complete outputs, and how long one replacement takes.
    let started = Date()
    XCTAssertEqual(try ChildProcess.run(binary, ["-e", "orient", "a.png", "ref-a.png"], in: folder).status, 0)
    let duration = Date().timeIntervalSince(started)
    XCTAssertEqual(try ChildProcess.run(binary, ["-e", "orient", "b.png", "ref-b.png"], in: folder).status, 0)
    let references = [try Data(contentsOf: file("ref-a.png")), try Data(contentsOf: file("ref-b.png"))]
    try references[0].write(to: file("out.png"))
    let expected = ["a.png", "b.png", "out.png", "ref-a.png", "ref-b.png"]

    var rng = SeededGenerator(seed: 7)
    let signals = Array(repeating: SIGKILL, count: 50) + [SIGTERM, SIGINT, SIGHUP].flatMap { Array(repeating: $0, count: 3) }
    var killedMidWrite = 0
    for (round, signal) in signals.enumerated() {
      let input = round % 2 == 0 ? "b.png" : "a.png"
      let child = try ChildProcess(binary, ["-e", "orient", input, "out.png"], in: folder)
      usleep(UInt32(Double.random(in: 0...(duration * 1.2), using: &rng) * 1_000_000))
      child.kill(signal)
      let outcome = try child.wait()
      if outcome.status == 128 + signal { killedMidWrite += 1 }
      let now = try Data(contentsOf: file("out.png"))
      XCTAssertTrue(references.contains(now), "round \(round): out.png is not one of the complete files")
      for extra in Set(try listing()).subtracting(expected) {
        // Only a complete file under this write's hidden name, left between link and rename.
        XCTAssertTrue(extra.hasPrefix(".out.png.fgrun-") && extra.hasSuffix(".tmp"), "round \(round) (signal \(signal)) left \(extra)")
        XCTAssertTrue(references.contains(try Data(contentsOf: file(extra))), "round \(round): \(extra) is incomplete")
      }
    }
    XCTAssertGreaterThan(killedMidWrite, 20, "most rounds must really interrupt a run")
    // The next complete write removes whatever a killed one left.
    XCTAssertEqual(try ChildProcess.run(binary, ["-e", "orient", "a.png", "out.png"], in: folder).status, 0)
    XCTAssertEqual(try listing(), expected)
  }

  /// `fgrun … - | head -c 10`: the closed pipe is a write error (exit 73), not a silent SIGPIPE.
  func testAClosedOutputPipeIsAnOutputError() throws {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    let noise = PixelBuffer.random(width: 1024, height: 1024, format: .rgb8, seed: 3)
    try PNGEncoder.encode(noise).write(to: file("in.png"))
    let run = try ChildProcess.run(
      "/bin/bash", ["-c", "set -o pipefail; \"$0\" -e orient in.png - | head -c 10 > /dev/null", binary], in: folder)
    XCTAssertEqual(run.status, 73, run.stderr)
    XCTAssertTrue(run.stderr.contains("Cannot write standard output: Broken pipe"), run.stderr)
  }

  /// `ulimit -f`: the file-size limit is a write error (exit 73), the old output stays, no litter.
  func testTheFileSizeLimitIsAnOutputErrorAndKeepsTheOldOutput() throws {
    // The sanitizers' runtimes write their own files and die under a file-size limit.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    let noise = PixelBuffer.random(width: 512, height: 512, format: .rgb8, seed: 4)
    try PNGEncoder.encode(noise).write(to: file("in.png"))
    try Data("old".utf8).write(to: file("out.png"))
    let run = try ChildProcess.run(
      "/bin/bash", ["-c", "ulimit -f 64; exec \"$0\" -e orient in.png out.png", binary], in: folder)
    XCTAssertEqual(run.status, 73, run.stderr)
    XCTAssertTrue(run.stderr.contains("out.png: File too large"), run.stderr)
    XCTAssertEqual(try Data(contentsOf: file("out.png")), Data("old".utf8))
    XCTAssertEqual(try listing(), ["in.png", "out.png"])
  }

  /// A real full filesystem (a 256 KiB tmpfs) and a read-only one: exit 73 saying so, the old
  /// output intact, nothing left behind. Skipped where this process may not mount.
  func testAFullAndAReadOnlyFilesystemAreOutputErrors() throws {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    let small = folder.appendingPathComponent("small")
    try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
    guard try ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", small.path], in: folder).status == 0 else {
      throw XCTSkip("cannot mount a tmpfs here")
    }
    defer { _ = try? ChildProcess.run("/bin/umount", [small.path], in: folder) }
    let noise = PixelBuffer.random(width: 512, height: 512, format: .rgb8, seed: 5)
    try PNGEncoder.encode(noise).write(to: file("in.png"))
    try Data("old".utf8).write(to: small.appendingPathComponent("out.png"))

    let full = try ChildProcess.run(binary, ["-e", "orient", "in.png", "small/out.png"], in: folder)
    XCTAssertEqual(full.status, 73, full.stderr)
    XCTAssertTrue(full.stderr.contains("No space left on device"), full.stderr)
    XCTAssertEqual(try Data(contentsOf: small.appendingPathComponent("out.png")), Data("old".utf8))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: small.path), ["out.png"])

    XCTAssertEqual(try ChildProcess.run("/bin/mount", ["-o", "remount,ro", small.path], in: folder).status, 0)
    let readOnly = try ChildProcess.run(binary, ["-e", "scale 0.1", "in.png", "small/out.png"], in: folder)
    XCTAssertEqual(readOnly.status, 73, readOnly.stderr)
    XCTAssertTrue(readOnly.stderr.contains("Read-only file system"), readOnly.stderr)
    XCTAssertEqual(try Data(contentsOf: small.appendingPathComponent("out.png")), Data("old".utf8))
  }

  /// `scale width=32000` and a giant `solid` are refused before any decode (exit 64: the recipe
  /// asks too much), quickly, writing nothing; `--max-pixels` moves the limit.
  func testOutputsOverThePixelLimitAreRefusedBeforeWork() throws {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    try FileManager.default.copyItem(at: Fixtures.url("pngsuite/basn2c08.png"), to: file("in.png"))
    let huge = try ChildProcess.run(binary, ["-e", "scale width=32000", "in.png", "out.png"], in: folder)
    XCTAssertEqual(huge.status, 64, huge.stderr)
    XCTAssertTrue(huge.stderr.contains("output would be 32000×32000 pixels"), huge.stderr)
    let solid = try ChildProcess.run(binary, ["-e", "solid size=65535x65535; scale 0.001", "in.png", "out.png"], in: folder)
    XCTAssertEqual(solid.status, 64, solid.stderr)
    XCTAssertTrue(solid.stderr.contains("65535×65535"), solid.stderr)
    let lowered = try ChildProcess.run(binary, ["--max-pixels", "1000", "-e", "scale 2", "in.png", "out.png"], in: folder)
    XCTAssertEqual(lowered.status, 65, "the 32×32 input itself is over a 1000-pixel limit: \(lowered.stderr)")
    XCTAssertEqual(try listing(), ["in.png"])
  }

  /// A decode whose memory the system refuses (an address-space limit below the 412 MB a 5.5 kB
  /// lossless WebP unpacks to) is exit 65 with a sentence, not an abort; nothing is written.
  func testMemoryTheSystemRefusesIsAnInputError() throws {
    // The sanitizers reserve terabytes of address space and cannot run under `ulimit -v`.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    try FileManager.default.copyItem(at: Fixtures.url("webp/flat-12000.webp"), to: file("in.webp"))
    let run = try ChildProcess.run(
      "/bin/bash", ["-c", "ulimit -v 400000; exec \"$0\" -e orient in.webp out.png", binary], in: folder)
    XCTAssertEqual(run.status, 65, run.stderr)
    XCTAssertTrue(run.stderr.contains("not enough memory to decode the 12000×12000 image (412 MB could not be allocated)"), run.stderr)
    XCTAssertEqual(try listing(), ["in.webp"])
  }

  private func file(_ name: String) -> URL { folder.appendingPathComponent(name) }
  private func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }

  /// A system that refuses every thread (a pids cgroup allowing the process alone): fgrun says so
  /// and renders on its own thread, instead of waiting forever for workers that never started.
  /// Skipped where this process cannot make a cgroup v1 pids group.
  func testRefusedWorkerThreadsAreSaidAndTheRenderStillFinishes() throws {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    let group = URL(fileURLWithPath: "/sys/fs/cgroup/pids/fgrun-test-\(getpid())-\(UUID().uuidString.prefix(8))")
    guard (try? FileManager.default.createDirectory(at: group, withIntermediateDirectories: false)) != nil,
      (try? Data("1".utf8).write(to: group.appendingPathComponent("pids.max"))) != nil
    else { throw XCTSkip("no cgroup v1 pids controller to limit threads with") }
    defer { rmdir(group.path) }
    let photo = PixelBuffer.random(width: 700, height: 500, format: .rgb8, seed: 6)
    try PNGEncoder.encode(photo).write(to: file("in.png"))
    // The shell moves itself into the group, then becomes fgrun: one task, no room for a thread.
    let child = try ChildProcess(
      "/bin/bash", ["-c", "echo $$ > \"$1/cgroup.procs\" && exec \"$0\" -e 'blur sigma=2' --threads 2 in.png out.png", binary, group.path],
      in: folder)
    let watchdog = DispatchWorkItem { child.kill(SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
    let run = try child.wait()
    watchdog.cancel()
    XCTAssertEqual(run.status, 0, "killed after 120 s, or failed: \(run.stderr)")
    XCTAssertTrue(run.stderr.contains("only 0 of 2 worker threads could be started"), run.stderr)
    let out = try PNGDecoder.decode(Data(contentsOf: file("out.png")))
    XCTAssertEqual(out.size, photo.size)
  }
}
