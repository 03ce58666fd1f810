// Tests of PreparedRenderJob's async `render` (Job/PreparedRenderJob+Async.swift): the same
// bytes and warnings as the blocking render, and a cancelled task stops the render with
// `CancellationError` and leaves a file destination as it was.

import FilterGraph
import Foundation
import ImageCodecs
import TestSupport
import XCTest

final class RenderJobAsyncTests: XCTestCase {
  func testAsyncRenderGivesTheBlockingRendersBytesAndWarnings() async throws {
    let whole = try Fixtures.data("jpeg/testorig.jpg")
    for data in [whole, whole.prefix(whole.count * 2 / 5)] {
      let job = RenderJob(input: .data(data), destination: .memory, options: WriteOptions(format: .png)) { $0.scaled(by: 0.5) }
      // A renderer each: a decode the cache holds gives no warnings a second time.
      let blocking = try job.run(on: Renderer(options: RendererOptions(threads: 2)))
      let suspended = try await job.prepare(on: Renderer(options: RendererOptions(threads: 2))).render()
      XCTAssertEqual(suspended.data, blocking.data)
      XCTAssertEqual(suspended.warnings, blocking.warnings)
      XCTAssertEqual(suspended.size, blocking.size)
      XCTAssertEqual(blocking.warnings.isEmpty, data == whole)
    }
  }

  func testCancellingTheTaskStopsTheRender() async throws {
    let renderer = Renderer(options: RendererOptions(threads: 2))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("RenderJobAsyncTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let output = folder.appendingPathComponent("out.png")
    let data = try Fixtures.data("jpeg/testorig.jpg")
    for destination in [ImageDestination.memory, .file(output)] {
      let prepared = try RenderJob(input: .data(data), destination: destination, options: WriteOptions(format: .png)).prepare(on: renderer)
      nonisolated(unsafe) let job = prepared
      // The task is cancelled before it renders: the render stops at its first band, whatever
      // the machine's speed.
      let started = Once()
      let task = Task {
        await started.wait()
        return try await job.render()
      }
      task.cancel()
      started.open()
      do {
        _ = try await task.value
        XCTFail("a cancelled render finished")
      } catch let error as RenderJobError {
        XCTAssertEqual(error.stage, .output)
        XCTAssertTrue(error.underlying is CancellationError, "\(error.underlying)")
      }
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "no file, no temporary")
  }
}

/// A gate a task waits at until the test opens it.
private actor Once {
  private var opened = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  func wait() async {
    if opened { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  nonisolated func open() { Task { await self.release() } }

  private func release() {
    opened = true
    for waiter in waiters { waiter.resume() }
    waiters = []
  }
}
