// ServerErrorTests.swift — the HTTP status of a failed job step: memory the system refuses while
// rendering is the server's condition (503 with Retry-After), not the request's fault (issue #28
// finding 4: under `ulimit -v` such renders were answered 422 "The image could not be produced").

import ImageCodecs
import XCTest

@testable import FilterGraph
@testable import ImageServer

final class ServerErrorTests: XCTestCase {
  func testMemoryTheSystemRefusesIsServiceUnavailable() throws {
    for stage in [RenderJobError.Stage.input, .recipe, .output] {
      let error = try XCTUnwrap(
        ImageServer.serverError(RenderJobError(stage: stage, underlying: PixelAllocationError(byteCount: 655_360))) as? ServerError)
      XCTAssertEqual(error.status, 503, "\(stage): \(error)")
      XCTAssertEqual(error.retryAfter, 5)
      XCTAssertEqual(error.message, "The server has not enough memory for this image now (655360 bytes could not be allocated). Retry later.")
    }
    // A source the decoders refuse stays the request's fault.
    let corrupt = try XCTUnwrap(
      ImageServer.serverError(RenderJobError(stage: .input, underlying: CodecError(.corrupt, "bad"))) as? ServerError)
    XCTAssertEqual(corrupt.status, 422)
  }
}
