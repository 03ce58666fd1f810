// GuardedMappingTests.swift — `fgrun info` maps its file; a file truncated by another process
// while its header is read is a `.truncated` error naming it, not SIGBUS (issue #28 finding 3).

@testable import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class GuardedMappingTests: XCTestCase {
  /// A JPEG mapped, then truncated to nothing before its header is parsed (between `info`'s open
  /// and its read): every page the parser reads is past the file's end. The header is refused as
  /// truncated, with the file's path; the same file untruncated reads as 64×48.
  func testAFileTruncatedBetweenOpenAndReadIsATruncatedError() throws {
    // The sanitizers handle SIGBUS themselves (ASan's handle_sigbus; TSan defers handlers).
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("guarded-\(UUID().uuidString).jpg")
    defer { try? FileManager.default.removeItem(at: url) }
    try JPEGEncoder.encode(PixelBuffer.random(width: 64, height: 48, format: .rgb8, seed: 3)).write(to: url)

    let whole = try XCTUnwrap(GuardedMapping(FileHandle(forReadingFrom: url)))
    let header = try EncodedSource(mapped: whole, url: url, identity: "whole", options: LoadOptions()).header
    XCTAssertEqual(header.size, Size(width: 64, height: 48))
    XCTAssertFalse(whole.wasTruncated)

    let mapped = try XCTUnwrap(GuardedMapping(FileHandle(forReadingFrom: url)))
    XCTAssertEqual(truncate(url.path, 0), 0)
    XCTAssertThrowsError(try EncodedSource(mapped: mapped, url: url, identity: "cut", options: LoadOptions())) { error in
      XCTAssertEqual(error as? CodecError, CodecError(.truncated, "The input file \(url.path) was truncated while it was read."))
    }
    XCTAssertTrue(mapped.wasTruncated)
  }
}
