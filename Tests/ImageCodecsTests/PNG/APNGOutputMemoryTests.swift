// APNGOutputMemoryTests.swift — an APNG written to memory, the largest thing its writer holds,
// is in checked memory (AnimationOutput.swift): when the system refuses it more, adding a frame
// throws a CodecError saying how large the output had grown, and the process goes on (issue #28
// finding 4).

import Foundation
import Glibc
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class APNGOutputMemoryTests: XCTestCase {
  /// Frames of noise that differ everywhere from the one before, stored (compression 0, no
  /// filter: 768 kB each), under an address-space limit of what the process has mapped plus
  /// 48 MB: the output cannot double past about 16 MB, so a frame of the first hundred fails
  /// with a `.tooLarge` error naming the output, after more than ten frames were added (the
  /// frames themselves fit). The limit is lifted before anything is asserted.
  func testAnOutputTheSystemCannotGrowIsAnError() throws {
    // The sanitizers reserve terabytes of address space and cannot run under a limit.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    let side = 512
    let frames = (0..<2).map { PixelBuffer.random(width: side, height: side, format: .rgb8, seed: UInt64($0 + 1)) }
    let writer = try APNGAnimationWriter(
      size: Size(width: side, height: side), layout: .rgb, loopCount: 0, frameCount: 100,
      options: PNGEncodeOptions(compressionLevel: 0, filter: .none),
      metadata: ImageMetadata())
    try writer.add(frames[0], delay: 100)

    var saved = rlimit()
    XCTAssertEqual(getrlimit(Int32(RLIMIT_AS.rawValue), &saved), 0)
    var limited = saved
    limited.rlim_cur = rlim_t(try mappedBytes() + 48 << 20)
    XCTAssertEqual(setrlimit(Int32(RLIMIT_AS.rawValue), &limited), 0)
    var added = 1, refusal: Error?
    while added < 100 {
      do {
        try writer.add(frames[added % 2], delay: 100)
        added += 1
      } catch {
        refusal = error
        break
      }
    }
    XCTAssertEqual(setrlimit(Int32(RLIMIT_AS.rawValue), &saved), 0)

    let error = try XCTUnwrap(refusal as? CodecError, "\(added) frames were added, refusal: \(String(describing: refusal))")
    XCTAssertEqual(error.kind, .tooLarge)
    XCTAssertTrue(error.message.hasPrefix("There is not enough memory to write the animated PNG: its output, "), error.message)
    XCTAssertTrue(error.message.contains(" so far, could not grow to "), error.message)
    XCTAssertGreaterThan(added, 10, error.message)
  }

  /// The process's mapped address space (VmSize), in bytes.
  private func mappedBytes() throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmSize:") })
    return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
  }
}
