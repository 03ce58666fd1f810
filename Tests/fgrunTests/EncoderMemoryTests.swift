// EncoderMemoryTests.swift — memory an encoder holds in proportion to the image, refused by the
// system, fails the write with a sentence naming the file and the buffer, never an abort
// (issue #28 finding 4).

import Foundation
import Glibc
import ImageCodecs
import TestSupport
import XCTest

final class EncoderMemoryTests: XCTestCase {
  var folder: URL!

  override func setUpWithError() throws {
    // The sanitizers reserve terabytes of address space and cannot run under `ulimit -v`.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-encoder-memory-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    if let folder { try? FileManager.default.removeItem(at: folder) }
  }

  /// fgrun with `arguments`, in the folder, under an address-space limit of `kilobytes`.
  func run(limit kilobytes: Int, _ arguments: [String]) throws -> ChildProcess.Outcome {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    return try ChildProcess.run("/bin/sh", ["-c", "ulimit -v \(kilobytes); exec \"$0\" \"$@\"", binary] + arguments, in: folder)
  }

  /// The perceptual JPEG encoder holds the whole image (3 bytes a pixel): 768 MB for 16000²,
  /// which a 700 MB address space cannot give. The write fails before any tile is rendered, exit
  /// 65 with the file and the buffer named, and no output; the tiles alone fit (a 300² JPEG is
  /// written under the same limit).
  func testTheSmallJPEGEncodersImageTheSystemRefusesIsAnError() throws {
    let refused = try run(limit: 700_000, ["-e", "solid size=16000x16000 color=#808080", "--encoder", "small", "big.jpg"])
    XCTAssertEqual(refused.status, 65, refused.stderr)
    XCTAssertTrue(refused.stderr.contains("There is not enough memory to write /"), refused.stderr)
    XCTAssertTrue(refused.stderr.contains("/big.jpg: the 16000×16000 image the small encoder holds (732 MB) could not be allocated."), refused.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    let fits = try run(limit: 700_000, ["-e", "solid size=300x300 color=#808080", "--encoder", "small", "small.jpg"])
    XCTAssertEqual(fits.status, 0, fits.stderr)
    XCTAssertEqual(try JPEGDecoder.readHeader(Data(contentsOf: folder.appendingPathComponent("small.jpg"))).size.width, 300)
  }

  /// Under an address-space limit, a fatal signal (what code that cannot fail cleanly ends with
  /// when the limit refuses it memory) is exit 65 with a sentence naming the limit and the signal,
  /// and no output; fgrun is stopped while it waits on a FIFO for its input. Without a limit the
  /// signal keeps its default action (a bug is a crash).
  func testAFatalSignalUnderAnAddressSpaceLimitIsAnError() throws {
    let limited = try segmentationFault(limit: "ulimit -v 4000000;")
    XCTAssertEqual(limited.status, 65, limited.stderr)
    XCTAssertTrue(
      limited.stderr.contains(
        "fgrun: error: not enough memory: under the address-space limit (ulimit -v 4000000), code that cannot fail cleanly ended with SIGSEGV; nothing was written."),
      limited.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["in.png"])
    XCTAssertEqual(try segmentationFault(limit: "").status, 128 + SIGSEGV)
  }

  /// fgrun sent SIGSEGV while it waits for its input on a FIFO, started after `limit` (a shell
  /// command, or nothing).
  func segmentationFault(limit: String) throws -> ChildProcess.Outcome {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    // The shell's open of the FIFO returns once fgrun has opened it: its handlers are in place.
    let script = """
      rm -f in.png; mkfifo in.png; (\(limit) SWIFT_BACKTRACE=enable=no exec "$0" -e invert in.png out.png) & \
      exec 3>in.png; kill -SEGV $!; wait $!
      """
    // If fgrun ended before opening the FIFO, the shell's open would wait forever: 60 s at most.
    return try ChildProcess.run("/usr/bin/timeout", ["60", "/bin/bash", "-c", script, binary], in: folder)
  }
}
